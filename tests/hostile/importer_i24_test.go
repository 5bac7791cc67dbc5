package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestI24ImporterSpecialFilesHeld: `ledger policy import` on special files
// and links, and on JSON5 built to be slow or large, ends within 30 s
// without a panic, and refuses what it cannot read: a FIFO, /dev/zero (as
// a link and on standard input), a link out of the project (unless
// --follow-symlinks, which still refuses /dev/zero), 9 MB of spaces, a
// 100,000-deep array, a million comment openers.
func TestI24ImporterSpecialFilesHeld(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json5")
	mkfifo(t, fifo)
	zero := filepath.Join(dir, "zero.json5")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	spaces := filepath.Join(dir, "spaces.json5")
	writeFile(t, spaces, strings.Repeat(" ", 9_000_000)+"{}", 0o644)
	deep := filepath.Join(dir, "deep.json5")
	writeFile(t, deep, "{a:"+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"}", 0o644)
	comments := filepath.Join(dir, "comments.json5")
	writeFile(t, comments, strings.Repeat("/*", 1_000_000)+"{}", 0o644)

	outside := filepath.Join(dir, "outside.json")
	writeFile(t, outside, `{"permissions":{"allow":["Bash"]}}`, 0o644)
	project := func(name string, setup func(claude string)) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		setup(filepath.Join(p, ".claude"))
		return p
	}
	link := func(target, name string) {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	pFIFO := project("pfifo", func(c string) { mkfifo(t, filepath.Join(c, "settings.json")) })
	pZero := project("pzero", func(c string) { link("/dev/zero", filepath.Join(c, "settings.json")) })
	pOut := project("pout", func(c string) { link(outside, filepath.Join(c, "settings.json")) })
	pLoop := project("ploop", func(c string) {
		os.MkdirAll(filepath.Join(c, "agents"), 0o755)
		link("..", filepath.Join(c, "agents", "up"))
		link("b.md", filepath.Join(c, "agents", "a.md"))
		link("a.md", filepath.Join(c, "agents", "b.md"))
		writeFile(t, filepath.Join(c, "settings.json"), `{}`, 0o644)
	})

	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		ok    bool   // exit 0 with a policy.set
		want  string // in stderr (or stdout)
	}{
		{"openclaw FIFO", []string{"--dialect", "openclaw", fifo}, "", false, "not a regular file"},
		{"openclaw /dev/zero link", []string{"--dialect", "openclaw", zero}, "", false, "not a regular file"},
		{"openclaw 9 MB of spaces", []string{"--dialect", "openclaw", spaces}, "", false, ""},
		{"openclaw 100,000 deep", []string{"--dialect", "openclaw", deep}, "", false, ""},
		{"openclaw a million comment openers", []string{"--dialect", "openclaw", comments}, "", false, ""},
		{"claude-code settings a FIFO", []string{"--dialect", "claude-code", pFIFO}, "", false, "named pipe"},
		{"claude-code settings -> /dev/zero", []string{"--dialect", "claude-code", pZero}, "", false, "/dev/zero"},
		{"claude-code settings -> /dev/zero, --follow-symlinks", []string{"--dialect", "claude-code", "--follow-symlinks", pZero}, "", false, "not a regular file"},
		{"claude-code settings link out", []string{"--dialect", "claude-code", pOut}, "", false, "outside the project"},
		{"claude-code settings link out, --follow-symlinks", []string{"--dialect", "claude-code", "--follow-symlinks", pOut}, "", true, ""},
		{"claude-code agents link loops", []string{"--dialect", "claude-code", pLoop}, "", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			args := append([]string{"policy", "import"}, c.args...)
			if c.args[1] == "claude-code" {
				args = append([]string{"policy", "import", "--user-config", "none"}, c.args...)
			}
			res := runLedger(t, args...)
			took := time.Since(start)
			if took > 30*time.Second {
				t.Errorf("took %s", took)
			}
			got := res.exit == 0 && strings.Contains(res.stdout, `"policy.set"`)
			if got != c.ok || !strings.Contains(res.stderr+res.stdout, c.want) {
				t.Errorf("exit %d after %s: stdout %.200s stderr %.300s", res.exit, took, res.stdout, res.stderr)
			}
		})
	}
}
