package cchook

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// countingLedger allows every call and counts what reaches it: a refused
// request must reach nothing.
type countingLedger struct {
	n          atomic.Int64
	unknownSub bool          // Tree knows no sub-agent
	release    chan struct{} // when set, every request waits for it
	entered    chan struct{} // when set, told of every request
}

func (c *countingLedger) wait() {
	c.n.Add(1)
	if c.entered != nil {
		c.entered <- struct{}{}
	}
	if c.release != nil {
		<-c.release
	}
}
func (c *countingLedger) Tree(_ context.Context, key events.SessionKey) (*client.TreeNode, error) {
	c.wait()
	if c.unknownSub && strings.Contains(string(key), ":") {
		return nil, nil
	}
	return &client.TreeNode{Key: key, Agent: MainAgent, State: envelope.Active, Turns: 1}, nil
}
func (c *countingLedger) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	c.wait()
	return nil, nil
}
func (c *countingLedger) Append(context.Context, client.Event) (client.AppendResult, error) {
	c.wait()
	return client.AppendResult{Seq: 1}, nil
}
func (c *countingLedger) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	c.wait()
	return client.CheckResult{Decision: envelope.Allow, Recorded: 2}, nil
}

func (c *countingLedger) Start(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	return c.Check(ctx, key, tool, in, call)
}

const httpToken = "0123456789abcdef-token"

// post sends body to srv with the header edits of set applied to a
// request that is otherwise one Claude Code sends.
func post(t *testing.T, url, body string, set func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+httpToken)
	if set != nil {
		set(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHTTPRefusals: every request the hook server will not serve (issue
// 24, point 3: a web page's text/plain POST with a foreign Host and
// Origin was accepted and appended records) is answered 200 with a
// denial, and reaches nothing of the ledger; the request Claude Code
// sends is served.
func TestHTTPRefusals(t *testing.T) {
	l := &countingLedger{}
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: l}, Token: httpToken})
	defer srv.Close()
	body := call("Bash", `{"command":"echo hi"}`)
	for _, tc := range []struct {
		name, want string
		set        func(*http.Request)
	}{
		{"no token", "no valid 'Authorization: Bearer' token", func(r *http.Request) { r.Header.Del("Authorization") }},
		{"a wrong token", "no valid", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+httpToken+"x") }},
		{"text/plain", "application/json", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }},
		{"no content type", "application/json", func(r *http.Request) { r.Header.Del("Content-Type") }},
		{"a form", "application/json", func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }},
		{"an origin", "web page", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }},
		{"a null origin", "web page", func(r *http.Request) { r.Header.Set("Origin", "null") }},
		{"a foreign host", "DNS rebinding", func(r *http.Request) { r.Host = "evil.example:8787" }},
		{"a foreign host without port", "DNS rebinding", func(r *http.Request) { r.Host = "attacker.test" }},
		{"another path", "takes hooks at POST", func(r *http.Request) { r.URL.Path = "/hooks/other" }},
		{"a declared body over the limit", "over its limit", func(r *http.Request) {
			r.ContentLength = MaxPayload + 1
			r.Body = io.NopCloser(strings.NewReader(body + strings.Repeat(" ", MaxPayload+1-len(body))))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := post(t, srv.URL+HTTPPath, body, tc.set)
			if code != 200 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, tc.want) {
				t.Fatalf("%d %.300s, want 200 with a denial saying %q", code, out, tc.want)
			}
		})
	}
	if n := l.n.Load(); n != 0 {
		t.Fatalf("refused requests reached the ledger %d times", n)
	}
	for _, host := range []string{"", "localhost", "LOCALHOST:1", "127.0.0.1", "[::1]:8787", "127.0.0.2:9"} {
		code, out := post(t, srv.URL+HTTPPath, body, func(r *http.Request) {
			if host != "" {
				r.Host = host
			}
			r.Header.Set("Content-Type", "application/json; charset=utf-8")
		})
		if code != 200 || strings.Contains(out, "deny") {
			t.Fatalf("Host %q: %d %s, want the call served", host, code, out)
		}
	}
	if l.n.Load() == 0 {
		t.Fatal("the requests Claude Code sends did not reach the ledger")
	}
}

