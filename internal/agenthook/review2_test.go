package agenthook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/ledgerpolicy"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/thinhook"
)

// rmFixture is a fixture whose scope's policy allows the runtime's shell and
// denies rm under it, with a session started and its first turn: a call
// checked without its input (or with another input than the runtime
// runs) is allowed, the same call read whole is denied.
func rmFixture(t *testing.T, rt Runtime) *fixture {
	t.Helper()
	f := newFixture(t, rt, "")
	runtime, shell, turn := "codex@0.169.0", "Bash", "UserPromptSubmit"
	switch rt.Name {
	case Gemini.Name:
		runtime, shell, turn = "gemini@0.61.0", "run_shell_command", "BeforeAgent"
	case Qwen.Name:
		runtime, shell = "qwen@0.24.4", "run_shell_command"
	}
	cat, ok := ledgerpolicy.Catalogue(runtime)
	if !ok {
		t.Fatalf("no catalogue for %s", runtime)
	}
	doc, _ := json.Marshal(map[string]any{"runtime": runtime, "permissions": map[string]any{"allow": []string{shell}, "deny": []string{shell + "(rm *)"}}})
	f.append(client.SetPolicy(events.PolicySetData{Dialect: Dialect, Document: doc, Catalogue: cat, Scope: "proj"}))
	for _, name := range []string{"SessionStart", turn} {
		if res := f.handle(name, nil); res.Denied || len(res.Warnings) > 0 {
			t.Fatalf("%s %s: %+v", rt.Name, name, res)
		}
	}
	return f
}

// shellCall is the recorded shell call of rt, with edit applied.
func shellCall(rt Runtime) string {
	switch rt.Name {
	case Gemini.Name:
		return "BeforeTool-run_shell_command"
	case Qwen.Name:
		return "PreToolUse-run_shell_command"
	}
	return "PreToolUse-Bash"
}

// TestAgentInputChecks: agenthook.Parse refuses what cchook's Parse
// refuses of a call's input (cchook.CheckInput, cchook.TwinKey), so a call
// whose input the ledger would check as if it had none, or another input
// than the one the runtime runs, is denied as unreadable, in the
// runtime's format, never allowed; the same rm read whole is denied by the
// policy, and an echo allowed. Before the fix each of these rm calls was
// allowed.
func TestAgentInputChecks(t *testing.T) {
	for _, rt := range []Runtime{Codex, Gemini, Qwen} {
		f := rmFixture(t, rt)
		deny := codexDeny
		if rt.Name == Gemini.Name {
			deny = geminiDeny
		}
		base := recorded(t, rt, shellCall(rt), f.base, "2026-12-02T10:00:01.000Z", nil)
		n := 0
		// The call with tool_input in, and an id of its own (gemini's
		// derives from the timestamp).
		withInput := func(in string) []byte {
			var m map[string]json.RawMessage
			must(t, json.Unmarshal(base, &m))
			m["tool_input"] = json.RawMessage(in)
			n++
			for k, v := range map[string]string{"tool_use_id": fmt.Sprintf("call_%d", n), "tool_call_id": fmt.Sprintf("call_q%d", n), "timestamp": fmt.Sprintf("2026-12-02T10:00:02.%03dZ", n)} {
				if _, ok := m[k]; ok {
					m[k], _ = json.Marshal(v)
				}
			}
			b, _ := json.Marshal(m)
			return b
		}
		// Twin keys are written by hand: a map cannot hold both.
		twin := func(in, key, other string) []byte {
			b := withInput(in)
			return append(b[:len(b)-1], []byte(`,"`+key+`":`+other+`}`)...)
		}
		for _, tc := range []struct {
			name string
			raw  []byte
			want string // in the reason
		}{
			{"tool_input twice, in two cases", twin(`{"command":"rm -rf x"}`, "Tool_Input", `{"command":"echo hi"}`), `"Tool_Input" twice`},
			{"tool_name twice, in two cases", twin(`{"command":"rm -rf x"}`, "TOOL_NAME", `"read_file"`), `"TOOL_NAME" twice`},
			{"command an array", withInput(`{"command":["rm","-rf","x"]}`), "command is not a string"},
			{"command null", withInput(`{"command":null}`), "command is not a string"},
			{"command a number", withInput(`{"command":7}`), "command is not a string"},
			{"no command", withInput(`{"description":"rm -rf x"}`), "command is not a string"},
			{"a number past float64", withInput(`{"command":"rm -rf x","timeout":1e999}`), "number past"},
			{"a 400-digit number", withInput(`{"command":"rm -rf x","timeout":1` + strings.Repeat("0", 400) + `}`), "number past"},
			{"tool_input a string", withInput(`"rm -rf x"`), "not a JSON object"},
			{"tool_input null", withInput(`null`), "not a JSON object"},
		} {
			res := f.h.Handle(context.Background(), tc.raw)
			if !res.Denied || !res.Unreadable || res.Decision != "" {
				t.Errorf("%s, %s: denied %v, unreadable %v, decision %q: %s", rt.Name, tc.name, res.Denied, res.Unreadable, res.Decision, res.Output)
				continue
			}
			if r := deny(t, res.Output); !strings.Contains(r, "could not read") || !strings.Contains(r, tc.want) {
				t.Errorf("%s, %s: reason %q, want it to say %q", rt.Name, tc.name, r, tc.want)
			}
		}
		if res := f.h.Handle(context.Background(), withInput(`{"command":"rm -rf x"}`)); !res.Denied || res.Unreadable || !strings.Contains(deny(t, res.Output), "permissions:deny") {
			t.Errorf("%s: rm read whole: %+v", rt.Name, res)
		}
		if res := f.h.Handle(context.Background(), withInput(`{"command":"echo hi","timeout":5}`)); res.Denied {
			t.Errorf("%s: echo: %s", rt.Name, res.Reason)
		}
	}
}

