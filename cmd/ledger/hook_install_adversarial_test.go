//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
)

// The tests here probe 'ledger hook install' as a conformance suite would,
// against docs/claude-code-hooks.md ("ledger hook install"): real temporary
// projects, the command as a user runs it.

// userSettings is a settings file of a user's own: hooks of theirs (one
// in a PreToolUse group of its own, one on an event the ledger does not
// install), permissions, env and keys the ledger does not know, in an
// order no encoder would choose.
const userSettings = `{
  "zzz-unknown": {"nested": [1, 2, {"x": null}]},
  "permissions": {
    "allow": ["Bash(npm test)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "./scripts/check-bash.sh", "timeout": 3}
        ]
      }
    ],
    "Notification": [{"matcher": "", "hooks": [{"type": "http", "url": "http://127.0.0.1:9/notify"}]}]
  },
  "env": {"NODE_ENV": "test", "EMPTY": ""},
  "aaa-unknown": true
}
`

// installProject makes a project whose .claude/NAME holds src (nothing
// when src is nil) and returns the project and the file's path.
func installProject(t *testing.T, name string, src []byte) (string, string) {
	t.Helper()
	project := t.TempDir()
	p := filepath.Join(project, ".claude", name)
	if src != nil {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project, p
}

// withoutLedger is a settings file's JSON with the ledger's handlers
// (cchook.Own) removed, and the groups, events and "hooks" key that
// leaves empty: what must survive an install unchanged.
func withoutLedger(t *testing.T, src []byte) map[string]any {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(src, &root); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, src)
	}
	hooks, _ := root["hooks"].(map[string]any)
	for ev, groups := range hooks {
		var keep []any
		for _, g := range groups.([]any) {
			gm := g.(map[string]any)
			var hs []any
			for _, h := range gm["hooks"].([]any) {
				if !cchook.Own(h.(map[string]any)) {
					hs = append(hs, h)
				}
			}
			if len(hs) > 0 {
				gm["hooks"] = hs
				keep = append(keep, gm)
			}
		}
		if len(keep) == 0 {
			delete(hooks, ev)
		} else {
			hooks[ev] = keep
		}
	}
	if hooks != nil && len(hooks) == 0 {
		delete(root, "hooks")
	}
	return root
}

// topKeys are the top-level keys of a JSON object, in their order.
func topKeys(t *testing.T, src []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(src))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// ledgerHandlers are the ledger's handlers of a settings file, by event.
func ledgerHandlers(t *testing.T, src []byte) map[string][]map[string]any {
	t.Helper()
	var root struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(src, &root); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, src)
	}
	out := map[string][]map[string]any{}
	for ev, groups := range root.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if cchook.Own(h) {
					h["(matcher)"] = g.Matcher
					out[ev] = append(out[ev], h)
				}
			}
		}
	}
	return out
}

// noTempFiles fails when a settings write left a temporary file behind.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("a temporary file is left in %s: %s", dir, e.Name())
		}
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHookInstallAdversarialNoClaudeDir: a project with no .claude gets
// one, with the documented block (seven events, PreToolUse matching
// every tool and failing closed, the timeout), and an uninstall creates
// nothing where nothing was.
func TestHookInstallAdversarialNoClaudeDir(t *testing.T) {
	project, local := installProject(t, "settings.local.json", nil)
	// An uninstall of a project with no .claude writes nothing, makes no
	// directory.
	out, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall")
	if err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude")); err == nil {
		t.Errorf("--uninstall made .claude in a project that had none (%s)", out)
	}
	out, errOut, err = runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222")
	if err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	got := readFile(t, local)
	own := ledgerHandlers(t, got)
	want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolBatch", "SubagentStart", "SubagentStop", "SessionEnd"}
	if len(own) != len(want) {
		t.Fatalf("events %v, want %v:\n%s", own, want, got)
	}
	for _, ev := range want {
		hs := own[ev]
		if len(hs) != 1 {
			t.Fatalf("%s: %d ledger handlers, want 1", ev, len(hs))
		}
		h := hs[0]
		if h["type"] != "command" || h["command"] != "ledger hook claude-code --nats nats://127.0.0.1:4222" || h["timeout"] != float64(10) {
			t.Errorf("%s: %v", ev, h)
		}
		wantFail, wantMatcher := "", ""
		if ev == "PreToolUse" {
			wantFail, wantMatcher = "block", "*"
		}
		if f, _ := h["onFailure"].(string); f != wantFail {
			t.Errorf("%s: onFailure %q, want %q", ev, f, wantFail)
		}
		if h["(matcher)"] != wantMatcher {
			t.Errorf("%s: matcher %q, want %q", ev, h["(matcher)"], wantMatcher)
		}
	}
	if !strings.Contains(out, "installed the ledger's Claude Code hooks in "+local) {
		t.Errorf("printed %q", out)
	}
	noTempFiles(t, filepath.Dir(local))
}