// TestHTTPNoTokenRefusesAll: a server given no token, and not told to
// take hooks without one, serves nothing; Insecure serves without one.
func TestHTTPNoTokenRefusesAll(t *testing.T) {
	l := &countingLedger{}
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: l}})
	defer srv.Close()
	if code, out := post(t, srv.URL+HTTPPath, call("Bash", `{"command":"echo hi"}`), nil); code != 200 || !strings.Contains(out, "no token to check") {
		t.Fatalf("%d %s", code, out)
	}
	if l.n.Load() != 0 {
		t.Fatal("reached the ledger")
	}
	open := httptest.NewServer(&Handler{Hook: &Hook{L: l}, Insecure: true})
	defer open.Close()
	if code, out := post(t, open.URL+HTTPPath, call("Bash", `{"command":"echo hi"}`), func(r *http.Request) { r.Header.Del("Authorization") }); code != 200 || strings.Contains(out, "deny") {
		t.Fatalf("insecure: %d %s", code, out)
	}
}

// TestHTTPBusy: past MaxConcurrent payloads in hand, a call is denied at
// once rather than queued (12,500 POSTs once left 9,846 threads blocked),
// and served again once one ends.
func TestHTTPBusy(t *testing.T) {
	l := &countingLedger{release: make(chan struct{}), entered: make(chan struct{}, 16)}
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: l}, Token: httpToken, MaxConcurrent: 1})
	defer srv.Close()
	body := call("Bash", `{"command":"echo hi"}`)
	first := make(chan string, 1)
	go func() {
		_, out := post(t, srv.URL+HTTPPath, body, nil)
		first <- out
	}()
	<-l.entered // the first payload is in hand, held by the ledger
	code, out := post(t, srv.URL+HTTPPath, body, nil)
	if code != 200 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "limit of 1 hooks at once") {
		t.Fatalf("the second payload: %d %s", code, out)
	}
	close(l.release)
	if out := <-first; strings.Contains(out, "deny") {
		t.Fatalf("the first payload: %s", out)
	}
	if code, out := post(t, srv.URL+HTTPPath, body, nil); code != 200 || strings.Contains(out, "deny") {
		t.Fatalf("after: %d %s", code, out)
	}
}

// TestRootsConfine: with roots, a payload's cwd or transcript outside
// them, or not clean ("../"), is never opened: no import, no metadata
// read; inside them both are.
func TestRootsConfine(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(filepath.Join(d, "t", "s", "subagents"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(d, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var imported, read []string
	h := &Hook{L: &countingLedger{unknownSub: true}, Opts: Options{
		Roots:  []string{root},
		Import: func(dir string) (json.RawMessage, error) { imported = append(imported, dir); return nil, nil },
		ReadFile: func(p string) ([]byte, error) {
			read = append(read, p)
			return nil, os.ErrNotExist
		},
		Locate: func(dir string) Location { return Location{Dir: dir} },
	}}
	for _, tc := range []struct {
		name, cwd, transcript string
		opened                bool
	}{
		{"inside", filepath.Join(root, "p"), filepath.Join(root, "t", "s.jsonl"), true},
		{"outside", filepath.Join(outside, "p"), filepath.Join(outside, "t", "s.jsonl"), false},
		{"dot-dot", root + "/p/../../" + filepath.Base(outside), root + "/t/../../x/s.jsonl", false},
		{"relative", "p", "t/s.jsonl", false},
		{"the root's sibling by prefix", root + "x", root + "x/s.jsonl", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imported, read = nil, nil
			raw, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": tc.cwd,
				"transcript_path": tc.transcript, "prompt_id": "p1"})
			res := h.Handle(t.Context(), raw)
			sub, _ := json.Marshal(map[string]any{"session_id": "s1", "agent_id": "a1", "agent_type": "x", "hook_event_name": "SubagentStart",
				"cwd": tc.cwd, "transcript_path": tc.transcript})
			sres := h.Handle(t.Context(), sub)
			if got := len(imported) > 0 && len(read) > 0; got != tc.opened {
				t.Fatalf("imported %v, metadata read %v; want opened %v (warnings %v, %v)", imported, read, tc.opened, res.Warnings, sres.Warnings)
			}
			if !tc.opened && (len(imported) > 0 || len(read) > 0) {
				t.Fatalf("opened %v %v", imported, read)
			}
		})
	}
}

