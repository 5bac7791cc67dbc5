package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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

// TestSlimBinaryAnswersAsLedgerHook runs the captured payloads through
// 'ledger hook claude-code' against a ledger, and through the ledger-hook
// binary against a ledger with the same history at the same address (a
// second 'ledger serve' on the port of the first: the answers name the
// ledger's URL and the sequence numbers of its checks), and against an
// unreachable one: every standard output, standard error and exit code is
// the same, byte for byte.
func TestSlimBinaryAnswersAsLedgerHook(t *testing.T) {
	slim := buildSlim(t)
	project := hookProject(t)
	transcripts := t.TempDir()
	names, payloads := slimPayloads(t, project, transcripts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	args := func(url string) []string {
		return []string{"--nats", url, "--tools", "Agent,Bash,Edit,Glob,Grep,Read,Write"}
	}

	var viaLedger []hookOutcome
	t.Run("ledger", func(t *testing.T) {
		url, _ := serveLedger(t, "--listen", "127.0.0.1:"+port)
		for _, p := range payloads {
			viaLedger = append(viaLedger, runLedgerHook(t, p, args(url)...))
		}
	})
	t.Run("slim", func(t *testing.T) {
		if len(viaLedger) != len(payloads) {
			t.Skip("the ledger's run failed")
		}
		url, _ := serveLedger(t, "--listen", "127.0.0.1:"+port)
		denials := 0
		for i, p := range payloads {
			got := runSlim(t, slim, p, args(url)...)
			if got != viaLedger[i] {
				t.Errorf("%s: ledger-hook answered\n%+v\nledger hook claude-code answered\n%+v", names[i], got, viaLedger[i])
			}
			if strings.Contains(got.stdout, `"permissionDecision":"deny"`) {
				denials++
			}
		}
		if denials == 0 {
			t.Error("no payload was denied: the comparison never saw a denial's reason")
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		for i, p := range payloads {
			a := []string{"--nats", "nats://127.0.0.1:1", "--timeout", "1s"}
			if got, want := runSlim(t, slim, p, a...), runLedgerHook(t, p, a...); got != want {
				t.Errorf("%s: ledger-hook answered\n%+v\nledger hook claude-code answered\n%+v", names[i], got, want)
			}
		}
	})
	t.Run("command line", func(t *testing.T) {
		for _, tt := range []struct {
			stdin string
			args  []string
			code  int
		}{
			{payloads[2], []string{"--unreachable", "maybe"}, 0},
			{payloads[2], []string{"--no-such-flag"}, 0},
			{"", []string{"--no-such-flag"}, 2},
			{"", []string{"--timeout", "0s"}, 2},
			{"", []string{"--help"}, 0},
		} {
			got, want := runSlim(t, slim, tt.stdin, tt.args...), runLedgerHook(t, tt.stdin, tt.args...)
			if got.code != tt.code || want.code != tt.code || got.stdout != want.stdout {
				t.Errorf("%q: ledger-hook %+v, ledger hook claude-code %+v, want exit %d", tt.args, got, want, tt.code)
			}
			// Messages the ledger prefixes with "ledger:" the slim
			// binary prefixes with "ledger-hook:"; the rest is the same.
			if strings.ReplaceAll(got.stderr, "ledger-hook: ", "ledger: ") != want.stderr {
				t.Errorf("%q: standard error\n%s\nwant\n%s", tt.args, got.stderr, want.stderr)
			}
		}
	})
}

// TestHookInstallSlim: install writes the slim binary's command when given
// one, in exactly the block the ledger's command would take, and the
// ledger's command replaces it again.
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
	out, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--hook-binary", bin, "--", "--nats", "nats://127.0.0.1:4222")
	if err != nil {
		t.Fatalf("%v %s %s", err, out, errOut)
	}
	want, _, err := cchook.Install(nil, cchook.CommandBlock(cchook.Quote(bin, "--nats", "nats://127.0.0.1:4222"), 10))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(local); !bytes.Equal(got, want) {
		t.Fatalf("installed:\n%s\nwant:\n%s", got, want)
	}
	if _, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(local)
	if bytes.Contains(got, []byte(cchook.SlimBinary)) || !bytes.Contains(got, []byte(`"command": "ledger hook claude-code"`)) {
		t.Fatalf("the ledger's command did not replace the slim one:\n%s", got)
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
		{[]string{"--hook-binary", notExec}, "not an executable file"},
		{[]string{"--hook-binary", filepath.Join(t.TempDir(), "none")}, "not an executable file"},
		{[]string{"--hook-binary", bin, "--command", "ledger"}, "not both"},
		{[]string{"--hook-binary", bin, "--url", "http://x" + cchook.HTTPPath}, "--url"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, tt.args...)...)
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
