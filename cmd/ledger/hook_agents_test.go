package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookAgentUnreachable: 'ledger hook codex|gemini' with no ledger at
// --nats denies a call in the runtime's format (exit 0: both runtimes run
// a call whose hook fails), saying how to fail open; with --unreachable
// allow it answers nothing.
func TestHookAgentUnreachable(t *testing.T) {
	for _, tc := range []struct{ cmd, payload, want string }{
		{"codex", `{"session_id":"s1","hook_event_name":"PreToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"call_1"}`, "permissionDecisionReason"},
		{"gemini", `{"session_id":"s1","hook_event_name":"BeforeTool","cwd":"/tmp","tool_name":"run_shell_command","tool_input":{"command":"ls"},"timestamp":"t"}`, `"decision":"deny"`},
	} {
		out, _, err := runCLI(t, tc.payload, "hook", tc.cmd, "--nats", "nats://127.0.0.1:1", "--timeout", "1s")
		if err != nil || !strings.Contains(out, tc.want) || !strings.Contains(out, "--unreachable allow") {
			t.Errorf("hook %s: %v %s", tc.cmd, err, out)
		}
		var v map[string]any
		if json.Unmarshal([]byte(out), &v) != nil {
			t.Errorf("hook %s answered %q, not one JSON object", tc.cmd, out)
		}
		out, _, err = runCLI(t, tc.payload, "hook", tc.cmd, "--nats", "nats://127.0.0.1:1", "--timeout", "1s", "--unreachable", "allow")
		if err != nil || strings.TrimSpace(out) != "" {
			t.Errorf("hook %s --unreachable allow: %v %q", tc.cmd, err, out)
		}
	}
}

// TestHookInstallRuntime: --runtime codex|gemini writes the runtime's
// project file, keeps the hook's budget under the runtime's timeout, and
// refuses Claude Code's own flags.
func TestHookInstallRuntime(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCLI(t, "", "hook", "install", "--runtime", "gemini", "--project", dir, "--command", "ledger", "--", "--nats", "nats://h:4222")
	if err != nil || !strings.Contains(out, "installed the ledger's gemini-cli hooks") {
		t.Fatalf("%v %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if err != nil || !strings.Contains(string(b), `"command": "ledger hook gemini --nats nats://h:4222"`) || !strings.Contains(string(b), `"timeout": 10000`) {
		t.Errorf("%v %s", err, b)
	}
	if _, _, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", dir, "--hook-timeout", "3", "--", "--timeout", "3s"); err == nil || !strings.Contains(err.Error(), "--hook-timeout 3s is not above") {
		t.Errorf("a hook timeout under the hook's budget: %v", err)
	}
	if _, _, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", dir, "--shared"); err == nil {
		t.Error("--shared with --runtime codex was accepted")
	}
	if _, _, err := runCLI(t, "", "hook", "install", "--runtime", "gemini", "--project", dir, "--uninstall"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json")); strings.TrimSpace(string(b)) != "{}" {
		t.Errorf("after uninstall: %s", b)
	}
}

