//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests here are the install review's findings 2, 7, 8 and 9
// (/work/review/install.md), as its reproductions ran them.

// TestHookInstallRefusesIgnoredSettings: a settings file Claude Code
// 2.1.328 would ignore as a whole ("model": 5, "cleanupPeriodDays":
// "thirty", a malformed hooks entry of an event the ledger does not
// install) is refused, exit 1, naming the file, the place, the key and its
// type, that Claude Code ignores the whole file and what to fix; nothing
// is written, not with --dry-run nor --url either (finding 2: the hooks
// went in and install said it succeeded).
func TestHookInstallRefusesIgnoredSettings(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		says      []string
	}{
		{"wrong types", "{\n  \"model\": 5,\n  \"cleanupPeriodDays\": \"thirty\"\n}\n", []string{"line 2, column 12", "model must be a string, got number 5", "fix model (or remove it)"}},
		{"days", "{\n  \"cleanupPeriodDays\": \"thirty\"\n}\n", []string{"line 2, column 24", `cleanupPeriodDays must be a whole number of at least 1, got string "thirty"`, "fix cleanupPeriodDays"}},
		{"a guard event's hooks", `{"hooks":{"PermissionRequest":"x"}}`, []string{"line 1, column 31", `hooks.PermissionRequest must be a list of matcher groups, got string "x"`, "fix hooks.PermissionRequest"}},
		{"a guard handler's shell", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"./audit.sh","shell":"zsh"}]}]}}`, []string{`hooks.PreToolUse[0].hooks[0].shell must be one of bash, powershell, got string "zsh"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project, p := installProject(t, "settings.local.json", []byte(tt.src))
			for _, args := range [][]string{
				{"--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222"},
				{"--command", "ledger", "--dry-run"},
				{"--url", loopbackHooksURL, "--command", "ledger", "--no-token"},
				{"--command", "ledger", "--json"},
			} {
				var msg strings.Builder
				out, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, args...)...)
				if code := exitCode(err, &msg); code != 1 {
					t.Fatalf("%q: exit %d %q %q, want 1", args, code, out, msg.String())
				}
				text := msg.String()
				var asJSON struct{ Error struct{ Message string } }
				if json.Unmarshal([]byte(text), &asJSON) == nil {
					text = asJSON.Error.Message
				}
				for _, s := range append([]string{p, "Claude Code 2.1.328 ignores this whole file", "none of the ledger's hooks", "nothing was written"}, tt.says...) {
					if !strings.Contains(text, s) {
						t.Errorf("%q: message %q does not say %q", args, text, s)
					}
				}
				if out != "" {
					t.Errorf("%q: printed %q", args, out)
				}
				if got := readFile(t, p); string(got) != tt.src {
					t.Errorf("%q: the refused file changed:\n%s", args, got)
				}
				noTempFiles(t, filepath.Dir(p))
			}
		})
	}
}

