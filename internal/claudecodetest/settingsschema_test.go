package claudecodetest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
)

// TestSettingsSchema has 2.1.328 load a project .claude/settings.json that
// denies Bash, beside one more key, and run a Bash call (pwd): the call
// runs only when the CLI ignored the whole file for that key's value (when
// it loads the file, the deny takes Bash out of the session: "No such
// tool available"). The
// file of each case is one ccimport.CheckSettings says Claude Code ignores
// exactly when the CLI did: a sample of each kind of key settingsKeys
// checks, with a wrong value, and of the keys it leaves out (a schema that
// falls back, a key the loader repairs or deletes, one that takes
// anything, one the schema does not name), whose wrong value the CLI
// loads; and hooks written outside "hooks", which the loader takes for
// guard hooks it cannot load, beside those it deletes or does not look
// into. The capture hooks are in settings.local.json, which loads either
// way.
func TestSettingsSchema(t *testing.T) {
	CLI(t)
	for _, tc := range []struct {
		name, keys string // keys: members added to {"permissions": {"deny": ["Bash"]}}
		ignored    bool
	}{
		{"the deny alone", ``, false},
		{"a string key a number", `"model": 5`, true},
		// Checked: a wrong value of each kind makes the CLI ignore the file.
		{"$schema a number", `"$schema": 5`, true},
		{"a string key a boolean", `"attributionProject": true`, true},
		{"a boolean key a string", `"disableAgentView": "yes"`, true},
		{"a feature's boolean a number", `"voiceEnabled": 1`, true},
		{"a boolean null", `"prefersReducedMotion": null`, true},
		{"a whole number below its least", `"desktopSessionCleanupPeriodDays": -1`, true},
		{"a number above its most", `"feedbackSurveyRate": 2`, true},
		{"a number at its open end", `"skillListingBudgetFraction": 0`, true},
		{"an enum key another string", `"tui": "classic"`, true},
		{"a feature's enum another string", `"defaultView": "x"`, true},
		{"a one-value enum a boolean", `"disableAutoMode": true`, true},
		{"a list of strings with a number", `"pluginSuggestionMarketplaces": [1]`, true},
		{"a list of strings a string with a space", `"enabledMcpjsonServers": "a b"`, true},
		{"a string or list a number", `"forceLoginOrgUUID": 5`, true},
		{"an object a string", `"voice": "on"`, true},
		{"an object's enum another string", `"worktree": {"baseRef": "tip"}`, true},
		{"an object without a required key", `"spinnerVerbs": {"mode": "append"}`, true},
		{"an object's time not a time", `"quietHours": {"start": "25:00"}`, true},
		{"a command object without its command", `"fileSuggestion": {"type": "command"}`, true},
		{"a status line's padding a string", `"statusLine": {"type": "command", "command": "true", "padding": "1"}`, true},
		{"attribution a string", `"attribution": "yes"`, true},
		{"a sandbox boolean a string", `"sandbox": {"enabled": "yes"}`, true},
		{"a sandbox mach service's wildcard", `"sandbox": {"network": {"allowMachLookup": ["*x"]}}`, true},
		{"sandbox credentials a list", `"sandbox": {"credentials": []}`, true},
		{"an object of strings with a number", `"modelOverrides": {"a": 1}`, true},
		{"a plugin neither boolean nor list", `"enabledPlugins": {"p@m": "yes"}`, true},
		{"an object of enums with another string", `"skillOverrides": {"s": "maybe"}`, true},
		{"a list of objects without a required key", `"sshConfigs": [{"id": "a"}]`, true},
		{"a marketplace list a string", `"strictKnownMarketplaces": "x"`, true},
		{"the marketplace list's alias a string", `"allowedMarketplaces": "x"`, true},
		// Checked, and right: the file loads.
		{"the bounds taken", `"skillListingBudgetFraction": 1, "feedbackSurveyRate": 0, "desktopSessionCleanupPeriodDays": 0`, false},
		{"a null the loader deletes", `"enableAllProjectMcpServers": null, "blockedMarketplaces": null`, false},
		{"one server name for the list", `"enabledMcpjsonServers": "foo"`, false},
		{"the alias beside the list it names", `"strictKnownMarketplaces": [], "allowedMarketplaces": "x"`, false},
		{"good values of the objects", `"voice": {"mode": "tap"}, "worktree": {"baseRef": "head", "sparsePaths": ["a"]}, "spinnerVerbs": {"mode": "append", "verbs": ["Pondering"]},
			"quietHours": {"start": "7:30", "end": "23:59"}, "attribution": {"commit": "", "pr": ""}, "modelOverrides": {"a": "b"}, "forceLoginOrgUUID": ["u"],
			"sshConfigs": [{"id": "a", "name": "n", "sshHost": "h", "sshPort": 22}], "skillOverrides": {"s": "off"}, "tui": "default", "$schema": "x",
			"sandbox": {"enabled": false, "filesystem": {"denyRead": ["/nonexistent"]}, "network": {"allowMachLookup": ["com.example.*"]}, "credentials": {}}`, false},
		// Left out: the CLI loads the file.
		{"a schema that falls back", `"effortLevel": "ultra"`, false},
		{"a sandbox key that falls back", `"sandbox": {"bwrapPath": 5}`, false},
		{"a key the loader repairs", `"teammateMode": 5`, false},
		{"a managed-only key the loader deletes", `"deniedModels": "x"`, false},
		{"an object the loader drops", `"modelPicker": "x"`, false},
		{"a key that takes anything", `"sshHostCommands": 5`, false},
		{"a key the schema does not name", `"xaaIdp": 5`, false},
		// Hooks outside "hooks": the loader ignores a file with PreToolUse
		// or PermissionRequest hooks, or a matcher group, anywhere else
		// (to four levels below a key, but in the keys it does not scan).
		{"hooks: a guard event at the top level", `"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]`, true},
		{"hooks: a guard event at the top level not a list", `"PermissionRequest": 5`, true},
		{"hooks: a guard event under a schema key", `"worktree": {"PreToolUse": {}}`, true},
		{"hooks: a guard event four levels down", `"x": {"a": [{"b": {"PermissionRequest": [1]}}]}`, true},
		{"hooks: a matcher group outside hooks", `"myHooks": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]`, true},
		{"hooks: a single matcher group", `"hooks": {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}`, true},
		{"hooks: an unknown event holding a matcher group", `"hooks": {"Odd": {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}}`, true},
		{"hooks: another event's matcher group holding a guard event", `"hooks": {"Stop": [{"hooks": [], "PreToolUse": [1]}]}`, true},
		{"hooks: another event holding a guard event", `"hooks": {"Stop": {"PreToolUse": [1]}}`, true},
		{"hooks: a list with an object", `"hooks": [{"matcher": "Bash", "hooks": []}]`, true},
		{"hooks: a guard event under an escaped key", `"h\u006foks2": {"PreToolUse": 5}`, true}, // was a shape install took (cchook settingsShapes)
		// ... and loads one where they are empty, another event's, out
		// of its reach, or deleted first; and it deletes a "hooks" that is
		// not an object (but a list holding one), a null guard event, an
		// unknown event whose list holds no guard event.
		{"hooks: guard events at the top level empty", `"PreToolUse": [], "PermissionRequest": null`, false},
		{"hooks: another event at the top level", `"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]`, false},
		{"hooks: a guard event in a key not scanned", `"env": {"PreToolUse": "x"}`, false},
		{"hooks: a guard event five levels down", `"x": {"a": [{"b": {"c": {"PermissionRequest": [1]}}}]}`, false},
		{"hooks: a guard event in a key the loader deletes", `"isolation": {"PreToolUse": [1]}`, false},
		{"hooks: a guard event in a permission rule the loader drops", `"permissions": {"deny": ["Bash", {"PreToolUse": [1]}]}`, false},
		{"hooks: an unknown event's list of matcher groups", `"hooks": {"preToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}`, false},
		{"hooks: an empty list", `"hooks": []`, false},
		{"hooks: a string", `"hooks": "x"`, false},
		{"hooks: a guard event null", `"hooks": {"PreToolUse": null}`, false},
		{"hooks: another event under an escaped key", `"h\u006foks2": {"Stop": 5}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"permissions": {"deny": ["Bash"]}`
			if tc.keys != "" {
				src += ", " + tc.keys
			}
			src += "}"
			checked := ccimport.CheckSettingsFile("settings.json", []byte(src))
			if (checked != nil) != tc.ignored {
				t.Errorf("CheckSettingsFile(%s) = %v, want ignored %v", src, checked, tc.ignored)
			}
			res := Run(t.Context(), t, Case{Name: "settings-schema " + tc.name, Timeout: 3 * time.Minute,
				Setup: func(dir, _ string) {
					p := filepath.Join(dir, ".claude", "settings.json")
					hooks, err := os.ReadFile(p)
					must(t, err)
					must(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), hooks, 0o644))
					must(t, os.WriteFile(p, []byte(src), 0o644))
				},
				Scripts: Scripts{"main": {{{ID: "toolu_pwd", Tool: "Bash", Input: map[string]any{"command": "pwd", "description": "d"}}}}}})
			c := res.Call("toolu_pwd")
			if c == nil {
				t.Fatalf("the scripted call was not issued")
			}
			ran := c.PostToolUse && !c.Denied
			if ran != tc.ignored {
				result := ""
				if c.Result != nil {
					result = c.Result.Content
				}
				t.Errorf("%s: the Bash call ran %v (denied %v, result %q), want %v: the CLI ignored the file %v, want %v (checker: %v)",
					src, ran, c.Denied, result, tc.ignored, ran, tc.ignored, checked)
			}
		})
	}
}
