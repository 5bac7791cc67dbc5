package ccimport

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFingerprint: every input of an import changes the fingerprint (each
// settings file, an agent file, the user's files, a link retargeted, an
// option), and nothing else does.
func TestFingerprint(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	put := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	claude := filepath.Join(project, ".claude")
	put(filepath.Join(claude, "settings.json"), `{}`)
	put(filepath.Join(claude, "agents", "a.md"), "---\nname: a\ndescription: a\n---\n")
	put(filepath.Join(user, "settings.json"), `{}`)
	put(filepath.Join(project, "elsewhere.md"), "---\nname: b\ndescription: b\n---\n")
	opt := ClaudeCodeOptions{UserDir: user}
	fp := func(o ClaudeCodeOptions) [32]byte {
		t.Helper()
		k, err := ClaudeCodeFingerprint(project, o)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	seen := map[[32]byte]string{}
	base := fp(opt)
	if fp(opt) != base {
		t.Fatal("two fingerprints of the same files differ")
	}
	seen[base] = "base"
	for _, step := range []struct {
		name   string
		change func()
		opt    ClaudeCodeOptions
	}{
		{"project settings", func() { put(filepath.Join(claude, "settings.json"), `{"a":1}`) }, opt},
		{"local settings appear", func() { put(filepath.Join(claude, "settings.local.json"), `{}`) }, opt},
		{"an agent file", func() { put(filepath.Join(claude, "agents", "a.md"), "---\nname: a\ndescription: changed\n---\n") }, opt},
		{"a nested agent file", func() { put(filepath.Join(claude, "agents", "sub", "c.md"), "x") }, opt},
		{"user settings", func() { put(filepath.Join(user, "settings.json"), `{"b":2}`) }, opt},
		{"a user agent", func() { put(filepath.Join(user, "agents", "u.md"), "x") }, opt},
		{"a link", func() {
			if err := os.Symlink(filepath.Join(project, "elsewhere.md"), filepath.Join(claude, "agents", "l.md")); err != nil {
				t.Fatal(err)
			}
		}, opt},
		{"the link retargeted, same bytes", func() {
			put(filepath.Join(project, "other.md"), "---\nname: b\ndescription: b\n---\n")
			l := filepath.Join(claude, "agents", "l.md")
			if err := os.Remove(l); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(project, "other.md"), l); err != nil {
				t.Fatal(err)
			}
		}, opt},
		{"an option", func() {}, ClaudeCodeOptions{UserDir: user, BuiltInAgents: "false"}},
		{"another option", func() {}, ClaudeCodeOptions{UserDir: user, BuiltInAgents: "false", FollowSymlinks: true}},
	} {
		step.change()
		k := fp(step.opt)
		if prev, ok := seen[k]; ok {
			t.Fatalf("%s: the fingerprint is the one of %s", step.name, prev)
		}
		seen[k] = step.name
	}
	// A file the import does not read changes nothing.
	before := fp(opt)
	put(filepath.Join(project, "README.md"), "x")
	put(filepath.Join(claude, "commands", "x.md"), "x")
	if fp(opt) != before {
		t.Fatal("a file the import does not read changed the fingerprint")
	}
	// A special file fails it (the import then says why).
	if err := os.Remove(filepath.Join(claude, "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(claude, "settings.local.json"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := ClaudeCodeFingerprint(project, opt); err == nil {
		t.Fatal("a named pipe as settings.local.json fingerprinted")
	}
}
