package agentclitest

import (
	"context"
	"path/filepath"
	"testing"
)

// GeminiEvents are the hook events gemini-cli 0.61.0 knows (its
// HookEventName: docs/gemini-cli-hooks.md).
var GeminiEvents = []string{"SessionStart", "BeforeAgent", "BeforeModel", "AfterModel", "BeforeToolSelection",
	"BeforeTool", "AfterTool", "AfterAgent", "Notification", "PreCompress", "SessionEnd"}

// GeminiModel is the model the runs ask for (-m): a concrete model, so the
// CLI's model router (which asks a classifier model first when the model is
// "auto") stays out of the way.
const GeminiModel = "gemini-2.5-flash"

// RunGemini runs 'gemini -p' once in a temp project and HOME against a
// scripted Gemini API on loopback (GOOGLE_GEMINI_BASE_URL, auth
// "gemini-api-key" with a dummy GEMINI_API_KEY), with the recorder hook
// installed in HOME/.gemini/settings.json for c.Events, and returns what it
// observed.
//
// The run is headless and unattended: --approval-mode yolo (every tool runs
// without asking, and the tools that would ask, run_shell_command,
// write_file and replace, are offered at all: the default mode leaves them
// out of a non-interactive session) and GEMINI_CLI_TRUST_WORKSPACE=true (an
// untrusted folder refuses to run headless). Hooks still fire.
func RunGemini(ctx context.Context, t testing.TB, c Case) *Result {
	t.Helper()
	node := Node(t)
	script := Gemini(t)
	d := layout(t, c)
	srv := NewGeminiAPI(t, c.Scripts)
	srv.Before = c.Before
	handler := map[string]any{"type": "command", "command": HookCommand(t, d.hooks), "name": "recorder"}
	if c.HookTimeout > 0 {
		handler["timeout"] = c.HookTimeout.Milliseconds()
	}
	cfgHooks := map[string]any{}
	for _, ev := range c.events(GeminiEvents) {
		group := map[string]any{"hooks": []any{handler}}
		if ev == "BeforeTool" || ev == "AfterTool" {
			group["matcher"] = "*"
		}
		cfgHooks[ev] = []any{group}
	}
	writeJSON(t, filepath.Join(d.home, ".gemini", "settings.json"), map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"telemetry": map[string]any{"enabled": false},
		"hooks":     cfgHooks,
	})
	argv := append([]string{node, script, "-p", c.prompt(), "-m", c.model(GeminiModel), "--output-format", "json", "--approval-mode", "yolo"}, c.Args...)
	env := append(baseEnv(d.home, d.base),
		"GEMINI_API_KEY=scripted", "GOOGLE_GEMINI_BASE_URL="+srv.BaseURL(), "GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true")
	return observe(ctx, t, "gemini", c, d, &srv.recorder, argv, env)
}
