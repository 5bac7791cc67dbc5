package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// hookPayloads are the real payloads Claude Code 2.1.328 sent.
var hookPayloads = filepath.Join("..", "..", "testdata", "claude-code-hooks")

// hookSession is the main session of the captured sub-agent run.
const hookSession = "4115d956-87ab-486f-a3bd-768c14406260"

// serveLedger runs 'ledger serve' in-process on a fresh data directory with
// a NATS listener and returns its client URL, and the hooks URL when args
// include --hooks. The server stops at the end of the test.
func serveLedger(t *testing.T, args ...string) (natsURL, hooksURL string) {
	t.Helper()
	want := ""
	if strings.Contains(strings.Join(args, " "), "--hooks ") {
		want = "hooks"
	}
	return serveLedgerFor(t, want, args...)
}

// serveLedgerFor is serveLedger, returning the URL of serve's log line
// msg (the front end it starts: "hooks", "mcp"; none when "").
func serveLedgerFor(t *testing.T, msg string, args ...string) (natsURL, frontURL string) {
	t.Helper()
	return serveLedgerWaiting(t, msg, func(url string) { waitForAPI(t, url) }, args...)
}

// serveLedgerWaiting is serveLedgerFor with its own wait for the API
// (a server whose users need credentials).
func serveLedgerWaiting(t *testing.T, msg string, wait func(url string), args ...string) (natsURL, frontURL string) {
	t.Helper()
	hooksURL := ""
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--listen", "127.0.0.1:-1"}, args...), nil, outW, errW)
		outW.Close()
		errW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	urlCh, hooksCh := make(chan string, 1), make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`nats://[0-9.:]+`)
		for sc := bufio.NewScanner(outR); sc.Scan(); {
			if u := re.FindString(sc.Text()); u != "" {
				urlCh <- u
			}
		}
	}()
	go func() {
		for sc := bufio.NewScanner(errR); sc.Scan(); {
			var m struct{ Msg, URL string }
			if json.Unmarshal(sc.Bytes(), &m) == nil && msg != "" && m.Msg == msg {
				hooksCh <- m.URL
			}
		}
	}()
	for natsURL == "" || msg != "" && hooksURL == "" {
		select {
		case natsURL = <-urlCh:
		case hooksURL = <-hooksCh:
		case err := <-done:
			t.Fatalf("serve exited: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not start")
		}
	}
	// serve prints its address before its service is registered.
	wait(natsURL)
	return natsURL, hooksURL
}

// hookProject makes a project whose .claude holds the policy of the tests:
// Bash echo allowed, Bash rm denied, a reviewer that may only read.
func hookProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".claude/settings.json":      `{"permissions": {"allow": ["Bash(echo *)"], "deny": ["Bash(rm *)"]}}`,
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: reviews\ntools: Read, Grep, Glob\n---\nReview.\n",
		"README.md":                  "# demo project\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// payload reads a captured payload and patches it into the test's
