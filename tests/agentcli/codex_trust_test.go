package agentcli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

// TestCodexTrustedInstall: 'ledger hook install --runtime codex --trust'
// has the real codex 0.169.0 trust the ledger's handlers (its app-server
// lists their hashes and writes them into CODEX_HOME/config.toml, keeping
// the trust already there), and a codex exec WITHOUT
// --dangerously-bypass-hook-trust then runs the ledger's PreToolUse hook:
// a command the scope's policy does not allow is blocked inside codex with
// the ledger's answer. Without the trust codex skips the untrusted hook
// and the command runs (the install note says so), which is what this
// test would see if --trust wrote nothing. A second install --trust finds
// them trusted and writes nothing.
func TestCodexTrustedInstall(t *testing.T) {
	codex := agentclitest.Codex(t)
	s := serveLedger(t)
	const scope = "codex-trust"
	s.setPolicy(scope, map[string]any{"runtime": "codex@0.169.0",
		"permissions": map[string]any{"allow": []string{"view_image"}}})
	const other = "[hooks.state.\"/elsewhere/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:00\"\n"
	var codexHome string
	install := func(dir, home string) string {
		cmd := exec.Command(s.bin, "hook", "install", "--runtime", "codex", "--project", dir, "--command", s.bin,
			"--trust", "--codex", codex, "--", "--nats", s.url, "--scope", scope, "--timeout", "4s")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + agentclitest.CodexHome(home), "TMPDIR=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hook install --trust: %v\n%s", err, out)
		}
		return string(out)
	}
	res := agentclitest.RunCodex(t.Context(), t, agentclitest.Case{
		Name:       "trusted",
		TrustHooks: true,
		Events:     []string{},
		Setup: func(dir, home string) {
			codexHome = agentclitest.CodexHome(home)
			f, err := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteString("\n" + other)
			must(t, err)
			must(t, f.Close())
			out := install(dir, home)
			t.Logf("install --trust:\n%s", out)
			if !strings.Contains(out, "codex now trusts them: 6 handler(s) trusted in "+filepath.Join(codexHome, "config.toml")) {
				t.Errorf("first install --trust: %s", out)
			}
			if out := install(dir, home); !strings.Contains(out, "codex already trusts them (6 handler(s))") {
				t.Errorf("second install --trust: %s", out)
			}
		},
		Scripts: agentclitest.Scripts{
			"main": {{agentclitest.Call("call_sh", "exec_command", map[string]any{"cmd": "touch ran.txt"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("codex exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	if exists(filepath.Join(res.Dir, "ran.txt")) {
		t.Errorf("ran.txt was written: the ledger's hook did not run (codex did not trust it)")
	}
	out, ok := res.Output("call_sh")
	if !ok {
		t.Fatalf("the model never got call_sh's output")
	}
	for _, want := range []string{"Command blocked by PreToolUse hook", "ledger why"} {
		if !strings.Contains(out, want) {
			t.Errorf("the blocked call's output does not hold %q: %s", want, out)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	must(t, err)
	if !strings.Contains(string(cfg), other) || strings.Count(string(cfg), "trusted_hash") != 7 {
		t.Errorf("config.toml after install --trust:\n%s", cfg)
	}
}
