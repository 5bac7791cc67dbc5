package agentcli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

// copilotKind names a Copilot payload for testdata: EVENT[-TOOL][-subagent],
// EVENT the one the handler was installed for (not every payload names it).
func copilotKind(h agentclitest.Invocation) string {
	name := h.Env[agentclitest.CopilotEventEnv]
	if tool := h.Tool(); tool != "" {
		name += "-" + tool
	}
	if _, ok := h.Payload["agent_id"]; ok && !strings.HasPrefix(name, "Subagent") {
		name += "-subagent"
	}
	return name
}

// copilotHooks are the recorded invocations of the handler installed for
// event (and tool_name tool, when not "").
func copilotHooks(res *agentclitest.Result, event, tool string) []agentclitest.Invocation {
	var out []agentclitest.Invocation
	for _, h := range res.Hooks {
		if h.Env[agentclitest.CopilotEventEnv] == event && (tool == "" || h.Tool() == tool) {
			out = append(out, h)
		}
	}
	return out
}

// TestCopilotHooks: the real Copilot CLI (copilot -p), offline (bring your
// own model against the scripted Responses API, COPILOT_OFFLINE=true), with
// the recorder hook on its PascalCase events in COPILOT_HOME/settings.json:
// the main agent runs a shell command (bash) and reads a file (view), then
// starts a sub-agent (task) that runs a shell command. PreToolUse carries
// Claude Code's field names and tool names (Bash, Read, Agent) but no call
// id; a sub-agent's calls carry agent_id, agent_type, parent_agent_id and
// the sub-agent's own session_id (docs/copilot-cli-hooks.md).
func TestCopilotHooks(t *testing.T) {
	res := agentclitest.RunCopilot(t.Context(), t, agentclitest.Case{
		Name:  "hooks",
		Files: map[string]string{"notes.txt": "hello notes\n"},
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "bash", map[string]any{"command": "echo one > one.txt; cat notes.txt", "description": "write one"}),
					agentclitest.Call("call_view", "view", map[string]any{"path": "notes.txt"})},
				{agentclitest.Call("call_task", "task", map[string]any{"description": "sub work", "prompt": "script:worker", "agent_type": "task", "name": "worker"})},
			},
			"worker": {{agentclitest.Call("call_worker_sh", "bash", map[string]any{"command": "cat notes.txt > worker.txt", "description": "copy"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("copilot exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	for _, f := range []string{"one.txt", "worker.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: a call did not run", f)
		}
	}
	if o, _ := res.Output("call_view"); !strings.Contains(o, "hello notes") {
		t.Errorf("view's output %q", o)
	}
	starts := copilotHooks(res, "SessionStart", "")
	if len(starts) != 1 {
		t.Fatalf("%d SessionStart hooks, want 1", len(starts))
	}
	root := str(starts[0], "session_id")
	requireFields(t, starts[0], "cwd", "source", "initial_prompt", "timestamp")
	pre := copilotHooks(res, "PreToolUse", "")
	byTool := map[string][]agentclitest.Invocation{}
	for _, h := range pre {
		byTool[h.Tool()] = append(byTool[h.Tool()], h)
		requireFields(t, h, "hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "timestamp")
		// The finding that matters to the ledger: no call id of any name.
		for _, k := range []string{"tool_use_id", "tool_call_id", "toolCallId", "transcript_path", "permission_mode"} {
			if _, ok := h.Payload[k]; ok {
				t.Errorf("PreToolUse %s now carries %q: update docs/copilot-cli-hooks.md", h.Tool(), k)
			}
		}
	}
	if len(byTool["Bash"]) != 2 || len(byTool["Read"]) != 1 || len(byTool["Agent"]) != 1 {
		t.Fatalf("PreToolUse by tool_name: Bash %d, Read %d, Agent %d; want 2, 1, 1 (bash, view and task as Claude Code names them)",
			len(byTool["Bash"]), len(byTool["Read"]), len(byTool["Agent"]))
	}
	if got := input(byTool["Bash"][0], "command"); got != "echo one > one.txt; cat notes.txt" {
		t.Errorf("Bash tool_input.command %q", got)
	}
	if got := input(byTool["Read"][0], "path"); got != "notes.txt" {
		t.Errorf("Read tool_input.path %q (the view tool's own argument, not Claude Code's file_path)", got)
	}
	if str(byTool["Bash"][0], "session_id") != root || str(byTool["Read"][0], "session_id") != root {
		t.Errorf("the main agent's calls name another session_id than SessionStart's %q", root)
	}
	// The sub-agent's call.
	w := byTool["Bash"][1]
	agent := str(w, "agent_id")
	if agent == "" || str(w, "agent_type") != "task" || str(w, "parent_agent_id") != root || str(w, "session_id") != agent {
		t.Errorf("the sub-agent's Bash: agent_id %q agent_type %q parent_agent_id %q session_id %q; want its id, task, the root %q, its own id",
			agent, str(w, "agent_type"), str(w, "parent_agent_id"), str(w, "session_id"), root)
	}
	if s := copilotHooks(res, "SubagentStart", ""); len(s) != 1 || str(s[0], "agent_id") != agent {
		t.Errorf("SubagentStart: %d, want 1 naming agent %q", len(s), agent)
	}
	if s := copilotHooks(res, "SubagentStop", ""); len(s) != 1 {
		t.Errorf("SubagentStop: %d, want 1", len(s))
	}
	post := copilotHooks(res, "PostToolUse", "")
	if len(post) != 4 {
		t.Errorf("%d PostToolUse, want 4", len(post))
	}
	for _, h := range post {
		requireFields(t, h, "tool_name", "tool_input", "tool_result")
	}
	checkPayloads(t, "copilot-cli", res, copilotKind)
}

// TestCopilotDeny: a PreToolUse hook denies one shell call, with
// permissionDecision "deny" in hookSpecificOutput or at the top level (exit
// 0), or with exit 2 and the reason on stderr. The command does not run and
// the model's next request carries "Denied by preToolUse hook: " and the
// reason in the call's output; the other call of the same turn runs. Exit
// 2 denies too, but the model gets "hook exited with code 2", never the
// stderr: the ledger's reason reaches the model only in the JSON answer.
func TestCopilotDeny(t *testing.T) {
	testDeny(t, copilotShell, []denyCase{
		{name: "permissionDecision", rule: agentclitest.Rule{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + denyReason + `"}}`},
			want: "Denied by preToolUse hook: " + denyReason, exact: true},
		{name: "toplevel", rule: agentclitest.Rule{Stdout: `{"permissionDecision":"deny","permissionDecisionReason":"` + denyReason + `"}`},
			want: "Denied by preToolUse hook: " + denyReason, exact: true},
		{name: "exit2", rule: agentclitest.Rule{Stderr: denyReason, Exit: 2}, want: "Denied by preToolUse hook: hook exited with code 2", exact: true},
	})
}

// TestCopilotHookFailure records what Copilot does when the PreToolUse hook
// fails. Mixed: a hook that exits non-zero (1) fails closed (the call is
// denied, the model told "Denied by preToolUse hook from \"global
// settings\" (hook errored)"); one that writes JSON it cannot read, or
// outlives its timeoutSec (2 s against a 60 s sleep: the run ends well
// before the sleep would), fails open (the call runs).
func TestCopilotHookFailure(t *testing.T) {
	testHookFailure(t, copilotShell, []hookFailure{
		{name: "exit1", rule: agentclitest.Rule{Stderr: "hook crashed", Exit: 1}, runs: false, output: "(hook errored)"},
		{name: "badjson", rule: agentclitest.Rule{Stdout: `{"hookSpecificOutput":{"permissionDecision":`}, runs: true},
		{name: "timeout", rule: agentclitest.Rule{Sleep: 60 * time.Second, Stdout: `{"permissionDecision":"deny","permissionDecisionReason":"too late"}`}, timeout: 2 * time.Second, runs: true},
	})
}

// TestCopilotReadsProjectHooks: besides its own settings, Copilot runs the
// hooks of the project's .claude/settings.json (Claude Code's shape) and of
// .github/hooks/*.json, but only in a trusted folder (--trust-folder here;
// COPILOT_ALLOW_ALL=true also trusts it): untrusted, neither fires.
func TestCopilotReadsProjectHooks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		claude  bool // the hook in .claude/settings.json, else .github/hooks/ledger.json
		firings int
	}{
		{"claude-trusted", []string{"--trust-folder"}, true, 1},
		{"claude-untrusted", nil, true, 0},
		{"github-trusted", []string{"--trust-folder"}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := agentclitest.RunCopilot(t.Context(), t, agentclitest.Case{
				Name:   "project-" + tc.name,
				Events: []string{},
				Args:   tc.args,
				Setup: func(dir, home string) {
					cmd := agentclitest.HookCommand(t, filepath.Join(filepath.Dir(dir), "hooks"))
					if tc.claude {
						writeSettingsFile(t, filepath.Join(dir, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{
							"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
					} else {
						writeSettingsFile(t, filepath.Join(dir, ".github", "hooks", "ledger.json"), map[string]any{"version": 1, "hooks": map[string]any{
							"PreToolUse": []any{map[string]any{"type": "command", "bash": cmd}}}})
					}
				},
				Scripts: agentclitest.Scripts{"main": {{
					agentclitest.Call("call_made", "bash", map[string]any{"command": "touch made.txt", "description": "m"}),
				}}},
			})
			if len(res.HooksFor("PreToolUse", "Bash")) != tc.firings {
				t.Errorf("%d PreToolUse hooks fired, want %d (stderr %s)", len(res.HooksFor("PreToolUse", "Bash")), tc.firings, stderrTail(res.Stderr))
			}
			for _, h := range res.Hooks {
				t.Logf("payload: %v", h.Payload)
			}
		})
	}
}

func stderrTail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