// TestHookInstallAdversarialKeepsTheUsers: every byte of a user's
// settings that is not the ledger's survives an install, a re-install, a
// replacing install (another command, then --url, then back) and the
// uninstall gives back the original bytes.
func TestHookInstallAdversarialKeepsTheUsers(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := "settings.local.json"
		if shared {
			name = "settings.json"
		}
		t.Run(name, func(t *testing.T) {
			orig := []byte(userSettings)
			project, p := installProject(t, name, orig)
			base := []string{"hook", "install", "--project", project}
			if shared {
				base = append(base, "--shared")
			}
			wantUser := withoutLedger(t, orig)
			wantKeys := topKeys(t, orig)
			check := func(step string, wantCmd string) []byte {
				t.Helper()
				got := readFile(t, p)
				if u := withoutLedger(t, got); !reflect.DeepEqual(u, wantUser) {
					t.Errorf("%s: the user's settings changed:\n%s", step, got)
				}
				if k := topKeys(t, got); !reflect.DeepEqual(k, wantKeys) {
					t.Errorf("%s: top-level keys %v, want %v (their order kept)", step, k, wantKeys)
				}
				for ev, hs := range ledgerHandlers(t, got) {
					if len(hs) != 1 {
						t.Errorf("%s: %s has %d ledger handlers, want 1:\n%s", step, ev, len(hs), got)
					}
					if wantCmd != "" && hs[0]["type"] == "command" && hs[0]["command"] != wantCmd {
						t.Errorf("%s: %s runs %v, want %q", step, ev, hs[0]["command"], wantCmd)
					}
				}
				noTempFiles(t, filepath.Dir(p))
				return got
			}
			run := func(args ...string) string {
				t.Helper()
				out, errOut, err := runCLI(t, "", append(append([]string{}, base...), args...)...)
				if err != nil {
					t.Fatalf("%q: %v %s", args, err, errOut)
				}
				return out
			}
			run("--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222")
			first := check("install", "ledger hook claude-code --nats nats://127.0.0.1:4222")
			out := run("--json", "--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222")
			if again := readFile(t, p); !bytes.Equal(again, first) {
				t.Errorf("a second install changed the file:\n%s", again)
			}
			var reports []map[string]any
			if err := json.Unmarshal([]byte(out), &reports); err != nil || len(reports) != 1 || reports[0]["changed"] != false {
				t.Errorf("second install --json: %v %s", err, out)
			}
			// Another command line replaces the ledger's handlers only.
			run("--command", "/opt/ledger/bin/ledger", "--", "--nats", "nats://10.0.0.1:4222", "--unreachable", "allow")
			check("reinstall", "/opt/ledger/bin/ledger hook claude-code --nats nats://10.0.0.1:4222 --unreachable allow")
			// HTTP hooks replace them; the SessionStart command is the
			// thin hook posting to the same URL.
			run("--url", "http://127.0.0.1:8787"+cchook.HTTPPath, "--command", "ledger", "--no-token")
			got := check("--url", "")
			own := ledgerHandlers(t, got)
			for ev, hs := range own {
				h := hs[0]
				if ev == "SessionStart" {
					if h["type"] != "command" || h["command"] != "ledger hook claude-code --hooks http://127.0.0.1:8787/hooks/claude-code --no-token" {
						t.Errorf("--url SessionStart: %v", h)
					}
					continue
				}
				if h["type"] != "http" || h["url"] != "http://127.0.0.1:8787"+cchook.HTTPPath {
					t.Errorf("--url %s: %v", ev, h)
				}
			}
			if len(own) != 7 {
				t.Errorf("--url installed %d events, want 7:\n%s", len(own), got)
			}
			run("--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222")
			if back := check("back to command hooks", "ledger hook claude-code --nats nats://127.0.0.1:4222"); !bytes.Equal(back, first) {
				t.Errorf("command hooks after --url:\n%s\nwant what the first install wrote:\n%s", back, first)
			}
			run("--uninstall")
			if got := readFile(t, p); !bytes.Equal(got, orig) {
				t.Errorf("uninstalled:\n%s\nwant the original:\n%s", got, orig)
			}
		})
	}
}

