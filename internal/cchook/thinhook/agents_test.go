package thinhook

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

const (
	codexCall  = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo hi"}}`
	geminiCall = `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"echo hi"}}`
	agentOther = `{"session_id":"s1","hook_event_name":"SessionStart","cwd":"/tmp"}`
)

// TestThinAgentAnswers: with --runtime the hook posts to the runtime's
// path (whatever path of the server --hooks names, or its socket) with
// --scope and --unreachable allow as headers and none of Claude Code's
// environment, prints a non-empty answer as it is, an empty one as
// nothing, the warnings on standard error, and exits 0.
func TestThinAgentAnswers(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "/home/dev/p")
	var got *http.Request
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		_, _ = io.ReadAll(r.Body)
		w.Header().Add(hookwire.HeaderWarning, hookwire.EncodeHeader("warned"))
		// Marked as serve --hooks marks an answer at a runtime's path.
		w.Header().Set(hookwire.HeaderAnswer, r.URL.Path)
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	tf := tokenFile(t)
	for _, rt := range []string{"codex", "gemini", "qwen"} {
		for _, url := range []string{srv.URL, srv.URL + "/", srv.URL + HTTPPath} {
			answer = ""
			o := run(t, agentOther, "--runtime", rt, "--hooks", url, "--token-file", tf, "--scope", "team:api", "--unreachable", "allow")
			if o.err != nil || o.stdout != "" || o.stderr != "ledger hook: warned\n" {
				t.Fatalf("%s %s: %+v", rt, url, o)
			}
			if got.URL.Path != "/hooks/"+rt || got.Header.Get(hookwire.HeaderScope) != "team:api" ||
				got.Header.Get(hookwire.HeaderUnreachable) != "allow" || got.Header.Get(hookwire.HeaderProjectDir) != "" ||
				got.Header.Get(hookwire.HeaderUser) == "" || got.Header.Get("Authorization") != "Bearer "+token {
				t.Fatalf("%s %s: posted to %s with %v", rt, url, got.URL.Path, got.Header)
			}
		}
		answer = string(hookwire.Agents[rt].DenyOutput("denied: the rule"))
		if o := run(t, codexCall, "--runtime", rt, "--hooks", srv.URL, "--token-file", tf); o.err != nil || o.stdout != answer+"\n" {
			t.Fatalf("%s: %+v", rt, o)
		}
	}
	// A path of its own stays.
	run(t, agentOther, "--runtime", "codex", "--hooks", srv.URL+"/elsewhere", "--token-file", tf)
	if got.URL.Path != "/elsewhere" {
		t.Fatalf("posted to %s", got.URL.Path)
	}
}

// TestThinAgentUnreachable: a server that cannot be reached denies a call
// (and a payload whose event cannot be told) in the runtime's own format
// with `ledger hook R`'s message, exit 0; --unreachable allow and any
// other event go on with a warning and print nothing. A bad --runtime or
// --scope is a usage error.
func TestThinAgentUnreachable(t *testing.T) {
	sock := "unix:" + filepath.Join(t.TempDir(), "none.sock")
	for rt, c := range map[string]string{"codex": codexCall, "qwen": codexCall, "gemini": geminiCall} {
		a := hookwire.Agents[rt]
		tool := "Bash"
		if rt == "gemini" {
			tool = "run_shell_command"
		}
		before, after, _ := strings.Cut(string(a.DenyOutput(a.UnreachableReason(sock, tool, errors.New("@ERR@")))), "@ERR@")
		o := run(t, c, "--runtime", rt, "--hooks", sock, "--no-token")
		if o.err != nil || !strings.HasPrefix(o.stdout, before) || !strings.HasSuffix(strings.TrimSpace(o.stdout), after) {
			t.Errorf("%s: %+v\nwant %s...%s", rt, o, before, after)
		}
		if o := run(t, "garbage", "--runtime", rt, "--hooks", sock, "--no-token"); o.err != nil || !strings.Contains(o.stdout, "this call (it fails closed") {
			t.Errorf("%s garbage: %+v", rt, o)
		}
		if o := run(t, c, "--runtime", rt, "--hooks", sock, "--no-token", "--unreachable", "allow"); o.err != nil || o.stdout != "" || !strings.Contains(o.stderr, "goes ahead unchecked") {
			t.Errorf("%s allow: %+v", rt, o)
		}
		if o := run(t, agentOther, "--runtime", rt, "--hooks", sock, "--no-token"); o.err != nil || o.stdout != "" || !strings.Contains(o.stderr, "nothing was recorded for this SessionStart") {
			t.Errorf("%s other: %+v", rt, o)
		}
		// A bad command line with a call: denied in the runtime's format.
		if o := run(t, c, "--runtime", rt, "--hooks", sock, "--no-token", "--scope", "bad scope"); o.err != nil || !strings.HasPrefix(o.stdout, string(a.DenyOutput(""))[:10]) || !strings.Contains(o.stdout, "--scope") {
			t.Errorf("%s bad scope: %+v", rt, o)
		}
	}
	for _, args := range [][]string{{"--runtime", "copilot"}, {"--scope", "x"}, {"--runtime", "codex", "--scope", "a b"}} {
		if o := run(t, "", append(args, "--hooks", sock)...); exitOf(o.err) != 2 {
			t.Errorf("%q: %+v", args, o)
		}
		if err := Check(append(args, "--hooks", sock)); exitOf(err) != 2 {
			t.Errorf("Check %q: %v", args, err)
		}
	}
}
