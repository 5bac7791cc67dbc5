//go:build linux || darwin

package thinhook

import (
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// rawAnswerServer is a loopback TCP server that reads a request's head
// and body and writes answer as it is (one byte every gap, when gap is
// not zero), then closes.
func rawAnswerServer(t *testing.T, answer string, gap time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				readRequest(c)
				if gap == 0 {
					_, _ = io.WriteString(c, answer)
					return
				}
				for i := range len(answer) {
					select {
					case <-done:
						return
					case <-time.After(gap):
					}
					if _, err := io.WriteString(c, answer[i:i+1]); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	return "http://" + ln.Addr().String() + HTTPPath
}

// denies reports whether Claude Code blocks the call on this outcome.
func denies(o outcome) bool {
	if exitOf(o.err) == 2 {
		return true
	}
	if exitOf(o.err) != 0 {
		return false
	}
	var a struct {
		HookSpecificOutput struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	return json.Unmarshal([]byte(o.stdout), &a) == nil && a.HookSpecificOutput.PermissionDecision == "deny"
}

// TestThinStatusLineMustBeAStatus: an answer whose status line does not
// hold a three-digit status is not serve --hooks's; one that starts with
// a 2 ("20", "2xx", "2000") used to read as a 2xx and its {} let the call
// run.
func TestThinStatusLineMustBeAStatus(t *testing.T) {
	for _, status := range []string{"20", "2xx", "2000", "2", "200x", "600", "0200"} {
		url := rawAnswerServer(t, "HTTP/1.0 "+status+" OK\r\nContent-Length: 2\r\n\r\n{}", 0)
		o := run(t, call, "--hooks", url, "--no-token", "--timeout", "2s")
		if !denies(o) {
			t.Errorf("status %q: the call is let through: %+v", status, o)
			continue
		}
		unreachableText(t, o.stdout, url, "Bash")
		if !strings.Contains(o.stdout, "the server's answer is not HTTP") {
			t.Errorf("status %q: %s", status, o.stdout)
		}
	}
	// A real status still reads.
	url := rawAnswerServer(t, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", 0)
	if o := run(t, call, "--hooks", url, "--no-token", "--timeout", "2s"); o.err != nil || o.stdout != "{}\n" {
		t.Errorf("200: %+v", o)
	}
	url = rawAnswerServer(t, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}", 0)
	if o := run(t, call, "--hooks", url, "--no-token", "--timeout", "2s"); !denies(o) || !strings.Contains(o.stdout, "the server answered 503") {
		t.Errorf("503: %+v", o)
	}
}

// TestThinSlowAnswerIsATimeout: a server that trickles its answer past
// --timeout is denied as a server that did not answer in time, not as one
// that does not speak HTTP (the status line cut by the deadline used to
// read as a whole line: "the server's answer is not HTTP: \"HTTP/1.0\"").
func TestThinSlowAnswerIsATimeout(t *testing.T) {
	url := rawAnswerServer(t, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", 60*time.Millisecond)
	begin := time.Now()
	o := run(t, call, "--hooks", url, "--no-token", "--timeout", "400ms")
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("answered after %s", took)
	}
	if !denies(o) {
		t.Fatalf("the call is let through: %+v", o)
	}
	unreachableText(t, o.stdout, url, "Bash")
	// Past the deadline while connecting (a loaded machine) the dial's
	// "i/o timeout" names it too; never "not HTTP".
	if strings.Contains(o.stdout, "not HTTP") || !strings.Contains(o.stdout, "no answer within the hook's --timeout") && !strings.Contains(o.stdout, "i/o timeout") {
		t.Errorf("the denial does not name the timeout: %s", o.stdout)
	}
}

// TestThinHelpWithAPayload: --help (or -h) in a hook's command line, given
// a call's payload, denies it as any bad flag does (it used to print the
// usage and exit 0 with no answer: the call ran); with no payload it is
// still the usage, exit 0.
func TestThinHelpWithAPayload(t *testing.T) {
	for _, h := range []string{"--help", "-h", "-help"} {
		o := run(t, call, "--hooks", "unix:/x", h)
		if !denies(o) || exitOf(o.err) != 0 || !strings.Contains(o.stdout, "--help is not a hook flag") || !strings.Contains(o.stderr, "Usage: ledger-hook") {
			t.Errorf("%s with a call: %+v", h, o)
		}
		o = run(t, other, "--hooks", "unix:/x", h)
		if o.err != nil || !strings.HasPrefix(o.stdout, `{"systemMessage":"ledger-hook: --help is not a hook flag`) {
			t.Errorf("%s with another event: %+v", h, o)
		}
		if o := run(t, "", h); o.err != nil || o.stdout != "" || !strings.Contains(o.stderr, "Usage: ledger-hook") {
			t.Errorf("%s alone: %+v", h, o)
		}
	}
	// An agent runtime's call is denied in its format.
	o := run(t, `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, "--runtime", "gemini", "--hooks", "unix:/x", "--help")
	if o.err != nil || !strings.HasPrefix(o.stdout, `{"decision":"deny","reason":"ledger-hook: --help is not a hook flag`) {
		t.Errorf("gemini: %+v", o)
	}
}

// TestThinAgentFailsClosed: with --runtime codex|gemini|qwen, a server
// down, silent, answering 500 or garbage denies a call in the runtime's
// format, exit 0.
func TestThinAgentFailsClosed(t *testing.T) {
	down := "http://" + ledgertest.RefusedAddr(t) + "/"
	urls := map[string]string{
		"down":        down,
		"500":         rawAnswerServer(t, "HTTP/1.0 500 Oops\r\nContent-Length: 0\r\n\r\n", 0),
		"garbage":     rawAnswerServer(t, "HTTP/1.0 200 OK\r\n\r\n<html>", 0),
		"truncated":   rawAnswerServer(t, "HTTP/1.0 200 OK\r\nContent-Length: 30\r\n\r\n{\"decision\":", 0),
		"bad status":  rawAnswerServer(t, "HTTP/1.0 2xx OK\r\nContent-Length: 0\r\n\r\n", 0),
		"slow":        rawAnswerServer(t, "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 80*time.Millisecond),
		"exit header": rawAnswerServer(t, "HTTP/1.0 200 OK\r\nLedger-Hook-Exit: 9\r\nContent-Length: 0\r\n\r\n", 0),
	}
	payloads := map[string]string{
		"codex":  `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"qwen":   `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		"gemini": `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
	}
	for rt, payload := range payloads {
		a := hookwire.Agents[rt]
		deny, _, _ := strings.Cut(string(a.DenyOutput("@")), "@")
		for name, url := range urls {
			o := run(t, payload, "--runtime", rt, "--hooks", url, "--no-token", "--timeout", "400ms")
			if o.err != nil || !strings.HasPrefix(o.stdout, deny) || !strings.Contains(o.stdout, "cannot be reached") {
				t.Errorf("%s, server %s: the call is not denied: %+v", rt, name, o)
			}
			o = run(t, "{not json", "--runtime", rt, "--hooks", url, "--no-token", "--timeout", "400ms")
			if o.err != nil || !strings.HasPrefix(o.stdout, deny) {
				t.Errorf("%s, server %s, an unreadable payload: %+v", rt, name, o)
			}
		}
	}
}
