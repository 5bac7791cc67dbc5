// Package agenthook attaches the Codex CLI (0.169.0), the Gemini CLI
// (0.61.0) and Qwen Code (0.24.4) to the ledger through their command hooks, the way
// internal/cchook attaches Claude Code: each hook payload is mapped to
// ledger events through the Go client (a session started with its
// identity, a turn, a sub-agent spawned where the payload can tell its
// parent, a call checked and its effect started in one record, the session
// ended), and a call the ledger denies is answered with a denial in the
// runtime's own format, naming the reason and the `ledger why` to run.
//
// Both runtimes run a call whose hook fails, crashes or times out, so the
// hook never fails that way on purpose: every error of its own, a panic
// among them, an unreachable ledger (unless --unreachable allow) and a run
// past its deadline answer a call with a denial (HandleWithin). A call's
// payload is read as Claude Code's hook reads one (Parse: cchook's bounds,
// twin keys and input checks), and one it cannot read is denied and
// recorded as unreadable (cchook.RecordUnreadable), never checked with no
// input.
//
// The sessions' scope must hold a policy of the ledger dialect
// (envelope/ledgerpolicy); a call of a session whose scope has none, or one
// of another dialect, is denied with the command that sets one.
//
// docs/codex-cli-hooks.md, docs/gemini-cli-hooks.md and
// docs/qwen-code-hooks.md describe the mapping and what each runtime's payloads cannot tell.
package agenthook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// Dialect is the dialect a runtime's scope must have a policy in.
const Dialect = "ledger"

// Runtime is one runtime the package maps.
type Runtime struct {
	// Name is the runtime as session.started records it.
	Name string
	// Command is the `ledger hook` subcommand that runs it.
	Command string
}

// The runtimes.
var (
	Codex  = Runtime{Name: "codex", Command: "codex"}
	Gemini = Runtime{Name: "gemini-cli", Command: "gemini"}
	Qwen   = Runtime{Name: "qwen-code", Command: "qwen"}
)

// claudeShaped reports whether the runtime's hooks are Claude Code's
// events and answers (codex, qwen), as opposed to gemini's.
func (rt Runtime) claudeShaped() bool { return rt.Name != Gemini.Name }

// Options configure a Hook; the zero value of a field is its default.
type Options struct {
	// Scope is the scope every root the hook starts is bound to; ""
	// derives it from the project (ScopeOf).
	Scope string
	// Unreachable is what a call is answered when the ledger cannot be
	// reached; default deny.
	Unreachable cchook.Unreachable
	// Why is the command prefix a denial prints; default "ledger why".
	Why []string
	// Where names the ledger in messages (its NATS URL).
	Where string
	// Who says who runs the runtime and where; nil: unknown.
	Who func() cchook.Who
	// Locate finds the project of a cwd; default cchook.LocateProject.
	Locate func(dir string) cchook.Location
	// SpawnWait is how long a codex sub-agent's call whose spawn is not
	// recorded yet waits for it (its parent's PostToolUse of spawn_agent
	// may still be running); default 2s, bounded by the run's deadline.
	SpawnWait time.Duration
}

// Hook maps the payloads of one runtime against one ledger. It holds no
// state between payloads.
type Hook struct {
	Runtime Runtime
	L       cchook.Ledger
	Opts    Options
}

// Result is what handling one payload did and answers; Output is the
// hook's standard output (empty: no opinion, which both runtimes read as
// "go on").
type Result = cchook.Result

// The events of both runtimes the mapping reads.
const (
	SessionStart     = "SessionStart"
	SessionEnd       = "SessionEnd"
	UserPromptSubmit = "UserPromptSubmit" // codex
	PreToolUse       = "PreToolUse"       // codex
	PostToolUse      = "PostToolUse"      // codex
	SubagentStart    = "SubagentStart"    // codex
	BeforeAgent      = "BeforeAgent"      // gemini
	BeforeTool       = "BeforeTool"       // gemini
)

