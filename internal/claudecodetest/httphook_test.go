package claudecodetest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestHTTPHook records what 2.1.328 does with an HTTP hook: which events
// it posts, how, and that a PreToolUse answer of deny blocks the call with
// the reason as the tool result while the other call runs.
func TestHTTPHook(t *testing.T) {
	CLI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	var shapes []string
	var heads [][3]string // Origin, Host, User-Agent
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		ev, _ := m["hook_event_name"].(string)
		mu.Lock()
		events = append(events, ev)
		shapes = append(shapes, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		heads = append(heads, [3]string{r.Header.Get("Origin"), r.Host, r.Header.Get("User-Agent")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if in, _ := m["tool_input"].(map[string]any); ev == "PreToolUse" && in["command"] == "touch blocked.txt" {
			_, _ = w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"ledger: no"}}`))
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	res := Run(t.Context(), t, Case{Name: "http hook", HTTPHook: "http://" + ln.Addr().String() + "/hook",
		Args: []string{"--permission-mode", "acceptEdits"},
		Scripts: Scripts{"main": {{{ID: "toolu_blocked", Tool: "Bash", Input: map[string]any{"command": "touch blocked.txt", "description": "d"}},
			{ID: "toolu_ran", Tool: "Bash", Input: map[string]any{"command": "touch ran.txt", "description": "d"}}}}}})
	blocked, ran := res.Call("toolu_blocked"), res.Call("toolu_ran")
	if out, _ := cliOutcome(*blocked); out != outDeny || blocked.Result == nil || !strings.Contains(blocked.Result.Content, "ledger: no") {
		t.Errorf("the call the HTTP hook denied: %s, %+v", out, blocked.Result)
	}
	if out, _ := cliOutcome(*ran); out != outAllow {
		t.Errorf("the call the HTTP hook let through: %s, %+v", out, ran.Result)
	}
	mu.Lock()
	defer mu.Unlock()
	var commandEvents []string
	for _, h := range res.Hooks {
		commandEvents = append(commandEvents, h["hook_event_name"].(string))
	}
	t.Logf("HTTP hook events: %v (%s); command hook events: %v", events, shapes[0], commandEvents)
	for _, s := range shapes {
		if s != "POST /hook application/json" {
			t.Errorf("an HTTP hook request was %q, not a JSON POST", s)
		}
	}
	// No Origin (what a browser sends, which serve --hooks refuses), the
	// Host of the URL, and no Claude Code version anywhere in the request
	// line's headers: the identity of an HTTP hook's session has none
	// (docs/claude-code-hooks.md; 2.1.328's User-Agent is axios/1.15.2).
	t.Logf("HTTP hook headers (Origin, Host, User-Agent): %q", heads[0])
	for _, h := range heads {
		if h[0] != "" || h[1] != ln.Addr().String() || strings.Contains(h[2], Pin(t)) || strings.Contains(strings.ToLower(h[2]), "claude") {
			t.Errorf("an HTTP hook request had Origin %q, Host %q, User-Agent %q; want no Origin, Host %s, no Claude Code version", h[0], h[1], h[2], ln.Addr())
		}
	}
	// Every event a command hook saw reached the HTTP hook too, except
	// SessionStart, which 2.1.328 sends to command hooks only.
	for _, ev := range commandEvents {
		want := ev != "SessionStart"
		if slices.Contains(events, ev) != want {
			t.Errorf("event %s: posted to the HTTP hook %v, want %v", ev, !want, want)
		}
	}
}
