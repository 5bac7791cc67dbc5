package cchook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"strconv"
	"strings"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// The hook events the mapping reads, as Claude Code names them in
// hook_event_name.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolBatch    = "PostToolBatch"
	SubagentStart    = "SubagentStart"
	SubagentStop     = "SubagentStop"
	SessionEnd       = "SessionEnd"
)

// Payload is one hook payload: the fields the mapping reads. Claude Code
// sends more (effort, tool_response, last_assistant_message, ...); they are
// ignored.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`
	PromptID       string `json:"prompt_id"`
	// AgentID and AgentType are set on the events of a sub-agent (and on
	// SubagentStart/SubagentStop); SessionID is then still the main
	// session's.
	AgentID   string `json:"agent_id"`
	AgentType string `json:"agent_type"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source    string          `json:"source"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
	// ToolCalls are PostToolBatch's calls.
	ToolCalls []BatchCall `json:"tool_calls"`
	// Reason is SessionEnd's (clear, logout, prompt_input_exit, other, ...).
	Reason string `json:"reason"`
	// Model is the model, for a payload that names it (2.1.328's do not).
	Model string `json:"model"`

	// inputFields are ToolInput's members, as Parse decoded them to check
	// a PreToolUse's input (checkInput), for CallInput.
	inputFields map[string]json.RawMessage
}

// BatchCall is one call of a PostToolBatch.
type BatchCall struct {
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
}

// The bounds of a payload (hookwire's: the thin hook reads with them too).
// A payload at or past them is not read, so a PreToolUse past them is
// denied.
const (
	// MaxPayload bounds a payload's bytes. A reader hands Handle up to
	// MaxPayload+1 bytes, never a payload cut to the limit.
	MaxPayload = hookwire.MaxPayload
	// MaxDepth bounds the nesting of a payload's objects and arrays.
	MaxDepth = hookwire.MaxDepth
)

// Parse reads one payload. It needs session_id and hook_event_name, and
// for PreToolUse tool_name, tool_use_id and an object tool_input whose
// primary field (Bash's command, Read's file_path, ...), when the tool has
// one, is a string (Bash's command must be there).
func Parse(raw []byte) (*Payload, error) {
	if err := CheckBounds(raw); err != nil {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("no hook payload on standard input: Claude Code sends one JSON object per hook run")
	}
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("the hook payload is not a JSON object of Claude Code's hook fields: %v", err)
	}
	// One pass over the top level, which json.Unmarshal found valid,
	// tells both what PeekAt and twinKey would (TestTopLevelAsPeekAndTwin).
	event, told, twin := topLevel(raw)
	if !told || event != p.Event {
		// encoding/json reads the last of two spellings of the key; which
		// event this is cannot be told.
		return nil, errors.New("the hook payload's hook_event_name is not one string")
	}
	if k := twin; k != "" {
		// encoding/json matches keys whatever their case and keeps the
		// last: of two spellings of tool_input, tool_name or session_id
		// the ledger would check one and Claude Code run the other.
		// Claude Code sends each key once, spelled one way
		// (TestI24CaseVariantKeysFailOpen).
		return nil, fmt.Errorf("the hook payload has the key %q twice (in any case): which one Claude Code reads cannot be told", k)
	}
	var missing []string
	if p.SessionID == "" {
		missing = append(missing, "session_id")
	}
	if p.Event == "" {
		missing = append(missing, "hook_event_name")
	}
	if p.Event == PreToolUse {
		if p.ToolName == "" {
			missing = append(missing, "tool_name")
		}
		if p.ToolUseID == "" {
			missing = append(missing, "tool_use_id")
		}
	}
	if len(missing) == 0 && p.Event == PreToolUse {
		m, err := checkInput(p.ToolName, p.ToolInput)
		if err != nil {
			return nil, err
		}
		p.inputFields = m
	}
	if (p.Event == SubagentStart || p.Event == SubagentStop) && p.AgentID == "" {
		missing = append(missing, "agent_id")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the hook payload has no %v", missing)
	}
	return &p, nil
}

