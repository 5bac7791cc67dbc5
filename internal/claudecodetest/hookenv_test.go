package claudecodetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookEnvironment (docs/claude-code-hooks.md): what 2.1.328 gives a
// command hook besides its payload, and that it takes a systemMessage on
// every event. A hook on each event the ledger installs writes its
// environment to a file and answers {"systemMessage": ...}: every event
// ran it, the run went on (the Bash call ran), and the environment holds
// CLAUDE_PROJECT_DIR (the project), CLAUDE_CODE_SESSION_ID (the session),
// CLAUDECODE=1 and AI_AGENT naming the version.
func TestHookEnvironment(t *testing.T) {
	CLI(t)
	out := t.TempDir()
	evs := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolBatch", "SessionEnd"}
	res := Run(t.Context(), t, Case{Name: "hook environment", Settings: Settings{Allow: []string{"Bash(echo *)"}},
		Setup: func(dir, _ string) {
			hooks := map[string]any{}
			for _, ev := range evs {
				cmd := "env > '" + out + "/" + ev + ".env'; printf '%s' '{\"systemMessage\":\"ledger test " + ev + "\"}'"
				hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
			}
			b, err := json.Marshal(map[string]any{"hooks": hooks})
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), b, 0o600))
		},
		Scripts: Scripts{"main": {{{ID: "toolu_echo", Tool: "Bash", Input: map[string]any{"command": "echo hi", "description": "d"}}}}}})
	if c := res.Call("toolu_echo"); c == nil || !c.PostToolUse {
		t.Errorf("the call did not run after a systemMessage from its PreToolUse hook: %+v", c)
	}
	var session string
	for _, h := range res.Hooks {
		session, _ = h["session_id"].(string)
	}
	for _, ev := range evs {
		b, err := os.ReadFile(filepath.Join(out, ev+".env"))
		if err != nil {
			t.Errorf("%s: the hook did not run: %v", ev, err)
			continue
		}
		env := map[string]string{}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				env[k] = v
			}
		}
		want := map[string]string{"CLAUDE_PROJECT_DIR": res.Dir, "CLAUDE_CODE_SESSION_ID": session, "CLAUDECODE": "1",
			"AI_AGENT": "claude-code_" + strings.ReplaceAll(Pin(t), ".", "-") + "_harness"}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("%s: %s=%q, want %q", ev, k, env[k], v)
			}
		}
	}
}
