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
	"github.com/sessionledger/ledger/projection"
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
		{"no tool_use_id: nothing to record the call under", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "no [tool_use_id]"},
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
// be a PreToolUse, is denied; what is appended is one tool.checked that
// records the denial (Unreadable, no input: issue 24 asks that the hook
// record it, where it once appended nothing); the denial says what to do.
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
			if PeekAt([]byte(tt.raw)).SessionID != sub {
				// No session to record it on.
				if len(l.log) > 0 {
					t.Errorf("appended %v", l.log)
				}
				return
			}
			if len(l.log) != 1 || !strings.HasPrefix(l.log[0], "tool.checked "+sub) || !strings.Contains(l.log[0], `"unreadable":`) || strings.Contains(l.log[0], `"input"`) {
				t.Errorf("appended %v", l.log)
			}
		})
	}
}

// TestUnreadableNamed: an unreadable call whose session can be told, and
// the ledger does not know, is named in the warnings (the hook's stderr,
// the server's log).
func TestUnreadableNamed(t *testing.T) {
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

func (denyAll) Start(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
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

// decidedLedger is a svcLedger that keeps what the ledger decided of each
// tool.checked appended through Append.
type decidedLedger struct {
	*svcLedger
	decided    []string
	duplicates int
}

func (d *decidedLedger) Append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	r, err := d.svcLedger.append(ctx, ev)
	if err == nil && ev.Type == events.ToolChecked {
		d.decided = append(d.decided, string(r.Decided))
		if r.Duplicate {
			d.duplicates++
		}
	}
	return client.AppendResult{Seq: r.Seq, ID: r.ID, Duplicate: r.Duplicate}, err
}

// TestUnreadableRecorded: an unreadable call of a session the ledger knows
// is recorded as a tool.checked the ledger decides deny
// (unreadable:payload), once however often the payload comes; one of an
// unknown session is denied and named in the warnings (issue 24, point 1:
// "it records that it denied an unreadable call").
func TestUnreadableRecorded(t *testing.T) {
	l := &decidedLedger{svcLedger: newLedger(t, testDoc)}
	l.must(t, start(sub), turn(sub, 1))
	h := &Hook{L: l}
	for range 2 {
		res := h.Handle(t.Context(), []byte(nested(MaxDepth+10)))
		checkOutput(t, res, "deny", []string{"nested"})
		if len(res.Appended) != 1 || res.Appended[0].Type != events.ToolChecked {
			t.Fatalf("appended %+v, warnings %v", res.Appended, res.Warnings)
		}
	}
	if len(l.decided) != 2 || !strings.Contains(l.decided[0], `"decision":"deny"`) || !strings.Contains(l.decided[0], projection.ReasonUnreadable) {
		t.Fatalf("decided %v", l.decided)
	}
	if l.duplicates != 1 {
		t.Fatalf("the second delivery was not a duplicate: %d duplicates", l.duplicates)
	}
	// A session the ledger does not know: denied, not recorded, warned.
	res := h.Handle(t.Context(), []byte(strings.Replace(nested(MaxDepth+10), sub, "unknown-session", 1)))
	checkOutput(t, res, "deny", []string{"nested"})
	if len(res.Appended) != 0 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "unrecorded") {
		t.Fatalf("appended %+v, warnings %v", res.Appended, res.Warnings)
	}
}
