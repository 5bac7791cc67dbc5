package agentclitest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CopilotPin is GitHub Copilot CLI's entry in tools/npm/pins.json.
const CopilotPin = "@github/copilot"

// CopilotEvents are the hook events Copilot CLI 1.0.102 runs command hooks
// for, by the names that give the Claude-shaped (snake_case) payloads: the
// PascalCase names (docs/copilot-cli-hooks.md; the camelCase names,
// preToolUse..., give camelCase payloads instead).
var CopilotEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop",
	"SubagentStart", "SubagentStop", "SessionEnd"}

// CopilotEventEnv is set, in each handler's "env", to the event the handler
// is installed for: not every Copilot payload names its event
// (hook_event_name is missing from the camelCase payloads and from
// SubagentStart's).
const CopilotEventEnv = "AGENTCLITEST_EVENT"

// CopilotModel is the model the runs name (COPILOT_MODEL): a model id the
// CLI's catalogue knows, so it uses that model's tool set and limits.
const CopilotModel = "gpt-5.4"

// Copilot returns the path of the pinned Copilot CLI's native binary (the
// optional dependency @github/copilot-linux-x64; the package's npm-loader.js
// only finds and spawns it). Missing or at another version: fails under
// CI=true, skips elsewhere.
func Copilot(t testing.TB) string {
	t.Helper()
	return located(t, "copilot", func() (string, string, error) {
		p := filepath.Join(npmDir(), "agentclis", "node_modules", "@github", "copilot-linux-x64", "copilot")
		// Even --version unpacks the package into the cache first (about 6 s
		// and 235 MB in a fresh one): the runs' cache.
		v, err := version(p, nil, func(string) []string {
			return []string{"XDG_CACHE_HOME=" + copilotCache(t), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false"}
		}) // "GitHub Copilot CLI 1.0.102.\nRun 'copilot update'..."
		if f := strings.Fields(strings.SplitN(v, "\n", 2)[0]); len(f) > 0 {
			v = strings.TrimSuffix(f[len(f)-1], ".")
		}
		return p, v, err
	}, Pin(t, CopilotPin))
}

// copilotCache is the XDG_CACHE_HOME every Copilot run shares: the binary
// unpacks its JavaScript package (about 235 MB) into
// XDG_CACHE_HOME/copilot/pkg/linux-x64/VERSION on its first start and reuses
// it after, so a fresh cache per run would cost that much disk and time.
func copilotCache(t testing.TB) string {
	t.Helper()
	d := filepath.Join(os.TempDir(), "agentclitest-copilot-cache")
	must(t, os.MkdirAll(d, 0o755))
	return d
}

// RunCopilot runs 'copilot -p' once in a temp project and COPILOT_HOME
// against the scripted Responses API on loopback (bring your own model:
// COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_WIRE_API=responses, a dummy
// COPILOT_PROVIDER_API_KEY) with COPILOT_OFFLINE=true (no GitHub login, no
// telemetry, no update check), the recorder hook installed in
// COPILOT_HOME/settings.json ("hooks", the user-level hooks) for c.Events,
// and returns what it observed.
//
// The run is headless and unattended: --allow-all-tools (no approval
// asked) and --allow-all-paths. Hooks still fire for every tool call.
func RunCopilot(ctx context.Context, t testing.TB, c Case) *Result {
	t.Helper()
	bin := Copilot(t)
	d := layout(t, c)
	cpHome := filepath.Join(d.home, ".copilot")
	srv := NewResponses(t, c.Scripts)
	srv.Before = c.Before
	cfgHooks := map[string]any{}
	for _, ev := range c.events(CopilotEvents) {
		handler := map[string]any{"type": "command", "bash": HookCommand(t, d.hooks), "env": map[string]any{CopilotEventEnv: ev}}
		if c.HookTimeout > 0 {
			handler["timeoutSec"] = int(c.HookTimeout / time.Second)
		}
		cfgHooks[ev] = []any{handler}
	}
	// hooks in the user settings.json are user-level hooks; the
	// .github/hooks/*.json of the project (and its .claude/settings.json)
	// are read only once the folder is trusted.
	writeJSON(t, filepath.Join(cpHome, "settings.json"), map[string]any{
		"hooks":      cfgHooks,
		"autoUpdate": false,
		"banner":     "never",
	})
	argv := append([]string{bin, "-p", c.prompt(), "--allow-all-tools", "--allow-all-paths", "--no-auto-update",
		"--disable-client-telemetry", "--output-format", "json", "--log-dir", filepath.Join(d.base, "logs"), "--log-level", "all"}, c.Args...)
	env := append(baseEnv(d.home, d.base), "COPILOT_HOME="+cpHome, "XDG_CACHE_HOME="+copilotCache(t),
		"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false", "COPILOT_PROVIDER_BASE_URL="+srv.BaseURL(),
		"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_WIRE_API=responses", "COPILOT_PROVIDER_API_KEY=sk-scripted",
		"COPILOT_MODEL="+c.model(CopilotModel))
	return observe(ctx, t, "copilot", c, d, &srv.recorder, argv, env)
}