// TestHookInstallRuntimeURL: --runtime R --url URL writes the thin hook
// (with --command, the ledger's 'hook R --hooks URL') for every event,
// with the token's file or variable and --scope; --uninstall removes it;
// the NATS hook's flags after -- are refused with --url; unix:PATH is
// taken (the thin hook reaches the server's socket).
func TestHookInstallRuntimeURL(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "hooks-token")
	for _, rt := range []string{"codex", "gemini", "qwen"} {
		out, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", dir, "--command", "ledger", "--url", "http://127.0.0.1:8787", "--token-file", tf, "--scope", "team:api")
		if err != nil || !strings.Contains(out, "the thin hook, to http://127.0.0.1:8787") {
			t.Fatalf("%s: %v %s", rt, err, out)
		}
		file := map[string]string{"codex": ".codex/hooks.json", "gemini": ".gemini/settings.json", "qwen": ".qwen/settings.json"}[rt]
		b, err := os.ReadFile(filepath.Join(dir, file))
		want := `"command": "ledger hook ` + rt + ` --hooks http://127.0.0.1:8787 --token-file ` + tf + ` --scope team:api"`
		if err != nil || strings.Count(string(b), want) < 4 {
			t.Errorf("%s: %v %s\nwant %s", rt, err, b, want)
		}
		if _, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", dir, "--uninstall"); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, file)); strings.TrimSpace(string(b)) != "{}" {
			t.Errorf("%s after uninstall: %s", rt, b)
		}
	}
	if _, err := os.Stat(tf); err != nil {
		t.Errorf("the token file was not made: %v", err)
	}
	out, _, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", dir, "--command", "ledger", "--url", "unix:/run/ledger.sock", "--token-env", "TOK", "--dry-run")
	if err != nil || !strings.Contains(out, `"command": "ledger hook codex --hooks unix:/run/ledger.sock --token-env TOK"`) {
		// The thin hook reaches the server's Unix socket too.
		t.Errorf("unix: URL: %v %s", err, out)
	}
	if _, _, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", dir, "--url", "http://127.0.0.1:8787", "--", "--nats", "x"); err == nil {
		t.Error("--url with NATS hook flags was accepted")
	}
}

// TestHookAgentThinUnreachable: 'ledger hook codex|gemini --hooks URL' is
// the thin hook (ledger-hook --runtime R): no server at the socket denies
// a call in the runtime's format with the adapter's reason, exit 0.
func TestHookAgentThinUnreachable(t *testing.T) {
	sock := "unix:" + filepath.Join(t.TempDir(), "none.sock")
	for _, tc := range []struct{ cmd, payload, want string }{
		{"codex", `{"session_id":"s1","hook_event_name":"PreToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"call_1"}`, "permissionDecisionReason"},
		{"gemini", `{"session_id":"s1","hook_event_name":"BeforeTool","cwd":"/tmp","tool_name":"run_shell_command","tool_input":{"command":"ls"},"timestamp":"t"}`, `"decision":"deny"`},
	} {
		out, _, err := runCLI(t, tc.payload, "hook", tc.cmd, "--hooks", sock, "--no-token")
		if err != nil || !strings.Contains(out, tc.want) || !strings.Contains(out, "at "+sock+" cannot be reached") || !strings.Contains(out, "run 'ledger hook "+tc.cmd+"' with --unreachable allow") {
			t.Errorf("hook %s --hooks: %v %s", tc.cmd, err, out)
		}
	}
}

// TestHookInstallTrustFlags: --trust and --codex are codex's alone, --codex
// needs --trust, --trust writes and so refuses --uninstall and --dry-run,
// and a codex that cannot be found is named with what to give; in each
// refusal on a fresh project nothing is written. The trust itself:
// agenthook's TestTrustCodexFake and tests/agentcli's
// TestCodexTrustedInstall.
func TestHookInstallTrustFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runtime", "gemini", "--trust"}, "gemini-cli has none"},
		{[]string{"--runtime", "qwen", "--codex", "/bin/codex", "--trust"}, "qwen-code has none"},
		{[]string{"--trust"}, "Claude Code runs the hooks"},
		{[]string{"--runtime", "codex", "--codex", "/bin/codex"}, "give --trust with it"},
		{[]string{"--runtime", "codex", "--trust", "--uninstall"}, "not with --uninstall or --dry-run"},
		{[]string{"--runtime", "codex", "--trust", "--dry-run"}, "not with --uninstall or --dry-run"},
	} {
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", dir, "--command", "ledger"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused install wrote %v", entries)
	}
	t.Setenv("PATH", t.TempDir())
	_, _, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", dir, "--command", "ledger", "--trust")
	if err == nil || !strings.Contains(err.Error(), "no codex on PATH: give --codex PATH") || !strings.Contains(err.Error(), "does not trust them yet") {
		t.Errorf("codex missing: %v", err)
	}
}
