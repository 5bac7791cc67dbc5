package ccimport

import (
	"errors"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/importer"
)

// TestCheckSettings: CheckSettingsFile says why Claude Code 2.1.328 would
// ignore a whole settings file, first problem first, or nil; the import
// skips exactly those files (the same function), so a file whose other key
// has the wrong type ("model": 5, CLI) no longer has its rules imported
// while Claude Code applies none of them.
func TestCheckSettings(t *testing.T) {
	for _, tt := range []struct {
		name, src, want string // want "" when Claude Code loads the file
	}{
		{"empty object", `{}`, ""},
		{"byte order mark", "\ufeff{\"model\": \"opus\"}", ""},
		{"repeated key, last wins", `{"model": 5, "model": "opus"}`, ""},
		{"unknown keys", `{"$schema": "x", "someFutureKey": [1, {}], "env": {"A": "b"}}`, ""},
		{"every known type", `{"model": "m", "includeCoAuthoredBy": true, "cleanupPeriodDays": 1e1, "enabledMcpjsonServers": ["a"], "autoUpdatesChannel": "stable", "statusLine": {"type": "command", "command": "x"}}`, ""},
		{"hooks of every type", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c", "timeout": 5}, {"type": "agent", "prompt": "p"}]}], "Odd": []}}`, ""},
		{"not JSON", `{"model": "x",}`, "not JSON"},
		{"not an object", `[1]`, "settings must be an object, got list"},
		{"model a number", `{"model": 5}`, "model must be a string, got number 5"},
		{"first problem first", `{"verbose": "yes", "model": 5}`, `verbose must be true or false, got string "yes"`},
		{"a list of strings", `{"availableModels": ["a", 1]}`, "availableModels[1] must be a string, got number 1"},
		{"one of", `{"defaultShell": "zsh"}`, `defaultShell must be one of bash, powershell, got string "zsh"`},
		{"days zero", `{"cleanupPeriodDays": 0}`, "cleanupPeriodDays must be a whole number of at least 1, got number 0"},
		{"status line", `{"statusLine": {"type": "static"}}`, `statusLine.type must be "command", got string "static"`},
		{"hooks a list", `{"hooks": []}`, "hooks must be an object of events, got list"},
		{"an event null", `{"hooks": {"PreToolUse": null}}`, "hooks.PreToolUse must be a list of matcher groups, got null"},
		{"an http handler without url", `{"hooks": {"PermissionRequest": [{"hooks": [{"type": "http"}]}]}}`, `hooks.PermissionRequest[0].hooks[0].url must be a string (a http handler needs one), got nothing (no "url" key)`},
		// CLI: another event's malformed entry is dropped and the file
		// loads; a guard event's shell, onFailure or url that the schema
		// refuses, fallbackModel a string and sandbox a string make it
		// ignore the file.
		{"another event malformed", `{"hooks": {"Stop": "x", "Notification": [{"hooks": [{"type": "script"}]}]}}`, ""},
		{"a shell", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "c", "shell": "zsh"}]}]}}`, `hooks.PreToolUse[0].hooks[0].shell must be one of bash, powershell, got string "zsh"`},
		{"onFailure", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "c", "onFailure": "Block"}]}]}}`, `hooks.PreToolUse[0].hooks[0].onFailure must be one of continue, block, got string "Block"`},
		{"a url", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "not a url"}]}]}}`, `hooks.PreToolUse[0].hooks[0].url must be an absolute URL, got string "not a url"`},
		{"a good url", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hooks/claude-code", "onFailure": "block", "shell": "bash"}]}]}}`, ""},
		{"fallbackModel", `{"fallbackModel": "opus"}`, `fallbackModel must be a list of strings, got string "opus"`},
		{"sandbox", `{"sandbox": "yes"}`, `sandbox must be an object, got string "yes"`},
		{"permissions", `{"permissions": {"defaultMode": "yolo"}}`, `permissions.defaultMode must be one of manual, acceptEdits, auto, bypassPermissions, default, dontAsk, plan, got "yolo"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSettingsFile("s.json", []byte(tt.src))
			got := ""
			var se *SchemaError
			var ie *importer.Error
			switch {
			case errors.As(err, &se):
				got = se.Error()
			case errors.As(err, &ie):
				got = "not JSON"
			case err != nil:
				t.Fatalf("%v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestClaudeCodeSkipsIgnoredSettings: a settings file Claude Code ignores
// because a key it does not import has the wrong type, or its hooks are
// malformed, is skipped by the import as Claude Code skips it: its deny
// rule is not in the document, and the warning says why.
func TestClaudeCodeSkipsIgnoredSettings(t *testing.T) {
	// A key the import reads: the file is skipped, as Claude Code skips it.
	root := project(t, map[string]string{"settings.json": `{"permissions": {"deny": "Bash"}}`, "settings.local.json": `{"permissions": {"allow": ["Edit"]}}`})
	r, err := ClaudeCode(root, ClaudeCodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"release":"2.1.328","agents":{},"permissions":{"allow":["Edit"]}}`; string(r.Document) != want {
		t.Errorf("document %s, want %s", r.Document, want)
	}
	// Another key, or the hooks: imported with a warning, its deny rule
	// kept (fail closed: the other keys' types are the release schema's,
	// not each observed on the CLI).
	for _, tt := range []struct{ src, warning string }{
		{`{"model": 5, "permissions": {"deny": ["Bash"]}}`, "1:11: warning: model must be a string, got number 5"},
		{`{"permissions": {"deny": ["Bash"]}, "hooks": {"PermissionRequest": "x"}}`, `1:68: warning: hooks.PermissionRequest must be a list of matcher groups, got string "x"`},
	} {
		root := project(t, map[string]string{"settings.json": tt.src, "settings.local.json": `{"permissions": {"allow": ["Edit"]}}`})
		r, err := ClaudeCode(root, ClaudeCodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"release":"2.1.328","agents":{},"permissions":{"allow":["Edit"],"deny":["Bash"]}}`; string(r.Document) != want {
			t.Errorf("%s: document %s, want %s", tt.src, r.Document, want)
		}
		got := warningsOf(r, root)
		found := false
		for _, w := range got {
			found = found || strings.HasPrefix(w, ".claude/settings.json:"+tt.warning+": by its settings schema Claude Code 2.1.328 ignores this whole file")
		}
		if !found {
			t.Errorf("%s: warnings\n got %q\nwant one beginning %q", tt.src, got, tt.warning)
		}
	}
}
