package agentclitest

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// QwenPin is Qwen Code's entry in tools/npm/pins.json.
const QwenPin = "@qwen-code/qwen-code"

// QwenEvents are the hook events the runs install the recorder for: the
// ones of Qwen Code 0.24.4's HookEventName (docs/qwen-code-hooks.md) a
// headless run with tool calls and a sub-agent can fire.
var QwenEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"PostToolUseFailure", "PostToolBatch", "PermissionDenied", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"}

// QwenModel is the model the runs ask for (-m).
const QwenModel = "gpt-5.5"

// Qwen returns the path of the pinned Qwen Code's entry script
// (cli-entry.js), which runs under Node (see Node). Missing or at another
// version: fails under CI=true, skips elsewhere.
func Qwen(t testing.TB) string {
	t.Helper()
	node := Node(t)
	return located(t, "qwen", func() (string, string, error) {
		p := filepath.Join(npmDir(), "agentclis", "node_modules", "@qwen-code", "qwen-code", "cli-entry.js")
		v, err := version(node, []string{p}, codexHomeEnv)
		return p, v, err
	}, Pin(t, QwenPin))
}

// RunQwen runs 'qwen -p' once in a temp project and HOME against the
// scripted Responses API on loopback (--auth-type openai-responses,
// --openai-base-url, a dummy OPENAI_API_KEY), with the recorder hook
// installed in HOME/.qwen/settings.json ("hooks", Claude Code's shape:
// event -> [{matcher, hooks: [{type: command, command, timeout}]}]) for
// c.Events, and returns what it observed.
//
// The run is headless and unattended: --approval-mode yolo (every tool runs
// without asking). Hooks still fire for every tool call.
func RunQwen(ctx context.Context, t testing.TB, c Case) *Result {
	t.Helper()
	node := Node(t)
	script := Qwen(t)
	d := layout(t, c)
	srv := NewResponses(t, c.Scripts)
	srv.Before = c.Before
	handler := map[string]any{"type": "command", "command": HookCommand(t, d.hooks), "name": "recorder"}
	if c.HookTimeout > 0 {
		handler["timeout"] = int(c.HookTimeout / time.Second) // seconds (values >= 1000 are read as ms)
	}
	cfgHooks := map[string]any{}
	for _, ev := range c.events(QwenEvents) {
		cfgHooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{handler}}}
	}
	writeJSON(t, filepath.Join(d.home, ".qwen", "settings.json"), map[string]any{
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"telemetry": map[string]any{"enabled": false},
		"security":  map[string]any{"folderTrust": map[string]any{"enabled": false}},
		"hooks":     cfgHooks,
	})
	argv := append([]string{node, script, "-p", c.prompt(), "-m", c.model(QwenModel), "--output-format", "json", "--approval-mode", "yolo",
		"--auth-type", "openai-responses", "--openai-base-url", srv.BaseURL()}, c.Args...)
	env := append(baseEnv(d.home, d.base), "OPENAI_API_KEY=sk-scripted", "QWEN_CODE_NO_RELAUNCH=true")
	return observe(ctx, t, "qwen", c, d, &srv.recorder, argv, env)
}
