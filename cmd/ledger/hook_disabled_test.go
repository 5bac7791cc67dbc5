package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookInstallRefusesDisabledHooks: install refuses, writing nothing,
// when a settings file the runtime reads switches its hooks off (Claude
// Code's and Qwen Code's disableAllHooks, Gemini CLI's hooksConfig), in
// the project or the user's home: the hooks would never run and every
// call would go ahead unchecked (found by the install review). Uninstall
// still works there.
func TestHookInstallRefusesDisabledHooks(t *testing.T) {
	for _, c := range []struct {
		name, runtime, file, body string
		home                      bool
	}{
		{"claude-code, the project's local file", "claude-code", ".claude/settings.local.json", `{"disableAllHooks": true, "permissions": {"deny": ["Bash(rm *)"]}}`, false},
		{"claude-code, the project's shared file", "claude-code", ".claude/settings.json", `{"disableAllHooks": true}`, false},
		{"claude-code, the user's file", "claude-code", ".claude/settings.json", `{"disableAllHooks": true}`, true},
		{"qwen", "qwen", ".qwen/settings.json", `{"disableAllHooks": true}`, false},
		{"gemini, hooks off", "gemini", ".gemini/settings.json", `{"hooksConfig": {"enabled": false}}`, false},
		{"gemini, the ledger's hooks off", "gemini", ".gemini/settings.json", `{"hooksConfig": {"disabled": ["ledger"]}}`, false},
		{"gemini, the user's file", "gemini", ".gemini/settings.json", `{"hooksConfig": {"enabled": false}}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			project, home := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			at := filepath.Join(project, c.file)
			if c.home {
				at = filepath.Join(home, c.file)
			}
			if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(at, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _, err := runCLI(t, "", "hook", "install", "--runtime", c.runtime, "--project", project, "--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222")
			var msg strings.Builder
			if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), at) || !strings.Contains(msg.String(), "would go ahead unchecked") {
				t.Fatalf("install: exit %d %q (stdout %q), want 1 naming %s", code, msg.String(), out, at)
			}
			if b, _ := os.ReadFile(at); string(b) != c.body {
				t.Errorf("the settings file changed: %s", b)
			}
			if _, _, err := runCLI(t, "", "hook", "install", "--runtime", c.runtime, "--project", project, "--command", "ledger", "--uninstall"); err != nil {
				t.Errorf("uninstall: %v", err)
			}
		})
	}
}

// TestHookInstallRefusesPasswordInURL: a NATS password is kept out of the
// settings file whether it comes as --password or inside the --nats URL
// (found by the install review: the URL's went into a 0644 file, the
// committed one with --shared); a URL with a user and no password is
// fine.
func TestHookInstallRefusesPasswordInURL(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, rt := range []string{"claude-code", "codex"} {
		for _, flags := range [][]string{
			{"--nats", "nats://ledger:s3cret@127.0.0.1:4222"},
			{"--nats=nats://127.0.0.1:4222,nats://u:pw@10.0.0.2:4222"},
			{"--nats", "u:pw@127.0.0.1:4222"},
			{"--password", "x"},
		} {
			project := t.TempDir()
			args := append([]string{"hook", "install", "--runtime", rt, "--project", project, "--command", "ledger", "--"}, flags...)
			_, _, err := runCLI(t, "", args...)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), "keep the NATS password out") {
				t.Errorf("%s %v: exit %d %q, want 2 and the password refused", rt, flags, code, msg.String())
			}
			if ents, _ := os.ReadDir(project); len(ents) != 0 {
				t.Errorf("%s %v: the refused install wrote %v", rt, flags, ents)
			}
		}
		project := t.TempDir()
		if _, stderr, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", project, "--command", "ledger", "--", "--nats", "nats://ledger@127.0.0.1:4222"); err != nil {
			t.Errorf("%s: a URL with a user and no password: %v %s", rt, err, stderr)
		}
	}
}