// session and project.
func payload(t *testing.T, name string, patch map[string]any) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(hookPayloads, name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range patch {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// hookRun is one run of 'ledger hook claude-code'.
type hookRun struct {
	out    string
	result cchook.Result
	stderr string
}

func runHookCLI(t *testing.T, stdin string, args ...string) hookRun {
	t.Helper()
	out, errOut, err := runCLI(t, stdin, append([]string{"hook", "claude-code", "--verbose"}, args...)...)
	if err != nil {
		t.Fatalf("hook: %v\n%s", err, errOut)
	}
	var r hookRun
	r.out, r.stderr = strings.TrimSpace(out), errOut
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r.result); err != nil {
		t.Fatalf("--verbose printed no result: %v\n%s", err, errOut)
	}
	return r
}

func (r hookRun) types() []string {
	var out []string
	for _, a := range r.result.Appended {
		out = append(out, string(a.Type))
	}
	return out
}

// denial decodes a PreToolUse denial; "" when the output is none.
func (r hookRun) denial(t *testing.T) string {
	t.Helper()
	var out struct {
		Specific struct {
			HookEventName, PermissionDecision, PermissionDecisionReason string
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.out), &out); err != nil {
		t.Fatalf("output %q: %v", r.out, err)
	}
	if out.Specific.PermissionDecision == "" {
		return ""
	}
	if out.Specific.HookEventName != "PreToolUse" || out.Specific.PermissionDecision != "deny" {
		t.Fatalf("output %s", r.out)
	}
	return out.Specific.PermissionDecisionReason
}

// TestHookEndToEnd runs the hook command on the captured payloads of a real
// run against a ledger served in-process: the project's policy imported, a
// session, turns, calls allowed and denied, a sub-agent spawned, an
// operator's revocation biting the sub-agent's next call, the printed
// 'ledger why' command explaining it, a resume that appends nothing and
// keeps the sub-agent's envelope, and 'ledger verify' passing.
func TestHookEndToEnd(t *testing.T) {
	url, _ := serveLedger(t)
	project := hookProject(t)
	args := []string{"--nats", url, "--tools", "Agent,Bash,Edit,Glob,Grep,Read,Write"}
	in := func(name string, patch map[string]any) string {
		p := map[string]any{"session_id": hookSession, "cwd": project,
			"transcript_path": filepath.Join(t.TempDir(), hookSession+".jsonl")}
		for k, v := range patch {
			p[k] = v
		}
		return payload(t, name, p)
	}
	step := func(name string, patch map[string]any, want ...string) hookRun {
		t.Helper()
		r := runHookCLI(t, in(name, patch), args...)
		if got := strings.Join(r.types(), " "); got != strings.Join(want, " ") {
			t.Fatalf("%s appended [%s], want [%s]\n%s", name, got, strings.Join(want, " "), r.stderr)
		}
		return r
	}
	step("SessionStart.json", nil, "policy.set", "session.started")
	step("UserPromptSubmit.json", nil, "turn.started")
	// A call is one record: the check that starts it (docs/records.md).
	if r := step("PreToolUse.json", nil, "tool.checked"); r.out != "{}" {
		t.Fatalf("allowed call answered %s", r.out)
	}
	r := step("PreToolUse.json", map[string]any{"tool_use_id": "toolu_rm", "tool_input": map[string]any{"command": "rm -rf build"}}, "tool.checked")
	reason := r.denial(t)
	for _, want := range []string{"permission:deny", "Bash(rm *)", "ledger why --nats " + url} {
		if !strings.Contains(reason, want) {
			t.Fatalf("denial %q does not say %q", reason, want)
		}
	}
	step("PostToolBatch.json", nil, "turn.started")
	step("SubagentStart-subagent.json", nil, "session.spawned", "turn.started")
	readme := map[string]any{"file_path": filepath.Join(project, "README.md")}
	if r := step("PreToolUse-subagent.json", map[string]any{"tool_input": readme}, "tool.checked"); r.out != "{}" {
		t.Fatalf("the reviewer's read answered %s", r.out)
	}

	// An operator denies Read: the reviewer's next read is blocked.
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	ops := client.New(nc, client.Options{})
	cc := client.New(nc, client.Options{Owner: defaultHookOwner})
	// The session is bound to the project's scope: the grant names it.
	tree, err := cc.Tree(ctx, hookSession)
	if err != nil || len(tree) != 1 || !strings.HasPrefix(tree[0].Scope, "claude-code:") {
		t.Fatalf("tree %+v %v", tree, err)
	}
	scope := tree[0].Scope
	if _, err := ops.Append(ctx, client.AddGrant(events.GrantData{Kind: "permission", Agent: "*", Target: "*", Behavior: "deny", Rule: "Read", Scope: scope})); err != nil {
		t.Fatal(err)
	}
	step("PostToolBatch-subagent.json", nil, "turn.started")
	r = step("PreToolUse-subagent.json", map[string]any{"tool_use_id": "toolu_SUB1_01_00", "tool_input": readme}, "tool.checked")
	reason = r.denial(t)
	if !strings.Contains(reason, "permission:deny") || !strings.Contains(reason, "grant.added") {
		t.Fatalf("denial %q names no grant", reason)
	}
	// The command the denial prints explains it.
	i := strings.Index(reason, "ledger why ")
	why := ledgertest.ShellWords(reason[i:])
	out, errOut, err := runCLI(t, "", append(why[1:], "--data", t.TempDir())...)
	if err != nil {
		t.Fatalf("%q: %v\n%s", why, err, errOut)
	}
	for _, want := range []string{"deny", "permission:deny", "Read", "grant.added"} {
		if !strings.Contains(out, want) {
			t.Fatalf("ledger why says no %q:\n%s", want, out)
		}
	}

	// A resume of the running session appends nothing; SessionEnd ends
	// it; a resume reopens it under its scope, and the reviewer keeps its
	// envelope.
	reviewer := events.SessionKey(hookSession + ":a0d23f5288942b58b")
	before, err := cc.Session(ctx, reviewer)
	if err != nil || before.Envelope == nil {
		t.Fatalf("reviewer: %+v %v", before, err)
	}
	step("SessionStart.json", map[string]any{"source": "resume"})
	step("SubagentStop-subagent.json", nil)
	step("Stop.json", nil)
	step("SessionEnd.json", nil, "session.ended")
	if tree, err = cc.Tree(ctx, hookSession); err != nil || len(tree) != 1 || tree[0].State != "ended" {
		t.Fatalf("tree after SessionEnd %+v %v", tree, err)
	}
	step("SessionStart.json", map[string]any{"source": "resume"}, "session.reopened")
	after, err := cc.Session(ctx, reviewer)
	if err != nil || after.Envelope.Hash != before.Envelope.Hash || after.State != "active" {
		t.Fatalf("after resume: %+v %v", after, err)
	}
	tree, err = cc.Tree(ctx, hookSession)
	if err != nil || len(tree) != 1 || len(tree[0].Children) != 1 || tree[0].Turns != 2 || tree[0].State != "active" || tree[0].Scope != scope {
		t.Fatalf("tree %+v %v", tree, err)
	}
	// Its turns go on from where they were.
	step("UserPromptSubmit.json", map[string]any{"prompt_id": "after-resume"}, "turn.started")
	if _, errOut, err := runCLI(t, "", "verify", "--nats", url, "--data", t.TempDir()); err != nil {
		t.Fatalf("verify: %v\n%s", err, errOut)
	}
}

// TestHookUnreachable: a ledger that cannot be reached denies calls by
// default, lets them through with --unreachable allow, never blocks the
// other events, and never makes Claude Code wait past --timeout.
func TestHookUnreachable(t *testing.T) {
	// A listener that accepts and never speaks NATS.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	refused := "nats://127.0.0.1:1"
	silent := "nats://" + ln.Addr().String()
	for _, tt := range []struct {
		name, url, payload string
		args               []string
		want               string
	}{
		{"refused call", refused, "PreToolUse.json", nil, "deny"},
		{"silent call", silent, "PreToolUse.json", nil, "deny"},
		{"allowed call", refused, "PreToolUse.json", []string{"--unreachable", "allow"}, "warn"},
		{"prompt", silent, "UserPromptSubmit.json", nil, "warn"},
		{"start", refused, "SessionStart.json", nil, "warn"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r := runHookCLI(t, payload(t, tt.payload, nil), append([]string{"--nats", tt.url, "--timeout", "1s"}, tt.args...)...)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("the hook took %s with --timeout 1s", d)
			}
			if !r.result.Unreachable {
				t.Errorf("not reported unreachable: %+v", r.result)
			}
			switch tt.want {
			case "deny":
				if reason := r.denial(t); !strings.Contains(reason, "cannot be reached") || !strings.Contains(reason, tt.url) {
					t.Fatalf("denial %q", reason)
				}
			case "warn":
				if !strings.Contains(r.out, `"systemMessage"`) || strings.Contains(r.out, "permissionDecision") {
					t.Fatalf("output %s", r.out)
				}
			}
		})
	}
}

