package thinhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

const (
	call  = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo hi"}}`
	other = `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi"}`
	token = "0123456789abcdef-token"
)

type outcome struct {
	stdout, stderr string
	err            error
}

func run(t *testing.T, stdin string, args ...string) outcome {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), "ledger-hook", args, strings.NewReader(stdin), &out, &errOut)
	return outcome{out.String(), errOut.String(), err}
}

func exitOf(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		return 1
	}
	return 0
}

// unreachableText: an answer is the NATS hook's unreachable denial of tool
// at where, whatever the error.
func unreachableText(t *testing.T, got, where, tool string) {
	t.Helper()
	before, after, _ := strings.Cut(string(hookwire.DenyOutput(hookwire.UnreachableReason(where, tool, errors.New("@ERR@")))), "@ERR@")
	if !strings.HasPrefix(got, before) || !strings.HasSuffix(strings.TrimSpace(got), after) {
		t.Errorf("answered %s\nwant the unreachable denial %s...%s", got, before, after)
	}
}

func tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hooks-token")
	if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestThinAnswers: the thin hook posts the payload with the token and the
// process's environment as headers, and prints the server's answer, its
// warnings, and exits with the status it names.
func TestThinAnswers(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "/home/dev/my project")
	t.Setenv("AI_AGENT", "claude-code_2-1-328_harness")
	var got *http.Request
	var gotBody []byte
	answer, exit, warn := `{}`, "", ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		gotBody, _ = io.ReadAll(r.Body)
		if exit != "" {
			w.Header().Set(hookwire.HeaderExit, exit)
		}
		if warn != "" {
			w.Header().Add(hookwire.HeaderWarning, hookwire.EncodeHeader(warn))
		}
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	url := srv.URL + HTTPPath
	tf := tokenFile(t)

	o := run(t, call, "--hooks", url, "--token-file", tf, "--user-identity", "dev")
	if o.err != nil || o.stdout != "{}\n" || o.stderr != "" {
		t.Fatalf("%+v", o)
	}
	if string(gotBody) != call || got.URL.Path != HTTPPath || got.Method != http.MethodPost {
		t.Fatalf("posted %s %s %s", got.Method, got.URL.Path, gotBody)
	}
	for h, want := range map[string]string{
		"Authorization": "Bearer " + token, "Content-Type": "application/json", hookwire.HeaderThin: "1",
		hookwire.HeaderProjectDir: hookwire.EncodeHeader("/home/dev/my project"), hookwire.HeaderAIAgent: "claude-code_2-1-328_harness",
		hookwire.HeaderUser: "dev",
	} {
		if g := got.Header.Get(h); g != want {
			t.Errorf("header %s: %q, want %q", h, g, want)
		}
	}
	if got.Header.Get(hookwire.HeaderHost) == "" || got.Header.Get("Origin") != "" {
		t.Errorf("headers %v", got.Header)
	}

	deny := string(hookwire.DenyOutput("denied: the rule"))
	answer, warn = deny, "a warning,\nwith a line"
	if o := run(t, call, "--hooks", url, "--token-file", tf); o.err != nil || o.stdout != deny+"\n" || o.stderr != "ledger hook: a warning,\nwith a line\n" {
		t.Fatalf("%+v", o)
	}
	answer, exit, warn = string(hookwire.DenyOutput("unreadable")), "2", ""
	if o := run(t, "garbage", "--hooks", url, "--token-file", tf); exitOf(o.err) != 2 || o.err.Error() != "unreadable" || o.stdout != answer+"\n" {
		t.Fatalf("%+v", o)
	}
	// --token-env, and --no-token.
	answer, exit = "{}", ""
	t.Setenv("MY_TOKEN", token)
	if o := run(t, other, "--hooks", url, "--token-env", "MY_TOKEN"); o.err != nil || got.Header.Get("Authorization") != "Bearer "+token {
		t.Fatalf("%+v %v", o, got.Header)
	}
	if o := run(t, other, "--hooks", url, "--no-token"); o.err != nil || got.Header.Get("Authorization") != "" {
		t.Fatalf("%+v %v", o, got.Header)
	}
}