// TestHookInstallAdversarialRefusals: a settings file the install cannot
// merge into is refused, naming the file, and left byte for byte.
func TestHookInstallAdversarialRefusals(t *testing.T) {
	for _, tt := range []struct {
		name, src, msg string
	}{
		{"syntax", "{\n  \"permissions\": {\"allow\": [\"Bash\"],}\n}\n", "not valid JSON: line 2"},
		{"truncated", `{"hooks": {"PreToolUse": [`, "not valid JSON"},
		{"comment", "{\n  // mine\n  \"model\": \"opus\"\n}\n", "not valid JSON: line 2"},
		{"array", `[{"hooks": {}}]`, "must be a JSON object"},
		{"string", `"hooks"`, "must be a JSON object"},
		{"null", `null`, "must be a JSON object"},
		{"hooks array", `{"hooks": [{"matcher": "*"}]}`, `"hooks" must be an object`},
		{"hooks string", `{"hooks": "none"}`, `"hooks" must be an object`},
		{"hooks null", `{"hooks": null}`, `"hooks" must be an object`},
		{"event object", `{"hooks": {"PreToolUse": {"matcher": "*"}}}`, `"hooks.PreToolUse" must be a list`},
		{"hooks twice", `{"hooks": {}, "model": "x", "hooks": {"Stop": []}}`, `"hooks" is written twice`},
		{"event twice", `{"hooks": {"Stop": [], "Stop": []}}`, `twice`},
		// A byte order mark is read past and kept, as Claude Code reads
		// past it (TestHookInstallByteOrderMark); a file Claude Code would
		// ignore whole is refused (TestHookInstallRefusesIgnoredSettings).
		{"ignored by Claude Code", `{"model": 5}`, "model must be a string, got number 5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project, p := installProject(t, "settings.local.json", []byte(tt.src))
			for _, args := range [][]string{
				{"--command", "ledger"},
				{"--url", "http://127.0.0.1:8787" + cchook.HTTPPath, "--command", "ledger", "--no-token"},
				{"--command", "ledger", "--dry-run"},
			} {
				var msg strings.Builder
				out, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, args...)...)
				if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), p) || !strings.Contains(msg.String(), tt.msg) {
					t.Errorf("%q: exit %d %q, want 1 naming %s and %q", args, code, msg.String(), p, tt.msg)
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

// TestHookInstallAdversarialUninstallRefusalWritesNothing: --uninstall
// edits both settings files; when one of them is refused, neither is
// written ("Refused ... and nothing written"): the local file keeps its
// ledger handlers rather than being changed while the command reports a
// failure.
func TestHookInstallAdversarialUninstallRefusalWritesNothing(t *testing.T) {
	project, local := installProject(t, "settings.local.json", []byte(userSettings))
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger"); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	installed := readFile(t, local)
	shared := filepath.Join(project, ".claude", "settings.json")
	bad := []byte(`{"hooks": {"PreToolUse": [}`)
	if err := os.WriteFile(shared, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), shared) {
		t.Errorf("exit %d %q, want 1 naming %s", code, msg.String(), shared)
	}
	if got := readFile(t, shared); !bytes.Equal(got, bad) {
		t.Errorf("the refused file changed: %s", got)
	}
	if got := readFile(t, local); !bytes.Equal(got, installed) {
		t.Errorf("a refused uninstall wrote %s anyway:\n%s", local, got)
	}
}

// TestHookInstallAdversarialSymlink: a settings file that is a symbolic
// link to a file in the project is edited where it points: the link stays
// a link, its target gets the hooks, and the uninstall gives the target
// back its bytes. (A link out of the project, which this test installed
// through before, is refused: the hook's import does not follow it;
// TestHookInstallRefusesLinkOutOfProject.)
func TestHookInstallAdversarialSymlink(t *testing.T) {
	project, local := installProject(t, "settings.local.json", nil)
	dotfiles := filepath.Join(project, "dotfiles")
	if err := os.MkdirAll(dotfiles, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "claude-settings.json")
	orig := []byte(userSettings)
	if err := os.WriteFile(target, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, local); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger"); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	if st, err := os.Lstat(local); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symbolic link %s was replaced by a regular file (%v)", local, err)
	}
	got := readFile(t, target)
	if len(ledgerHandlers(t, got)) != 7 {
		t.Errorf("the link's target did not get the hooks:\n%s", got)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("the target's mode is %v, want its own 0640", st.Mode().Perm())
	}
	noTempFiles(t, dotfiles)
	noTempFiles(t, filepath.Dir(local))
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall"); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	if got := readFile(t, target); !bytes.Equal(got, orig) {
		t.Errorf("uninstalled target:\n%s\nwant the original", got)
	}
	if st, err := os.Lstat(local); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the uninstall replaced the symbolic link %s (%v)", local, err)
	}
}

