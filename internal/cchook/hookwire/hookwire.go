// Package hookwire is what a Claude Code hook process needs to answer
// Claude Code without the ledger: the answers (a PreToolUse denial, a pass
// with a message), the denials of a ledger that cannot be reached, of a
// payload that cannot be read and of a hook's internal error (a panic),
// the payload's bounds, what can be told of a
// payload without decoding it whole (PeekAt), and the headers the thin hook
// (internal/cchook/thinhook) hands `serve --hooks`. internal/cchook answers
// with these same functions, so the thin hook's messages are the NATS
// hook's, byte for byte (TestThinUnreachableMessages).
//
// Invariant: the package imports the standard library only, so that the
// thin hook's graph holds no nats.go (tests/arch TestThinHookLinksNoNATS,
// cmd/ledger-hook's TestDeps).
package hookwire

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PreToolUse is the hook event of a tool call, the one event that fails
// closed.
const PreToolUse = "PreToolUse"

// The bounds of a payload, above anything Claude Code sends for a call a
// model can make (a model's whole answer is well under 1 MiB, and no tool
// takes an input nested more than a few levels). A payload at or past them
// is not read, so a PreToolUse past them is denied.
const (
	// MaxPayload bounds a payload's bytes (Write and Edit inputs carry
	// whole files). A reader hands Handle up to MaxPayload+1 bytes, never a
	// payload cut to the limit.
	MaxPayload = 16 << 20
	// MaxDepth bounds the nesting of a payload's objects and arrays, the
	// payload itself being depth 1: well below encoding/json's own limit
	// (10000), so that the bound is the ledger's, named in the denial.
	MaxDepth = 1000
)

// DenyOutput is the PreToolUse answer that blocks the call; Claude Code
// hands reason to the model as the call's error result.
//
// It is what encoding/json's Encoder writes, HTML left unescaped, of
// {"hookSpecificOutput": {"hookEventName", "permissionDecision",
// "permissionDecisionReason"}} (TestOutputsAreEncodingJSONs).
func DenyOutput(reason string) []byte {
	const head = `{"hookSpecificOutput":{"hookEventName":"` + PreToolUse + `","permissionDecision":"deny","permissionDecisionReason":`
	b := append(make([]byte, 0, len(head)+len(reason)+16), head...)
	return append(appendString(b, reason, false), "}}"...)
}

// PassOutput is every other answer: no decision, so Claude Code goes on
// under its own rules. A non-empty warning is shown to the user as a
// systemMessage.
func PassOutput(warning string) []byte {
	if warning == "" {
		return []byte("{}")
	}
	const head = `{"systemMessage":`
	b := append(make([]byte, 0, len(head)+len(warning)+8), head...)
	return append(appendString(b, warning, false), '}')
}

// The messages below are built without fmt (a hook process that denies
// would run fmt for them alone): errText is fmt's %v of an error.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// UnreachableReason is the denial of a call made while the ledger cannot be
// reached (the hook's --unreachable deny, its default).
func UnreachableReason(where, tool string, err error) string {
	return "The session policy ledger at " + where + " cannot be reached (" + errText(err) + "), so the hook denies " + tool + " (it fails closed: --unreachable deny). Start the ledger, or run the hook with --unreachable allow to let Claude Code decide alone while it is down."
}

// UnreachableAllowed is the warning of a call let through unchecked while
// the ledger cannot be reached (--unreachable allow).
func UnreachableAllowed(where, tool string, err error) string {
	return "the ledger at " + where + " cannot be reached (" + errText(err) + "): " + tool + " goes ahead unchecked (--unreachable allow)"
}

// UnreachableOther is the warning of any other event while the ledger
// cannot be reached: the event goes on.
func UnreachableOther(where, event string, err error) string {
	return "the ledger at " + where + " cannot be reached: " + errText(err) + " (nothing was recorded for this " + event + ")"
}

// PanicLog begins the log line of a panic in a hook's run (its warning,
// with the stack after it), which PanicReason tells the user to report.
const PanicLog = "internal error in the ledger hook"

// maxPanicText bounds the panic's value as the messages quote it (bytes,
// cut at a rune's start): internal/cchook's bound on a quoted parameter.
const maxPanicText = 256

// panicText is what, a panic's value as text (fmt.Sprint's), cut to
// maxPanicText.
func panicText(what string) string {
	if len(what) <= maxPanicText {
		return what
	}
	n := maxPanicText
	for n > 0 && !utf8.RuneStart(what[n]) {
		n--
	}
	return what[:n]
}

// PanicWarning is the warning of a hook run that panicked with what (the
// panic's value, as fmt.Sprint writes it); the log line that reports it
// (its stack) begins with the same words. Every command hook and `serve
// --hooks` warn with it, the thin hook included (TestThinPanicDenies).
func PanicWarning(what string) string {
	return PanicLog + " (panic: " + panicText(what) + ")"
}

// PanicReason is the denial of a call whose hook run panicked with what
// (as PanicWarning): the ledger's hook failed, not the call, and the stack
// is in its log.
func PanicReason(what string) string {
	return "The session policy ledger's hook hit an internal error (panic: " + panicText(what) + "), so it could not decide this call and denies it. " +
		"This is a bug in the ledger's hook, not in the call: make the call again, and if it happens again, report it to the ledger's maintainers with the hook's log line '" + PanicLog + "' and the stack in it (in the log of 'ledger serve --hooks', or on the hook's standard error)."
}

