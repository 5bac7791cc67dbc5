package main

// The thin hook fails closed: the built ledger-hook binary, run as Claude
// Code runs it (one process, the payload on standard input), against
// servers on loopback that are down, silent, slow, or answer what
// `serve --hooks` never would. Every PreToolUse must be denied (a
// permissionDecision deny, or exit 2) within the hook's --timeout: a
// call let through (exit 0 with no deny) is a bug.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

const (
	advCall  = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"rm -rf /tmp/x"}}`
	advOther = `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi"}`
)

// buildHook builds this command into a temporary directory.
func buildHook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ledger-hook")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// hookRun is one run of the hook process.
type hookRun struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runHook runs the hook binary with stdin (a string, or an *os.File),
// bounded by a wall clock far above any --timeout the tests give.
func runHook(t *testing.T, bin string, stdin any, args ...string) hookRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	switch in := stdin.(type) {
	case string:
		cmd.Stdin = strings.NewReader(in)
	case *os.File:
		cmd.Stdin = in
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// The test's own token file must not be read.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "LEDGER_HOOKS_URL=")
	begin := time.Now()
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errOut.String(), took: time.Since(begin)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running the hook: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the hook ran past 30 s: %+v", r)
	}
	return r
}

// denied reports whether Claude Code would block the call: exit 2, or a
// JSON answer with permissionDecision deny (exit 0).
func (r hookRun) denied() bool {
	if r.code == 2 {
		return true
	}
	if r.code != 0 {
		return false // a non-blocking error: Claude Code runs the call
	}
	var a struct {
		HookSpecificOutput struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	return json.Unmarshal([]byte(r.stdout), &a) == nil && a.HookSpecificOutput.PermissionDecision == "deny"
}

// rawServer is a loopback TCP server that reads each request (its head
// and Content-Length body) and answers with answer(conn); answer may
// hold the connection.
type rawServer struct {
	ln   net.Listener
	wg   sync.WaitGroup
	done chan struct{}
}

func newRawServer(t *testing.T, network, addr string, answer func(c net.Conn)) *rawServer {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				readRequestBody(c)
				answer(c)
			}()
		}
	}()
	t.Cleanup(func() {
		close(s.done)
		ln.Close()
		s.wg.Wait()
	})
	return s
}

