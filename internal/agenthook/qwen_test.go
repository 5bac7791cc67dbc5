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
// sub-agent is placed at its SubagentStart under the session whose agent
// call its agent_id names (TestQwenPlaceByCall; the background launch's
// PostToolUse then names the same spawn, TestQwenSpawn), one of its calls
// before that is denied unknown_parent, and
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
	// Qwen's order: SubagentStart places it by its agent call (TestQwenPlaceByCall),
	// then the background launch's PostToolUse names the same spawn.
	wantTypes(t, "SubagentStart", f.handle("SubagentStart", nil), events.SessionSpawned, events.TurnStarted)
	if res := f.handle("PostToolUse-agent", nil); len(res.Appended) != 1 || res.Appended[0].Type != events.SessionSpawned || !res.Appended[0].Duplicate {
		t.Errorf("PostToolUse-agent after SubagentStart: appended %v warnings %v", res.Appended, res.Warnings)
	}
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
// text) or another id places nothing (a foreground sub-agent is placed at
// its SubagentStart: TestQwenPlaceByCall).
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
	// A background launch with no SubagentStart before it places its sub-agent.
	wantTypes(t, "PostToolUse-agent (background)", f.handle("PostToolUse-agent", nil), events.SessionSpawned)
	tree, err := f.c.Tree(context.Background(), root)
	must(t, err)
	if c := tree[0].Children; len(c) != 1 || c[0].Agent != "general-purpose" {
		t.Errorf("the background sub-agent: %+v, want agent general-purpose (its task_id less -call_task, as SubagentStart's agent_type)", c)
	}
	if id, err := qwenSpawnedAgent(json.RawMessage(`{"llmContent":"Background agent launched successfully.\ntask_id: general-purpose-call_task (internal ID)","returnDisplay":{"type":"task_execution","status":"background"}}`), "call_task"); err != nil || id != "general-purpose-call_task" {
		t.Errorf("qwenSpawnedAgent: %q %v", id, err)
	}
}

