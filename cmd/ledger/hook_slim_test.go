package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook"
)

// buildSlim builds cmd/ledger-hook into a temporary directory. Without a go
// toolchain the test skips, except in CI, where it fails.
func buildSlim(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("building %s needs the go toolchain on PATH: %v", cchook.SlimBinary, err)
		}
		t.Skipf("no go toolchain on PATH to build %s: %v", cchook.SlimBinary, err)
	}
	out := filepath.Join(t.TempDir(), cchook.SlimBinary)
	if msg, err := exec.Command(gobin, "build", "-o", out, "../"+cchook.SlimBinary).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	return out
}

// hookOutcome is what one hook run printed and how it exited.
type hookOutcome struct {
	stdout, stderr string
	code           int
}

func runSlim(t *testing.T, bin, stdin string, args ...string) hookOutcome {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return hookOutcome{out.String(), errOut.String(), cmd.ProcessState.ExitCode()}
}

func runLedgerHook(t *testing.T, stdin string, args ...string) hookOutcome {
	t.Helper()
	out, errOut, err := runCLI(t, stdin, append([]string{"hook", "claude-code"}, args...)...)
	// exitCode prints what the ledger process prints on exit.
	var msg strings.Builder
	code := exitCode(err, &msg)
	return hookOutcome{out, errOut + msg.String(), code}
}

// slimOrder is the order of a session's captured payloads: the main
// thread's first call, a sub-agent's, a fork's; every other file follows by
// name.
var slimOrder = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PreToolUse (rm)", "PostToolUse", "PostToolBatch",
	"SubagentStart-subagent", "PreToolUse-subagent", "PermissionRequest-subagent", "PostToolUse-subagent", "PostToolBatch-subagent", "SubagentStop-subagent",
	"SubagentStart-fork", "PreToolUse-fork", "PostToolUse-fork", "PostToolBatch-fork", "SubagentStop-fork"}

// slimPayloads are the captured payloads in slimOrder, with a denied call
// added ("PreToolUse (rm)"), patched into one project.
func slimPayloads(t *testing.T, project, transcripts string) (names, payloads []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(hookPayloads, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	names = slices.Clone(slimOrder)
	var rest []string
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); name != "fields" && !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	names = append(names, rest...)
	for _, name := range names {
		patch := map[string]any{"session_id": hookSession, "cwd": project, "transcript_path": filepath.Join(transcripts, hookSession+".jsonl")}
		file := name
		if name == "PreToolUse (rm)" {
			file, patch["tool_use_id"], patch["tool_input"] = "PreToolUse", "toolu_rm", map[string]any{"command": "rm -rf build"}
		}
		payloads = append(payloads, payload(t, file+".json", patch))
	}
	return names, payloads
}

// hooksSocket is a Unix socket path for serve --hooks: short, since a
// socket's path is bounded (108 bytes on Linux).
func hooksSocket(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "hooks.sock")
}

