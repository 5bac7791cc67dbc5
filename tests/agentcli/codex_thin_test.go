package agentcli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/agentclitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// buildThinHook builds cmd/ledger-hook into the test's directory.
func buildThinHook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ledger-hook")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ledger-hook")
	cmd.Dir = ledgertest.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ledger-hook: %v\n%s", err, out)
	}
	return bin
}

// serveLedgerThin is serveLedger with 'serve --hooks unix:PATH' (a token
// file of its own), and the ledger-hook binary: install writes the thin
// hook.
func serveLedgerThin(t *testing.T) *servedLedger {
	t.Helper()
	bin := ledgertest.BuildLedger(t)
	thin := buildThinHook(t)
	sockDir, err := os.MkdirTemp("", "lthin")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "hooks.sock")
	tokenFile := filepath.Join(t.TempDir(), "hooks-token")
	url := ledgertest.ServeLedgerWith(t, bin, "--hooks", "unix:"+sock, "--hooks-token-file", tokenFile)
	return &servedLedger{t: t, bin: bin, url: url, thin: thin, sock: sock, tokenFile: tokenFile}
}

// TestCodexThinLedger is TestCodexLedger with the thin hook: 'ledger hook
// install --runtime codex --url unix:PATH --hook-binary ledger-hook'
// writes 'ledger-hook --runtime codex --hooks unix:PATH --token-file F
// --scope S' for every event, and 'ledger serve --hooks unix:PATH' maps
// the payloads (POST /hooks/codex) as 'ledger hook codex' does: the
// allowed calls run, the sub-agent is placed under the root, the call the
// operator revokes is blocked inside codex with the ledger's reason and
// the 'ledger why' to run.
func TestCodexThinLedger(t *testing.T) {
	agentclitest.Codex(t)
	s := serveLedgerThin(t)
	thin, sock := s.thin, s.sock
	const scope = "codex-thin-e2e"
	s.setPolicy(scope, map[string]any{"runtime": "codex@0.169.0",
		"permissions": map[string]any{"allow": []string{"Bash", "view_image", "spawn_agent", "multi_agent_v1wait_agent"}}})
	var hooks, root string
	var d denyOnce
	res := agentclitest.RunCodex(t.Context(), t, agentclitest.Case{
		Name:   "thin",
		Events: []string{"SessionStart", "PreToolUse", "PostToolUse", "SubagentStart"},
		Files:  map[string]string{"notes.txt": "hello notes\n"},
		Setup: func(dir, home string) {
			hooks = filepath.Join(filepath.Dir(dir), "hooks")
			s.install("codex", dir, scope)
			b, err := os.ReadFile(filepath.Join(dir, ".codex", "hooks.json"))
			if err != nil || !strings.Contains(string(b), thin+" --runtime codex --hooks unix:"+sock) {
				t.Fatalf("hooks.json: %v %s", err, b)
			}
		},
		Before: func(q agentclitest.Request) {
			if _, ok := q.Output("call_wait"); ok && q.Script == "main" {
				root = rootOf(t, hooks)
				d.deny(t, s, "Bash", root)
			}
		},
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "exec_command", map[string]any{"cmd": "cat notes.txt > main.txt"})},
				{{ID: "call_spawn", Tool: "spawn_agent", Namespace: "multi_agent_v1", Args: map[string]any{"message": "script:worker"}}},
				{waitFor("call_wait", "call_spawn")},
				{agentclitest.Call("call_denied", "exec_command", map[string]any{"cmd": "touch denied.txt"})},
			},
			"worker": {{agentclitest.Call("call_worker_sh", "exec_command", map[string]any{"cmd": "cat notes.txt > worker.txt"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("codex exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	for _, f := range []string{"main.txt", "worker.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: an allowed call did not run", f)
		}
	}
	if exists(filepath.Join(res.Dir, "denied.txt")) {
		t.Errorf("denied.txt was written: the revoked call ran")
	}
	out, ok := res.Output("call_denied")
	if !ok {
		t.Fatalf("the model never got call_denied's output")
	}
	for _, want := range []string{"Command blocked by PreToolUse hook", "revocation:deny", "INC-29", "ledger why", "--call call_denied --session " + root} {
		if !strings.Contains(out, want) {
			t.Errorf("the blocked call's output does not hold %q: %s", want, out)
		}
	}
	t.Logf("call_denied's output, as the model got it: %s", out)
	tr := s.tree("codex", root)
	if tr.Identity == nil || tr.Identity.Runtime != "codex" || tr.Scope != scope {
		t.Errorf("root: scope %q identity %+v", tr.Scope, tr.Identity)
	}
	if len(tr.Children) != 1 {
		t.Fatalf("the root has %d sub-agents, want 1", len(tr.Children))
	}
	if v := s.cmd("verify"); !strings.Contains(v, "no drift") {
		t.Errorf("ledger verify: %s", v)
	}
}