// TestHookInstallRefusesLinkOutOfProject: a Claude Code settings file
// that is a symbolic link out of the project (a dotfiles checkout) is
// refused, naming the link, its target and what to do, and nothing is
// written: the hook imports the project's settings without following such
// a link (as 'ledger policy import' without --follow-symlinks), so hooks
// written through it would find the project's policy refused. Uninstall
// still takes the ledger's hooks out through it.
func TestHookInstallRefusesLinkOutOfProject(t *testing.T) {
	project, local := installProject(t, "settings.local.json", nil)
	dotfiles := t.TempDir()
	target := filepath.Join(dotfiles, "claude-settings.json")
	if err := os.WriteFile(target, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, local); err != nil {
		t.Fatal(err)
	}
	// The hook's own import refuses the project, as install says.
	if _, err := ccimport.ClaudeCode(project, ccimport.ClaudeCodeOptions{}); err == nil || !strings.Contains(err.Error(), "outside the project") {
		t.Fatalf("the import of a project whose settings link out of it: %v", err)
	}
	for _, args := range [][]string{{"--command", "ledger"}, {"--command", "ledger", "--dry-run"}, {"--url", loopbackHooksURL, "--no-token"}} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, args...)...)
		if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), "leads through a symbolic link to "+target+", outside the project") ||
			!strings.Contains(msg.String(), "make .claude a directory and settings.local.json a file in the project") {
			t.Fatalf("%q: exit %d %q", args, code, msg.String())
		}
		if got := readFile(t, target); string(got) != userSettings {
			t.Fatalf("%q: the link's target changed:\n%s", args, got)
		}
	}
	// A .claude directory that links out of the project, the file in it
	// there or not, is refused the same way.
	other := t.TempDir()
	linked := filepath.Join(t.TempDir(), "p")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(linked, ".claude")); err != nil {
		t.Fatal(err)
	}
	for _, exists := range []bool{false, true} {
		if exists {
			if err := os.WriteFile(filepath.Join(other, "settings.local.json"), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var msg strings.Builder
		_, _, err := runCLI(t, "", "hook", "install", "--project", linked, "--command", "ledger")
		if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), "leads through a symbolic link to "+filepath.Join(other, "settings.local.json")) {
			t.Fatalf("a .claude linked out (file there: %v): exit %d %q", exists, code, msg.String())
		}
	}
	// Hooks an older install wrote there come out.
	withHooks, _, err := cchook.Install([]byte(userSettings), cchook.CommandBlock("ledger hook claude-code", 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, withHooks, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall"); err != nil {
		t.Fatalf("uninstall: %v %s", err, errOut)
	}
	if got := readFile(t, target); string(got) != userSettings {
		t.Errorf("uninstalled target:\n%s\nwant the original", got)
	}
}

// TestHookInstallAdversarialReadOnly: a settings file without write
// permission is refused with a message naming it, and left as it was
// (not replaced by renaming a new file over it).
func TestHookInstallAdversarialReadOnly(t *testing.T) {
	orig := []byte(userSettings)
	project, local := installProject(t, "settings.local.json", orig)
	if err := os.Chmod(local, 0o444); err != nil {
		t.Fatal(err)
	}
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), local) || !strings.Contains(msg.String(), "read-only") {
		t.Errorf("exit %d %q, want 1 naming %s as read-only", code, msg.String(), local)
	}
	if got := readFile(t, local); !bytes.Equal(got, orig) {
		t.Errorf("a read-only settings file was rewritten:\n%s", got)
	}
	noTempFiles(t, filepath.Dir(local))
	// A dry run only reads it.
	if out, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger", "--dry-run"); err != nil || !strings.Contains(out, "ledger hook claude-code") {
		t.Errorf("--dry-run of a read-only file: %v %s %s", err, out, errOut)
	}
}