// readRequestBody reads an HTTP request's head and its Content-Length
// body from c.
func readRequestBody(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	tp := textproto.NewReader(bufio.NewReader(c))
	if _, err := tp.ReadLine(); err != nil {
		return
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return
	}
	n, _ := strconv.Atoi(h.Get("Content-Length"))
	_, _ = io.CopyN(io.Discard, tp.R, int64(n))
	_ = c.SetReadDeadline(time.Time{})
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/hooks/claude-code" }

// canned answers with the bytes as they are, then closes.
func canned(b string) func(net.Conn) {
	return func(c net.Conn) { _, _ = io.WriteString(c, b) }
}

// TestThinHookFailsClosed: every way a server can fail, and every payload
// the hook cannot read, denies a PreToolUse within --timeout, with the
// message that says what to do.
func TestThinHookFailsClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the hook binary")
	}
	bin := buildHook(t)
	const timeout = 800 * time.Millisecond
	// bound is how long past --timeout a run may take on a loaded machine
	// (process start included).
	const bound = timeout + 4*time.Second

	downURL := "http://" + ledgertest.RefusedAddr(t) + "/hooks/claude-code"

	silent := func(s **rawServer) func(net.Conn) {
		return func(c net.Conn) {
			select {
			case <-(*s).done:
			case <-time.After(20 * time.Second):
			}
		}
	}

	type server struct {
		name   string
		answer func(c net.Conn)
	}
	var silentSrv *rawServer
	servers := []server{
		{"500", canned("HTTP/1.0 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nboom")},
		{"garbage", canned("this is not HTTP at all\r\n\r\n{}")},
		{"empty body", canned("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n")},
		{"empty body, no length", canned("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n")},
		{"nothing at all", canned("")},
		{"status line only", canned("HTTP/1.0 200 OK\r\n")},
		{"truncated JSON", canned("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\"")},
		{"body shorter than its length", canned("HTTP/1.0 200 OK\r\nContent-Length: 40\r\n\r\n{}")},
		{"two objects", canned("HTTP/1.0 200 OK\r\n\r\n{}{}")},
		{"a JSON list", canned("HTTP/1.0 200 OK\r\n\r\n[{}]")},
		{"a JSON string", canned("HTTP/1.0 200 OK\r\n\r\n\"allow\"")},
		{"chunked", canned("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")},
		{"redirect", canned("HTTP/1.0 302 Found\r\nLocation: http://127.0.0.1:1/\r\nContent-Length: 2\r\n\r\n{}")},
		{"continue then nothing", canned("HTTP/1.1 100 Continue\r\n\r\n")},
		{"status not a number", canned("HTTP/1.0 2xx OK\r\nContent-Length: 2\r\n\r\n{}")},
		{"status of two digits", canned("HTTP/1.0 20 OK\r\nContent-Length: 2\r\n\r\n{}")},
		{"status of four digits", canned("HTTP/1.0 2000 OK\r\nContent-Length: 2\r\n\r\n{}")},
		{"exit header not a status", canned("HTTP/1.0 200 OK\r\nLedger-Hook-Exit: yes\r\nContent-Length: 2\r\n\r\n{}")},
		{"huge answer", canned("HTTP/1.0 200 OK\r\n\r\n{\"x\":\"" + strings.Repeat("a", 2<<20) + "\"}")},
		{"slow trickle", func(c net.Conn) {
			for _, b := range []byte("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}") {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}},
		{"silent", nil},
	}
	urls := map[string]string{"down": downURL}
	for _, s := range servers {
		a := s.answer
		if a == nil {
			a = silent(&silentSrv)
		}
		srv := newRawServer(t, "tcp", "127.0.0.1:0", a)
		if s.answer == nil {
			silentSrv = srv
			// The same silent server by name, through the net package's
			// dialer rather than the hook's own socket.
			urls["silent, by host name"] = "http://localhost:" + strconv.Itoa(srv.ln.Addr().(*net.TCPAddr).Port) + "/hooks/claude-code"
		}
		urls[s.name] = srv.url()
	}

	// Unix sockets: a path that does not exist, a regular file, a
	// directory, a socket nobody listens on, and a silent server.
	dir, err := os.MkdirTemp("", "hookadv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "stale.sock")
	sl, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	sl.(*net.UnixListener).SetUnlinkOnClose(false)
	sl.Close()
	var silentUnix *rawServer
	silentUnix = newRawServer(t, "unix", filepath.Join(dir, "silent.sock"), silent(&silentUnix))
	urls["socket missing"] = "unix:" + filepath.Join(dir, "none.sock")
	urls["socket a regular file"] = "unix:" + file
	urls["socket a directory"] = "unix:" + dir
	urls["socket stale"] = "unix:" + stale
	urls["socket silent"] = "unix:" + silentUnix.ln.Addr().String()
	urls["socket path too long"] = "unix:/" + strings.Repeat("d", 200) + "/hooks.sock"

	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runHook(t, bin, advCall, "--hooks", url, "--no-token", "--timeout", timeout.String())
			if !r.denied() {
				t.Fatalf("BUG: the call is let through: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if r.took > bound {
				t.Errorf("denied after %s, past --timeout %s", r.took, timeout)
			}
			for _, want := range []string{"The session policy ledger at " + url + " cannot be reached (", "so the hook denies Bash (it fails closed: --unreachable deny). Start the ledger"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the denial does not say %q:\n%s", want, r.stdout)
				}
			}
			if strings.HasPrefix(name, "silent") || name == "socket silent" || name == "slow trickle" {
				if strings.Contains(r.stdout, "not HTTP") || !strings.Contains(r.stdout, "no answer within the hook's --timeout") && !strings.Contains(r.stdout, "i/o timeout") {
					t.Errorf("a silent server's denial does not name the timeout:\n%s", r.stdout)
				}
			}
			// A payload whose event cannot be told: denied with exit 2.
			r = runHook(t, bin, "not json", "--hooks", url, "--no-token", "--timeout", timeout.String())
			if r.code != 2 || !r.denied() {
				t.Errorf("BUG: an untold payload: exit %d, stdout %q", r.code, r.stdout)
			}
			// Any other event goes on, with the warning.
			r = runHook(t, bin, advOther, "--hooks", url, "--no-token", "--timeout", timeout.String())
			if r.code != 0 || !strings.Contains(r.stdout, "cannot be reached") || !strings.Contains(r.stdout, "(nothing was recorded for this UserPromptSubmit)") {
				t.Errorf("another event: %+v", r)
			}
		})
	}
}

// TestThinHookDefaultTimeout: a server that accepts and never answers is
// answered by the default --timeout (6 s), below Claude Code's 10 s.
func TestThinHookDefaultTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the hook binary; waits 6 s")
	}
	bin := buildHook(t)
	var srv *rawServer
	srv = newRawServer(t, "tcp", "127.0.0.1:0", func(c net.Conn) {
		select {
		case <-srv.done:
		case <-time.After(20 * time.Second):
		}
	})
	r := runHook(t, bin, advCall, "--hooks", srv.url(), "--no-token")
	if !r.denied() || !strings.Contains(r.stdout, "no answer within the hook's --timeout") {
		t.Fatalf("BUG: %+v", r)
	}
	if r.took < 5*time.Second || r.took > 9500*time.Millisecond {
		t.Errorf("answered after %s: want the default 6 s, under Claude Code's 10 s", r.took)
	}
}

