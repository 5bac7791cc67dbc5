package cchook

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestInstallRefusesIgnoredSettings: a settings file Claude Code 2.1.328
// ignores as a whole (a key of its schema with the wrong type, a
// malformed hooks entry of a guard event, PreToolUse or
// PermissionRequest, the ledger's or not) is refused
// with an *IgnoredError that places the key, names it and its type, says
// that the whole file would be ignored and what to fix (install review 2:
// the hooks were written into it and install said it succeeded). A file
// Claude Code loads is installed into, and an uninstall still takes the
// ledger's handlers out of an ignored file.
func TestInstallRefusesIgnoredSettings(t *testing.T) {
	for _, tt := range []struct {
		name, src       string
		line, col       int
		key, problem    string
		uninstallChange bool
	}{
		{"model a number", "{\n  \"model\": 5,\n  \"cleanupPeriodDays\": \"thirty\"\n}\n", 2, 12, "model", "model must be a string, got number 5", false},
		{"days a string", "{\"cleanupPeriodDays\": \"thirty\"}", 1, 23, "cleanupPeriodDays", `cleanupPeriodDays must be a whole number of at least 1, got string "thirty"`, false},
		{"days not whole", `{"cleanupPeriodDays": 1.5}`, 1, 23, "cleanupPeriodDays", "cleanupPeriodDays must be a whole number of at least 1, got number 1.5", false},
		{"the guard event a string", `{"hooks":{"PermissionRequest":"x"}}`, 1, 31, "hooks.PermissionRequest", `hooks.PermissionRequest must be a list of matcher groups, got string "x"`, false},
		{"a group not an object", `{"hooks": {"PermissionRequest": ["junk"]}}`, 1, 34, "hooks.PermissionRequest[0]", `hooks.PermissionRequest[0] must be a matcher group (an object with a "hooks" list), got string "junk"`, false},
		{"a group without hooks", `{"hooks": {"PermissionRequest": [{"matcher": "*"}]}}`, 1, 34, "hooks.PermissionRequest[0].hooks", `hooks.PermissionRequest[0].hooks must be a list of hook handlers, got nothing (no "hooks" key)`, false},
		{"a matcher not a string", `{"hooks": {"PermissionRequest": [{"matcher": 1, "hooks": []}]}}`, 1, 46, "hooks.PermissionRequest[0].matcher", "hooks.PermissionRequest[0].matcher must be a string, got number 1", false},
		{"a handler of no known type", `{"hooks": {"PermissionRequest": [{"hooks": [{"type": "script", "command": "x"}]}]}}`, 1, 54, "hooks.PermissionRequest[0].hooks[0].type", `hooks.PermissionRequest[0].hooks[0].type must be one of command, prompt, agent, http, mcp_tool, got string "script"`, false},
		{"a command handler without its command", `{"hooks": {"PermissionRequest": [{"hooks": [{"type": "command"}]}]}}`, 1, 45, "hooks.PermissionRequest[0].hooks[0].command", `hooks.PermissionRequest[0].hooks[0].command must be a string (a command handler needs one), got nothing (no "command" key)`, false},
		{"a timeout of zero", `{"hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}`, 1, 92, "hooks.PermissionRequest[0].hooks[0].timeout", "hooks.PermissionRequest[0].hooks[0].timeout must be a positive number of seconds, got number 0", false},
		{"permissions of the importer", `{"permissions": {"deny": "Bash"}}`, 1, 26, "permissions.deny", "permissions.deny must be a list of strings, got string", false},
		{"env a list", `{"env": []}`, 1, 9, "env", "env must be an object, got list", false},
		{"a sandbox switch a string", `{"sandbox": {"enabled": "yes"}}`, 1, 25, "sandbox.enabled", `sandbox.enabled must be true or false, got string "yes"`, false},
		{"a plugin neither boolean nor list", `{"enabledPlugins": {"p@m": "yes"}}`, 1, 28, `enabledPlugins["p@m"]`, `enabledPlugins["p@m"] must be true, false or a list of strings, got string "yes"`, false},
		// CLI (internal/claudecodetest TestSettingsSchema "hooks: ..."):
		// guard hooks outside "hooks", or "hooks" one matcher group,
		// which install took for events and wrote beside it.
		{"a guard event outside hooks", `{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "ledger hook claude-code"}]}]}`, 1, 16, "PreToolUse",
			`PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`, false},
		{"hooks a single matcher group", `{"hooks": {"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}}`, 1, 11, "hooks",
			`hooks must be an object of events ({"PreToolUse": [matcher groups], ...}), got a single matcher group`, false},
		{"the ledger's own event malformed beside it", `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "ledger hook claude-code"}, 5]}]}}`, 1, 113, "hooks.PreToolUse[0].hooks[1]", `hooks.PreToolUse[0].hooks[1] must be a hook handler (an object with a "type"), got number 5`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Install([]byte(tt.src), CommandBlock(testCommand, 10))
			var ie *IgnoredError
			if !errors.As(err, &ie) {
				t.Fatalf("install: %v, want an *IgnoredError", err)
			}
			if ie.Line != tt.line || ie.Col != tt.col || ie.Key != tt.key || ie.Problem != tt.problem {
				t.Errorf("got %d:%d %q %q, want %d:%d %q %q", ie.Line, ie.Col, ie.Key, ie.Problem, tt.line, tt.col, tt.key, tt.problem)
			}
			for _, says := range []string{tt.problem, "ignores this whole file", "none of the ledger's hooks", "fix " + tt.key} {
				if !strings.Contains(err.Error(), says) {
					t.Errorf("message %q does not say %q", err, says)
				}
			}
			back, ch, err := Uninstall([]byte(tt.src))
			if err != nil || ch.Changed() != tt.uninstallChange || (!tt.uninstallChange && string(back) != tt.src) {
				t.Errorf("uninstall of an ignored file: %v %v %q", err, ch, back)
			}
		})
	}
	for _, src := range []string{
		// CLI: Claude Code drops a malformed entry of another event than
		// the guard events, with a warning, and loads the rest of the file.
		`{"hooks":{"Stop":"x"}}`,
		`{"hooks": {"Notification": ["junk"]}}`,
		`{"hooks": {"Stop": [{"matcher": 1, "hooks": []}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "script", "command": "x"}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}`,
		`{"model": 5, "model": "opus"}`, // JSON.parse keeps the last
		`{"model": "opus", "cleanupPeriodDays": 30, "includeCoAuthoredBy": false, "$schema": "x", "unknownKey": 5}`,
		`{"hooks": {"NotAnEvent": [], "Stop": [{"hooks": []}], "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "http", "url": "http://x/"}, {"type": "prompt", "prompt": "p"}, {"type": "mcp_tool", "server": "s", "tool": "t", "timeout": 1.5}]}]}}`,
		`{"statusLine": {"type": "command", "command": "x", "padding": 0}}`,
		`{"enableAllProjectMcpServers": null, "effortLevel": "ultra", "modelPicker": "x", "enabledMcpjsonServers": "mine"}`, // the loader deletes, falls back, drops, makes a list
		"\ufeff{\"model\": \"opus\"}",
		// CLI: guard events outside "hooks" that are empty, another
		// event's hooks outside it, an unknown event's list of groups
		// (deleted by the loader).
		`{"PreToolUse": [], "PermissionRequest": null, "Stop": [{"hooks": [{"type": "command", "command": "x"}]}], "hooks": {"preToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}`,
	} {
		if _, _, err := Install([]byte(src), CommandBlock(testCommand, 10)); err != nil {
			t.Errorf("%s: %v, want it installed (Claude Code loads it)", src, err)
		}
	}
}

