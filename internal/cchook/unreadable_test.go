package cchook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// nested is a PreToolUse of Bash whose tool_input carries, beside a command
// the test policy denies, an argument nested depth arrays deep.
func nested(depth int) string {
	return `{"session_id":"` + sub + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_1",` +
		`"tool_input":{"command":"rm -rf build","x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}`
}

// call is a well-formed PreToolUse of tool with tool_input in.
func call(tool, in string) string {
	return `{"session_id":"` + sub + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_use_id":"toolu_1","tool_input":` + in + `}`
}

// unreadableCases are payloads the hook cannot read, or whose call it
// cannot check: each must be denied (issue 24).
func unreadableCases() []struct{ name, raw, reason string } {
	whole := call("Bash", `{"command":"rm -rf build"}`)
	return []struct{ name, raw, reason string }{
		{"tool_input nested past the decoder's limit", nested(9999), "could not read"},
		{"tool_input nested past MaxDepth", nested(MaxDepth + 1), "nested"},
		{"truncated", whole[:len(whole)-5], "could not read"},
		{"trailing garbage", whole + "garbage", "could not read"},
		{"two objects", whole + whole, "could not read"},
		{"hook_event_name a number", `{"session_id":"s","hook_event_name":7,"tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"rm -rf build"}}`, "could not read"},
		{"hook_event_name null", `{"session_id":"s","hook_event_name":null,"tool_name":"Bash","tool_use_id":"t","tool_input":{}}`, "could not read"},
		{"hook_event_name twice, in two cases", `{"session_id":"s","hook_event_name":"Stop","Hook_Event_Name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{}}`, "could not read"},
		{"empty", ``, "could not read"},
		{"not JSON", `not json`, "could not read"},
		{"a JSON array", `[` + whole + `]`, "could not read"},
		{"over MaxPayload", call("Bash", `{"command":"rm -rf build","pad":"`+strings.Repeat("x", MaxPayload)+`"}`), "bytes"},
		{"tool_input a string", call("Bash", `"rm -rf build"`), "tool_input"},
		{"tool_input an array", call("Bash", `["rm -rf build"]`), "tool_input"},
		{"tool_input null", call("Bash", `null`), "tool_input"},
		{"no tool_input", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t"}`, "tool_input"},
		{"Bash command an array", call("Bash", `{"command":["rm","-rf","build"]}`), "command"},
		{"Bash command a number", call("Bash", `{"command":7}`), "command"},
		{"Bash command an object", call("Bash", `{"command":{"c":"rm -rf build"}}`), "command"},
		{"Bash without a command", call("Bash", `{"description":"rm -rf build"}`), "command"},
		{"Read file_path an array", call("Read", `{"file_path":["/etc/shadow"]}`), "file_path"},
	}
}

// TestUnreadablePreToolUse: every payload the hook cannot read, that could
// be a PreToolUse, is denied, and nothing is appended; the denial says what
// to do, and the session, when the payload names one, is in the warnings.
func TestUnreadablePreToolUse(t *testing.T) {
	for _, tt := range unreadableCases() {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger(t, testDoc)
			l.must(t, start(sub), turn(sub, 1))
			res := (&Hook{L: l}).Handle(t.Context(), []byte(tt.raw))
			checkOutput(t, res, "deny", []string{tt.reason, "smaller"})
			if !res.Unreadable {
				t.Error("Result.Unreadable not set")
			}
			if len(l.log) > 0 {
				t.Errorf("appended %v", l.log)
			}
		})
	}
}

// TestUnreadableRecorded: an unreadable call whose session can be told is
// named in the warnings (the hook's stderr, the server's log).
func TestUnreadableRecorded(t *testing.T) {
	res := (&Hook{L: newLedger(t, testDoc)}).Handle(t.Context(), []byte(nested(9999)))
	checkOutput(t, res, "deny", nil)
	if res.Session != sub || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], sub) || !strings.Contains(res.Warnings[0], "toolu_1") {
		t.Fatalf("session %q, warnings %q", res.Session, res.Warnings)
	}
}

