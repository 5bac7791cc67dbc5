package hostile

// The harness of the issue 24 independent hostile pass (i24): `ledger
// serve --hooks` and `ledger hook claude-code` run as the built binary,
// with HOME and the XDG directories in temp dirs, the token in a file and
// the payload roots in a temp dir. Every request is on loopback.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// i24Token is the hooks token of every server the pass starts.
const i24Token = "i24-hostile-token-0123456789"

// i24Catalogue is the catalogue of the first policy.set.
const i24Catalogue = `["Agent","Bash","Read","Write","mcp__srv__tool"]`

// i24Settings is the project policy most probes run under: echo and touch
// allowed, rm denied.
const i24Settings = `{"permissions":{"allow":["Bash(echo *)","Bash(touch *)"],"deny":["Bash(rm *)"]}}`

// hookServe is one `ledger serve --hooks` process.
type hookServe struct {
	nats, url string
	// dir holds everything of the test; roots is --hooks-roots, under it.
	dir, roots string
	env        []string
	stderr     *lockedBuffer
	alive      func(t *testing.T)
}

// i24Env is the environment of the processes the pass starts: HOME and the
// XDG directories in dir, no ledger or NATS settings from outside.
func i24Env(dir string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "LEDGER_DATA", "NATS_URL", "NATS_USER", "NATS_PASSWORD",
			"NATS_CREDS", "LEDGER_HOOKS_TOKEN", "CLAUDE_PROJECT_DIR", "CLAUDE_CONFIG_DIR", "LEDGER_OWNER":
			continue
		}
		env = append(env, kv)
	}
	for _, d := range []string{"home", "config", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			panic(err)
		}
	}
	return append(env, "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
}

var hooksURLLine = regexp.MustCompile(`"msg":"hooks".*"url":"(http://[^"]+)"`)

// startHookServe runs `ledger serve --hooks 127.0.0.1:0` with a token file,
// roots and a catalogue, plus extra flags, and waits for both addresses.
func startHookServe(t *testing.T, extra ...string) *hookServe {
	t.Helper()
	return startHookServeWith(t, nil, extra...)
}

// startHookServeWith is startHookServe with the command line rewritten by
// wrap (nil: run the binary itself).
func startHookServeWith(t *testing.T, wrap func(bin string, args []string) (string, []string), extra ...string) *hookServe {
	t.Helper()
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatalf("building ledger: %v", err)
	}
	dir := t.TempDir()
	s := &hookServe{dir: dir, roots: filepath.Join(dir, "roots"), env: i24Env(dir), stderr: &lockedBuffer{}}
	if err := os.MkdirAll(s.roots, 0o755); err != nil {
		t.Fatal(err)
	}
	tok, cat := filepath.Join(dir, "token"), filepath.Join(dir, "tools.json")
	writeFile(t, tok, i24Token+"\n", 0o600)
	writeFile(t, cat, i24Catalogue, 0o644)
	args := append([]string{"serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:-1",
		"--hooks", "127.0.0.1:0", "--hooks-token-file", tok, "--hooks-roots", s.roots, "--hooks-catalogue", cat,
		"--log-level", "info"}, extra...)
	name := bin
	if wrap != nil {
		name, args = wrap(bin, args)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = s.env
	var stdout lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	defer func() {
		if (s.nats == "" || s.url == "") && t.Failed() {
			t.Logf("the ledger's stderr: %s", s.stderr.String())
		}
	}()
	ledgertest.WaitFor(t, 60*time.Second, "ledger serve printing its client and hooks addresses", func() bool {
		select {
		case <-exited:
			t.Fatal("ledger serve exited")
		default:
		}
		s.nats = clientURL.FindString(stdout.String())
		if m := hooksURLLine.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
		}
		return s.nats != "" && s.url != ""
	})
	s.alive = func(t *testing.T) {
		t.Helper()
		select {
		case <-exited:
			t.Fatalf("ledger serve stopped: %s", s.stderr.String())
		default:
		}
	}
	return s
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// project makes a project under the roots with the given .claude
// settings (none when ""), and returns its directory.
func (s *hookServe) project(t *testing.T, name, settings string) string {
	t.Helper()
	dir := filepath.Join(s.roots, name)
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		writeFile(t, filepath.Join(dir, ".claude", "settings.json"), settings, 0o644)
	}
	return dir
}