// TestThinUnreachable: a server that cannot be reached, answers non-2xx,
// answers something that is not a hook answer, or is too slow, is a ledger
// that cannot be reached: a call is denied with the NATS hook's message
// (or let through with --unreachable allow), another event goes on with
// its warning, and a payload whose event cannot be told is denied with
// exit 2.
func TestThinUnreachable(t *testing.T) {
	servers := map[string]http.HandlerFunc{
		"500":     func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) },
		"garbage": func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "<html>not a hook</html>") },
		"list":    func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "[]") },
		"exit": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(hookwire.HeaderExit, "7")
			_, _ = io.WriteString(w, "{}")
		},
		"timeout": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		},
	}
	urls := map[string]string{"socket missing": "unix:" + filepath.Join(t.TempDir(), "none.sock")}
	urls["refused"] = "http://" + ledgertest.RefusedAddr(t) + HTTPPath
	for name, h := range servers {
		srv := httptest.NewServer(h)
		defer srv.Close()
		urls[name] = srv.URL + HTTPPath
	}
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			args := []string{"--hooks", url, "--no-token", "--timeout", "300ms"}
			begin := time.Now()
			o := run(t, call, args...)
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("answered after %s", took)
			}
			if o.err != nil {
				t.Fatalf("%+v", o)
			}
			unreachableText(t, o.stdout, url, "Bash")

			o = run(t, call, append(args, "--unreachable", "allow")...)
			if o.err != nil || !strings.HasPrefix(o.stdout, `{"systemMessage":"ledger hook: the ledger at `+url+` cannot be reached (`) || !strings.Contains(o.stdout, "Bash goes ahead unchecked (--unreachable allow)") {
				t.Fatalf("allow: %+v", o)
			}
			o = run(t, other, args...)
			if o.err != nil || !strings.HasPrefix(o.stdout, `{"systemMessage":"ledger hook: the ledger at `+url+` cannot be reached: `) || !strings.HasSuffix(o.stdout, "(nothing was recorded for this UserPromptSubmit)\"}\n") || !strings.HasPrefix(o.stderr, "ledger hook: ") {
				t.Fatalf("another event: %+v", o)
			}
			o = run(t, "not json", args...)
			if exitOf(o.err) != 2 {
				t.Fatalf("untold: %+v", o)
			}
			unreachableText(t, o.stdout, url, "this call")
		})
	}
}

// TestThinUnixSocket: the hook reaches a server on a Unix socket.
func TestThinUnixSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "thin")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "hooks.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var host string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host + r.URL.Path
		_, _ = io.WriteString(w, "{}")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if o := run(t, call, "--hooks", "unix:"+sock, "--no-token"); o.err != nil || o.stdout != "{}\n" {
		t.Fatalf("%+v", o)
	}
	if host != "localhost"+HTTPPath {
		t.Fatalf("Host and path %q", host)
	}
}

// TestThinExitCodes: the command line. With a payload a bad command line
// denies a call and lets anything else go on (exit 0); without one it is
// a usage error (exit 2); standard input held open past --timeout is
// denied with exit 2.
func TestThinExitCodes(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		out   string
	}{
		{call, nil, 0, `"permissionDecision":"deny","permissionDecisionReason":"ledger-hook: --hooks is required`},
		{other, nil, 0, `{"systemMessage":"ledger-hook: --hooks is required`},
		{call, []string{"--hooks", "ftp://x"}, 0, `"permissionDecision":"deny"`},
		{call, []string{"--hooks", "unix:relative"}, 0, `"permissionDecision":"deny"`},
		{call, []string{"--hooks", "unix:/x", "--no-such-flag"}, 0, `bad flags (see the usage above)`},
		{call, []string{"--hooks", "unix:/x", "--no-token", "--token-env", "X"}, 0, `one of --token-file, --token-env and --no-token`},
		{call, []string{"--hooks", "unix:/x", "--token-file", "/nonexistent/token"}, 0, `the hook token file`},
		{"", []string{"--no-such-flag"}, 2, ""},
		{"", []string{"--hooks", "unix:/x", "--timeout", "0s"}, 2, ""},
		{"", nil, 2, ""},
		{"", []string{"--help"}, 0, ""},
	} {
		o := run(t, tc.stdin, tc.args...)
		if exitOf(o.err) != tc.code || !strings.Contains(o.stdout, tc.out) {
			t.Errorf("%q: %+v, want exit %d and %q", tc.args, o, tc.code, tc.out)
		}
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	var out bytes.Buffer
	err := Run(context.Background(), "ledger-hook", []string{"--hooks", "unix:/x", "--timeout", "100ms"}, pr, &out, io.Discard)
	if exitOf(err) != 2 || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("stdin held open: %v %s", err, out.String())
	}
	if !Wants([]string{"--nats", "x", "--hooks=unix:/s"}) || !Wants([]string{"-hooks", "u"}) || Wants([]string{"--hooks-x"}) || Wants([]string{"--", "--hooks"}) {
		t.Error("Wants")
	}
}
