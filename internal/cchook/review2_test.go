package cchook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// panicLedger panics on every request: an internal error of the hook's
// run (a nil it did not expect), wherever the run meets it.
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

const (
	promptPayload = `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi","cwd":"/nonexistent"}`
	callPayload   = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_1","transcript_path":"/nonexistent/t.jsonl","tool_input":{"command":"rm -rf build"}}`
)

// TestWithinRecoversPanic: a run that panics is answered with panicked's
// answer, given the panic's value and a stack that names the run, on the
// runner's goroutine, which goes on serving the next run; before the fix
// the panic ended the process (serve --hooks with it).
func TestWithinRecoversPanic(t *testing.T) {
	var gotV any
	var gotStack []byte
	got := Within(t.Context(), time.Minute, func() string { panicInRun(); return "ran" }, func() string { return "overdue" },
		func(v any, stack []byte) string { gotV, gotStack = v, stack; return "panicked" })
	if got != "panicked" || gotV != "boom" || !bytes.Contains(gotStack, []byte("panicInRun")) {
		t.Fatalf("Within answered %q, panic %v, stack %.200s", got, gotV, gotStack)
	}
	for i := 0; i < 3; i++ {
		if got := Within(t.Context(), time.Minute, func() string { return "ran" }, func() string { return "overdue" },
			func(any, []byte) string { return "panicked" }); got != "ran" {
			t.Fatalf("the run after a panic answered %q", got)
		}
	}
}

func panicInRun() { panic("boom") }

// TestPanicDenies: a hook run that panics denies a call, with a reason that
// names an internal error of the ledger's hook and says to report it with
// the log line, and lets any other event go on with a warning; the stack is
// kept for the log, never put in the answer.
func TestPanicDenies(t *testing.T) {
	h := &Hook{L: panicLedger{}}
	res := h.HandleWithin(t.Context(), []byte(callPayload), time.Second)
	checkOutput(t, res, "deny", []string{"internal error", "a nil the run did not expect", "report it", "'internal error in the ledger hook'"})
	if res.Event != PreToolUse || res.Session != "s1" || len(res.Stack) == 0 || bytes.Contains(res.Output, []byte("goroutine")) {
		t.Errorf("event %q, session %q, stack %d bytes, output %s", res.Event, res.Session, len(res.Stack), res.Output)
	}
	res = h.HandleWithin(t.Context(), []byte(promptPayload), time.Second)
	checkOutput(t, res, "warn", []string{"internal error in the ledger hook"})
	if res.Denied || res.Event != UserPromptSubmit || len(res.Stack) == 0 {
		t.Errorf("a prompt: %+v", res)
	}
	// What cannot be told may be a call.
	res = Panicked([]byte(`{"hook_event_name":`), "boom", nil)
	if !res.Denied || !bytes.Contains(res.Output, []byte(`"permissionDecision":"deny"`)) {
		t.Errorf("an untold payload: %s", res.Output)
	}
}

// logBuffer is a slog text log the test reads.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// panicPath is a runtime's hooks whose Serve panics: a panic on the
// handler's goroutine, out of Within's reach.
type panicPath struct{}

