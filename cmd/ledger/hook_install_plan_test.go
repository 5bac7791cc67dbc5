//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook"
)

// The tests here hold 'ledger hook install' to "nothing is written when
// it refuses" (docs/claude-code-hooks.md, "ledger hook install").

const loopbackHooksURL = "http://127.0.0.1:8787" + cchook.HTTPPath

// TestHookInstallRefusalMakesNoToken: with --url, a settings file the
// install refuses (not JSON, read-only) is refused before anything is
// written: no token file (nor its directory), the settings as they were;
// the message names the file and what to fix. The same for --runtime R
// --url and a hooks file that is not JSON.
func TestHookInstallRefusalMakesNoToken(t *testing.T) {
	bad := []byte("{\n  \"permissions\": {\"allow\": [\"Bash\"],}\n}\n")
	for _, tt := range []struct {
		name, file string
		src        []byte
		mode       os.FileMode
		args       []string
		msg        []string
	}{
		{"malformed", "settings.local.json", bad, 0o644, nil, []string{"not valid JSON: line 2", "fix the file"}},
		{"malformed shared", "settings.json", bad, 0o644, []string{"--shared", "--token-env", "TOK"}, []string{"not valid JSON", "fix the file"}},
		{"read-only", "settings.local.json", []byte(userSettings), 0o444, nil, []string{"read-only", "chmod u+w"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project, p := installProject(t, tt.file, tt.src)
			if err := os.Chmod(p, tt.mode); err != nil {
				t.Fatal(err)
			}
			tokenDir := filepath.Join(t.TempDir(), "ledger")
			tokenFile := filepath.Join(tokenDir, "hooks-token")
			args := append([]string{"hook", "install", "--project", project, "--url", loopbackHooksURL, "--command", "ledger", "--token-file", tokenFile}, tt.args...)
			var msg strings.Builder
			out, _, err := runCLI(t, "", args...)
			if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), p) {
				t.Errorf("exit %d %q, want 1 naming %s", code, msg.String(), p)
			}
			for _, m := range tt.msg {
				if !strings.Contains(msg.String(), m) {
					t.Errorf("message %q does not say %q", msg.String(), m)
				}
			}
			if out != "" {
				t.Errorf("printed %q", out)
			}
			if _, err := os.Stat(tokenDir); err == nil {
				t.Errorf("a refused install made %s", tokenDir)
			}
			if got := readFile(t, p); !bytes.Equal(got, tt.src) {
				t.Errorf("the refused file changed:\n%s", got)
			}
			noTempFiles(t, filepath.Dir(p))
		})
	}
	t.Run("runtime", func(t *testing.T) {
		for _, rt := range []string{"codex", "gemini", "qwen"} {
			project := t.TempDir()
			file := map[string]string{"codex": ".codex/hooks.json", "gemini": ".gemini/settings.json", "qwen": ".qwen/settings.json"}[rt]
			p := filepath.Join(project, file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			tokenDir := filepath.Join(t.TempDir(), "ledger")
			var msg strings.Builder
			_, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", project, "--url", "http://127.0.0.1:8787", "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token"))
			if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), p) || !strings.Contains(msg.String(), "fix the file") {
				t.Errorf("%s: exit %d %q, want 1 naming %s", rt, code, msg.String(), p)
			}
			if _, err := os.Stat(tokenDir); err == nil {
				t.Errorf("%s: a refused install made %s", rt, tokenDir)
			}
			if got := readFile(t, p); !bytes.Equal(got, bad) {
				t.Errorf("%s: the refused file changed:\n%s", rt, got)
			}
		}
	})
}

// TestHookInstallRefusalClaudeNotADir: a .claude that is a file is
// refused, naming it, before the token file is made.
func TestHookInstallRefusalClaudeNotADir(t *testing.T) {
	project := t.TempDir()
	claude := filepath.Join(project, ".claude")
	if err := os.WriteFile(claude, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tokenDir := filepath.Join(t.TempDir(), "ledger")
	for _, args := range [][]string{
		{"--url", loopbackHooksURL, "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token")},
		{"--command", "ledger"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, args...)...)
		if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), claude+" is not a directory") || !strings.Contains(msg.String(), "move it away") {
			t.Errorf("%q: exit %d %q, want 1 saying %s is not a directory", args, code, msg.String(), claude)
		}
	}
	if _, err := os.Stat(tokenDir); err == nil {
		t.Errorf("a refused install made %s", tokenDir)
	}
	if got := readFile(t, claude); string(got) != "x" {
		t.Errorf(".claude changed: %q", got)
	}
}

// TestHookInstallRefusalReadOnlyDirMakesNoToken: a .claude directory the
// install cannot write in is found before the token file is made.
func TestHookInstallRefusalReadOnlyDirMakesNoToken(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	project, local := installProject(t, "settings.local.json", []byte(userSettings))
	dir := filepath.Dir(local)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	tokenDir := filepath.Join(t.TempDir(), "ledger")
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--url", loopbackHooksURL, "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token"))
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), dir) || !strings.Contains(msg.String(), "permission denied") {
		t.Errorf("exit %d %q, want 1 naming %s, permission denied", code, msg.String(), dir)
	}
	if _, err := os.Stat(tokenDir); err == nil {
		t.Errorf("a refused install made %s", tokenDir)
	}
}
