package agentcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestQwenLedger: the real Qwen Code (qwen -p), offline against the
// scripted Responses API, with the ledger's hooks installed by 'ledger hook
// install --runtime qwen' in the project's .qwen/settings.json (the
// recorder stays in HOME/.qwen/settings.json: Qwen adds the two), against a
// served ledger whose scope has a ledger-dialect policy for qwen@0.24.4.
// The main agent runs a command and starts a sub-agent (agent, in the
// background), which runs a command (placed under the root at its
// SubagentStart, by its agent call's record; the launch's PostToolUse,
// after it, names the same spawn); then an operator denies run_shell_command for the
// root alone (deny.added), and the main agent's next command is blocked
// inside Qwen with the ledger's reason; 'ledger why --call' (the model's
// call id) names revocation:deny and 'ledger verify' passes.
func TestQwenLedger(t *testing.T) {
	agentclitest.Qwen(t)
	testQwenLedger(t, serveLedger(t))
}

// TestQwenThinLedger is TestQwenLedger with the thin hook: 'ledger hook
// install --runtime qwen --url unix:PATH' writes 'ledger-hook --runtime
// qwen --hooks unix:PATH ...', and 'ledger serve --hooks unix:PATH' maps
// the payloads at POST /hooks/qwen as 'ledger hook qwen' does.
func TestQwenThinLedger(t *testing.T) {
	agentclitest.Qwen(t)
	testQwenLedger(t, serveLedgerThin(t))
}