func (panicPath) Serve(context.Context, []byte, time.Duration, http.Header, func(*Result, bool)) *Result {
	panic("a header it did not expect")
}
func (panicPath) Deny(reason string) []byte {
	return []byte(`{"decision":"deny","reason":` + jsonString(reason) + `}`)
}
func (panicPath) Pass(string) []byte { return nil }

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHandlerPanicDenies: serve --hooks answers a payload whose handling
// panics, in the hook's run or in the handler itself, with status 200 and
// a denial of a call (another event: the runtime's pass answer), in the
// path's format, and logs the panic with its stack; it never drops the
// connection (before the fix it did, and a thin hook read that as a
// server that cannot be reached, which --unreachable allow lets run).
func TestHandlerPanicDenies(t *testing.T) {
	var log logBuffer
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: panicLedger{}}, Token: httpToken,
		Logger: slog.New(slog.NewTextHandler(&log, nil)), Paths: map[string]PathHook{"/hooks/panic": panicPath{}}})
	defer srv.Close()
	code, out := post(t, srv.URL+HTTPPath, callPayload, nil)
	if code != 200 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "internal error") {
		t.Errorf("a call whose run panics: %d %s", code, out)
	}
	code, out = post(t, srv.URL+HTTPPath, promptPayload, nil)
	if code != 200 || strings.Contains(out, "deny") || !strings.Contains(out, `{"systemMessage":"ledger hook: internal error in the ledger hook`) {
		t.Errorf("a prompt whose run panics: %d %s", code, out)
	}
	code, out = post(t, srv.URL+"/hooks/panic", callPayload, nil)
	if code != 200 || !strings.Contains(out, `{"decision":"deny"`) || !strings.Contains(out, "a header it did not expect") {
		t.Errorf("a call whose handler panics: %d %s", code, out)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hooks/panic", strings.NewReader(promptPayload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+httpToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a prompt whose handler panics: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != "0" || resp.Header.Get(hookwire.HeaderAnswer) != "/hooks/panic" ||
		!strings.Contains(hookwire.DecodeHeader(resp.Header.Get(hookwire.HeaderWarning)), "internal error in the ledger hook") {
		t.Errorf("a prompt whose handler panics: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	logged := log.String()
	if strings.Count(logged, `msg="internal error in the ledger hook"`) != 4 || !strings.Contains(logged, "stack=") || !strings.Contains(logged, "goroutine") {
		t.Errorf("the log does not hold each panic with its stack:\n%s", logged)
	}
}

// TestRefusalPassesOtherEvents: a request the server refuses (a wrong
// token, another path, no token to check, too many payloads in hand) that
// holds an event other than a call is answered with the runtime's pass
// answer and a warning saying nothing was recorded, never with a denial
// (which blocks a gemini BeforeAgent, the user's prompt); a call, or what
// cannot be told from one, is still denied, and what no runtime's hook
// sends (an Origin) is denied unread.
func TestRefusalPassesOtherEvents(t *testing.T) {
	l := &countingLedger{}
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: l}, Token: httpToken, Paths: map[string]PathHook{"/hooks/panic": panicPath{}}})
	defer srv.Close()
	wrongToken := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+httpToken+"x") }
	for _, tc := range []struct {
		name, path, body string
		set              func(*http.Request)
		pass             bool
	}{
		{"a prompt, a wrong token", HTTPPath, promptPayload, wrongToken, true},
		{"a SessionStart, no token", HTTPPath, `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`, func(r *http.Request) { r.Header.Del("Authorization") }, true},
		{"a prompt, another path", "/hooks/other", promptPayload, nil, true},
		{"a call, a wrong token", HTTPPath, callPayload, wrongToken, false},
		{"a call named twice", HTTPPath, `{"session_id":"s1","hook_event_name":"UserPromptSubmit","Hook_Event_Name":"PreToolUse"}`, wrongToken, false},
		{"not JSON", HTTPPath, `{"hook_event_name":"UserPromptSubmit"`, wrongToken, false},
		{"a prompt from a web page", HTTPPath, promptPayload, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, false},
		{"a prompt at a runtime's path, a wrong token", "/hooks/panic", promptPayload, wrongToken, true},
		{"gemini's BeforeTool at a runtime's path, a wrong token", "/hooks/panic", `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, wrongToken, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := post(t, srv.URL+tc.path, tc.body, tc.set)
			denied, agent := strings.Contains(out, `"deny"`), tc.path == "/hooks/panic"
			switch {
			case code != 200:
				t.Fatalf("%d %s", code, out)
			case tc.pass && denied:
				t.Fatalf("another event refused with a denial: %s", out)
			case tc.pass && !agent && !strings.Contains(out, `{"systemMessage":"ledger hook: nothing was recorded for this `):
				t.Fatalf("another event refused without a warning: %s", out)
			case tc.pass && agent && out != "":
				t.Fatalf("another event at a runtime's path: %q, want no opinion", out)
			case !tc.pass && !denied:
				t.Fatalf("a call refused without a denial: %s", out)
			}
		})
	}
	if n := l.n.Load(); n != 0 {
		t.Fatalf("refused requests reached the ledger %d times", n)
	}

	busy := &countingLedger{release: make(chan struct{}), entered: make(chan struct{}, 16)}
	bsrv := httptest.NewServer(&Handler{Hook: &Hook{L: busy}, Token: httpToken, MaxConcurrent: 1})
	defer bsrv.Close()
	first := make(chan string, 1)
	go func() {
		_, out := post(t, bsrv.URL+HTTPPath, callPayload, nil)
		first <- out
	}()
	<-busy.entered
	if code, out := post(t, bsrv.URL+HTTPPath, promptPayload, nil); code != 200 || strings.Contains(out, "deny") || !strings.Contains(out, "limit of 1 hooks at once") {
		t.Errorf("a prompt while the server is busy: %d %s", code, out)
	}
	if _, out := post(t, bsrv.URL+HTTPPath, callPayload, nil); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("a call while the server is busy: %s", out)
	}
	close(busy.release)
	<-first
}

// silentPath is a runtime's hooks whose Serve returns without writing an
// answer.
type silentPath struct{ panicPath }

func (silentPath) Serve(context.Context, []byte, time.Duration, http.Header, func(*Result, bool)) *Result {
	return &Result{}
}

// TestPathWithoutAnswerDenies: a runtime's hooks that return without an
// answer get the handler's refusal, a call denied in the path's format
// (an empty body would be the runtime's "no opinion", which runs the
// call), any other event passed with a warning.
func TestPathWithoutAnswerDenies(t *testing.T) {
	srv := httptest.NewServer(&Handler{Hook: &Hook{}, Token: httpToken, Paths: map[string]PathHook{"/hooks/silent": silentPath{}}})
	defer srv.Close()
	code, out := post(t, srv.URL+"/hooks/silent", callPayload, nil)
	if code != 200 || !strings.Contains(out, `{"decision":"deny"`) || !strings.Contains(out, "had no answer for this payload") {
		t.Errorf("a call: %d %s", code, out)
	}
	if code, out := post(t, srv.URL+"/hooks/silent", promptPayload, nil); code != 200 || strings.Contains(out, "deny") {
		t.Errorf("a prompt: %d %s", code, out)
	}
}