func TestHookRedactsURLs(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":                          "nats://127.0.0.1:4222",
		"nats://alice:s3cret@h:4222":                     "nats://h:4222",
		"nats://a:b@h1:4222, nats://token@h2:4222,nats:": "nats://h1:4222,nats://h2:4222,nats:",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHookBadCommandLine: flags that do not parse deny a call and let
// anything else through; they never block Claude Code on their own.
func TestHookBadCommandLine(t *testing.T) {
	out, _, err := runCLI(t, payload(t, "PreToolUse.json", nil), "hook", "claude-code", "--unreachable", "maybe")
	if err != nil || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "--unreachable") {
		t.Fatalf("%v %s", err, out)
	}
	out, _, err = runCLI(t, payload(t, "Stop.json", nil), "hook", "claude-code", "--no-such-flag")
	if err != nil || !strings.Contains(out, "systemMessage") {
		t.Fatalf("%v %s", err, out)
	}
	if _, _, err := runCLI(t, "", "hook", "claude-code", "--no-such-flag"); err == nil {
		t.Fatal("a bad flag without a payload is not a usage error")
	}
	for _, args := range [][]string{{"hook"}, {"hook", "nope"}} {
		var msg strings.Builder
		if _, _, err := runCLI(t, "", args...); exitCode(err, &msg) != 2 {
			t.Errorf("%q: %v", args, err)
		}
	}
	for _, args := range [][]string{{"hook", "--help"}, {"hook", "claude-code", "--help"}, {"hook", "install", "--help"}} {
		out, errOut, err := runCLI(t, "", args...)
		if err != nil || !strings.Contains(out+errOut, "Usage: ledger hook") {
			t.Errorf("%q: %v\n%s%s", args, err, out, errOut)
		}
	}
}

