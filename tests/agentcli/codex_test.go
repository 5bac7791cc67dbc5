package agentcli

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

var agentIDRe = regexp.MustCompile(`"agent_id"\s*:\s*"([^"]+)"`)

// codexKind names a codex payload for testdata: EVENT[-TOOL][-subagent].
func codexKind(h agentclitest.Invocation) string {
	name := h.Event()
	if tool := h.Tool(); tool != "" {
		name += "-" + tool
	}
	if _, ok := h.Payload["agent_id"]; ok && h.Event() != "SubagentStart" && h.Event() != "SubagentStop" {
		name += "-subagent"
	}
	return name
}

// waitFor is a wait_agent call on the agent the call spawnID spawned.
func waitFor(id, spawnID string) agentclitest.Step {
	return agentclitest.Step{ID: id, Tool: "wait_agent", Namespace: "multi_agent_v1", ArgsFrom: func(q agentclitest.Request) map[string]any {
		o, _ := q.Output(spawnID)
		target := ""
		if m := agentIDRe.FindStringSubmatch(o); m != nil {
			target = m[1]
		}
		return map[string]any{"targets": []string{target}, "timeout_ms": 30000}
	}}
}

// TestCodexHooks: the real codex exec, offline, with the recorder hook on
// every event: the main agent runs a shell command (exec_command), reads an
// image (view_image, the one file-reading tool the catalogue has), writes
// a file (apply_patch), spawns a sub-agent (multi_agent_v1.spawn_agent,
// which gpt-5.5's catalogue defers behind tool_search but codex runs when
// called) and waits for it; the sub-agent runs a shell command. Every event
// fires with the fields docs/codex-cli-hooks.md lists.
func TestCodexHooks(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch\n"
	res := agentclitest.RunCodex(t.Context(), t, agentclitest.Case{
		Name:  "hooks",
		Files: map[string]string{"notes.txt": "hello notes\n", "pixel.png": pngFile(t)},
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "exec_command", map[string]any{"cmd": "echo one > one.txt; cat notes.txt"}),
					agentclitest.Call("call_img", "view_image", map[string]any{"path": "pixel.png"}),
					{ID: "call_patch", Tool: "apply_patch", Custom: true, Input: patch}},
				{{ID: "call_spawn", Tool: "spawn_agent", Namespace: "multi_agent_v1", Args: map[string]any{"message": "script:worker"}}},
				{waitFor("call_wait", "call_spawn")},
			},
			"worker": {{agentclitest.Call("call_worker_sh", "exec_command", map[string]any{"cmd": "cat notes.txt > worker.txt"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("codex exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	for _, f := range []string{"one.txt", "patched.txt", "worker.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: a call did not run", f)
		}
	}
	var root string
	if h := res.HooksFor("SessionStart", ""); len(h) != 1 {
		t.Fatalf("%d SessionStart hooks, want 1", len(h))
	} else {
		root = str(h[0], "session_id")
		requireFields(t, h[0], "cwd", "model", "permission_mode", "source", "transcript_path")
		if str(h[0], "source") != "startup" || str(h[0], "permission_mode") != "bypassPermissions" || str(h[0], "model") != agentclitest.CodexModel {
			t.Errorf("SessionStart: %v", h[0].Payload)
		}
	}
	// The tool names the hook sees: exec_command is "Bash" (with
	// tool_input.command), a namespaced tool is NAMESPACE+NAME with no
	// separator, except spawn_agent.
	pre := map[string]agentclitest.Invocation{}
	for _, h := range res.HooksFor("PreToolUse", "") {
		pre[str(h, "tool_use_id")] = h
		requireFields(t, h, "session_id", "turn_id", "cwd", "model", "permission_mode", "tool_name", "tool_input", "tool_use_id", "transcript_path")
	}
	for id, want := range map[string]string{"call_sh": "Bash", "call_img": "view_image", "call_patch": "apply_patch",
		"call_spawn": "spawn_agent", "call_wait": "multi_agent_v1wait_agent", "call_worker_sh": "Bash"} {
		h, ok := pre[id]
		if !ok {
			t.Errorf("no PreToolUse for %s", id)
			continue
		}
		if h.Tool() != want {
			t.Errorf("PreToolUse %s: tool_name %q, want %q", id, h.Tool(), want)
		}
		if str(h, "session_id") != root {
			t.Errorf("PreToolUse %s: session_id %q, want the root's %q (a sub-agent's too)", id, str(h, "session_id"), root)
		}
	}
	if got := input(pre["call_sh"], "command"); got != "echo one > one.txt; cat notes.txt" {
		t.Errorf("Bash tool_input.command %q", got)
	}
	if got := input(pre["call_patch"], "command"); got != patch {
		t.Errorf("apply_patch tool_input.command %q, want the patch", got)
	}
	post := map[string]agentclitest.Invocation{}
	for _, h := range res.HooksFor("PostToolUse", "") {
		post[str(h, "tool_use_id")] = h
		requireFields(t, h, "tool_response", "tool_input", "turn_id")
	}
	for _, id := range []string{"call_sh", "call_img", "call_patch", "call_spawn", "call_wait", "call_worker_sh"} {
		if _, ok := post[id]; !ok {
			t.Errorf("no PostToolUse for %s", id)
		}
	}
	// The sub-agent: SubagentStart names it (agent_id is its thread id, the
	// one spawn_agent returned; agent_type "default"); its own calls carry
	// agent_id and agent_type and the root's session_id; nothing names its
	// parent.
	o, _ := res.Output("call_spawn")
	m := agentIDRe.FindStringSubmatch(o)
	if m == nil {
		t.Fatalf("spawn_agent's output names no agent_id: %q", o)
	}
	agent := m[1]
	starts, stops := res.HooksFor("SubagentStart", ""), res.HooksFor("SubagentStop", "")
	if len(starts) != 1 || len(stops) != 1 {
		t.Fatalf("%d SubagentStart and %d SubagentStop hooks, want 1 each", len(starts), len(stops))
	}
	for _, h := range []agentclitest.Invocation{starts[0], stops[0], pre["call_worker_sh"]} {
		if str(h, "agent_id") != agent || str(h, "agent_type") != "default" || str(h, "session_id") != root {
			t.Errorf("%s: agent_id %q agent_type %q session_id %q, want %q default %q", h.Event(), str(h, "agent_id"), str(h, "agent_type"), str(h, "session_id"), agent, root)
		}
		for _, k := range []string{"parent_id", "parent_agent_id", "parent_session_id"} {
			if _, ok := h.Payload[k]; ok {
				t.Errorf("%s names %s: update docs/codex-cli-hooks.md", h.Event(), k)
			}
		}
	}
	requireFields(t, stops[0], "agent_transcript_path", "last_assistant_message", "stop_hook_active")
	for _, id := range []string{"call_sh", "call_spawn"} {
		if _, ok := pre[id].Payload["agent_id"]; ok {
			t.Errorf("the main agent's %s names an agent_id", id)
		}
	}
	prompts := res.HooksFor("UserPromptSubmit", "")
	if len(prompts) != 2 || str(prompts[0], "prompt") != "script:main" || str(prompts[1], "prompt") != "script:worker" || str(prompts[1], "agent_id") != agent {
		t.Errorf("UserPromptSubmit: want the main prompt, then the sub-agent's with its agent_id: %v", prompts)
	}
	if len(res.HooksFor("Stop", "")) != 1 || len(res.HooksFor("SessionEnd", "")) != 1 {
		t.Errorf("Stop %d, SessionEnd %d, want 1 each", len(res.HooksFor("Stop", "")), len(res.HooksFor("SessionEnd", "")))
	}
	checkPayloads(t, "codex-cli", res, codexKind)
}

const denyReason = "ledger: Bash is denied for this session (rule R7)"

// TestCodexDeny: a PreToolUse hook denies one shell call, in each of the
// two ways codex reads a denial: permissionDecision "deny" in
// hookSpecificOutput (exit 0), or exit 2 with the reason on stderr. The
// command does not run, no PostToolUse fires for it, and the model's next
// request carries the reason in the call's output; the other call of the
// same turn runs.
func TestCodexDeny(t *testing.T) {
	testDeny(t, codexShell, []denyCase{
		{name: "permissionDecision", rule: agentclitest.Rule{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + denyReason + `"}}`}, want: denyReason},
		{name: "exit2", rule: agentclitest.Rule{Stderr: denyReason, Exit: 2}, want: denyReason},
	})
}

// TestCodexHookFailure records what codex does when the PreToolUse hook
// fails: it exits 1, it writes JSON it cannot read, or it outlives its
// timeout (killed). In each the call runs: codex fails open (the hook's
// error shows in the run's output only; the model is not told).
func TestCodexHookFailure(t *testing.T) {
	testHookFailure(t, codexShell, []hookFailure{
		{name: "exit1", rule: agentclitest.Rule{Stderr: "hook crashed", Exit: 1}, runs: true},
		{name: "badjson", rule: agentclitest.Rule{Stdout: `{"hookSpecificOutput":{"permissionDecision":`}, runs: true},
		{name: "timeout", rule: agentclitest.Rule{Sleep: 60 * time.Second, Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"too late"}}`},
			timeout: 2 * time.Second, runs: true},
	})
}