// TestHookInstallOtherSettingsFile: Claude Code runs the hooks of both
// .claude/settings.json and .claude/settings.local.json. An install whose
// other file holds the ledger's hooks with another command line is
// refused, naming that file and what it runs, and writes nothing (finding
// 7: after --shared and a plain install both sets ran); the same hooks
// there are a warning, on standard error and in --json.
func TestHookInstallOtherSettingsFile(t *testing.T) {
	for _, sharedFirst := range []bool{true, false} {
		project := t.TempDir()
		local, shared := filepath.Join(project, ".claude", "settings.local.json"), filepath.Join(project, ".claude", "settings.json")
		first, second, firstFile, secondFile := []string{"--shared"}, []string(nil), shared, local
		if !sharedFirst {
			first, second, firstFile, secondFile = nil, []string{"--shared"}, local, shared
		}
		install := func(extra []string, args ...string) (string, string, error) {
			return runCLI(t, "", append(append([]string{"hook", "install", "--project", project}, extra...), args...)...)
		}
		if _, errOut, err := install(first, "--command", "ledger", "--", "--nats", "nats://10.0.0.5:4222"); err != nil {
			t.Fatalf("%v %s", err, errOut)
		}
		before := readFile(t, firstFile)
		for _, args := range [][]string{
			{"--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222"},
			{"--command", "ledger", "--dry-run", "--", "--nats", "nats://127.0.0.1:4222"},
			{"--url", loopbackHooksURL, "--command", "ledger", "--no-token"},
		} {
			var msg strings.Builder
			out, _, err := install(second, args...)
			if code := exitCode(err, &msg); code != 1 || out != "" {
				t.Fatalf("shared first %v, %q: exit %d %q %q, want 1", sharedFirst, args, code, out, msg.String())
			}
			for _, s := range []string{firstFile, `"ledger hook claude-code --nats nats://10.0.0.5:4222"`, "runs the hooks of both", "--uninstall", "nothing was written"} {
				if !strings.Contains(msg.String(), s) {
					t.Errorf("shared first %v, %q: message %q does not say %q", sharedFirst, args, msg.String(), s)
				}
			}
			if _, err := os.Stat(secondFile); err == nil {
				t.Errorf("shared first %v, %q: a refused install wrote %s", sharedFirst, args, secondFile)
			}
			if !bytes.Equal(readFile(t, firstFile), before) {
				t.Errorf("shared first %v, %q: a refused install changed %s", sharedFirst, args, firstFile)
			}
		}
		// The same command line: installed, with a warning.
		out, errOut, err := install(second, "--json", "--command", "ledger", "--", "--nats", "nats://10.0.0.5:4222")
		if err != nil {
			t.Fatalf("shared first %v, the same hooks: %v %s", sharedFirst, err, errOut)
		}
		var reports []settingsReport
		if err := json.Unmarshal([]byte(out), &reports); err != nil || len(reports) != 1 || len(reports[0].Warnings) != 1 ||
			!strings.Contains(reports[0].Warnings[0], firstFile+" holds the same ledger hooks") {
			t.Errorf("shared first %v, the same hooks: --json %v %s", sharedFirst, err, out)
		}
		if !strings.Contains(errOut, "ledger: warning: "+firstFile+" holds the same ledger hooks") {
			t.Errorf("shared first %v, the same hooks: stderr %q", sharedFirst, errOut)
		}
		// --uninstall takes them out of both, and an install is then free.
		if out, _, err := install(nil, "--uninstall"); err != nil || strings.Count(out, "removed the ledger's Claude Code hooks") != 2 {
			t.Fatalf("uninstall: %v %s", err, out)
		}
		if _, errOut, err := install(second, "--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222"); err != nil || errOut != "" {
			t.Errorf("shared first %v: install after --uninstall: %v %q", sharedFirst, err, errOut)
		}
	}
	// One file under both names (settings.local.json a link to
	// settings.json): a new command line replaces the old one in it.
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("settings.json", filepath.Join(project, ".claude", "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	for _, nats := range []string{"nats://10.0.0.5:4222", "nats://127.0.0.1:4222"} {
		if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--shared", "--command", "ledger", "--", "--nats", nats); err != nil || errOut != "" {
			t.Errorf("a linked settings file, --nats %s: %v %q", nats, err, errOut)
		}
	}
}

// TestHookInstallKeepsLineEnds: install then --uninstall gives back the
// original bytes of a CRLF file, of one with a blank line before its
// closing brace and of one with a space there, and an install into a CRLF
// file writes CRLF lines only (finding 8).
func TestHookInstallKeepsLineEnds(t *testing.T) {
	for _, src := range []string{
		"{\r\n  \"model\": \"opus\"\r\n}\r\n",
		"{\n  \"model\": \"opus\"\n\n}\n",
		`{"model": "opus" }`,
		"{\r\n  \"hooks\": {\r\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}]\r\n  }\r\n\r\n}",
	} {
		project, p := installProject(t, "settings.local.json", []byte(src))
		if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger"); err != nil {
			t.Fatalf("%q: %v %s", src, err, errOut)
		}
		got := readFile(t, p)
		if strings.Contains(src, "\r\n") && bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
			t.Errorf("%q: installed with LF line ends in a CRLF file:\n%q", src, got)
		}
		if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall"); err != nil {
			t.Fatalf("%q: %v %s", src, err, errOut)
		}
		if back := readFile(t, p); string(back) != src {
			t.Errorf("install and --uninstall gave back %q, want %q", back, src)
		}
	}
}

