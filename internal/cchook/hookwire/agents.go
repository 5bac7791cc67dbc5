package hookwire

import "strings"

// The agent runtimes the thin hook serves besides Claude Code (`ledger-hook
// --runtime codex|gemini|qwen`): their `ledger hook` subcommand, the name
// a session records, and the path `serve --hooks` takes their payloads at.
// internal/agenthook answers with the functions below, so the thin hook's
// denials are the NATS adapter's, byte for byte (agenthook's TestUnreachable
// and TestHTTPHookAnswers, thinhook's TestThinAgentUnreachable).
type Agent struct {
	Command, Name string
}

// Agents are the agent runtimes, by their command.
var Agents = map[string]Agent{
	"codex":  {"codex", "codex"},
	"gemini": {"gemini", "gemini-cli"},
	"qwen":   {"qwen", "qwen-code"},
}

// Path is where `serve --hooks` takes the runtime's hooks: /hooks/codex.
func (a Agent) Path() string { return "/hooks/" + a.Command }

// IsCall reports whether an agent runtime's event is a call to decide
// (codex's and qwen's PreToolUse, gemini's BeforeTool).
func IsCall(event string) bool { return event == PreToolUse || event == "BeforeTool" }

// DenyOutput is the runtime's denial of a call: codex and qwen read Claude
// Code's hookSpecificOutput, gemini {"decision": "deny", "reason": ...}
// (what json.Marshal writes of it: TestOutputsAreEncodingJSONs).
func (a Agent) DenyOutput(reason string) []byte {
	if a.Name == "gemini-cli" {
		const head = `{"decision":"deny","reason":`
		b := append(make([]byte, 0, len(head)+len(reason)+8), head...)
		return append(appendString(b, reason, true), '}')
	}
	return DenyOutput(reason)
}

// UnreachableReason is the denial of a call while the ledger cannot be
// reached (--unreachable deny, the default).
func (a Agent) UnreachableReason(where, tool string, err error) string {
	return "The session policy ledger at " + where + " cannot be reached (" + errText(err) + "), so the hook denies " + tool + " (it fails closed: --unreachable deny). Start the ledger, or run 'ledger hook " + a.Command + "' with --unreachable allow to let " + a.Name + " decide alone while it is down."
}

// The headers of the thin hook of an agent runtime, beside HeaderUser and
// HeaderHost (read, like them, only from a request with the hook token).
const (
	// HeaderScope is the hook's --scope: the scope the sessions it starts
	// are bound to.
	HeaderScope = "Ledger-Hook-Scope"
	// HeaderUnreachable is "allow" for a hook run with --unreachable
	// allow: a call goes ahead unchecked if the server cannot reach the
	// ledger either.
	HeaderUnreachable = "Ledger-Hook-Unreachable"
	// HeaderAnswer marks an answer of `serve --hooks` in an agent
	// runtime's format: the path whose runtime it answers for
	// (Agent.Path). The thin hook of that runtime takes no answer
	// without it, so that an empty body it did not send (a 204, a
	// Content-Length of 0, a connection closed after the headers) or
	// another runtime's answer never reads as "no opinion"
	// (TestThinAgentNeedsAnswerMark).
	HeaderAnswer = "Ledger-Hook-Answer"
)

// RuntimePath reports whether path is where `serve --hooks` takes one
// runtime's hooks (/hooks/claude-code, /hooks/codex, ...) and which: its
// command ("claude-code", "codex", ...).
func RuntimePath(path string) (string, bool) {
	name, ok := strings.CutPrefix(strings.TrimSuffix(path, "/"), "/hooks/")
	if !ok {
		return "", false
	}
	if _, agent := Agents[name]; agent || name == "claude-code" {
		return name, true
	}
	return "", false
}

// ValidScope reports whether s is a scope name (events.ValidScope: 1 to
// 128 of A-Z a-z 0-9 _ : -), checked here without the events package.
func ValidScope(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