// Root is the key of the payload's main session.
func (p *Payload) Root() events.SessionKey { return events.SessionKey(p.SessionID) }

// Key is the key of the session the payload is about: the sub-agent's when
// it names one, else the main session's. A key the ledger would refuse is
// an error (bad_session_key), never rewritten.
func (p *Payload) Key() (events.SessionKey, error) {
	if !events.ValidKey(p.Root()) {
		return "", events.Errorf(events.CodeBadSessionKey, "session_id %q is not a ledger session key ([A-Za-z0-9_:-]{1,200})", p.SessionID)
	}
	if p.AgentID == "" {
		return p.Root(), nil
	}
	return ChildKey(p.Root(), p.AgentID)
}

// Sub reports whether the payload is a sub-agent's.
func (p *Payload) Sub() bool { return p.AgentID != "" }

// ChildKey is the key of sub-agent agentID of the main session root.
func ChildKey(root events.SessionKey, agentID string) (events.SessionKey, error) {
	k := root + ":" + events.SessionKey(agentID)
	if agentID == "" || !events.ValidKey(k) || !validAgentID(agentID) {
		return "", events.Errorf(events.CodeBadSessionKey, "sub-agent %q of session %q makes no ledger session key ([A-Za-z0-9_:-]{1,200})", agentID, root)
	}
	return k, nil
}

// validAgentID keeps agent ids to what Claude Code writes (hex), so that one
// never names another file than its own metadata.
func validAgentID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return id != ""
}

// CheckBounds refuses a payload over MaxPayload bytes or nested more than
// MaxDepth levels deep, which Parse (and agenthook's) never decodes.
func CheckBounds(raw []byte) error {
	if len(raw) > MaxPayload {
		return fmt.Errorf("the hook payload is over %d bytes, the limit", MaxPayload)
	}
	if d := depth(raw); d > MaxDepth {
		return fmt.Errorf("the hook payload is nested more than %d levels deep, the limit", MaxDepth)
	}
	return nil
}

// TwinKey is a key the top level of raw has twice, equal but for case
// ("" when none): encoding/json reads one of the two into a struct's field
// (the last), while a runtime that matches keys exactly may read the
// other. raw must be valid JSON (json.Unmarshal has taken it). Parse
// refuses such a payload, and agenthook's Parse too.
func TwinKey(raw []byte) string {
	_, _, twin := topLevel(raw)
	return twin
}

// checkInput is CheckInput with Claude Code's tool's primary field.
func checkInput(tool string, input json.RawMessage) (map[string]json.RawMessage, error) {
	return CheckInput(input, primary[tool], requiredPrimary[tool])
}

// CheckInput makes sure a call's input can be checked, and returns its
// members: the ledger decides on an object's top-level scalars, so an input
// that is not an object, or whose primary field (field, "" for a tool
// without one; required: it must be there) is not a string, would be
// checked as if it were empty, and one with a number past float64's range
// could not be recorded at all. Claude Code's Parse checks a PreToolUse's
// input with it, and agenthook's Parse a call's of the other runtimes, each
// with its tools' primary fields.
func CheckInput(input json.RawMessage, field string, required bool) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(input); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return nil, fmt.Errorf("the call's tool_input is not a JSON object (%.40s)", input)
	}
	// The checked input is canonical JSON (RFC 8785), which has no
	// number past float64's range: such a parameter would drop the whole
	// input (TestI24NonFiniteNumberFailsOpen).
	for k, v := range m {
		if t := bytes.TrimSpace(v); len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
			if _, err := strconv.ParseFloat(string(t), 64); err != nil {
				return nil, fmt.Errorf("the call's %s is a number past what the ledger records (%.40s)", k, t)
			}
		}
	}
	f := field
	v, ok := m[f]
	if f == "" || !ok && !required {
		return m, nil
	}
	if t := bytes.TrimSpace(v); !ok || len(t) == 0 || t[0] != '"' {
		// null decodes as "" without an error: it is no string either.
		return nil, fmt.Errorf("the call's %s is not a string (%.40s)", f, v)
	}
	var str string
	if json.Unmarshal(v, &str) != nil {
		return nil, fmt.Errorf("the call's %s is not a string (%.40s)", f, v)
	}
	return m, nil
}