// TestHookInstallAdversarialReadOnlyDir: a .claude directory the install
// cannot write to is a clear error, and leaves nothing behind.
func TestHookInstallAdversarialReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	orig := []byte(userSettings)
	project, local := installProject(t, "settings.local.json", orig)
	dir := filepath.Dir(local)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), "permission denied") {
		t.Errorf("exit %d %q, want 1 saying permission denied", code, msg.String())
	}
	if got := readFile(t, local); !bytes.Equal(got, orig) {
		t.Errorf("changed:\n%s", got)
	}
	noTempFiles(t, dir)
}

// TestHookInstallAdversarialDryRun: --dry-run writes nothing (no .claude,
// no token file), and prints exactly what the install then writes.
func TestHookInstallAdversarialDryRun(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "sub", "hooks-token")
	for _, args := range [][]string{
		{"--command", "ledger", "--", "--nats", "nats://127.0.0.1:4222"},
		{"--url", "http://127.0.0.1:8787" + cchook.HTTPPath, "--command", "ledger", "--token-file", tokenFile},
	} {
		project, local := installProject(t, "settings.local.json", nil)
		base := []string{"hook", "install", "--project", project}
		out, errOut, err := runCLI(t, "", append(append(base, "--dry-run"), args...)...)
		if err != nil {
			t.Fatalf("%q: %v %s", args, err, errOut)
		}
		if _, err := os.Stat(filepath.Join(project, ".claude")); err == nil {
			t.Errorf("%q: --dry-run made .claude", args)
		}
		if _, err := os.Stat(tokenFile); err == nil {
			t.Errorf("%q: --dry-run made the token file", args)
		}
		if !json.Valid([]byte(out)) {
			t.Errorf("%q: --dry-run printed no JSON:\n%s", args, out)
		}
		if _, errOut, err := runCLI(t, "", append(base, args...)...); err != nil {
			t.Fatalf("%q: %v %s", args, err, errOut)
		}
		got := readFile(t, local)
		if args[0] == "--command" && out != string(got) {
			t.Errorf("%q: --dry-run printed\n%s\nthe install wrote\n%s", args, out, got)
		}
		// With --url the token is not known before it is made: only
		// the header differs.
		if args[0] != "--command" {
			if n := strings.Count(out, "(the token "+tokenFile+" will hold)"); n != 6 {
				t.Errorf("--url --dry-run names the token to be made %d times, want 6:\n%s", n, out)
			}
		}
		// A dry run of an installed file prints it unchanged.
		out, _, err = runCLI(t, "", append(append(base, "--dry-run"), args...)...)
		if err != nil || out != string(got) {
			t.Errorf("%q: --dry-run of the installed file: %v\n%s", args, err, out)
		}
	}
}