// TestSlimBinaryAnswersAsLedgerHook runs the captured payloads through
// 'ledger hook claude-code --hooks unix:SOCK' against 'ledger serve --hooks
// unix:SOCK', and through the thin ledger-hook binary against a ledger with
// the same history on the same socket, and against a socket that is not
// there: every standard output, standard error and exit code is the same,
// byte for byte. The root is started at SessionStart with what only the
// hook process knows (AI_AGENT's version, the user), and the denied call
// is denied by the ledger's policy.
func TestSlimBinaryAnswersAsLedgerHook(t *testing.T) {
	slim := buildSlim(t)
	project := hookProject(t)
	transcripts := t.TempDir()
	names, payloads := slimPayloads(t, project, transcripts)
	sock := hooksSocket(t)
	tokenFile := filepath.Join(t.TempDir(), "hooks-token")
	if err := os.WriteFile(tokenFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AI_AGENT", "claude-code_2-1-328_harness")
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	// Both ledgers listen on one port: a denial's why names it.
	serve := func(t *testing.T) string {
		url, hooks := serveLedger(t, "--listen", "127.0.0.1:"+port, "--hooks", "unix:"+sock, "--hooks-token-file", tokenFile, "--hooks-roots", "/",
			"--hooks-catalogue", writeCatalogue(t, "Agent,Bash,Edit,Glob,Grep,Read,Write"))
		if hooks != "unix:"+sock {
			t.Fatalf("serve --hooks listens on %q", hooks)
		}
		return url
	}
	args := []string{"--hooks", "unix:" + sock, "--token-file", tokenFile, "--user-identity", "dev"}

	var viaLedger []hookOutcome
	t.Run("ledger", func(t *testing.T) {
		url := serve(t)
		for _, p := range payloads {
			viaLedger = append(viaLedger, runLedgerHook(t, p, args...))
		}
		out, _, err := runCLI(t, "", "tree", "--nats", url, "--json")
		if err != nil || !strings.Contains(out, `"runtime_version": "2.1.328"`) || !strings.Contains(out, `"user": "dev"`) {
			t.Errorf("the root does not carry the hook's version and user: %v\n%s", err, out)
		}
	})
	t.Run("slim", func(t *testing.T) {
		if len(viaLedger) != len(payloads) {
			t.Skip("the ledger's run failed")
		}
		serve(t)
		denials := 0
		for i, p := range payloads {
			got := runSlim(t, slim, p, args...)
			if got != viaLedger[i] {
				t.Errorf("%s: ledger-hook answered\n%+v\nledger hook claude-code answered\n%+v", names[i], got, viaLedger[i])
			}
			if strings.Contains(got.stdout, `"permissionDecision":"deny"`) {
				denials++
				if !strings.Contains(got.stdout, "permission:deny") {
					t.Errorf("%s: %s", names[i], got.stdout)
				}
			}
		}
		if denials == 0 {
			t.Error("no payload was denied: the comparison never saw a denial's reason")
		}
		if _, err := os.Stat(sock); err != nil {
			t.Errorf("the socket while serving: %v", err)
		}
	})
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket after serve stopped: %v", err)
	}
	t.Run("unreachable", func(t *testing.T) {
		for i, p := range payloads {
			a := []string{"--hooks", "unix:" + sock, "--no-token", "--timeout", "1s"}
			got, want := runSlim(t, slim, p, a...), runLedgerHook(t, p, a...)
			if got != want {
				t.Errorf("%s: ledger-hook answered\n%+v\nledger hook claude-code answered\n%+v", names[i], got, want)
			}
			if names[i] == "PreToolUse" && !strings.Contains(got.stdout, "cannot be reached") {
				t.Errorf("a call with the server down: %+v", got)
			}
		}
	})
	t.Run("command line", func(t *testing.T) {
		for _, tt := range []struct {
			stdin string
			args  []string
			code  int
		}{
			{payloads[2], []string{"--hooks", "unix:/x", "--unreachable", "maybe"}, 0},
			{payloads[2], []string{"--hooks", "unix:/x", "--no-such-flag"}, 0},
			{"", []string{"--hooks", "unix:/x", "--no-such-flag"}, 2},
			{"", []string{"--hooks", "unix:/x", "--timeout", "0s"}, 2},
			{"", []string{"--hooks", "unix:/x", "--help"}, 0},
		} {
			got, want := runSlim(t, slim, tt.stdin, tt.args...), runLedgerHook(t, tt.stdin, tt.args...)
			if got.code != tt.code || want.code != tt.code {
				t.Errorf("%q: ledger-hook %+v, ledger hook claude-code %+v, want exit %d", tt.args, got, want, tt.code)
			}
			// The messages name the command: ledger-hook, or ledger hook
			// claude-code (and ledger: for the exit message).
			norm := func(s string) string {
				return strings.NewReplacer("ledger hook claude-code", "ledger-hook", "ledger: ", "ledger-hook: ").Replace(s)
			}
			if norm(got.stdout) != norm(want.stdout) || norm(got.stderr) != norm(want.stderr) {
				t.Errorf("%q: ledger-hook\n%+v\nledger hook claude-code\n%+v", tt.args, got, want)
			}
		}
	})
}

// writeCatalogue writes a catalogue file of the comma-separated tools.
func writeCatalogue(t *testing.T, tools string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "catalogue")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(tools, ",", "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeHooksUnixSocket: serve --hooks unix:PATH makes the socket
// readable by its user alone, refuses a socket a live server holds, takes
// the place of one left by a server that is gone, and removes it on stop.
func TestServeHooksUnixSocket(t *testing.T) {
	sock := hooksSocket(t)
	t.Run("serve", func(t *testing.T) {
		serveLedger(t, "--hooks", "unix:"+sock, "--hooks-insecure")
		st, err := os.Stat(sock)
		if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
			t.Fatalf("socket %v %v", st.Mode(), err)
		}
		var msg strings.Builder
		_, _, err = runCLI(t, "", "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:-1", "--hooks", "unix:"+sock, "--hooks-insecure")
		if code := exitCode(err, &msg); code == 0 || !strings.Contains(msg.String(), "already listening") {
			t.Errorf("a second server on the socket: exit %d %s", code, msg.String())
		}
	})
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket after stop: %v", err)
	}
	// A socket file nobody listens on (a server killed) is replaced.
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	t.Run("stale", func(t *testing.T) { serveLedger(t, "--hooks", "unix:"+sock, "--hooks-insecure") })
	var msg strings.Builder
	_, _, err = runCLI(t, "", "serve", "--data", t.TempDir(), "--hooks", "unix:relative.sock", "--hooks-insecure")
	if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), "absolute path") {
		t.Errorf("a relative socket: exit %d %s", code, msg.String())
	}
}