// post POSTs body to the hooks URL with the token and JSON content type
// and returns the status, the body and how long it took.
func (s *hookServe) post(t *testing.T, body []byte) (int, string, time.Duration) {
	t.Helper()
	return s.postWith(t, s.url, body, func(r *http.Request) {})
}

func (s *hookServe) postWith(t *testing.T, url string, body []byte, edit func(*http.Request)) (int, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+i24Token)
	edit(req)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b)), time.Since(start)
}

// prompt starts session sid in cwd (the HTTP hooks get no SessionStart).
func (s *hookServe) prompt(t *testing.T, sid, cwd string) string {
	t.Helper()
	code, body, _ := s.post(t, []byte(fmt.Sprintf(`{"session_id":%q,"hook_event_name":"UserPromptSubmit","cwd":%q,"prompt_id":"p-%s"}`, sid, cwd, sid)))
	if code != 200 {
		t.Fatalf("prompt: %d %s", code, body)
	}
	return body
}

// apiAnswers runs `ledger tree` through the CLI against the served NATS
// API, which must answer.
func (s *hookServe) apiAnswers(t *testing.T) {
	t.Helper()
	s.alive(t)
	res := runLedger(t, "tree", "--nats", s.nats, "--data", t.TempDir())
	if res.exit != 0 {
		t.Fatalf("ledger tree: exit %d: %s", res.exit, res.stderr)
	}
}

// log is `ledger log --json` through the served API.
func (s *hookServe) log(t *testing.T) []map[string]any {
	t.Helper()
	res := runLedger(t, "log", "--nats", s.nats, "--data", t.TempDir(), "--json")
	if res.exit != 0 {
		t.Fatalf("ledger log: exit %d: %s", res.exit, res.stderr)
	}
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// hookAnswer is a hook's output as Claude Code reads it.
type hookAnswer struct {
	Specific *struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
	SystemMessage *string `json:"systemMessage"`
}

// isDeny reports whether out is a PreToolUse denial.
func isDeny(out string) bool {
	var a hookAnswer
	if json.Unmarshal([]byte(out), &a) != nil || a.Specific == nil {
		return false
	}
	return a.Specific.HookEventName == "PreToolUse" && a.Specific.PermissionDecision == "deny"
}

// call is a PreToolUse payload of session sid in cwd, with the raw JSON
// text of its tool_input.
func call(sid, cwd, tool, id, input string) string {
	return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PreToolUse","tool_name":%q,"tool_use_id":%q,"tool_input":%s}`,
		sid, cwd, tool, id, input)
}

// hookCmd is one run of `ledger hook claude-code`.
type hookCmd struct {
	out, stderr string
	exit        int
	took        time.Duration
}

// runHookCmd runs `ledger hook claude-code` with stdin, env (added to the
// pass's) and args, bounded by a minute.
func runHookCmd(t *testing.T, dir string, env []string, stdin []byte, args ...string) hookCmd {
	t.Helper()
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatalf("building ledger: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"hook", "claude-code"}, args...)...)
	cmd.Env = append(i24Env(dir), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	r := hookCmd{out: strings.TrimSpace(out.String()), stderr: errOut.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("hook: %v", err)
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("hook panicked: %s", r.stderr)
	}
	return r
}

// blocks reports whether a command hook's run blocks a PreToolUse in
// Claude Code: a denial on stdout, or exit 2.
func (r hookCmd) blocks() bool { return isDeny(r.out) || r.exit == 2 }