// TestThinHookUnreadablePayloads: the payload on standard input empty,
// not JSON, truncated, over the limit, two objects, the event's key twice,
// or standard input unreadable (a directory) or held open: with the
// server down each denies; with a server that would allow anything it
// posts, what the hook can read of an unreadable payload is still never
// a call let through (the server is asked, and its allow is what
// Claude Code gets: so these run against the down server only).
func TestThinHookUnreadablePayloads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the hook binary")
	}
	bin := buildHook(t)
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + down.Addr().String() + "/hooks/claude-code"
	down.Close()
	huge := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("a", 17<<20) + `"}}`
	for _, tc := range []struct {
		name, stdin string
		exit2       bool
	}{
		{"empty", "", true},
		{"whitespace", " \n\t", true},
		{"not JSON", "PreToolUse Bash", true},
		{"truncated", advCall[:len(advCall)/2], true},
		{"a list", "[" + advCall + "]", true},
		{"two objects", advCall + advOther, true},
		{"over 16 MiB", huge, true},
		{"the event twice, the last a call", `{"session_id":"s1","hook_event_name":"Stop","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, false},
		{"the event in two cases", `{"session_id":"s1","hook_event_name":"Stop","Hook_Event_Name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, true},
		{"the event escaped", `{"session_id":"s1","hook_event_name":"Pre\u0054oolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, false},
		{"the event not a string", `{"session_id":"s1","hook_event_name":["PreToolUse"],"tool_name":"Bash"}`, true},
		{"the event null", `{"session_id":"s1","hook_event_name":null,"tool_name":"Bash"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runHook(t, bin, tc.stdin, "--hooks", url, "--no-token", "--timeout", "2s")
			if !r.denied() || (tc.exit2 && r.code != 2) {
				t.Fatalf("BUG: the call is let through or not blocked by exit 2: exit %d, stdout %.300q, stderr %.300q", r.code, r.stdout, r.stderr)
			}
			// --unreachable allow lets only a payload it can tell is a
			// call through: never one it cannot read.
			r = runHook(t, bin, tc.stdin, "--hooks", url, "--no-token", "--timeout", "2s", "--unreachable", "allow")
			if tc.exit2 && !r.denied() {
				t.Errorf("BUG: with --unreachable allow an unreadable payload is let through: exit %d, stdout %.300q", r.code, r.stdout)
			}
		})
	}
	t.Run("stdin a directory", func(t *testing.T) {
		d, err := os.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		r := runHook(t, bin, d, "--hooks", url, "--no-token", "--timeout", "2s")
		if !r.denied() || r.code != 2 {
			t.Fatalf("BUG: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("stdin held open", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		defer pw.Close()
		// Half a payload, and the pipe held open.
		if _, err := io.WriteString(pw, advCall[:20]); err != nil {
			t.Fatal(err)
		}
		r := runHook(t, bin, pr, "--hooks", url, "--no-token", "--timeout", "700ms")
		if !r.denied() || r.code != 2 || !strings.Contains(r.stdout, "did not end within the hook's --timeout") {
			t.Fatalf("BUG: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if r.took > 5*time.Second {
			t.Errorf("answered after %s", r.took)
		}
	})
}

// TestThinHookCommandLineWithPayload: given a call's payload, a command
// line the hook cannot serve denies it (exit 0 with a deny, as documented:
// "Given a payload, the hook exits 0, even for its own bad flags (a call
// is then denied ...)"), whatever is wrong with it.
func TestThinHookCommandLineWithPayload(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the hook binary")
	}
	bin := buildHook(t)
	for _, args := range [][]string{
		nil,
		{"--hooks", "ftp://127.0.0.1:1/"},
		{"--hooks", "http://user:pw@127.0.0.1:1/hooks/claude-code"},
		{"--hooks", "unix:relative.sock"},
		{"--hooks", "unix:/x", "--unreachable", "maybe"},
		{"--hooks", "unix:/x", "--timeout", "-1s"},
		{"--hooks", "unix:/x", "--bogus"},
		{"--hooks", "unix:/x", "extra"},
		{"--hooks", "unix:/x", "--help"},
		{"--hooks", "unix:/x", "-h"},
	} {
		r := runHook(t, bin, advCall, args...)
		if !r.denied() {
			t.Errorf("BUG: %q with a PreToolUse payload lets the call through: exit %d, stdout %q, stderr %.200q", args, r.code, r.stdout, r.stderr)
		}
	}
}
