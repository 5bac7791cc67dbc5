package agentcli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

var geminiCallRe = regexp.MustCompile(`--call (gemini-[0-9a-f]+) --session`)

// TestGeminiLedger: the real gemini-cli 0.61.0, offline, with the
// ledger's hooks installed by 'ledger hook install --runtime gemini' in
// the project's .gemini/settings.json, against a served ledger whose
// scope has a ledger-dialect policy allowing the shell tool, read_file,
// invoke_agent and complete_task. The main agent runs a command and reads
// a file, then has the generalist sub-agent run a command (decided as the
// root session's: no payload tells a sub-agent's call from the main
// agent's); then an operator denies run_shell_command for the session
// (deny.added), and the main agent's next command is blocked inside
// gemini with the ledger's reason; 'ledger why --call' (the id the hook
// derived, which the reason names) names revocation:deny and 'ledger
// verify' passes.
func TestGeminiLedger(t *testing.T) {
	agentclitest.Gemini(t)
	testGeminiLedger(t, serveLedger(t))
}

// TestGeminiThinLedger is TestGeminiLedger with the thin hook: 'ledger hook
// install --runtime gemini --url unix:PATH' writes 'ledger-hook --runtime
// gemini --hooks unix:PATH ...', and 'ledger serve --hooks unix:PATH' maps
// the payloads at POST /hooks/gemini as 'ledger hook gemini' does.
func TestGeminiThinLedger(t *testing.T) {
	agentclitest.Gemini(t)
	testGeminiLedger(t, serveLedgerThin(t))
}

func testGeminiLedger(t *testing.T, s *servedLedger) {
	const scope = "gemini-e2e"
	s.setPolicy(scope, map[string]any{"runtime": "gemini@0.61.0",
		"permissions": map[string]any{"allow": []string{"run_shell_command", "read_file", "invoke_agent", "complete_task"}}})
	var hooks, root string
	var d denyOnce
	res := agentclitest.RunGemini(t.Context(), t, agentclitest.Case{
		Name:   "ledger",
		Events: []string{"SessionStart"},
		Files:  map[string]string{"notes.txt": "hello notes\n"},
		Setup: func(dir, home string) {
			hooks = filepath.Join(filepath.Dir(dir), "hooks")
			s.install("gemini", dir, scope)
		},
		Before: func(q agentclitest.Request) {
			if _, ok := q.Output("call_agent"); ok && q.Script == "main" {
				root = rootOf(t, hooks)
				d.deny(t, s, "run_shell_command", root)
			}
		},
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > main.txt"}),
					agentclitest.Call("call_read", "read_file", map[string]any{"file_path": "notes.txt"})},
				{agentclitest.Call("call_agent", "invoke_agent", map[string]any{"agent_name": "generalist", "prompt": "script:worker"})},
				{agentclitest.Call("call_denied", "run_shell_command", map[string]any{"command": "touch denied.txt"})},
			},
			"worker": {
				{agentclitest.Call("call_worker_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > worker.txt"})},
				{agentclitest.Call("call_worker_done", "complete_task", map[string]any{"result": map[string]any{"response": "worker done"}})},
			},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("gemini exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	if out, _ := res.Output("call_read"); !strings.Contains(out, "hello notes") {
		t.Errorf("read_file's output: %s", out)
	}
	out := revoked(t, res, "Tool execution blocked", "revocation:deny", "INC-29", "ledger why", "--session "+root)
	m := geminiCallRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the denial names no derived call id: %s", out)
	}
	s.why(m[1], root, "revocation:deny")
	tr := s.tree("gemini-cli", root)
	if tr.Identity == nil || tr.Identity.Runtime != "gemini-cli" || tr.Scope != scope || len(tr.Children) != 0 || tr.Turns != 1 {
		t.Errorf("root: scope %q turns %d children %d identity %+v", tr.Scope, tr.Turns, len(tr.Children), tr.Identity)
	}
	s.verify()
}