// TestHookInstallSlim: install --url writes the HTTP hooks and, for
// SessionStart, the thin ledger-hook given with --hook-binary posting to
// the same URL with the token's file; the command hooks over NATS replace
// them again; --hook-binary without --url is refused (the thin hook does
// not speak NATS).
func TestHookInstallSlim(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bin dir", cchook.SlimBinary)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho {}\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	local := filepath.Join(project, ".claude", "settings.local.json")
	tf := filepath.Join(t.TempDir(), "hooks-token")
	url := "http://127.0.0.1:8787" + cchook.HTTPPath
	out, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--hook-binary", bin, "--url", url, "--token-file", tf)
	if err != nil {
		t.Fatalf("%v %s %s", err, out, errOut)
	}
	token, _ := os.ReadFile(tf)
	want, _, err := cchook.Install(nil, cchook.HTTPBlockWith(url, strings.TrimSpace(string(token)), 10, cchook.Quote(bin, "--hooks", url, "--token-file", tf)))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(local); !bytes.Equal(got, want) {
		t.Fatalf("installed:\n%s\nwant:\n%s", got, want)
	}
	if out, _, err := runCLI(t, "", "hook", "install", "--project", project, "--hook-binary", bin, "--url", url, "--token-file", tf); err != nil || !strings.Contains(out, "already installed") {
		t.Fatalf("second install: %v %s", err, out)
	}
	// --command names the ledger for SessionStart; --shared sends the token
	// from the environment.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--command", "ledger"}, `"command": "ledger hook claude-code --hooks ` + url + ` --token-file ` + tf + `"`},
		{[]string{"--no-token"}, ` --hooks ` + url + ` --no-token"`},
		{[]string{"--token-env", "TOK"}, ` --hooks ` + url + ` --token-env TOK"`},
		{[]string{"--shared"}, ` --hooks ` + url + ` --token-env LEDGER_HOOKS_TOKEN"`},
	} {
		// --shared previews a fresh project: in this one, whose local
		// file holds other ledger hooks (the token file's), it is refused
		// (TestHookInstallOtherSettingsFile).
		dir := project
		if tt.args[0] == "--shared" {
			dir = t.TempDir()
		}
		args := append([]string{"hook", "install", "--project", dir, "--url", url, "--token-file", tf, "--dry-run"}, tt.args...)
		if out, _, err := runCLI(t, "", args...); err != nil || !strings.Contains(out, tt.want) {
			t.Errorf("%q: %v\n%s\nwant %s", tt.args, err, out, tt.want)
		}
	}
	if _, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(local)
	if bytes.Contains(got, []byte(cchook.SlimBinary)) || bytes.Contains(got, []byte(`"http"`)) || !bytes.Contains(got, []byte(`"command": "ledger hook claude-code --nats nats://127.0.0.1:4222"`)) {
		t.Fatalf("the ledger's command did not replace the --url hooks:\n%s", got)
	}
	if out, _, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall"); err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("uninstall: %v %s", err, out)
	}

	notExec := filepath.Join(t.TempDir(), cchook.SlimBinary)
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--url", url, "--hook-binary", notExec}, "not an executable file"},
		{[]string{"--url", url, "--hook-binary", filepath.Join(t.TempDir(), "none")}, "not an executable file"},
		{[]string{"--hook-binary", bin, "--command", "ledger"}, "not both"},
		{[]string{"--hook-binary", bin, "--", "--nats", "nats://127.0.0.1:4222"}, "does not speak NATS"},
		{[]string{"--url", url, "--", "--nats", "nats://x"}, "--url"},
		{[]string{"--url", "unix:/x.sock"}, "http://HOST:PORT"},
		{[]string{"--url", url, "--hook-timeout", "6"}, "thin hook's --timeout"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project, "--token-file", tf}, tt.args...)...)
		if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), tt.msg) {
			t.Errorf("%q: exit %d %q, want 2 with %q", tt.args, code, msg.String(), tt.msg)
		}
	}
}

// TestSlimBeside: install finds the slim binary in the directory of the
// ledger binary, through a symbolic link to the ledger, and only when it
// can run.
func TestSlimBeside(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger")
	slim := filepath.Join(dir, cchook.SlimBinary)
	for _, p := range []string{ledger, slim} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "ledger")
	if err := os.Symlink(ledger, link); err != nil {
		t.Fatal(err)
	}
	if got := slimBeside(ledger); got != slim {
		t.Errorf("beside %s: %q, want %q", ledger, got, slim)
	}
	if got := slimBeside(link); got != slim {
		t.Errorf("through the link %s: %q, want %q", link, got, slim)
	}
	if err := os.Chmod(slim, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := slimBeside(ledger); got != "" {
		t.Errorf("a slim binary that cannot run: %q", got)
	}
	if got := slimBeside(filepath.Join(t.TempDir(), "ledger")); got != "" {
		t.Errorf("none beside: %q", got)
	}
}
