package agentclitest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CodexEvents are the hook events codex 0.169.0 knows (its hook schemas:
// docs/codex-cli-hooks.md).
var CodexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "Stop", "SessionEnd"}

// CodexModel is the model the runs ask for: a slug codex's bundled model
// catalogue knows, so that it uses that model's tool set (apply_patch,
// tool_search) and not the fallback metadata.
const CodexModel = "gpt-5.5"

// CodexHome is the CODEX_HOME of a run whose HOME is home.
func CodexHome(home string) string { return filepath.Join(home, ".codex") }

// RunCodex runs 'codex exec' once in a temp project and CODEX_HOME against
// a scripted Responses API on loopback, with the recorder hook installed in
// CODEX_HOME/hooks.json for c.Events, and returns what it observed.
//
// The run is headless and unattended: --dangerously-bypass-approvals-and-sandbox
// (no approval asked, no sandbox: commands run as the test user) and
// --dangerously-bypass-hook-trust (hooks run without a persisted review;
// with c.TrustHooks only the trusted ones run). Hooks still fire for every
// tool call.
func RunCodex(ctx context.Context, t testing.TB, c Case) *Result {
	t.Helper()
	bin := Codex(t)
	d := layout(t, c)
	codexHome := CodexHome(d.home)
	srv := NewResponses(t, c.Scripts)
	srv.Before = c.Before
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "model = %s\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n", quoteTOML(c.model(CodexModel)))
	cfg.WriteString("check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n[feedback]\nenabled = false\n\n")
	fmt.Fprintf(&cfg, "[model_providers.scripted]\nname = \"scripted\"\nbase_url = %s\nenv_key = \"SCRIPTED_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n", quoteTOML(srv.BaseURL()))
	fmt.Fprintf(&cfg, "[projects.%s]\ntrust_level = \"trusted\"\n", quoteTOML(d.dir))
	must(t, os.MkdirAll(codexHome, 0o755))
	must(t, os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg.String()), 0o644))
	handler := map[string]any{"type": "command", "command": HookCommand(t, d.hooks)}
	if c.HookTimeout > 0 {
		handler["timeout"] = int(c.HookTimeout / time.Second)
	}
	cfgHooks := map[string]any{}
	for _, ev := range c.events(CodexEvents) {
		cfgHooks[ev] = []any{map[string]any{"hooks": []any{handler}}}
	}
	writeJSON(t, filepath.Join(codexHome, "hooks.json"), map[string]any{"hooks": cfgHooks})
	argv := []string{bin, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	if !c.TrustHooks {
		argv = append(argv, "--dangerously-bypass-hook-trust")
	}
	argv = append(append(argv, "-C", d.dir), c.Args...)
	argv = append(argv, c.prompt())
	env := append(baseEnv(d.home, d.base), "CODEX_HOME="+codexHome, "SCRIPTED_API_KEY=sk-scripted")
	return observe(ctx, t, "codex", c, d, &srv.recorder, argv, env)
}