// Payload is the fields of both runtimes' payloads the mapping reads.
type Payload struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	Event          string          `json:"hook_event_name"`
	TranscriptPath string          `json:"transcript_path"`
	Model          string          `json:"model"`
	PermissionMode string          `json:"permission_mode"`
	Source         string          `json:"source"`
	TurnID         string          `json:"turn_id"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolCallID     string          `json:"tool_call_id"` // qwen: the model's call id
	PromptID       string          `json:"prompt_id"`    // qwen: <session>########<n>, one per user prompt
	ToolResponse   json.RawMessage `json:"tool_response"`
	AgentID        string          `json:"agent_id"`
	AgentType      string          `json:"agent_type"`
	Reason         string          `json:"reason"`
	Timestamp      string          `json:"timestamp"`
}

// Parse reads a payload of rt: one JSON object under cchook.MaxPayload
// bytes, nested at most cchook.MaxDepth levels, with session_id and
// hook_event_name, no top-level key twice in any case (cchook.TwinKey:
// encoding/json would read one of tool_input and Tool_Input, the runtime
// the other), and for a call tool_name and a tool_input that
// cchook.CheckInput takes with the tool's primary field (an object; its
// primary field, when there, a string, and there for the shell and patch
// tools; no number past float64's range). Anything else the ledger would
// check as if the call had no input, or another input than the one the
// runtime runs (TestAgentInputChecks).
func Parse(rt Runtime, raw []byte) (*Payload, error) {
	if err := cchook.CheckBounds(raw); err != nil {
		return nil, err
	}
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("the hook payload is not a JSON object: %v", err)
	}
	if k := cchook.TwinKey(raw); k != "" {
		return nil, fmt.Errorf("the hook payload has the key %q twice (in any case): which one %s reads cannot be told", k, rt.Name)
	}
	if p.SessionID == "" || p.Event == "" {
		return nil, errors.New("the hook payload has no session_id or hook_event_name")
	}
	if p.isCall() {
		if p.ToolName == "" {
			return nil, errors.New("the call's payload has no tool_name")
		}
		if _, err := cchook.CheckInput(p.ToolInput, primaryOf(rt, p.ToolName), requiredPrimary[p.ToolName]); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// requiredPrimary are the tools whose primary field the runtimes always
// send: their shell's command, and codex's patch.
var requiredPrimary = map[string]bool{"Bash": true, "apply_patch": true, "run_shell_command": true}

// Root is the key of the payload's main session: its session_id, which a
// key must be as it is ([A-Za-z0-9_:-]{1,200}); never rewritten.
func (p *Payload) Root() (events.SessionKey, error) {
	k := events.SessionKey(p.SessionID)
	if !events.ValidKey(k) {
		return "", events.Errorf(events.CodeBadSessionKey, "session_id %q is not a ledger session key ([A-Za-z0-9_:-]{1,200})", p.SessionID)
	}
	return k, nil
}

// isCall reports whether the payload is a call to decide.
func (p *Payload) isCall() bool { return p.Event == PreToolUse || p.Event == BeforeTool }

// maxIDPart bounds the ids a payload contributes to keys and call ids.
const maxIDPart = 128

// validID is an id the ledger takes as part of a key or a call id.
func validID(id string) bool {
	if id == "" || len(id) > maxIDPart {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// DenyOutput is the runtime's denial of a call: codex reads Claude Code's
// hookSpecificOutput (permissionDecision "deny" with a non-empty reason),
// gemini {"decision": "deny", "reason": ...}.
func (rt Runtime) DenyOutput(reason string) []byte {
	return rt.wire().DenyOutput(reason)
}

// wire is the runtime as hookwire (the thin hook's package) names it: the
// denials live there so that ledger-hook answers them without this package.
func (rt Runtime) wire() hookwire.Agent { return hookwire.Agents[rt.Command] }

// Handle maps one payload and answers it; it never returns an error: what
// went wrong is in the answer (a call denied) and in Warnings.
func (h *Hook) Handle(ctx context.Context, raw []byte) *Result {
	res := &Result{Appended: []cchook.Appended{}}
	p, err := Parse(h.Runtime, raw)
	if err != nil {
		pk := hookwire.PeekAt(raw)
		res.Warnings = append(res.Warnings, err.Error())
		if pk.Told && !hookwire.IsCall(pk.Event) {
			res.Event = pk.Event
			return res
		}
		h.unreadable(ctx, res, pk, raw, err)
		return res
	}
	res.Event = p.Event
	r := &run{h: h, p: p, res: res}
	if p.isCall() {
		r.call(ctx)
		return res
	}
	if err := r.other(ctx); err != nil {
		if unreachable(err) {
			res.Unreachable = true
			r.warn("the ledger at %s cannot be reached: %v (nothing was recorded for this %s)", h.where(), err, p.Event)
		} else {
			r.warn("%v", err)
		}
	}
	return res
}

// unreadable denies a payload that could be a call and cannot be read (a
// call that cannot be read cannot be decided), and records the denial as
// Claude Code's hook does (cchook.RecordUnreadable): on the session the
// payload's top level names, at its current turn, under the call's id
// when the payload tells it (codex's tool_use_id, qwen's tool_call_id;
// gemini's calls have none). TestAgentUnreadableRecorded guards it.
func (h *Hook) unreadable(ctx context.Context, res *Result, pk hookwire.Peek, raw []byte, err error) {
	rt := h.Runtime
	if pk.Told {
		res.Event = pk.Event
	}
	if root := events.SessionKey(pk.SessionID); events.ValidKey(root) {
		res.Session = root
		if rt.claudeShaped() && pk.AgentID != "" {
			res.Session, _ = cchook.ChildKey(root, pk.AgentID)
		}
	}
	res.Denied, res.Unreadable = true, true
	res.Reason = cchook.UnreadableReason(pk.Told, err)
	res.Output = rt.DenyOutput(res.Reason)
	call := ""
	switch rt.Name {
	case Codex.Name:
		call = pk.CallID
	case Qwen.Name:
		// Qwen's tool_use_id is its own; the call's id is tool_call_id.
		var ids struct {
			ToolCallID string `json:"tool_call_id"`
		}
		if json.Unmarshal(raw, &ids) == nil {
			call = ids.ToolCallID
		}
	}
	cchook.RecordUnreadable(ctx, h.L, res, pk.Tool, call, err)
}

// HandleWithin is Handle answered by ctx's deadline plus grace at the
// latest: past it a call is denied unchecked (Overdue), since both runtimes
// run a call whose hook is killed at their timeout. The run goes on in its
// goroutine, its requests failing with ctx (TestDeadlineDenies). A run that
// panics is answered as Panicked (TestAgentPanicDenies).
func (h *Hook) HandleWithin(ctx context.Context, raw []byte, grace time.Duration) *Result {
	return cchook.Within(ctx, grace, func() *Result { return h.Handle(ctx, raw) }, func() *Result { return h.Overdue(raw) },
		func(v any, stack []byte) *Result { return h.Panicked(raw, v, stack) })
}

// Panicked is the answer to a payload whose run panicked (v, with its
// stack), in the runtime's format: a call, or what cannot be told from
// one, denied with cchook.PanicReason; anything else goes on (no opinion)
// with a warning. The stack is in Result.Stack, for the log, never in the
// answer.
func (h *Hook) Panicked(raw []byte, v any, stack []byte) *Result {
	ev := peekEvent(raw)
	res := &Result{Appended: []cchook.Appended{}, Event: ev, Stack: stack, Warnings: []string{cchook.PanicWarning(v)}}
	if ev != "" && !hookwire.IsCall(ev) {
		return res
	}
	res.Denied = true
	res.Reason = cchook.PanicReason(v)
	res.Output = h.Runtime.DenyOutput(res.Reason)
	return res
}

// Overdue is the answer to a payload not handled in time: a call (or what
// cannot be told from one) denied, anything else goes on.
func (h *Hook) Overdue(raw []byte) *Result {
	ev := peekEvent(raw)
	res := &Result{Appended: []cchook.Appended{}, Event: ev}
	msg := fmt.Sprintf("the hook did not finish within its --timeout (the ledger at %s did not answer in time)", h.where())
	res.Warnings = []string{msg}
	if ev != "" && !hookwire.IsCall(ev) {
		return res
	}
	res.Denied = true
	res.Reason = fmt.Sprintf("The session policy ledger's hook could not decide this call in time, so it denies it: %s. Make the call again; if it keeps happening, raise the hook's --timeout (and the hook timeout in the %s configuration above it), or run it with --unreachable allow to let %s decide alone while the ledger is slow.", msg, h.Runtime.Name, h.Runtime.Name)
	res.Output = h.Runtime.DenyOutput(res.Reason)
	return res
}

// peekEvent is the payload's hook_event_name when it can be told
// (hookwire.PeekAt: one JSON object, every spelling of the key the same
// string), "" otherwise: what cannot be told may be a call.
func peekEvent(raw []byte) string {
	if pk := hookwire.PeekAt(raw); pk.Told {
		return pk.Event
	}
	return ""
}

func (h *Hook) where() string {
	if h.Opts.Where != "" {
		return h.Opts.Where
	}
	return "its NATS server"
}

// unreachable reports whether err says the ledger could not be reached:
// a transport failure only (cchook.Unreached), so that anything else
// denies a call with its cause whatever --unreachable says
// (TestOverMaxPayloadDeniesAgents).
func unreachable(err error) bool { return cchook.Unreached(err) }

// UnreachableReason is the denial of a call while the ledger cannot be
// reached (--unreachable deny, the default).
func (rt Runtime) UnreachableReason(where, tool string, err error) string {
	return rt.wire().UnreachableReason(where, tool, err)
}

// NoPolicyReason is the denial of a call of a session whose scope has no
// ledger-dialect policy.
func NoPolicyReason(key events.SessionKey, tool, scope, why string) string {
	return fmt.Sprintf("The session policy ledger cannot decide %s for session %s, so the hook denies it: %s. Set the scope's policy in the ledger dialect: %s",
		tool, key, why, shellquote.Join("ledger", "policy", "set", "--dialect", Dialect, "--scope", events.ScopeName(scope), "FILE"))
}

// CallID derives a call id for a payload that names none (gemini's
// BeforeTool): the session, the payload's timestamp, the tool and its
// input, hashed. A payload delivered twice gets the same id (its record
// lands once); two calls differ by their timestamp (milliseconds) or
// their input. TestGeminiCallID guards it.
func CallID(session, timestamp, tool string, input json.RawMessage) string {
	canon, err := events.CanonicalJSON(input)
	if err != nil || len(input) == 0 {
		canon = input
	}
	sum := sha256.Sum256([]byte("gemini-call\x00" + session + "\x00" + timestamp + "\x00" + tool + "\x00" + string(canon)))
	return "gemini-" + hex.EncodeToString(sum[:12])
}

// promptBasis derives the basis of a gemini turn from its BeforeAgent: the
// timestamp and the prompt, hashed.
func promptBasis(timestamp, prompt string) string {
	sum := sha256.Sum256([]byte(timestamp + "\x00" + prompt))
	return "prompt:" + hex.EncodeToString(sum[:12])
}