// TestQwenPlaceByCall: a sub-agent is placed at its SubagentStart under
// the session whose agent call agent_id names (<agent_type>-<tool_call_id>),
// found by a why about that call: a foreground one under the root, a nested
// one under the sub-agent that spawned it, and their calls are allowed in
// their own sessions; an id checked in two sessions, one of another tool,
// one of another root, one never recorded, or a denied agent call places
// nothing, and the
// sub-agent's calls are denied unknown_parent.
func TestQwenPlaceByCall(t *testing.T) {
	f := newFixture(t, Qwen, Dialect)
	ctx := context.Background()
	f.handle("SessionStart", nil)
	f.handle("UserPromptSubmit", nil)
	fg := map[string]any{"tool_call_id": "call_fg", "tool_input": map[string]any{"description": "fg", "prompt": "script:worker", "run_in_background": false}}
	if res := f.handle("PreToolUse-agent", fg); res.Denied {
		t.Fatalf("agent: %s", res.Reason)
	}
	const child = root + ":general-purpose-call_fg"
	start := func(agentID string) *Result {
		return f.handle("SubagentStart", map[string]any{"agent_id": agentID})
	}
	wantTypes(t, "SubagentStart (foreground)", start("general-purpose-call_fg"), events.SessionSpawned, events.TurnStarted)
	sub := func(agentID, call string) *Result {
		return f.handle("PreToolUse-run_shell_command-subagent", map[string]any{"agent_id": agentID, "tool_call_id": call})
	}
	if res := sub("general-purpose-call_fg", "call_fg_sh"); res.Denied || res.Session != child {
		t.Fatalf("the foreground sub-agent's call: session %s denied %v %s", res.Session, res.Denied, res.Reason)
	}
	// Nested: the sub-agent's own agent call, then its sub-agent (keyed
	// root:agent_id like every sub-agent, spawned under the sub-agent).
	// Recorded by TestQwenLedgerForeground: agent_id general-purpose-call_fg,
	// tool_call_id call_nested; then agent_id general-purpose-call_nested.
	if res := f.handle("PreToolUse-agent-subagent", nil); res.Denied || res.Session != child {
		t.Fatalf("the sub-agent's agent call: session %s denied %v %s", res.Session, res.Denied, res.Reason)
	}
	wantTypes(t, "SubagentStart (nested)", f.handle("SubagentStart-nested", nil), events.SessionSpawned, events.TurnStarted)
	if res := sub("general-purpose-call_nested", "call_nested_sh"); res.Denied || res.Session != root+":general-purpose-call_nested" {
		t.Fatalf("the nested sub-agent's call: session %s denied %v %s", res.Session, res.Denied, res.Reason)
	}
	tree, err := f.c.Tree(ctx, root)
	must(t, err)
	if c := tree[0].Children; len(c) != 1 || c[0].Key != child || c[0].Agent != "general-purpose" || len(c[0].Children) != 1 || c[0].Children[0].Key != root+":general-purpose-call_nested" {
		t.Fatalf("tree: %+v", tree[0])
	}
	// A background launch's PostToolUse, after its SubagentStart placed it:
	// the same spawn, a duplicate.
	bg, _ := json.Marshal(map[string]any{"llmContent": "Background agent launched successfully.\ntask_id: general-purpose-call_fg", "returnDisplay": map[string]any{"type": "task_execution", "status": "background"}})
	if res := f.handle("PostToolUse-agent", map[string]any{"tool_call_id": "call_fg", "tool_response": json.RawMessage(bg)}); len(res.Appended) != 1 || !res.Appended[0].Duplicate || len(res.Warnings) != 0 {
		t.Errorf("PostToolUse after placement: appended %v warnings %v", res.Appended, res.Warnings)
	}

	// Refused: the same call id checked in two sessions (the root and the sub-agent).
	f.handle("PreToolUse-agent", map[string]any{"tool_call_id": "call_dup"})
	f.handle("PreToolUse-agent", map[string]any{"agent_id": "general-purpose-call_fg", "tool_call_id": "call_dup"})
	// Another tool's call, another root's agent call, a call never
	// recorded, a denied agent call.
	f.handle("PreToolUse-run_shell_command", map[string]any{"tool_call_id": "call_shell"})
	if res := f.handle("PreToolUse-agent", map[string]any{"session_id": "other-root", "tool_call_id": "call_xroot"}); res.Denied {
		t.Fatalf("another root's agent call: %s", res.Reason)
	}
	f.append(client.Deny(events.DenyData{Scope: "proj", Rule: "agent", Session: root, Note: "no agents"}))
	if res := f.handle("PreToolUse-agent", map[string]any{"tool_call_id": "call_refused"}); !res.Denied {
		t.Fatalf("the agent call after deny.added was allowed")
	}
	for _, c := range []struct{ id, typ, want string }{
		{"general-purpose-call_dup", "general-purpose", "2 sessions"},
		{"general-purpose-call_shell", "general-purpose", "of tool run_shell_command"},
		{"general-purpose-call_xroot", "general-purpose", "not one of root"},
		{"general-purpose-call_never", "general-purpose", "unknown_call"},
		{"general-purpose-call_refused", "general-purpose", "was denied"},
		{"general-purpose-call_fg_sh", "general-purpose-call", "is not <agent_type>-<call id>"},
	} {
		res := f.handle("SubagentStart", map[string]any{"agent_id": c.id, "agent_type": c.typ})
		if len(res.Appended) != 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), c.want) {
			t.Errorf("SubagentStart %s: appended %v, warnings %v; want %q", c.id, res.Appended, res.Warnings, c.want)
		}
		res = sub(c.id, "call_after_"+strings.ReplaceAll(c.id, "-", "_"))
		if r := codexDeny(t, res.Output); !strings.Contains(r, "unknown_parent") {
			t.Errorf("%s's call: %s", c.id, r)
		}
	}
}