// TestAgentUnreadableRecorded: an unreadable call of a session the ledger
// knows, with a turn, is recorded as Claude Code's hook records one
// (cchook.RecordUnreadable): a tool.checked the ledger decides deny,
// unreadable:payload, under the call's id (codex's tool_use_id, qwen's
// tool_call_id), once however often it is delivered; a session the ledger
// does not know is named in the warnings.
func TestAgentUnreadableRecorded(t *testing.T) {
	for _, tc := range []struct {
		rt   Runtime
		call string
	}{{Codex, "call_sh"}, {Qwen, ""}, {Gemini, ""}} {
		f := rmFixture(t, tc.rt)
		raw := recorded(t, tc.rt, shellCall(tc.rt), f.base, "2026-12-02T10:00:01.000Z", map[string]any{"tool_input": map[string]any{"command": []string{"rm", "-rf", "x"}}})
		call := tc.call
		if tc.rt.Name == Qwen.Name {
			var p Payload
			must(t, json.Unmarshal(raw, &p))
			call = p.ToolCallID
		}
		for i := 0; i < 2; i++ {
			res := f.h.Handle(context.Background(), raw)
			if !res.Denied || !res.Unreadable || len(res.Appended) != 1 || res.Appended[0].Type != events.ToolChecked || res.Session != root {
				t.Fatalf("%s, delivery %d: %+v", tc.rt.Name, i, res)
			}
			if call != "" && (i == 1) != res.Appended[0].Duplicate {
				t.Errorf("%s, delivery %d: duplicate %v", tc.rt.Name, i, res.Appended[0].Duplicate)
			}
		}
		if call != "" {
			w, err := f.c.WhyCall(context.Background(), call)
			if err != nil || w.Call == nil || w.Call.Record.Decision != envelope.Deny || w.Call.Record.Reason.Code != "unreadable:payload" {
				t.Errorf("%s: why --call %s: %+v %v", tc.rt.Name, call, w.Call, err)
			}
		}
		other := recorded(t, tc.rt, shellCall(tc.rt), f.base, "2026-12-02T10:00:01.000Z", map[string]any{"session_id": "unknown-session", "tool_input": map[string]any{"command": 7}})
		res := f.h.Handle(context.Background(), other)
		if !res.Denied || len(res.Appended) != 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "unchecked and unrecorded") || !strings.Contains(strings.Join(res.Warnings, "\n"), "unknown-session") {
			t.Errorf("%s: a session the ledger does not know: %+v", tc.rt.Name, res)
		}
	}
}