// TestHookInstall installs into a project's settings byte for byte (the
// same bytes internal/cchook's golden files hold), installs again without
// a change, and uninstalls back to the original bytes.
func TestHookInstall(t *testing.T) {
	fixture := filepath.Join("..", "..", "internal", "cchook", "testdata", "settings")
	orig, err := os.ReadFile(filepath.Join(fixture, "user.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(fixture, "user.installed"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	local := filepath.Join(project, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	install := []string{"hook", "install", "--project", project, "--command", "'/usr/local/bin/ledger'", "--", "--nats", "nats://127.0.0.1:4222"}
	out, errOut, err := runCLI(t, "", install...)
	if err != nil || !strings.Contains(out, "installed the ledger's Claude Code hooks in "+local) {
		t.Fatalf("%v %s %s", err, out, errOut)
	}
	if got, _ := os.ReadFile(local); !bytes.Equal(got, want) {
		t.Fatalf("installed:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(local); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", st.Mode().Perm())
	}
	out, _, err = runCLI(t, "", append(install[:2:2], append([]string{"--json"}, install[2:]...)...)...)
	var reports []struct {
		File    string
		Changed bool
		Added   []string
	}
	if err != nil || json.Unmarshal([]byte(out), &reports) != nil || len(reports) != 1 || reports[0].Changed || len(reports[0].Added) != 0 {
		t.Fatalf("second install: %v %s", err, out)
	}
	// --dry-run prints and writes nothing.
	out, _, err = runCLI(t, "", "hook", "install", "--project", project, "--dry-run", "--shared", "--command", "'/usr/local/bin/ledger'", "--", "--nats", "nats://127.0.0.1:4222")
	if err != nil || !strings.Contains(out, `"command": "'/usr/local/bin/ledger' hook claude-code --nats nats://127.0.0.1:4222"`) {
		t.Fatalf("dry run: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "settings.json")); err == nil {
		t.Fatal("--dry-run wrote settings.json")
	}
	// --shared writes settings.json (other hooks than the local file's are
	// refused there: TestHookInstallOtherSettingsFile); --uninstall removes
	// both.
	var refused strings.Builder
	if _, _, err := runCLI(t, "", "hook", "install", "--project", project, "--shared", "--url", "http://127.0.0.1:8787"+cchook.HTTPPath); exitCode(err, &refused) != 1 || !strings.Contains(refused.String(), local+" holds the ledger's hooks already") {
		t.Errorf("--shared --url over the local file's command hooks: %q", refused.String())
	}
	sharedProject := t.TempDir()
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", sharedProject, "--shared", "--url", "http://127.0.0.1:8787"+cchook.HTTPPath); err != nil {
		t.Fatalf("%v %s", err, errOut)
	} else if !strings.Contains(errOut, "set LEDGER_HOOKS_TOKEN") {
		t.Errorf("a shared HTTP install does not say where its token comes from: %s", errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(sharedProject, ".claude", "settings.json")); !bytes.Contains(got, []byte(`"Bearer $LEDGER_HOOKS_TOKEN"`)) || !bytes.Contains(got, []byte(`"onFailure": "block"`)) {
		t.Errorf("a shared HTTP install wrote:\n%s", got)
	}
	if _, errOut, err := runCLI(t, "", append(install[:2:2], append([]string{"--shared"}, install[2:]...)...)...); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	out, _, err = runCLI(t, "", "hook", "install", "--project", project, "--uninstall")
	if err != nil || strings.Count(out, "removed the ledger's Claude Code hooks") != 2 {
		t.Fatalf("uninstall: %v %s", err, out)
	}
	if got, _ := os.ReadFile(local); !bytes.Equal(got, orig) {
		t.Fatalf("uninstalled:\n%s\nwant the original:\n%s", got, orig)
	}
	if got, _ := os.ReadFile(filepath.Join(project, ".claude", "settings.json")); string(got) != "{}\n" {
		t.Fatalf("settings.json after uninstall: %q", got)
	}

	// Refusals.
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--", "--password", "x"}, 2, "NATS_PASSWORD"},
		{[]string{"--", "--unreachable", "maybe"}, 2, "--unreachable"},
		{[]string{"--", "--nope"}, 2, "do not parse"},
		{[]string{"--url", "http://x" + cchook.HTTPPath, "--", "--nats", "nats://x"}, 2, "--url"},
		{[]string{"--url", "http://x" + cchook.HTTPPath, "--scope", "team-x"}, 2, "--hooks-scope"},
		{[]string{"--scope", "team x"}, 2, "--scope \"team x\""},
		{[]string{"extra"}, 2, "no arguments"},
		{[]string{"--hook-timeout", "4"}, 2, "not above the hook's budget for a call (4s"},
		{[]string{"--hook-timeout", "9", "--", "--timeout", "8s"}, 2, "budget for a call (9s"},
		{[]string{"--token-env", "X"}, 2, "about the HTTP hooks of --url"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project, "--command", "ledger"}, tt.args...)...)
		if code := exitCode(err, &msg); code != tt.code || !strings.Contains(msg.String(), tt.msg) {
			t.Errorf("%q: exit %d %q, want %d with %q", tt.args, code, msg.String(), tt.code, tt.msg)
		}
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--token-env", "1X"}, "an environment variable name"},
		{[]string{"--token-env", "X", "--no-token"}, "not both"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project, "--url", "http://x" + cchook.HTTPPath}, tt.args...)...)
		if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), tt.msg) {
			t.Errorf("%q: exit %d %q, want 2 with %q", tt.args, code, msg.String(), tt.msg)
		}
	}
	// --scope goes into the hook's command line, after the flags after --.
	out, _, err = runCLI(t, "", "hook", "install", "--project", project, "--dry-run", "--command", "ledger", "--scope", "team-x", "--", "--nats", "nats://x")
	if err != nil || !strings.Contains(out, `"command": "ledger hook claude-code --nats nats://x --scope team-x"`) {
		t.Errorf("install --scope: %v\n%s", err, out)
	}
	if err := os.WriteFile(local, []byte(`{"hooks": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var msg strings.Builder
	_, _, err = runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), local+": not valid JSON: line 1") {
		t.Errorf("bad settings: exit %d %q", code, msg.String())
	}
}

// TestHookServeHTTP posts captured payloads to 'ledger serve --hooks' and
// gets the command hook's answers.
func TestHookServeHTTP(t *testing.T) {
	project := hookProject(t)
	cat := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(cat, []byte(`["Agent","Bash","Read"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	const s3cret = "s3cret-hooks-token-for-tests"
	_, hooks := serveLedger(t, "--hooks", "127.0.0.1:0", "--hooks-token", s3cret, "--hooks-catalogue", cat, "--hooks-roots", filepath.Dir(project))
	post := func(body, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hooks, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	patch := map[string]any{"session_id": hookSession, "cwd": project}
	// Without the token: a denial, status 200 (any other status would let
	// a call through), and nothing appended (the prompt below still
	// starts the session).
	if code, body := post(payload(t, "PreToolUse.json", patch), ""); code != 200 || !strings.Contains(body, `"permissionDecision":"deny"`) || !strings.Contains(body, "no valid 'Authorization: Bearer' token") {
		t.Fatalf("no token: %d %s", code, body)
	}
	if code, body := post(payload(t, "PreToolUse.json", patch), "wrong"); code != 200 || !strings.Contains(body, `"permissionDecision":"deny"`) {
		t.Fatalf("a wrong token: %d %s", code, body)
	}
	// No SessionStart comes to HTTP hooks: the first prompt starts the
	// session (and installs the project's policy).
	if code, body := post(payload(t, "UserPromptSubmit.json", patch), s3cret); code != 200 || body != "{}" {
		t.Fatalf("prompt: %d %s", code, body)
	}
	if code, body := post(payload(t, "PreToolUse.json", patch), s3cret); code != 200 || body != "{}" {
		t.Fatalf("allowed call: %d %s", code, body)
	}
	patch["tool_input"], patch["tool_use_id"] = map[string]any{"command": "rm -rf /"}, "toolu_2"
	code, body := post(payload(t, "PreToolUse.json", patch), s3cret)
	if code != 200 || !strings.Contains(body, `"permissionDecision":"deny"`) || !strings.Contains(body, "permission:deny") {
		t.Fatalf("denied call: %d %s", code, body)
	}
	if code, _ := post("", s3cret); code != 200 {
		t.Fatalf("empty payload: %d", code)
	}
	resp, err := http.Get(hooks)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}

// TestHookUnreadableStdin: a payload the hook cannot read, that could be a
// PreToolUse, is denied on standard output; when not even its event can be
// told the hook also exits 2, which blocks a PreToolUse in Claude Code, with
// the reason on standard error (issue 24). Standard input over the limit is
// denied, never cut and decoded.
func TestHookUnreadableStdin(t *testing.T) {
	call := func(pad int) string {
		return `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"rm -rf x","pad":"` +
			strings.Repeat("x", pad) + `"}}`
	}
	deep := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"rm -rf x","x":` +
		strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}}`
	for _, tt := range []struct {
		name, stdin string
		code        int
	}{
		{"stdin over 64 MiB", call(64<<20 + 10), 2},
		{"stdin over 16 MiB", call(16<<20 + 10), 2},
		{"not JSON", "not json", 2},
		{"empty", "", 2},
		{"nested 9999 deep", deep, 2},
		{"Bash command an array", strings.Replace(call(0), `"rm -rf x"`, `["rm","-rf","x"]`, 1), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, tt.stdin, "hook", "claude-code", "--nats", "nats://127.0.0.1:1", "--timeout", "1s")
			var msg strings.Builder
			if code := exitCode(err, &msg); code != tt.code {
				t.Errorf("exit code %d, want %d (%v)", code, tt.code, err)
			}
			if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "could not read") {
				t.Errorf("output %.300s", out)
			}
			if tt.code == 2 && !strings.Contains(msg.String()+errOut, "could not read") {
				t.Errorf("stderr %.300s %.300s", errOut, msg.String())
			}
		})
	}
}

// TestHookServerDefaultCatalogue: 'serve --hooks' without --hooks-catalogue
// installs Claude Code's built-in catalogue, as the command hook does;
// with it, the file's.
func TestHookServerDefaultCatalogue(t *testing.T) {
	builtIn, _ := claudecode.Catalogue(claudecode.LatestRelease)
	file := filepath.Join(t.TempDir(), "cat.json")
	if err := os.WriteFile(file, []byte(`["Read","mcp__fs__read_file"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		catFile string
		want    []string
	}{{"", builtIn}, {file, []string{"Read", "mcp__fs__read_file"}}} {
		s := &hookServer{addr: "127.0.0.1:0", owner: "claude-code", insecure: true, maxConcurrent: 1, timeout: 5 * time.Second, catFile: c.catFile, roots: t.TempDir()}
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
		if len(c.want) == 0 || !slices.Equal(s.catalogue, c.want) {
			t.Errorf("--hooks-catalogue %q: the catalogue is %v, want %v", c.catFile, s.catalogue, c.want)
		}
	}
}