// TestHookInstallByteOrderMark: a settings file that starts with a UTF-8
// byte order mark, which Claude Code reads past, is installed into, the
// mark kept, and --uninstall gives its bytes back (finding 9: "invalid
// character 'ï'"). Another runtime's file with one is refused, saying to
// remove it.
func TestHookInstallByteOrderMark(t *testing.T) {
	src := "\ufeff{\n  \"model\": \"opus\"\n}\n"
	project, p := installProject(t, "settings.local.json", []byte(src))
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger"); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	if got := readFile(t, p); !bytes.HasPrefix(got, []byte("\ufeff{")) || len(ledgerHandlers(t, bytes.TrimPrefix(got, []byte("\ufeff")))) != 7 {
		t.Errorf("installed:\n%q", got)
	}
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall"); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	if got := readFile(t, p); string(got) != src {
		t.Errorf("uninstalled %q, want %q", got, src)
	}
	gemini := filepath.Join(project, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(gemini), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemini, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--runtime", "gemini", "--project", project, "--command", "ledger")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), gemini) || !strings.Contains(msg.String(), "remove the byte order mark") {
		t.Errorf("gemini: exit %d %q", code, msg.String())
	}
}

// TestHookInstallSettingsLimit: install reads a settings file up to the
// size the hook's import reads (8 MiB; it stopped at 4 MiB), and refuses a
// larger one saying so and what to do, not "replace it with a regular
// file" (finding 9).
func TestHookInstallSettingsLimit(t *testing.T) {
	big := func(n int) []byte {
		pad := n - len(`{"x": ""}`)
		return []byte(`{"x": "` + strings.Repeat("a", pad) + `"}`)
	}
	project, p := installProject(t, "settings.local.json", big(6<<20))
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger"); err != nil {
		t.Fatalf("a 6 MiB settings file: %v %s", err, errOut)
	}
	if len(ledgerHandlers(t, readFile(t, p))) != 7 {
		t.Error("a 6 MiB settings file did not get the hooks")
	}
	over := big(8<<20 + 1)
	if err := os.WriteFile(p, over, 0o644); err != nil {
		t.Fatal(err)
	}
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), p+": larger than the limit of 8 MiB") ||
		!strings.Contains(msg.String(), "make the file smaller") || strings.Contains(msg.String(), "regular file") {
		t.Errorf("over 8 MiB: exit %d %q", code, msg.String())
	}
}

// TestHookInstallHelpNamesEveryRuntime: the description 'hook install
// --help' prints names every runtime --runtime takes, with its doc
// (finding 9: qwen was missing).
func TestHookInstallHelpNamesEveryRuntime(t *testing.T) {
	out, _, err := runCLI(t, "", "hook", "install", "--help")
	if err != nil {
		t.Fatal(err)
	}
	about, _, _ := strings.Cut(out, "\nFlags:\n")
	docs := map[string]string{"codex": "docs/codex-cli-hooks.md", "gemini": "docs/gemini-cli-hooks.md", "qwen": "docs/qwen-code-hooks.md"}
	for _, rt := range installRuntimes {
		if rt == "claude-code" {
			continue
		}
		if !strings.Contains(about, "--runtime "+rt) || !strings.Contains(about, "'ledger hook "+rt+"'") || !strings.Contains(about, docs[rt]) {
			t.Errorf("hook install --help does not describe --runtime %s (its hooks file and %s):\n%s", rt, docs[rt], about)
		}
	}
	var msg strings.Builder
	_, _, err = runCLI(t, "", "hook", "install", "--runtime", "copilot")
	if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), "claude-code, codex, gemini or qwen") {
		t.Errorf("--runtime copilot: exit %d %q", code, msg.String())
	}
}