// UnreadableReason is what the model is told of a call whose payload the
// hook could not read (told: it could tell the payload was a PreToolUse):
// the hook denies it unchecked, and says how to make a call it can read.
func UnreadableReason(told bool, err error) string {
	what := "this call's payload"
	if !told {
		what = "this hook payload (not even which hook event it is)"
	}
	return "The session policy ledger's hook could not read " + what + ", so it denies it: " + errText(err) + ". " +
		"The ledger checks only calls it can read: a JSON object under " + strconv.Itoa(MaxPayload>>20) + " MiB, nested at most " + strconv.Itoa(MaxDepth) + " levels, " +
		"whose tool_input is an object with the tool's main parameter as a string. Make the call again with a smaller, flatter input."
}

// Peek is what can be told of a payload Parse refuses: its event, and the
// ids that name the session and the call. Told says the payload is one JSON
// object, as encoding/json reads it, whose hook_event_name is a string (in
// every spelling of the key that encoding/json would read, the same one).
// The ids are those that are strings, "" otherwise; they name the payload in
// a warning only, and are read (as far as the payload is well-formed) from
// its top level even when encoding/json cannot read the whole, so that a
// call nested too deep is named. A payload over MaxPayload is never told.
type Peek struct {
	Told                                    bool
	Event, SessionID, AgentID, Tool, CallID string
}

// PeekAt tells what it can of raw.
func PeekAt(raw []byte) Peek {
	var pk Peek
	if len(raw) > MaxPayload {
		return pk
	}
	pk.SessionID, pk.AgentID, pk.Tool, pk.CallID = topIDs(raw)
	ms, ok := objectMembers(raw)
	if !ok {
		return pk
	}
	field := func(name string) (string, bool) {
		var val string
		found := false
		for i, m := range ms {
			if !strings.EqualFold(m.key, name) || laterKey(ms[i+1:], m.key) {
				// encoding/json read a payload into a map: a key's last
				// value is its value.
				continue
			}
			// A string, or null (which leaves a string as it is).
			var s string
			switch m.value.kind {
			case '"':
				s = unquote(m.value.raw)
			case 'n':
			default:
				return "", false
			}
			if found && s != val {
				return "", false
			}
			val, found = s, true
		}
		return val, found && val != ""
	}
	pk.Event, pk.Told = field("hook_event_name")
	return pk
}

// laterKey reports whether one of ms has key.
func laterKey(ms []member, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// topIDs reads the top-level string ids of a payload token by token, which
// needs no bound on the nesting of the values it skips; it stops at the
// first thing that does not read (as encoding/json's Decoder.Token reads
// it: a number that does not fit a float64 does not).
func topIDs(raw []byte) (session, agent, tool, call string) {
	dec := lexer{data: raw, floats: true}
	if t, err := dec.next(); err != nil || t.kind != '{' {
		return
	}
	for dec.more() {
		t, err := dec.next()
		if err != nil || t.kind != '"' {
			return
		}
		k := unquote(t.raw)
		if t, err = dec.next(); err != nil {
			return
		}
		if t.kind == '"' {
			s := unquote(t.raw)
			switch strings.ToLower(k) {
			case "session_id":
				session = s
			case "agent_id":
				agent = s
			case "tool_name":
				tool = s
			case "tool_use_id":
				call = s
			}
			continue
		}
		for d := 0; ; {
			if t.kind == '{' || t.kind == '[' {
				d++
			} else if t.kind == '}' || t.kind == ']' {
				d--
			}
			if d == 0 {
				break
			}
			if d > 1<<20 {
				return
			}
			if t, err = dec.next(); err != nil {
				return
			}
		}
	}
	return
}

// The headers of the thin hook's request to `serve --hooks`: what only the
// hook process knows (the environment Claude Code gives a command hook and
// not an HTTP hook), each value escaped with EncodeHeader. The server reads
// them only from a request that carried its hook token (cchook.Handler).
const (
	// HeaderThin marks the thin hook's request; its value is "1". The
	// server then answers with HeaderExit and HeaderWarning as well.
	HeaderThin = "Ledger-Hook-Thin"
	// HeaderProjectDir is Claude Code's CLAUDE_PROJECT_DIR.
	HeaderProjectDir = "Ledger-Hook-Project-Dir"
	// HeaderAIAgent is Claude Code's AI_AGENT (its version, runtime_version).
	HeaderAIAgent = "Ledger-Hook-Ai-Agent"
	// HeaderUser is who runs Claude Code (--user-identity, else the OS user).
	HeaderUser = "Ledger-Hook-User"
	// HeaderHost is the name of the machine Claude Code runs on.
	HeaderHost = "Ledger-Hook-Host"
	// HeaderVerbose asks for HeaderResult (the hook's --verbose).
	HeaderVerbose = "Ledger-Hook-Verbose"
)

// The headers of the server's answer to the thin hook.
const (
	// HeaderExit is the exit status the hook process ends with when it is
	// not 0: "2" for a payload whose event cannot be told.
	HeaderExit = "Ledger-Hook-Exit"
	// HeaderWarning is one warning the hook prints on standard error (one
	// header per warning).
	HeaderWarning = "Ledger-Hook-Warning"
	// HeaderResult is the hook's Result as JSON, for --verbose.
	HeaderResult = "Ledger-Hook-Result"
)

// EncodeHeader escapes s for a header value (a path or a message may hold
// any byte).
func EncodeHeader(s string) string { return url.QueryEscape(s) }

// DecodeHeader reads a value EncodeHeader wrote; "" when it does not read.
func DecodeHeader(s string) string {
	v, err := url.QueryUnescape(s)
	if err != nil {
		return ""
	}
	return v
}
