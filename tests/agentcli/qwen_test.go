package agentcli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

// qwenKind names a Qwen Code payload for testdata: EVENT[-TOOL][-subagent].
func qwenKind(h agentclitest.Invocation) string {
	name := h.Event()
	if tool := h.Tool(); tool != "" {
		name += "-" + tool
	}
	if _, ok := h.Payload["agent_id"]; ok && !strings.HasPrefix(name, "Subagent") {
		name += "-subagent"
	}
	return name
}

// TestQwenHooks: the real Qwen Code (qwen -p), offline against the scripted
// Responses API (--auth-type openai-responses), with the recorder hook in
// HOME/.qwen/settings.json: the main agent runs a shell command
// (run_shell_command) and reads a file (read_file), then starts a sub-agent
// (agent) that runs a shell command. PreToolUse has Claude Code's fields
// (session_id, transcript_path, cwd, permission_mode, tool_name,
// tool_input, tool_use_id) but Qwen's own tool names, and tool_use_id is
// one Qwen makes ("toolu_..."), not the model's call id, which is
// tool_call_id; a sub-agent's calls carry agent_id and the root's
// session_id (docs/qwen-code-hooks.md).
func TestQwenHooks(t *testing.T) {
	var dir string
	res := agentclitest.RunQwen(t.Context(), t, agentclitest.Case{
		Name:  "hooks",
		Files: map[string]string{"notes.txt": "hello notes\n"},
		Setup: func(d, _ string) { dir = d },
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "run_shell_command", map[string]any{"command": "echo one > one.txt; cat notes.txt", "description": "write one"}),
					{ID: "call_read", Tool: "read_file", ArgsFrom: func(agentclitest.Request) map[string]any {
						return map[string]any{"file_path": filepath.Join(dir, "notes.txt")}
					}}},
				{agentclitest.Call("call_task", "agent", map[string]any{"description": "sub work", "prompt": "script:worker"})},
			},
			"worker": {{agentclitest.Call("call_worker_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > worker.txt", "description": "copy"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("qwen exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	for _, f := range []string{"one.txt", "worker.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: a call did not run", f)
		}
	}
	if o, _ := res.Output("call_read"); !strings.Contains(o, "hello notes") {
		t.Errorf("read_file's output %q", o)
	}
	starts := res.HooksFor("SessionStart", "")
	if len(starts) != 1 {
		t.Fatalf("%d SessionStart hooks, want 1", len(starts))
	}
	root := str(starts[0], "session_id")
	pre := map[string]agentclitest.Invocation{}
	for _, h := range res.HooksFor("PreToolUse", "") {
		pre[str(h, "tool_call_id")] = h
		requireFields(t, h, "session_id", "transcript_path", "cwd", "permission_mode", "tool_name", "tool_input", "tool_use_id", "tool_call_id")
		if id := str(h, "tool_use_id"); !strings.HasPrefix(id, "toolu_") || id == str(h, "tool_call_id") {
			t.Errorf("PreToolUse %s: tool_use_id %q: update docs/qwen-code-hooks.md", h.Tool(), id)
		}
		if str(h, "session_id") != root {
			t.Errorf("PreToolUse %s: session_id %q, want the root's %q (a sub-agent's too)", h.Tool(), str(h, "session_id"), root)
		}
	}
	for id, want := range map[string]string{"call_sh": "run_shell_command", "call_read": "read_file", "call_task": "agent", "call_worker_sh": "run_shell_command"} {
		if h, ok := pre[id]; !ok || h.Tool() != want {
			t.Errorf("PreToolUse for %s: %q (found %v), want %q", id, h.Tool(), ok, want)
		}
	}
	if got := input(pre["call_sh"], "command"); got != "echo one > one.txt; cat notes.txt" {
		t.Errorf("run_shell_command tool_input.command %q", got)
	}
	post := map[string]agentclitest.Invocation{}
	for _, h := range res.HooksFor("PostToolUse", "") {
		post[str(h, "tool_call_id")] = h
		if p, ok := pre[str(h, "tool_call_id")]; ok && str(p, "tool_use_id") != str(h, "tool_use_id") {
			t.Errorf("PostToolUse %s: tool_use_id %q, PreToolUse had %q", h.Tool(), str(h, "tool_use_id"), str(p, "tool_use_id"))
		}
	}
	for _, id := range []string{"call_sh", "call_read", "call_task", "call_worker_sh"} {
		if _, ok := post[id]; !ok {
			t.Errorf("no PostToolUse for %s", id)
		}
	}
	w := pre["call_worker_sh"]
	agent := str(w, "agent_id")
	if agent == "" {
		t.Errorf("the sub-agent's call names no agent_id: %v", w.Payload)
	}
	if s := res.HooksFor("SubagentStart", ""); len(s) != 1 || str(s[0], "agent_id") != agent || str(s[0], "agent_type") == "" {
		t.Errorf("SubagentStart: %d, want 1 naming agent %q with its agent_type", len(s), agent)
	}
	if s := res.HooksFor("SubagentStop", ""); len(s) != 1 || str(s[0], "agent_id") != agent {
		t.Errorf("SubagentStop: %d, want 1 naming agent %q", len(s), agent)
	}
	if _, ok := pre["call_sh"].Payload["agent_id"]; ok {
		t.Errorf("the main agent's call names an agent_id")
	}
	checkPayloads(t, "qwen-code", res, qwenKind)
}

// TestQwenDeny: a PreToolUse hook denies one shell call, the Claude Code
// way: permissionDecision "deny" in hookSpecificOutput (exit 0), or exit 2
// with the reason on stderr. The command does not run, and the model's
// next request carries the reason in the call's output; the other call of
// the same turn runs.
func TestQwenDeny(t *testing.T) {
	testDeny(t, qwenShell, []denyCase{
		{name: "permissionDecision", rule: agentclitest.Rule{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + denyReason + `"}}`}, want: denyReason},
		{name: "exit2", rule: agentclitest.Rule{Stderr: denyReason, Exit: 2}, want: denyReason},
	})
}

// TestQwenHookFailure records what Qwen Code does when the PreToolUse hook
// fails: it exits 1 (a non-blocking error), it writes JSON it cannot read,
// or it outlives its timeout (2 s here, against a 60 s sleep). In each the
// call runs and the model gets its ordinary output: Qwen Code fails open.
// (A run that ends before the hook's sleep would have is one the timeout
// ended: a whole Qwen run takes 10 to 35 s on the shared machine.)
func TestQwenHookFailure(t *testing.T) {
	testHookFailure(t, qwenShell, []hookFailure{
		{name: "exit1", rule: agentclitest.Rule{Stderr: "hook crashed", Exit: 1}, runs: true},
		{name: "badjson", rule: agentclitest.Rule{Stdout: `{"hookSpecificOutput":{"permissionDecision":`}, runs: true},
		{name: "timeout", rule: agentclitest.Rule{Sleep: 60 * time.Second, Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"too late"}}`},
			timeout: 2 * time.Second, runs: true},
	})
}
