package agentcli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

// geminiKind names a gemini payload for testdata: EVENT[-TOOL].
func geminiKind(h agentclitest.Invocation) string {
	if tool := h.Tool(); tool != "" {
		return h.Event() + "-" + tool
	}
	return h.Event()
}

// TestGeminiHooks: the real gemini -p, offline, with the recorder hook on
// every event: the main agent runs a shell command (run_shell_command) and
// reads a file (read_file) in one turn, then invokes the built-in
// "generalist" sub-agent (invoke_agent), which runs a shell command. Every
// event fires with the fields docs/gemini-cli-hooks.md lists; no payload
// tells a sub-agent's call from the main agent's.
func TestGeminiHooks(t *testing.T) {
	res := agentclitest.RunGemini(t.Context(), t, agentclitest.Case{
		Name:    "hooks",
		Files:   map[string]string{"notes.txt": "hello notes\n"},
		Timeout: 150 * time.Second,
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "run_shell_command", map[string]any{"command": "echo one > one.txt"}),
					agentclitest.Call("call_read", "read_file", map[string]any{"file_path": "notes.txt"})},
				{agentclitest.Call("call_agent", "invoke_agent", map[string]any{"agent_name": "generalist", "prompt": "script:worker"})},
			},
			"worker": {
				{agentclitest.Call("call_worker_sh", "run_shell_command", map[string]any{"command": "cat notes.txt > worker.txt"})},
				{agentclitest.Call("call_worker_done", "complete_task", map[string]any{"result": map[string]any{"response": "worker done"}})},
			},
		},
	})
	for _, q := range res.Requests {
		t.Logf("request %s script %q turn %d tools %v", q.Path, q.Script, q.Turn, q.Tools)
	}
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("gemini exited %d, unexpected requests %v; stdout %s; stderr: %s", res.ExitCode, res.Unexpected, res.Stdout, res.Stderr)
	}
	for _, f := range []string{"one.txt", "worker.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: a call did not run", f)
		}
	}
	starts := res.HooksFor("SessionStart", "")
	if len(starts) != 1 {
		t.Fatalf("%d SessionStart hooks, want 1", len(starts))
	}
	session := str(starts[0], "session_id")
	requireFields(t, starts[0], "cwd", "source", "transcript_path", "timestamp")
	for _, h := range res.Hooks {
		if str(h, "session_id") != session {
			t.Errorf("%s: session_id %q, want the one session's %q", h.Event(), str(h, "session_id"), session)
		}
		for _, k := range []string{"agent_id", "agent_type", "tool_use_id", "turn_id"} {
			if _, ok := h.Payload[k]; ok {
				t.Errorf("%s names %s: update docs/gemini-cli-hooks.md", h.Event(), k)
			}
		}
	}
	before := map[string][]agentclitest.Invocation{}
	for _, h := range res.HooksFor("BeforeTool", "") {
		before[h.Tool()] = append(before[h.Tool()], h)
		requireFields(t, h, "tool_name", "tool_input", "cwd", "transcript_path", "timestamp")
	}
	var commands []string
	for _, h := range before["run_shell_command"] {
		commands = append(commands, input(h, "command"))
	}
	if strings.Join(commands, "|") != "echo one > one.txt|cat notes.txt > worker.txt" && strings.Join(commands, "|") != "cat notes.txt > worker.txt|echo one > one.txt" {
		t.Errorf("BeforeTool run_shell_command commands %q", commands)
	}
	if len(before["read_file"]) != 1 || input(before["read_file"][0], "file_path") != "notes.txt" {
		t.Errorf("BeforeTool read_file: %v", before["read_file"])
	}
	if len(before["invoke_agent"]) != 1 {
		t.Errorf("BeforeTool invoke_agent: %v", before["invoke_agent"])
	}
	if out, _ := res.Output("call_agent"); !strings.Contains(out, "worker done") {
		t.Errorf("the sub-agent did not finish with its complete_task result: %q", out)
	}
	after := res.HooksFor("AfterTool", "")
	for _, h := range after {
		requireFields(t, h, "tool_response")
	}
	if len(after) < 4 {
		t.Errorf("%d AfterTool hooks, want one for each of the 4 calls", len(after))
	}
	for _, ev := range []string{"BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "BeforeToolSelection", "SessionEnd"} {
		if len(res.HooksFor(ev, "")) == 0 {
			t.Errorf("no %s hook", ev)
		}
	}
	checkPayloads(t, "gemini-cli", res, geminiKind)
}

// TestGeminiDeny: a BeforeTool hook denies one shell call, in each of the
// ways gemini-cli reads a denial: {"decision": "deny", "reason": ...} on
// stdout (exit 0), and exit 2 with the reason on stderr. The command does
// not run, no AfterTool fires for it, and the model's next request carries
// the reason in the call's functionResponse; the other call runs.
func TestGeminiDeny(t *testing.T) {
	testDeny(t, geminiShell, []denyCase{
		{name: "decision", rule: agentclitest.Rule{Stdout: `{"decision":"deny","reason":"` + denyReason + `"}`}, want: denyReason},
		{name: "exit2", rule: agentclitest.Rule{Stderr: denyReason, Exit: 2}, want: denyReason},
	})
}

// TestGeminiHookFailure records what gemini-cli does when the BeforeTool
// hook fails: it exits 1, it writes JSON it cannot read, or it outlives
// its timeout (killed). In each the call runs: gemini-cli fails open.
func TestGeminiHookFailure(t *testing.T) {
	testHookFailure(t, geminiShell, []hookFailure{
		{name: "exit1", rule: agentclitest.Rule{Stderr: "hook crashed", Exit: 1}, runs: true},
		{name: "badjson", rule: agentclitest.Rule{Stdout: `{"decision":`}, runs: true},
		{name: "timeout", rule: agentclitest.Rule{Sleep: 60 * time.Second, Stdout: `{"decision":"deny","reason":"too late"}`}, timeout: 2 * time.Second, runs: true},
	})
}
