package agentcli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

// shellRuntime is a CLI as the deny and hook-failure tests drive it: the
// model makes shell calls, and the recorder answers the hook that decides
// them. What differs between the CLIs is here; what the tests expect of
// each is in its own test's table.
type shellRuntime struct {
	// doc names the CLI's findings: docs/DOC-hooks.md.
	doc string
	run func(context.Context, testing.TB, agentclitest.Case) *agentclitest.Result
	// event and tool are the hook event that decides a call and the
	// tool_name a shell call has in its payload.
	event, tool string
	// shell is the model's call id running command (desc: the description
	// the CLI's shell tool asks for, where it asks for one).
	shell func(id, command, desc string) agentclitest.Step
	// denyEvents are the events the deny runs record (nil: every event).
	denyEvents []string
	// after is the event that fires once a call has run, and afterFor tells
	// whether one of its invocations is for the call id (whose command
	// touches file); "" where no payload tells (Copilot's name no call).
	after    string
	afterFor func(h agentclitest.Invocation, id, file string) bool
}

var (
	codexShell = shellRuntime{doc: "codex-cli", run: agentclitest.RunCodex, event: "PreToolUse", tool: "Bash",
		shell: func(id, command, _ string) agentclitest.Step {
			return agentclitest.Call(id, "exec_command", map[string]any{"cmd": command})
		},
		after: "PostToolUse",
		afterFor: func(h agentclitest.Invocation, id, _ string) bool {
			return h.Tool() == "Bash" && str(h, "tool_use_id") == id
		}}
	geminiShell = shellRuntime{doc: "gemini-cli", run: agentclitest.RunGemini, event: "BeforeTool", tool: "run_shell_command",
		shell: func(id, command, _ string) agentclitest.Step {
			return agentclitest.Call(id, "run_shell_command", map[string]any{"command": command})
		},
		after: "AfterTool",
		afterFor: func(h agentclitest.Invocation, _, file string) bool {
			return h.Tool() == "run_shell_command" && strings.Contains(input(h, "command"), file)
		}}
	qwenShell = shellRuntime{doc: "qwen-code", run: agentclitest.RunQwen, event: "PreToolUse", tool: "run_shell_command",
		shell: func(id, command, desc string) agentclitest.Step {
			return agentclitest.Call(id, "run_shell_command", map[string]any{"command": command, "description": desc})
		},
		denyEvents: []string{"PreToolUse", "PostToolUse"},
		after:      "PostToolUse",
		afterFor: func(h agentclitest.Invocation, id, _ string) bool {
			return str(h, "tool_call_id") == id
		}}
	copilotShell = shellRuntime{doc: "copilot-cli", run: agentclitest.RunCopilot, event: "PreToolUse", tool: "Bash",
		shell: func(id, command, desc string) agentclitest.Step {
			return agentclitest.Call(id, "bash", map[string]any{"command": command, "description": desc})
		},
		denyEvents: []string{"PreToolUse", "PostToolUse"}}
)

// denyCase is one way a hook denies a call.
type denyCase struct {
	name string
	rule agentclitest.Rule
	// want is what the model gets for the denied call: its output holds
	// want, or with exact, is want.
	want  string
	exact bool
}

// testDeny runs rt once a case: the model makes two shell calls in one
// turn, and the hook denies the one that touches denied.txt by the case's
// rule. The denied command does not run, the other does, the model's next
// request carries the case's output for the denied call, and no after-call
// hook fires for it.
func testDeny(t *testing.T, rt shellRuntime, cases []denyCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rule := tc.rule
			rule.Event, rule.Tool, rule.Contains = rt.event, rt.tool, "denied.txt"
			res := rt.run(t.Context(), t, agentclitest.Case{
				Name:   "deny-" + tc.name,
				Rules:  []agentclitest.Rule{rule},
				Events: rt.denyEvents,
				Scripts: agentclitest.Scripts{"main": {{
					rt.shell("call_denied", "touch denied.txt", "d"),
					rt.shell("call_allowed", "touch allowed.txt", "a"),
				}}},
			})
			out, ok := res.Output("call_denied")
			t.Logf("exit %d; output the model got for the denied call: %q", res.ExitCode, out)
			if exists(filepath.Join(res.Dir, "denied.txt")) {
				t.Errorf("the denied command ran")
			}
			if !exists(filepath.Join(res.Dir, "allowed.txt")) {
				t.Errorf("the allowed command did not run")
			}
			switch {
			case tc.exact && out != tc.want:
				t.Errorf("the model's next request has %q for the denied call, want %q", out, tc.want)
			case !tc.exact && (!ok || !strings.Contains(out, tc.want)):
				t.Errorf("the model's next request has no output with %q for the denied call: %q (ok %v)", tc.want, out, ok)
			}
			if rt.after == "" {
				return
			}
			for _, h := range res.HooksFor(rt.after, "") {
				if rt.afterFor(h, "call_denied", "denied.txt") {
					t.Errorf("%s fired for the denied call", rt.after)
				}
			}
		})
	}
}

// hookFailure is one way the hook that decides a call fails.
type hookFailure struct {
	name    string
	rule    agentclitest.Rule
	timeout time.Duration // the hook's timeout in the CLI's config (0: its default)
	// runs: the call runs (the CLI fails open); output, when not "", is
	// what the model's output for the call holds.
	runs   bool
	output string
}

// testHookFailure runs rt once a case: the model makes one shell call
// (touch made.txt), and the hook that decides it fails by the case's rule.
// The call runs, or not, as the case says; a hook killed on its timeout
// ends the run before the hook's sleep would have.
func testHookFailure(t *testing.T, rt shellRuntime, cases []hookFailure) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rule := tc.rule
			rule.Event, rule.Tool = rt.event, rt.tool
			res := rt.run(t.Context(), t, agentclitest.Case{
				Name:        "failure-" + tc.name,
				Rules:       []agentclitest.Rule{rule},
				Events:      []string{rt.event},
				HookTimeout: tc.timeout,
				Timeout:     150 * time.Second, // past the 60 s sleep: a runtime that waits for the hook is reported, not killed
				Scripts: agentclitest.Scripts{"main": {{
					rt.shell("call_made", "touch made.txt", "m"),
				}}},
			})
			out, _ := res.Output("call_made")
			t.Logf("exit %d elapsed %v; output the model got: %q", res.ExitCode, res.Elapsed, out)
			switch ran := exists(filepath.Join(res.Dir, "made.txt")); {
			case tc.runs && !ran:
				t.Errorf("the call did not run: %s failed closed (update docs/%s-hooks.md)", rt.doc, rt.doc)
			case !tc.runs && ran:
				t.Errorf("the call ran: %s failed open (update docs/%s-hooks.md)", rt.doc, rt.doc)
			}
			if tc.output != "" && !strings.Contains(out, tc.output) {
				t.Errorf("the model's output for the call: %q, want %q in it", out, tc.output)
			}
			if tc.timeout > 0 && res.Elapsed >= rule.Sleep {
				t.Errorf("the run took %v: the hook's %v timeout did not end it before its %v sleep", res.Elapsed, tc.timeout, rule.Sleep)
			}
		})
	}
}