// TestInstallByteOrderMark: Claude Code reads past a UTF-8 byte order mark
// (CLI), so Install and Uninstall do too and keep it; for another runtime's
// file (InstallOwn, UninstallOwn) it is refused with a message saying to
// remove it, not "invalid character 'ï'" (install review 9).
func TestInstallByteOrderMark(t *testing.T) {
	src := []byte("\ufeff{\n  \"model\": \"opus\"\n}\n")
	got, _, err := Install(src, CommandBlock(testCommand, 10))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("\ufeff{\n  \"model\": \"opus\",\n  \"hooks\": {")) {
		t.Errorf("installed %q: the byte order mark or the file's shape is lost", got)
	}
	if back, _, err := Uninstall(got); err != nil || !bytes.Equal(back, src) {
		t.Errorf("uninstalled %q (%v), want %q", back, err, src)
	}
	own := func(map[string]any) bool { return false }
	for _, f := range []func() error{
		func() error { _, _, err := InstallOwn(src, CommandBlock("x", 10), own); return err },
		func() error { _, _, err := UninstallOwn(src, own); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "remove the byte order mark") || strings.Contains(err.Error(), "invalid character") {
			t.Errorf("another runtime's file with a byte order mark: %v", err)
		}
	}
}

// TestHolds: what a settings file holds of the ledger's handlers against a
// block, which install reads in the project's other settings file.
func TestHolds(t *testing.T) {
	blk := CommandBlock(testCommand, 10)
	installed, _, err := Install([]byte(`{"model": "opus"}`), blk)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := Install(nil, HTTPBlockWith("http://127.0.0.1:8787"+HTTPPath, "$TOK", 10, "ledger-hook --hooks x"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		src       []byte
		has, same bool
		runs      []string
		err       bool
	}{
		{"none", nil, false, false, nil, false},
		{"the user's only", []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}`), false, false, nil, false},
		{"the same", installed, true, true, []string{testCommand}, false},
		{"another", other, true, false, []string{"ledger-hook --hooks x", "http://127.0.0.1:8787" + HTTPPath}, false},
		{"ignored by Claude Code", append([]byte(`{"cleanupPeriodDays": "thirty", `), installed[1:]...), false, false, nil, true},
	} {
		h, err := Holds(tt.src, blk)
		if (err != nil) != tt.err || h.Has != tt.has || h.Same != tt.same || strings.Join(h.Runs, "|") != strings.Join(tt.runs, "|") {
			t.Errorf("%s: %+v %v, want has %v same %v runs %q (error %v)", tt.name, h, err, tt.has, tt.same, tt.runs, tt.err)
		}
	}
}
