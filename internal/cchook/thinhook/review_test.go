package thinhook

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// cannedServer answers every request with the bytes of answer(path), then
// closes the connection: an HTTP server as it goes on the wire, which may
// be no `serve --hooks` at all.
func cannedServer(t *testing.T, answer func(path string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(c, answer(req.URL.Path))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestThinAgentNeedsAnswerMark: with --runtime codex|gemini|qwen, only
// serve --hooks's answer for the runtime, marked so (Ledger-Hook-Answer:
// its path), is one: an empty 2xx body without the mark (a server that
// dies after its headers, a 204, any server's Content-Length 0), or with
// it but no Content-Length of 0, or an answer marked for another runtime,
// denies a call in the runtime's format. The marked empty answer is still
// "no opinion".
func TestThinAgentNeedsAnswerMark(t *testing.T) {
	for _, rt := range []string{"codex", "gemini", "qwen"} {
		a := hookwire.Agents[rt]
		payload := codexCall
		if rt == "gemini" {
			payload = geminiCall
		}
		other := "gemini"
		if rt == "gemini" {
			other = "codex"
		}
		otherDeny := string(hookwire.Agents[other].DenyOutput("denied by " + other))
		for name, answer := range map[string]func(string) string{
			"headers then closed": func(string) string { return "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" },
			"204":                 func(string) string { return "HTTP/1.1 204 No Content\r\n\r\n" },
			"Content-Length 0":    func(string) string { return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n" },
			"marked, no length": func(p string) string {
				return "HTTP/1.0 200 OK\r\n" + hookwire.HeaderAnswer + ": " + p + "\r\n\r\n"
			},
			"another runtime's answer": func(string) string {
				return "HTTP/1.0 200 OK\r\n" + hookwire.HeaderAnswer + ": /hooks/" + other + "\r\nContent-Length: " + strconv.Itoa(len(otherDeny)) + "\r\n\r\n" + otherDeny
			},
		} {
			o := run(t, payload, "--runtime", rt, "--hooks", cannedServer(t, answer), "--no-token", "--timeout", "2s")
			if o.err != nil || !strings.HasPrefix(o.stdout, string(a.DenyOutput(""))[:12]) || !strings.Contains(o.stdout, "fails closed") {
				t.Errorf("%s, %s: %+v; want a denial in %s's format", rt, name, o, rt)
			}
		}
		marked := func(p string) string {
			return "HTTP/1.0 200 OK\r\n" + hookwire.HeaderAnswer + ": " + p + "\r\nContent-Length: 0\r\n\r\n"
		}
		if o := run(t, payload, "--runtime", rt, "--hooks", cannedServer(t, marked), "--no-token", "--timeout", "2s"); o.err != nil || o.stdout != "" {
			t.Errorf("%s, marked empty answer: %+v; want no opinion", rt, o)
		}
	}
}

// TestThinRefusesOtherRuntimePath: a --hooks URL whose path is another
// runtime's (/hooks/codex for gemini, /hooks/gemini for Claude Code, ...)
// is a bad command line: a call is denied in the hook's own format, even
// under --unreachable allow, with the path to use, and Check refuses it.
// The server here answers at each path as serve --hooks would.
func TestThinRefusesOtherRuntimePath(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		out := hookwire.DenyOutput("denied at " + r.URL.Path)
		if a, ok := hookwire.Agents[strings.TrimPrefix(r.URL.Path, "/hooks/")]; ok {
			w.Header().Set(hookwire.HeaderAnswer, r.URL.Path)
			out = a.DenyOutput("denied at " + r.URL.Path)
		}
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	for _, rt := range []string{"claude-code", "codex", "gemini", "qwen"} {
		payload, deny, args := codexCall, string(hookwire.DenyOutput(""))[:12], []string{}
		if rt == "gemini" {
			payload = geminiCall
		}
		if rt != "claude-code" {
			deny = string(hookwire.Agents[rt].DenyOutput(""))[:12]
			args = []string{"--runtime", rt}
		}
		for _, other := range []string{"claude-code", "codex", "gemini", "qwen"} {
			if other == rt || other == "claude-code" && rt != "claude-code" {
				continue // its own path; Claude Code's is the server's address for the others
			}
			a := append(append([]string{}, args...), "--hooks", srv.URL+"/hooks/"+other, "--no-token", "--unreachable", "allow")
			o := run(t, payload, a...)
			if exitOf(o.err) != 0 || !strings.HasPrefix(o.stdout, deny) || !strings.Contains(o.stdout, "go to /hooks/"+rt) {
				t.Errorf("%s posting to /hooks/%s: %+v", rt, other, o)
			}
			if err := Check(a); exitOf(err) != 2 || !strings.Contains(err.Error(), "/hooks/"+rt) {
				t.Errorf("Check %q: %v", a, err)
			}
		}
	}
}
