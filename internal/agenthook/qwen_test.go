package agenthook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestQwenPayloads maps the payloads Qwen Code 0.24.4 sent in
// TestQwenHooks against an in-process ledger: the root starts with its
// identity, a turn is a prompt_id (the empty-prompt UserPromptSubmit Qwen
// fires after every batch of tool results records nothing), a call is one
// record under the model's tool_call_id (not Qwen's toolu_ tool_use_id), a
// sub-agent is placed under the session whose agent call's PostToolUse
// named it (TestQwenSpawn), one before that is denied unknown_parent, and
// a deny.added on the root denies its next call in Claude Code's format.
func TestQwenPayloads(t *testing.T) {
	f := newFixture(t, Qwen, Dialect)
	ctx := context.Background()
	wantTypes(t, "SessionStart", f.handle("SessionStart", nil), events.SessionStarted)
	wantTypes(t, "UserPromptSubmit", f.handle("UserPromptSubmit", nil), events.TurnStarted)
	wantTypes(t, "UserPromptSubmit (after tool results)", f.handle("UserPromptSubmit", map[string]any{"prompt": "", "submitted_prompt": ""}))
	res := f.handle("PreToolUse-run_shell_command", nil)
	if res.Denied || len(res.Output) != 0 || res.Decision != envelope.Allow {
		t.Fatalf("run_shell_command: denied %v %s, output %s", res.Denied, res.Reason, res.Output)
	}
	wantTypes(t, "PreToolUse-run_shell_command", res, events.ToolChecked)
	if w, err := f.c.WhyCall(ctx, "call_sh"); err != nil || w.Verdict.Decision != envelope.Allow {
		t.Errorf("why --call call_sh (the model's id): %+v %v", w, err)
	}
	if res = f.handle("PreToolUse-read_file", nil); res.Denied {
		t.Errorf("read_file: %s", res.Reason)
	}
	tree, err := f.c.Tree(ctx, root)
	must(t, err)
	id := tree[0].Identity
	if id == nil || id.Runtime != "qwen-code" || id.Model != "gpt-5.5" || !strings.HasSuffix(id.Project, "/project") || tree[0].Turns != 1 {
		t.Errorf("root: turns %d identity %+v", tree[0].Turns, id)
	}
	if res = f.handle("PreToolUse-agent", nil); res.Denied {
		t.Fatalf("agent denied: %s", res.Reason)
	}
	const child = root + ":general-purpose-call_task"
	res = f.handle("PreToolUse-run_shell_command-subagent", nil)
	if r := codexDeny(t, res.Output); !strings.Contains(r, "unknown_parent") || !strings.Contains(r, "does not guess") {
		t.Errorf("an unplaced sub-agent's call: %s", r)
	}
	wantTypes(t, "SubagentStart (unplaced)", f.handle("SubagentStart", nil))
	wantTypes(t, "PostToolUse-agent", f.handle("PostToolUse-agent", nil), events.SessionSpawned)
	res = f.handle("PreToolUse-run_shell_command-subagent", map[string]any{"tool_call_id": "call_worker_2"})
	if res.Denied || res.Session != child {
		t.Fatalf("the sub-agent's call: session %s denied %v %s", res.Session, res.Denied, res.Reason)
	}
	f.append(client.Deny(events.DenyData{Scope: "proj", Rule: "run_shell_command", Session: root, Note: "INC-7"}))
	res = f.handle("PreToolUse-run_shell_command", map[string]any{"tool_call_id": "call_after"})
	r := codexDeny(t, res.Output)
	for _, want := range []string{"run_shell_command", "revocation:deny", "--call call_after --session " + root} {
		if !strings.Contains(r, want) {
			t.Errorf("the denial %q does not name %q", r, want)
		}
	}
	if res = f.handle("PreToolUse-run_shell_command-subagent", map[string]any{"tool_call_id": "call_worker_3"}); res.Denied {
		t.Errorf("the sub-agent's call after a deny on its root alone: %s", res.Reason)
	}
}

// TestQwenSpawn: the agent call's PostToolUse places its sub-agent only
// when its tool_response is Qwen's background launch naming a task_id that
// ends with the call's tool_call_id; a foreground answer (the model's own
// text) or another id places nothing.
func TestQwenSpawn(t *testing.T) {
	f := newFixture(t, Qwen, Dialect)
	f.handle("SessionStart", nil)
	fg, _ := json.Marshal(map[string]any{"llmContent": "Background agent launched successfully.\ntask_id: general-purpose-call_task", "returnDisplay": map[string]any{"type": "task_execution", "status": "completed"}})
	other, _ := json.Marshal(map[string]any{"llmContent": "Background agent launched successfully.\ntask_id: general-purpose-call_other (internal)", "returnDisplay": map[string]any{"type": "task_execution", "status": "background"}})
	for name, resp := range map[string]json.RawMessage{"foreground": fg, "another call's id": other} {
		if res := f.handle("PostToolUse-agent", map[string]any{"tool_response": resp}); len(res.Appended) != 0 || len(res.Warnings) == 0 {
			t.Errorf("%s: appended %v, warnings %v", name, res.Appended, res.Warnings)
		}
	}
	if id, err := qwenSpawnedAgent(json.RawMessage(`{"llmContent":"Background agent launched successfully.\ntask_id: general-purpose-call_task (internal ID)","returnDisplay":{"type":"task_execution","status":"background"}}`), "call_task"); err != nil || id != "general-purpose-call_task" {
		t.Errorf("qwenSpawnedAgent: %q %v", id, err)
	}
}