// TestCallInputFailsClosed: an input CallInput cannot record (a number
// past float64's range, which canonical JSON cannot write; an input that is
// not an object) is an error, never no input, which the ledger would check
// as a call without its command; an input with no scalar is none.
func TestCallInputFailsClosed(t *testing.T) {
	for _, in := range []string{`{"command":"rm -rf x","timeout":1e999}`, `{"command":"rm -rf x","n":-1e400}`, `"rm -rf x"`, `null`, `[1]`, ``} {
		if got, err := CallInput(Codex, "Bash", json.RawMessage(in)); err == nil {
			t.Errorf("%s: %s, no error", in, got)
		}
	}
	if got, err := CallInput(Codex, "Bash", json.RawMessage(`{"command":"rm -rf x","timeout":5}`)); err != nil || string(got) != `{"command":"rm -rf x","timeout":5}` {
		t.Errorf("a readable input: %s %v", got, err)
	}
	if got, err := CallInput(Codex, "spawn_agent", json.RawMessage(`{"items":[1]}`)); err != nil || got != nil {
		t.Errorf("an input with no scalar: %s %v", got, err)
	}
}

// panicLedger panics on every request: an internal error of the hook's
// run.
type panicLedger struct{}

func (panicLedger) Tree(context.Context, events.SessionKey) (*client.TreeNode, error) {
	panic("a nil the run did not expect")
}
func (panicLedger) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	panic("a nil the run did not expect")
}
func (panicLedger) Append(context.Context, client.Event) (client.AppendResult, error) {
	panic("a nil the run did not expect")
}
func (panicLedger) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	panic("a nil the run did not expect")
}
func (panicLedger) Start(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	panic("a nil the run did not expect")
}

// TestAgentPanicDenies: a hook run that panics denies a call in the
// runtime's format, the reason naming an internal error of the ledger's
// hook and saying to report it with the log line, and lets any other event
// go on (no opinion) with a warning, through HandleWithin and through
// serve --hooks and the thin hook (before the fix the panic ended the
// server, and the thin hook then denied as unreachable, or with
// --unreachable allow let the call run).
func TestAgentPanicDenies(t *testing.T) {
	base := t.TempDir()
	ts := "2026-12-02T10:00:00.000Z"
	codexCall, geminiCall := recorded(t, Codex, "PreToolUse-Bash", base, ts, nil), recorded(t, Gemini, "BeforeTool-run_shell_command", base, ts, nil)
	prompt := recorded(t, Gemini, "BeforeAgent", base, ts, nil)
	codex, gemini := &Hook{Runtime: Codex, L: panicLedger{}}, &Hook{Runtime: Gemini, L: panicLedger{}}
	res := codex.HandleWithin(context.Background(), codexCall, time.Second)
	if r := codexDeny(t, res.Output); !res.Denied || !strings.Contains(r, "internal error") || !strings.Contains(r, "report it") || len(res.Stack) == 0 {
		t.Errorf("codex call: %+v", res)
	}
	res = gemini.HandleWithin(context.Background(), geminiCall, time.Second)
	if r := geminiDeny(t, res.Output); !res.Denied || !strings.Contains(r, "internal error") {
		t.Errorf("gemini call: %+v", res)
	}
	res = gemini.HandleWithin(context.Background(), prompt, time.Second)
	if res.Denied || len(res.Output) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "internal error in the ledger hook") {
		t.Errorf("gemini BeforeAgent: %+v", res)
	}

	const token = "0123456789abcdef-token"
	t.Setenv("TOK", token)
	srv := httptest.NewServer(&cchook.Handler{Hook: &cchook.Hook{}, Token: token, Paths: map[string]cchook.PathHook{
		Codex.Path(): &HTTPHook{Hook: codex}, Gemini.Path(): &HTTPHook{Hook: gemini}}})
	defer srv.Close()
	thin := func(rt Runtime, payload []byte) (string, string, error) {
		var out, errOut bytes.Buffer
		err := thinhook.Run(context.Background(), "ledger-hook", []string{"--runtime", rt.Command, "--hooks", srv.URL, "--token-env", "TOK", "--unreachable", "allow"}, bytes.NewReader(payload), &out, &errOut)
		return out.String(), errOut.String(), err
	}
	if out, errOut, err := thin(Codex, codexCall); err != nil || !strings.Contains(codexDeny(t, []byte(out)), "internal error") {
		t.Errorf("codex call through serve --hooks: %q %q %v", out, errOut, err)
	}
	if out, errOut, err := thin(Gemini, prompt); err != nil || out != "" || !strings.Contains(errOut, "internal error in the ledger hook") {
		t.Errorf("gemini BeforeAgent through serve --hooks: %q %q %v", out, errOut, err)
	}
}