func testQwenLedger(t *testing.T, s *servedLedger) {
	const scope = "qwen-e2e"
	s.setPolicy(scope, map[string]any{"runtime": "qwen@0.24.4",
		"permissions": map[string]any{"allow": []string{"run_shell_command", "read_file", "agent"}}})
	var hooks, root string
	var d denyOnce
	res := agentclitest.RunQwen(t.Context(), t, agentclitest.Case{
		Name:   "ledger",
		Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart"},
		Files:  map[string]string{"notes.txt": "hello notes\n"},
		Setup: func(dir, home string) {
			hooks = filepath.Join(filepath.Dir(dir), "hooks")
			s.install("qwen", dir, scope)
		},
		Before: func(q agentclitest.Request) {
			if _, ok := q.Output("call_task"); ok && q.Script == "main" {
				root = rootOf(t, hooks)
				d.deny(t, s, "run_shell_command", root)
			}
		},
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > main.txt", "description": "copy"})},
				{agentclitest.Call("call_task", "agent", map[string]any{"description": "sub work", "prompt": "script:worker"})},
				{agentclitest.Call("call_denied", "run_shell_command", map[string]any{"command": "touch denied.txt", "description": "touch"})},
			},
			"worker": {{agentclitest.Call("call_worker_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > worker.txt", "description": "copy"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("qwen exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	var order []string
	for _, h := range res.Hooks {
		order = append(order, qwenKind(h)+"/"+str(h, "tool_call_id")+str(h, "prompt_id"))
	}
	t.Logf("hook order: %v", order)
	revoked(t, res, "revocation:deny", "INC-29", "ledger why", "--call call_denied --session "+root)
	s.why("call_denied", root, "revocation:deny")
	tr := s.tree("qwen-code", root)
	if tr.Identity == nil || tr.Identity.Runtime != "qwen-code" || tr.Scope != scope || tr.Turns != 1 {
		t.Errorf("root: scope %q turns %d identity %+v", tr.Scope, tr.Turns, tr.Identity)
	}
	if len(tr.Children) != 1 || string(tr.Children[0].Key) != root+":general-purpose-call_task" {
		t.Fatalf("the root's sub-agents: %+v, want %s:general-purpose-call_task", tr.Children, root)
	}
	s.why("call_worker_sh", string(tr.Children[0].Key), "allow")
	s.verify()
}

// TestQwenLedgerForeground: the real Qwen Code with the ledger's hooks, the
// main agent starting a sub-agent in the foreground (run_in_background:
// false), which starts one of its own (nested; Qwen runs it in the
// foreground). Neither agent call answers before its sub-agent has
// finished, so each sub-agent is placed at its SubagentStart, by its
// agent_id (<agent_type>-<the agent call's tool_call_id>) and the ledger's
// record of that call: the first under the root, the nested one under the
// first (subagents.maxDepth 2: at the default 1 the nested spawn is
// refused depth_limit and its calls denied unknown_parent), and every call
// of theirs is allowed in its own session.
func TestQwenLedgerForeground(t *testing.T) {
	agentclitest.Qwen(t)
	s := serveLedger(t)
	const scope = "qwen-e2e-fg"
	s.setPolicy(scope, map[string]any{"runtime": "qwen@0.24.4", "subagents": map[string]any{"maxDepth": 2},
		"permissions": map[string]any{"allow": []string{"run_shell_command", "read_file", "agent"}}})
	res := agentclitest.RunQwen(t.Context(), t, agentclitest.Case{
		Name:   "ledger-fg",
		Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart"},
		Files:  map[string]string{"notes.txt": "hello notes\n"},
		Setup:  func(dir, home string) { s.install("qwen", dir, scope) },
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_fg", "agent", map[string]any{"description": "fg work", "prompt": "script:worker", "run_in_background": false})},
			},
			"worker": {
				{agentclitest.Call("call_worker_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > worker.txt", "description": "copy"})},
				{agentclitest.Call("call_nested", "agent", map[string]any{"description": "nested work", "prompt": "script:nested"})},
			},
			"nested": {{agentclitest.Call("call_nested_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > nested.txt", "description": "copy"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("qwen exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	var order []string
	for _, h := range res.Hooks {
		order = append(order, qwenKind(h)+"/"+str(h, "tool_call_id")+str(h, "agent_id"))
	}
	t.Logf("hook order: %v", order)
	starts := res.HooksFor("SubagentStart", "")
	// The nested sub-agent's payloads, new here: its SubagentStart and its
	// parent's agent call (written under AGENTCLI_RECORD=1, for
	// internal/agenthook's TestQwenPlaceByCall, else logged).
	ids := map[string]string{}
	for name, h := range map[string]agentclitest.Invocation{"SubagentStart-nested": starts[len(starts)-1], "PreToolUse-agent-subagent": res.HooksFor("PreToolUse", "agent")[len(res.HooksFor("PreToolUse", "agent"))-1]} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(stable(res.Base, h.Payload, ids))
		t.Logf("%s: %s", name, buf.Bytes())
		if os.Getenv(recordEnv) == "1" {
			if err := os.WriteFile(filepath.Join(ledgertest.Root(), "tests", "agentcli", "testdata", "qwen-code", "payloads", name+".json"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var types []string
	for _, h := range starts {
		types = append(types, str(h, "agent_type")+"|"+str(h, "agent_id"))
	}
	if want := []string{"general-purpose|general-purpose-call_fg", "general-purpose|general-purpose-call_nested"}; !slices.Equal(types, want) {
		t.Errorf("SubagentStart agent_type|agent_id: %v, want %v (docs/qwen-code-hooks.md)", types, want)
	}
	for _, f := range []string{"worker.txt", "nested.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: a sub-agent's call was denied", f)
		}
	}
	for _, id := range []string{"call_worker_sh", "call_nested", "call_nested_sh"} {
		if o, _ := res.Output(id); strings.Contains(o, "unknown_parent") {
			t.Errorf("%s: %s", id, o)
		}
	}
	root := str(res.HooksFor("SessionStart", "")[0], "session_id")
	tr := s.tree("qwen-code", root)
	fg, nested := root+":general-purpose-call_fg", root+":general-purpose-call_nested"
	if len(tr.Children) != 1 || string(tr.Children[0].Key) != fg || len(tr.Children[0].Children) != 1 || string(tr.Children[0].Children[0].Key) != nested {
		b, _ := json.Marshal(tr)
		t.Fatalf("the tree: %s, want %s > %s > %s", b, root, fg, nested)
	}
	for call, key := range map[string]string{"call_worker_sh": fg, "call_nested": fg, "call_nested_sh": nested} {
		s.why(call, key, "allow")
	}
	s.verify()
}
