package ccimport

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/importer"
)

// Issue 24's findings against the importer: each of these blocked,
// exhausted memory or read out of the project before the importer read
// through safefile with limits.

// importWithin runs the import and fails the test when it has not returned
// by the deadline (the old importer blocked on a named pipe forever).
// unblock, when set, is called then to let the import return.
func importWithin(t *testing.T, dir string, opt ClaudeCodeOptions, unblock func()) (*importer.Result, error) {
	t.Helper()
	type result struct {
		r   *importer.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := ClaudeCode(dir, opt)
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-time.After(30 * time.Second):
		if unblock != nil {
			unblock()
		}
		t.Fatal("the import did not return: it is blocked reading a file")
		return nil, nil
	}
}

// wantRefusal checks that err is an *importer.Error naming file whose message holds
// every one of parts.
func wantRefusal(t *testing.T, r *importer.Result, err error, file string, parts ...string) {
	t.Helper()
	var e *importer.Error
	if !errors.As(err, &e) {
		doc := ""
		if r != nil {
			doc = string(r.Document)
		}
		t.Fatalf("got %v (document %s), want a refusal naming %s", err, doc, file)
	}
	if e.File != file {
		t.Errorf("the refusal names %q, want %q: %v", e.File, file, err)
	}
	for _, p := range parts {
		if !strings.Contains(e.Msg, p) {
			t.Errorf("the refusal lacks %q: %v", p, err)
		}
	}
}