// TestAgentRefusalPassesOtherEvents: a request serve --hooks refuses (here
// a wrong token) is answered, for an event that is not a call (a
// SessionStart, gemini's BeforeAgent, which a denial would block: the
// user's prompt), with the runtime's pass answer (no output) and a warning
// on the thin hook's standard error saying nothing was recorded; a call
// is still denied in the runtime's format.
func TestAgentRefusalPassesOtherEvents(t *testing.T) {
	base := t.TempDir()
	ts := "2026-12-02T10:00:00.000Z"
	const token = "0123456789abcdef-token"
	srv := httptest.NewServer(&cchook.Handler{Hook: &cchook.Hook{}, Token: token, Paths: map[string]cchook.PathHook{
		Codex.Path(): &HTTPHook{Hook: &Hook{Runtime: Codex, L: panicLedger{}}}, Gemini.Path(): &HTTPHook{Hook: &Hook{Runtime: Gemini, L: panicLedger{}}}}})
	defer srv.Close()
	t.Setenv("TOK", "wrong-wrong-wrong-token")
	for _, tc := range []struct {
		rt   Runtime
		name string
		deny func(*testing.T, []byte) string
	}{
		{Gemini, "BeforeAgent", nil},
		{Gemini, "SessionStart", nil},
		{Codex, "SessionStart", nil},
		{Codex, "UserPromptSubmit", nil},
		{Gemini, "BeforeTool-run_shell_command", geminiDeny},
		{Codex, "PreToolUse-Bash", codexDeny},
	} {
		var out, errOut bytes.Buffer
		err := thinhook.Run(context.Background(), "ledger-hook", []string{"--runtime", tc.rt.Command, "--hooks", srv.URL, "--token-env", "TOK"}, bytes.NewReader(recorded(t, tc.rt, tc.name, base, ts, nil)), &out, &errOut)
		if err != nil {
			t.Errorf("%s %s: %v", tc.rt.Name, tc.name, err)
			continue
		}
		if tc.deny != nil {
			if r := tc.deny(t, out.Bytes()); !strings.Contains(r, "no valid 'Authorization: Bearer' token") {
				t.Errorf("%s %s: %q", tc.rt.Name, tc.name, r)
			}
			continue
		}
		if out.Len() != 0 || !strings.Contains(errOut.String(), "nothing was recorded for this "+strings.SplitN(tc.name, "-", 2)[0]) || !strings.Contains(errOut.String(), "no valid 'Authorization: Bearer' token") {
			t.Errorf("%s %s refused: %q %q, want no output and the warning", tc.rt.Name, tc.name, out.String(), errOut.String())
		}
	}
}

// TestAgentOwnIsWhatInstallWrites: another program's `hook codex stop`
// is not the ledger's handler, so install and uninstall leave it alone;
// what install writes is (found by the install review).
func TestAgentOwnIsWhatInstallWrites(t *testing.T) {
	for _, c := range []struct {
		cmd string
		own bool
	}{
		{"ledger hook codex --nats nats://127.0.0.1:4222", true},
		{"'/opt/ledger' hook codex", true},
		{"ledger-hook --runtime codex --hooks unix:/run/l.sock", true},
		{"npx -y @acme/agent-telemetry hook codex stop", false},
	} {
		if got := Codex.Own(map[string]any{"type": "command", "command": c.cmd}); got != c.own {
			t.Errorf("Own(%q) = %v, want %v", c.cmd, got, c.own)
		}
	}
}