// topLevel reads the top level of raw, which must be valid JSON (Parse
// calls it once json.Unmarshal has taken raw), in one pass without a
// decoder: event and told are PeekAt(raw)'s Event and Told (the
// hook_event_name, every spelling of it one non-empty string, of two
// equal keys the last), twin is a key it has twice, equal but for
// case (twinKey in the tests). TestTopLevelAsPeekAndTwin
// and FuzzTopLevel hold it to them.
func topLevel(raw []byte) (event string, told bool, twin string) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return "", false, ""
	}
	var seen map[string]bool
	var names map[string][]byte // the spellings of hook_event_name, the last value of each
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '"'; {
		end := skipString(raw, i)
		k, ok := keyOf(raw[i:end])
		if !ok {
			return "", false, ""
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return "", false, ""
		}
		start := skipSpace(raw, i+1)
		i = skipValue(raw, start)
		if twin == "" {
			fold := strings.ToLower(k)
			if seen[fold] {
				twin = k
			} else {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[fold] = true
			}
		}
		if strings.EqualFold(k, "hook_event_name") {
			if names == nil {
				names = map[string][]byte{}
			}
			names[k] = raw[start:i]
		}
		if i = skipSpace(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	found := false
	for _, v := range names {
		var s string
		if json.Unmarshal(v, &s) != nil || found && s != event {
			return "", false, twin
		}
		event, found = s, true
	}
	return event, found && event != "", twin
}

// keyOf is the key a JSON string token q spells.
func keyOf(q []byte) (string, bool) {
	if len(q) < 2 {
		return "", false
	}
	plain := true
	for _, c := range q[1 : len(q)-1] {
		plain = plain && c >= 0x20 && c < 0x80 && c != '\\'
	}
	if plain {
		return string(q[1 : len(q)-1]), true
	}
	var k string
	err := json.Unmarshal(q, &k)
	return k, err == nil
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipString is the index just past the string that opens at raw[i].
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// skipValue is the index just past the value that starts at raw[i].
func skipValue(raw []byte, i int) int {
	d := 0
	for i < len(raw) {
		switch c := raw[i]; c {
		case '"':
			i = skipString(raw, i)
		case '{', '[':
			d++
			i++
		case '}', ']':
			if d == 0 {
				return i
			}
			d--
			i++
		case ',':
			if d == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if d == 0 && i < len(raw) && (raw[i-1] == '"' || raw[i-1] == '}' || raw[i-1] == ']') {
			return i
		}
	}
	return i
}

// requiredPrimary are the tools whose primary field Claude Code always
// sends.
var requiredPrimary = map[string]bool{"Bash": true, "PowerShell": true, "Monitor": true}

// depth is the deepest nesting of objects and arrays in raw, read as JSON
// (strings skipped); it stops counting past MaxDepth.
func depth(raw []byte) int {
	d, most, str, esc := 0, 0, false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case str:
			esc, str = c == '\\', c != '"'
		case c == '"':
			str = true
		case c == '{' || c == '[':
			if d++; d > most {
				if most = d; most > MaxDepth {
					return most
				}
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// Peek is what can be told of a payload Parse refuses (hookwire.Peek).
type Peek = hookwire.Peek

// PeekAt tells what it can of raw (hookwire.PeekAt).
func PeekAt(raw []byte) Peek { return hookwire.PeekAt(raw) }