func TestClaudeCodeRefusesANamedPipe(t *testing.T) {
	root := project(t, map[string]string{"settings.json": `{"permissions": {"deny": ["Bash"]}}`})
	fifo := filepath.Join(root, ".claude", "settings.local.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	r, err := importWithin(t, root, ClaudeCodeOptions{}, func() {
		// A writer that opens and closes lets a blocked open return.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	wantRefusal(t, r, err, fifo, "named pipe", "nothing was imported")
}

func TestClaudeCodeRefusesADevice(t *testing.T) {
	// The user's directory is not confined to the project, so its link to
	// /dev/zero is followed and must be refused for what it is.
	user := writeTree(t, map[string]string{"agents/a.md": "---\nname: a\ndescription: d\n---\n"})
	zero := filepath.Join(user, "settings.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	root := project(t, map[string]string{"settings.json": `{}`})
	r, err := importWithin(t, root, ClaudeCodeOptions{UserDir: user}, nil)
	wantRefusal(t, r, err, zero, "character device", "nothing was imported")
}

func TestClaudeCodeRefusesLinksOut(t *testing.T) {
	outside := writeTree(t, map[string]string{
		"settings.json":    `{"permissions": {"allow": ["Bash"]}}`,
		"agent.md":         "---\nname: outside\ndescription: d\n---\n",
		"agents/nested.md": "---\nname: nested\ndescription: d\n---\n",
	})
	tests := []struct {
		name   string
		link   string // under the project root
		target string // under outside
	}{
		{"settings file", ".claude/settings.local.json", "settings.json"},
		{"agent file", ".claude/agents/x.md", "agent.md"},
		{"agent folder", ".claude/agents/shared", "agents"},
		{"the agents folder", ".claude/agents", "agents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t, map[string]string{"settings.json": `{}`, "agents/a.md": "---\nname: a\ndescription: d\n---\n"})
			link := filepath.Join(root, filepath.FromSlash(tt.link))
			os.RemoveAll(link)
			target := filepath.Join(outside, filepath.FromSlash(tt.target))
			if err := os.Symlink(target, link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			r, err := importWithin(t, root, ClaudeCodeOptions{}, nil)
			wantRefusal(t, r, err, link, "symbolic link to "+target, "outside the project", "--follow-symlinks")
		})
	}

	// .claude itself leading out of the project.
	root := t.TempDir()
	claude := filepath.Join(root, ".claude")
	if err := os.Symlink(outside, claude); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	r, err := importWithin(t, root, ClaudeCodeOptions{}, nil)
	wantRefusal(t, r, err, claude, "symbolic link to "+outside, "outside the project")

	// A link inside the project is followed.
	root = project(t, map[string]string{"settings.json": `{"permissions": {"allow": ["Read"]}}`})
	if err := os.Symlink("settings.json", filepath.Join(root, ".claude", "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := importWithin(t, root, ClaudeCodeOptions{}, nil); err != nil {
		t.Errorf("a link inside the project: %v", err)
	}
}

// bigString is a valid settings file of more than n
// bytes that parses quickly: one long string.
func bigString(n int) []byte {
	return []byte(`{"x": "` + strings.Repeat("a", n) + `"}`)
}

func TestImportRefusesLargeFiles(t *testing.T) {
	root := project(t, map[string]string{"settings.json": string(bigString(importer.DefaultMaxFileSize))})
	r, err := ClaudeCode(root, ClaudeCodeOptions{})
	wantRefusal(t, r, err, filepath.Join(root, ".claude", "settings.json"), "limit of 8 MiB", "nothing was imported")
}

// TestClaudeCodeFollowSymlinks: with FollowSymlinks a link out of the
// project is read, and a link to a device is still refused.
func TestClaudeCodeFollowSymlinks(t *testing.T) {
	outside := writeTree(t, map[string]string{"settings.json": `{"permissions": {"allow": ["Bash"]}}`})
	root := project(t, map[string]string{"settings.json": `{}`})
	local := filepath.Join(root, ".claude", "settings.local.json")
	if err := os.Symlink(filepath.Join(outside, "settings.json"), local); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	r, err := ClaudeCode(root, ClaudeCodeOptions{FollowSymlinks: true})
	if err != nil || !strings.Contains(string(r.Document), `"allow":["Bash"]`) {
		t.Fatalf("got %v, %v; want the linked settings imported", r, err)
	}

	os.Remove(local)
	if err := os.Symlink("/dev/zero", local); err != nil {
		t.Fatal(err)
	}
	r, err = importWithin(t, root, ClaudeCodeOptions{FollowSymlinks: true}, nil)
	wantRefusal(t, r, err, local, "not a regular file: a character device", "nothing was imported")

	// An agent file that is a named pipe is skipped, as Claude Code skips
	// it, without blocking.
	root = project(t, map[string]string{"agents/a.md": "---\nname: a\ndescription: d\n---\n"})
	if err := syscall.Mkfifo(filepath.Join(root, ".claude", "agents", "p.md"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	r, err = importWithin(t, root, ClaudeCodeOptions{}, nil)
	if err != nil || !strings.Contains(strings.Join(warningsOf(r, root), "\n"), "p.md: warning: skipped: not a regular file") {
		t.Fatalf("got %v; want p.md skipped", err)
	}
}

// TestClaudeCodeTotalLimit: the limit on everything one import reads
// refuses the import at the file that passes it, whatever scope it is in.
func TestClaudeCodeTotalLimit(t *testing.T) {
	agent := "---\nname: %s\ndescription: " + strings.Repeat("d", 100) + "\n---\n"
	root := project(t, map[string]string{
		"agents/a.md":   strings.Replace(agent, "%s", "a", 1),
		"agents/b.md":   strings.Replace(agent, "%s", "b", 1),
		"settings.json": `{"permissions": {"deny": ["Bash"]}}`,
	})
	opt := ClaudeCodeOptions{MaxTotalSize: 280} // the agents take 260 bytes, the settings 36
	r, err := ClaudeCode(root, opt)
	wantRefusal(t, r, err, filepath.Join(root, ".claude", "settings.json"), "limit of 280 bytes in all", "nothing was imported")

	opt.MaxTotalSize = 296 // exactly what it reads
	if _, err := ClaudeCode(root, opt); err != nil {
		t.Errorf("under the total: %v", err)
	}
	opt.MaxFileSize = 10
	r, err = ClaudeCode(root, opt)
	wantRefusal(t, r, err, filepath.Join(root, ".claude", "settings.json"), "limit of 10 bytes for a settings file")
}
