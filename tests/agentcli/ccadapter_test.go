package agentcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// ccPolicy is the project's Claude Code policy the runs below put in
// .claude/settings.json: echo and Read allowed, touch denied.txt denied.
var ccPolicy = map[string]any{"permissions": map[string]any{
	"allow": []string{"Bash(echo *)", "Read"},
	"deny":  []string{"Bash(touch denied.txt)"},
}}

// ledgerRecords are the ledger's records as `ledger log --json` prints them.
func ledgerRecords(t *testing.T, bin, url string) []map[string]any {
	t.Helper()
	out := ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil {
			recs = append(recs, r)
		}
	}
	return recs
}

// ccHookCommand is `ledger hook claude-code` against the served ledger.
func ccHookCommand(bin, url string) string {
	return "'" + bin + "' hook claude-code --nats '" + url + "'"
}

// TestClaudeCodeAdapterOnCopilot (issue 29 point 3, step 4): the real
// Copilot CLI with `ledger hook claude-code` against a served ledger, the
// project's policy in .claude/settings.json; the hook either in Copilot's
// own settings.json as its PascalCase hooks ("own-settings"), or put in the
// project's .claude/settings.json by `ledger hook install` for Claude Code,
// which Copilot runs too in a trusted folder ("claude-install").
// SessionStart and UserPromptSubmit map (the root session is started in
// the project's scope with the imported policy, a turn starts), but
// Copilot's PreToolUse has no tool_use_id, which the adapter needs to record
// a call under: every call is denied as unreadable (tool.checked deny,
// unreadable:payload; fail closed), the allowed echo as well as the denied
// touch. So a project set up for Claude Code refuses every Copilot call
// once the folder is trusted. docs/copilot-cli-hooks.md.
func TestClaudeCodeAdapterOnCopilot(t *testing.T) {
	agentclitest.Copilot(t)
	bin := ledgertest.BuildLedger(t)
	for _, tc := range []struct {
		name    string
		install bool
	}{
		{"own-settings", false},
		{"claude-install", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := ledgertest.ServeLedger(t, bin)
			cmd := ccHookCommand(bin, url)
			c := agentclitest.Case{
				Name: "ccadapter-" + tc.name,
				Setup: func(dir, home string) {
					writeSettingsFile(t, filepath.Join(dir, ".claude", "settings.json"), ccPolicy)
					if tc.install {
						ledgertest.LedgerCmd(t, bin, "hook", "install", "--project", dir, "--", "--nats", url)
						return
					}
					hooks := map[string]any{}
					for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"} {
						hooks[ev] = []any{map[string]any{"type": "command", "bash": cmd, "timeoutSec": 20}}
					}
					writeSettingsFile(t, filepath.Join(home, ".copilot", "settings.json"), map[string]any{"hooks": hooks})
				},
				Scripts: agentclitest.Scripts{"main": {{
					agentclitest.Call("call_allowed", "bash", map[string]any{"command": "echo allowed", "description": "a"}),
					agentclitest.Call("call_denied", "bash", map[string]any{"command": "touch denied.txt", "description": "d"}),
				}}},
			}
			if tc.install {
				c.Events, c.Args = []string{}, []string{"--trust-folder"}
			}
			res := agentclitest.RunCopilot(t.Context(), t, c)
			allowed, _ := res.Output("call_allowed")
			denied, _ := res.Output("call_denied")
			t.Logf("exit %d; allowed call's output %q; denied call's output %q", res.ExitCode, allowed, denied)
			var types []string
			checked := 0
			for _, r := range ledgerRecords(t, bin, url) {
				b, _ := json.Marshal(r)
				t.Logf("record %s", b)
				types = append(types, r["type"].(string))
				if r["type"] == "tool.checked" {
					checked++
					if !strings.Contains(string(b), `"code":"unreadable:payload"`) || !strings.Contains(string(b), "no [tool_use_id]") {
						t.Errorf("a call was checked otherwise than as unreadable: %s (update docs/copilot-cli-hooks.md)", b)
					}
				}
			}
			if got := strings.Join(types, " "); !strings.HasPrefix(got, "policy.set session.started turn.started tool.checked tool.checked") {
				t.Errorf("records %q", got)
			}
			if exists(filepath.Join(res.Dir, "denied.txt")) {
				t.Errorf("the denied call ran")
			}
			if strings.Contains(allowed, "allowed\n") || !strings.Contains(allowed, "Denied by preToolUse hook") {
				t.Errorf("the allowed echo: %q; the adapter was expected to deny it as unreadable (no tool_use_id): update docs/copilot-cli-hooks.md", allowed)
			}
			if checked != 2 {
				t.Errorf("%d tool.checked records, want the 2 calls, denied", checked)
			}
		})
	}
}