// TestProjectOfTranscript: the project is the directory at or above cwd
// whose name Claude Code gave the transcript's folder (CLI: cwd
// /home/dev/project/src, transcript under -home-dev-project).
func TestProjectOfTranscript(t *testing.T) {
	long := "/home/dev/" + strings.Repeat("a-b.c_", 40)
	longName := claudeProjectName(long)
	if len(longName) != 200+1+len(longName[201:]) || !strings.HasPrefix(longName, "-home-dev-a-b-c-") || strings.Contains(longName[201:], "-") {
		t.Fatalf("a long path's name %q", longName)
	}
	if h := claudeProjectName("/x/" + strings.Repeat("y", 200)); !strings.HasSuffix(h, "-") && h[len(h)-1] == '-' {
		t.Fatal(h)
	}
	for _, tc := range []struct{ cwd, transcript, want string }{
		{"/home/dev/project/src", "/home/dev/.claude/projects/-home-dev-project/s.jsonl", "/home/dev/project"},
		{"/home/dev/project", "/home/dev/.claude/projects/-home-dev-project/s.jsonl", "/home/dev/project"},
		{"/home/dev/my.project/src", "/home/dev/.claude/projects/-home-dev-my-project/s.jsonl", "/home/dev/my.project"},
		{"/home/dev/other", "/home/dev/.claude/projects/-home-dev-project/s.jsonl", ""},
		{"/home/dev/project", "", ""},
		{"relative", "/home/dev/.claude/projects/relative/s.jsonl", ""},
		{long + "/sub", "/home/dev/.claude/projects/" + longName + "/s.jsonl", long},
		{long + "/sub", "/home/dev/.claude/projects/" + claudeProjectName(long+"/sub") + "/s.jsonl", long + "/sub"},
	} {
		if got := ProjectOfTranscript(tc.cwd, tc.transcript); got != tc.want {
			t.Errorf("ProjectOfTranscript(%q, %q) = %q, want %q", tc.cwd, tc.transcript, got, tc.want)
		}
	}
}

// blockedWriter holds every write until released.
type blockedWriter struct{ release chan struct{} }

func (b blockedWriter) Write(p []byte) (int, error) {
	<-b.release
	return len(p), nil
}

// TestHTTPSlowLogHoldsNoAnswer: the server's log line for a hook is
// written after the answer has gone out, so a log that blocks (stderr
// into a full pipe) holds no call; the answer is the one net/http sends
// when the handler returns, with its Content-Length.
func TestHTTPSlowLogHoldsNoAnswer(t *testing.T) {
	logged := blockedWriter{release: make(chan struct{})}
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: &countingLedger{}}, Token: httpToken,
		Logger: slog.New(slog.NewJSONHandler(logged, nil))})
	defer srv.Close()
	defer close(logged.release)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+HTTPPath, strings.NewReader(call("Bash", `{"command":"echo hi"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+httpToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer while the log is blocked: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the answer's body while the log is blocked: %v", err)
	}
	if got := strings.TrimSpace(string(b)); got != "{}" || resp.ContentLength != int64(len(b)) || len(resp.TransferEncoding) != 0 {
		t.Fatalf("answer %q, Content-Length %d, Transfer-Encoding %v; want {} with its length", b, resp.ContentLength, resp.TransferEncoding)
	}
}

// TestHTTPOverdue: a payload whose run outlasts the handler's Timeout is
// answered by it, a denial, while the run goes on (held by the ledger
// here), and the answer closes its connection (the handler holds it until
// the run returns, so no next hook may wait behind it); the slot is free
// again once the run returns.
func TestHTTPOverdue(t *testing.T) {
	l := &countingLedger{release: make(chan struct{}), entered: make(chan struct{}, 16)}
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: l}, Token: httpToken, Timeout: 300 * time.Millisecond, MaxConcurrent: 1})
	defer srv.Close()
	release := sync.OnceFunc(func() { close(l.release) })
	defer release() // before the server's Close, which waits for the run
	req, _ := http.NewRequest(http.MethodPost, srv.URL+HTTPPath, strings.NewReader(call("Bash", `{"command":"echo hi"}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+httpToken)
	// One client for all, as Claude Code's: a connection kept after the
	// overdue answer would take the next POST behind the held run.
	c := &http.Client{Timeout: 5 * time.Second}
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(t0)
	<-l.entered
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"permissionDecision":"deny"`) || !strings.Contains(string(b), "could not decide this call in time") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if !resp.Close {
		t.Fatalf("the overdue answer keeps its connection open (headers %v)", resp.Header)
	}
	if took > 3*time.Second {
		t.Fatalf("answered in %s, past the handler's 300 ms bound (and slack for a loaded machine)", took)
	}
	// The run still holds the one slot.
	again := func() string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+HTTPPath, strings.NewReader(call("Bash", `{"command":"echo hi"}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+httpToken)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("the next hook: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if out := again(); !strings.Contains(out, "limit of 1 hooks at once") {
		t.Fatalf("while the overdue run goes on: %s", out)
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if out := again(); !strings.Contains(out, "deny") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slot is not freed once the run returned")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