// TestReadableDeepCalls: a call nested within MaxDepth is checked (and
// denied by the policy); other events keep their answer when their event can
// be told, however deep their input.
func TestReadableDeepCalls(t *testing.T) {
	l := newLedger(t, testDoc)
	l.must(t, start(sub), turn(sub, 1))
	res := (&Hook{L: l}).Handle(t.Context(), []byte(nested(MaxDepth-2)))
	checkOutput(t, res, "deny", []string{"permission:deny"})
	if res.Unreadable {
		t.Error("a readable call is reported unreadable")
	}
	post := strings.Replace(nested(MaxDepth+10), `"PreToolUse"`, `"PostToolUse"`, 1)
	res = (&Hook{L: l}).Handle(t.Context(), []byte(post))
	checkOutput(t, res, "warn", []string{"nested"})
	for _, raw := range []string{
		`{"hook_event_name":"SubagentStart","session_id":"s"}`,
		`{"hook_event_name":"Stop","session_id":7}`,
	} {
		checkOutput(t, (&Hook{L: l}).Handle(t.Context(), []byte(raw)), "warn", nil)
	}
}

// TestHTTPOversized: a body over MaxPayload on serve --hooks is denied, not
// cut and decoded.
func TestHTTPOversized(t *testing.T) {
	l := newLedger(t, testDoc)
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: l}, Insecure: true})
	defer srv.Close()
	// A PreToolUse whose first MaxPayload bytes are a Stop: cut, it reads
	// as another event.
	stop := `{"hook_event_name":"Stop","session_id":"s"}`
	body := stop + strings.Repeat(" ", MaxPayload-len(stop)) + `{"hook_event_name":"PreToolUse"}`
	for _, b := range []string{body, call("Bash", `{"command":"rm -rf build","pad":"`+strings.Repeat("x", MaxPayload)+`"}`)} {
		resp, err := http.Post(srv.URL+HTTPPath, "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"permissionDecision":"deny"`)) {
			t.Fatalf("%d %.300s", resp.StatusCode, out)
		}
	}
}

// denyAll is a ledger that knows every session and denies every call, so
// that any PreToolUse answered with anything but a denial went unchecked.
type denyAll struct{}

func (denyAll) Tree(_ context.Context, key events.SessionKey) (*client.TreeNode, error) {
	return &client.TreeNode{Key: key, Agent: MainAgent, State: envelope.Active, Turns: 1}, nil
}
func (denyAll) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	return nil, nil
}
func (denyAll) Append(context.Context, client.Event) (client.AppendResult, error) {
	return client.AppendResult{Seq: 1}, nil
}
func (denyAll) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{Decision: envelope.Deny, Recorded: 2}, nil
}

// otherEvent reports whether raw is, by a reading independent of the
// hook's, one well-formed JSON object whose hook_event_name (in any case)
// is a string other than PreToolUse.
func otherEvent(raw []byte) bool {
	if len(raw) > MaxPayload {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	event := ""
	for k, v := range m {
		if strings.EqualFold(k, "hook_event_name") {
			s, ok := v.(string)
			if !ok || event != "" && s != event {
				return false
			}
			event = s
		}
	}
	return event != "" && event != PreToolUse
}

// FuzzPreToolUseFailsClosed: no byte string that could be a PreToolUse
// (anything but a well-formed payload of another event) is answered with
// anything but a denial.
func FuzzPreToolUseFailsClosed(f *testing.F) {
	for _, tt := range unreadableCases() {
		if len(tt.raw) < 1<<16 {
			f.Add([]byte(tt.raw))
		}
	}
	f.Add([]byte(nested(MaxDepth)))
	f.Add([]byte(call("Bash", `{"command":"echo hi"}`)))
	f.Add([]byte(`{"hook_event_name":"Stop","session_id":"s"}`))
	f.Add([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_input":"x"}`))
	h := &Hook{L: denyAll{}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res := h.Handle(context.Background(), raw)
		var out struct {
			Specific *struct {
				HookEventName, PermissionDecision string
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatalf("output %q: %v", res.Output, err)
		}
		denied := out.Specific != nil && out.Specific.HookEventName == PreToolUse && out.Specific.PermissionDecision == "deny" && res.Denied
		if !denied && !otherEvent(raw) {
			t.Fatalf("%q answered %s", raw, res.Output)
		}
	})
}

// TestHookServeHTTPRefusalsDeny: a POST the hook server will not handle (a
// wrong token, none, or another path) is answered with a denial and
// status 200, never a 401 or 404, which Claude Code takes as a
// non-blocking error that lets the call through; the hook is not run.
func TestHookServeHTTPRefusalsDeny(t *testing.T) {
	h := &Handler{Hook: nil, Token: "s3cret"}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tc := range []struct {
		name, path, token string
	}{
		{"no token", HTTPPath, ""},
		{"a wrong token", HTTPPath, "nope"},
		{"another path", "/hooks/claudecode", "s3cret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(`{"hook_event_name":"PreToolUse"}`))
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"permissionDecision":"deny"`) {
				t.Fatalf("%d %s, want 200 with a denial", resp.StatusCode, b)
			}
		})
	}
}