// qwenToClaude is the mapping TestClaudeCodeAdapterOnQwen's "mapped" case
// puts in front of the adapter, as a sed over the payload (Qwen writes
// compact JSON): Qwen's tool names to Claude Code's, whose tool_input
// fields they already share (command; file_path; prompt).
const qwenToClaude = `sed -e 's/"tool_name":"run_shell_command"/"tool_name":"Bash"/g' -e 's/"tool_name":"read_file"/"tool_name":"Read"/g' -e 's/"tool_name":"agent"/"tool_name":"Agent"/g'`

// TestClaudeCodeAdapterOnQwen (issue 29 point 3, step 4): the real Qwen
// Code with `ledger hook claude-code` as its hooks (HOME/.qwen/settings.json),
// against a served ledger, the project's policy in .claude/settings.json.
// As is ("direct"), every event maps (the root starts in the project's
// scope, a turn per UserPromptSubmit, each call checked under Qwen's
// tool_use_id) but Qwen's tool names are not Claude Code's: every call is
// denied as catalogue:unknown, the allowed echo too (fail closed, the
// ledger's reason reaching the model). With the tool names mapped
// ("mapped": qwenToClaude before the adapter) the policy decides as it
// would for Claude Code: the echo runs, the touch is denied by its rule.
// docs/qwen-code-hooks.md.
func TestClaudeCodeAdapterOnQwen(t *testing.T) {
	agentclitest.Qwen(t)
	bin := ledgertest.BuildLedger(t)
	for _, tc := range []struct {
		name      string
		mapped    bool
		wantAllow bool   // the echo runs
		wantCode  string // the touch's reason code
	}{
		{"direct", false, false, "catalogue:unknown"},
		{"mapped", true, true, "permission:deny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := ledgertest.ServeLedger(t, bin)
			cmd := ccHookCommand(bin, url)
			if tc.mapped {
				cmd = qwenToClaude + " | " + cmd
			}
			res := agentclitest.RunQwen(t.Context(), t, agentclitest.Case{
				Name: "ccadapter-" + tc.name,
				Setup: func(dir, home string) {
					writeSettingsFile(t, filepath.Join(dir, ".claude", "settings.json"), ccPolicy)
					hooks := map[string]any{}
					for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"} {
						hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20}}}}
					}
					writeSettingsFile(t, filepath.Join(home, ".qwen", "settings.json"), map[string]any{"hooks": hooks,
						"security": map[string]any{"folderTrust": map[string]any{"enabled": false}}})
				},
				Scripts: agentclitest.Scripts{"main": {
					{agentclitest.Call("call_allowed", "run_shell_command", map[string]any{"command": "echo allowed", "description": "a"})},
					{agentclitest.Call("call_denied", "run_shell_command", map[string]any{"command": "touch denied.txt", "description": "d"})},
				}},
			})
			allowed, _ := res.Output("call_allowed")
			denied, _ := res.Output("call_denied")
			t.Logf("exit %d; allowed call's output %q; denied call's output %q", res.ExitCode, allowed, denied)
			var checked []map[string]any
			for _, r := range ledgerRecords(t, bin, url) {
				b, _ := json.Marshal(r)
				t.Logf("record %s", b)
				if r["type"] == "tool.checked" {
					checked = append(checked, r)
				}
			}
			if exists(filepath.Join(res.Dir, "denied.txt")) {
				t.Errorf("the denied call ran")
			}
			if strings.Contains(allowed, "Output: allowed") != tc.wantAllow {
				t.Errorf("the echo ran: %v, want %v: %q", !tc.wantAllow, tc.wantAllow, allowed)
			}
			if !strings.Contains(denied, "The session policy ledger denied") || !strings.Contains(denied, tc.wantCode) {
				t.Errorf("the touch's output %q: want the ledger's denial, %s", denied, tc.wantCode)
			}
			if len(checked) != 2 {
				t.Fatalf("%d tool.checked records, want 2", len(checked))
			}
			for _, r := range checked {
				data, _ := r["data"].(map[string]any)
				if call, _ := data["call"].(string); !strings.HasPrefix(call, "toolu_") {
					t.Errorf("a call recorded under %q, not Qwen's tool_use_id", call)
				}
			}
		})
	}
}

func writeSettingsFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