// TestHookInstallAdversarialJSON: --json prints one object per settings
// file with file, changed, added and removed (lists, never null), for an
// install, a second install and an uninstall of both files.
func TestHookInstallAdversarialJSON(t *testing.T) {
	project, local := installProject(t, "settings.local.json", []byte(userSettings))
	type report struct {
		File    *string   `json:"file"`
		Changed *bool     `json:"changed"`
		Added   *[]string `json:"added"`
		Removed *[]string `json:"removed"`
	}
	decode := func(out string) []report {
		t.Helper()
		var rs []report
		dec := json.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rs); err != nil {
			t.Fatalf("--json: %v\n%s", err, out)
		}
		for _, r := range rs {
			if r.File == nil || r.Changed == nil || r.Added == nil || r.Removed == nil || *r.Added == nil || *r.Removed == nil {
				t.Fatalf("--json report with a missing or null field:\n%s", out)
			}
		}
		return rs
	}
	out, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger", "--json")
	if err != nil {
		t.Fatal(err)
	}
	rs := decode(out)
	if len(rs) != 1 || *rs[0].File != local || !*rs[0].Changed || len(*rs[0].Added) != 7 || len(*rs[0].Removed) != 0 {
		t.Errorf("install --json:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger", "--json")
	if rs := decode(out); len(rs) != 1 || *rs[0].Changed || len(*rs[0].Added) != 0 {
		t.Errorf("second install --json:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "hook", "install", "--project", project, "--uninstall", "--json")
	rs = decode(out)
	if len(rs) != 2 || *rs[0].File != local || !*rs[0].Changed || len(*rs[0].Removed) != 7 || *rs[1].Changed {
		t.Errorf("uninstall --json:\n%s", out)
	}
}

// TestHookInstallAdversarialURLPath: the HTTP hooks of --url are the
// ledger's only when they post to the path /hooks/claude-code (cchook.Own,
// the docs' "Only the ledger's own handlers are touched"): a URL with
// another path would install handlers that a re-install duplicates and an
// uninstall leaves behind (with the bearer token in them). Such a URL is
// refused, and nothing is written.
func TestHookInstallAdversarialURLPath(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8787", "http://127.0.0.1:8787/", "http://127.0.0.1:8787/hooks", "http://127.0.0.1:8787/proxy/hooks/claude-code"} {
		project, local := installProject(t, "settings.local.json", nil)
		var msg strings.Builder
		_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--url", u, "--command", "ledger", "--no-token")
		if err == nil {
			// Whatever it installed must then behave as documented.
			runCLI(t, "", "hook", "install", "--project", project, "--url", u, "--command", "ledger", "--no-token")
			got := readFile(t, local)
			for ev, hs := range ledgerHandlers(t, got) {
				if len(hs) != 1 {
					t.Errorf("--url %s twice: %s has %d ledger handlers", u, ev, len(hs))
				}
			}
			runCLI(t, "", "hook", "install", "--project", project, "--uninstall")
			if got := readFile(t, local); bytes.Contains(got, []byte(u)) {
				t.Errorf("--url %s: the uninstall left its handlers:\n%s", u, got)
			}
			continue
		}
		if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), cchook.HTTPPath) {
			t.Errorf("--url %s: exit %d %q", u, code, msg.String())
		}
		if _, err := os.Stat(local); err == nil {
			t.Errorf("--url %s: refused, but wrote %s", u, local)
		}
	}
	// The path with a trailing slash is the ledger's.
	for _, u := range []string{"http://127.0.0.1:8787/hooks/claude-code/", "http://[::1]:8787" + cchook.HTTPPath} {
		project, local := installProject(t, "settings.local.json", nil)
		for range 2 {
			if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--url", u, "--command", "ledger", "--no-token"); err != nil {
				t.Fatalf("--url %s: %v %s", u, err, errOut)
			}
		}
		for ev, hs := range ledgerHandlers(t, readFile(t, local)) {
			if len(hs) != 1 {
				t.Errorf("--url %s twice: %s has %d ledger handlers", u, ev, len(hs))
			}
		}
	}
}

// TestHookInstallAdversarialOddGroups: groups and handlers of shapes
// Claude Code does not take (not objects, a "hooks" that is not a list)
// make it ignore the whole file, so the install refuses it, naming the
// first, and leaves it as it was (TestHookInstallRefusesIgnoredSettings);
// --uninstall still takes the ledger's handlers out of such a file (one
// installed into before the check) and leaves the odd ones where they are.
func TestHookInstallAdversarialOddGroups(t *testing.T) {
	orig := []byte(`{"hooks": {"PreToolUse": ["junk", 5, {"matcher": "Bash", "hooks": "not a list"}, {"hooks": ["x", {"type": "command", "command": "mine"}]}], "Weird": 7}}`)
	project, local := installProject(t, "settings.local.json", orig)
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger")
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), `hooks.PreToolUse[0] must be a matcher group (an object with a "hooks" list), got string "junk"`) {
		t.Errorf("exit %d %q, want 1 naming hooks.PreToolUse[0]", code, msg.String())
	}
	if got := readFile(t, local); !bytes.Equal(got, orig) {
		t.Errorf("the refused file changed:\n%s", got)
	}
	installed := []byte(`{"hooks": {"PreToolUse": ["junk", 5, {"matcher": "Bash", "hooks": "not a list"}, {"hooks": ["x", {"type": "command", "command": "mine"}, {"type": "command", "command": "ledger hook claude-code"}]}, {"matcher": "*", "hooks": [{"type": "command", "command": "ledger hook claude-code"}]}], "Weird": 7, "Stop": [{"hooks": [{"type": "command", "command": "ledger hook claude-code"}]}]}}`)
	if err := os.WriteFile(local, installed, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall"); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	if got := readFile(t, local); !bytes.Equal(got, orig) {
		t.Errorf("uninstalled:\n%s\nwant\n%s", got, orig)
	}
}
