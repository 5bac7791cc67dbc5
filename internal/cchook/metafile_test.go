//go:build unix

package cchook

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMetaFileBounded: Claude Code's sub-agent metadata is read only from a
// regular file, up to a size limit, within a deadline (issue 24, point 2): a
// named pipe, a device or an oversized file there is not believed, and the
// sub-agent is placed as without metadata (under the only session that may
// launch it).
func TestMetaFileBounded(t *testing.T) {
	big := `{"agentType":"reviewer","parentAgentId":"a1111111111111111","pad":"` + strings.Repeat("x", maxMeta) + `"}`
	for _, tt := range []struct {
		name string
		make func(path string) error
	}{
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"over the limit", func(p string) error { return os.WriteFile(p, []byte(big), 0o600) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			transcript := filepath.Join(dir, sub+".jsonl")
			meta := MetaPath(transcript, "a0d23f5288942b58b")
			if err := os.MkdirAll(filepath.Dir(meta), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(meta); err != nil {
				t.Skip(err)
			}
			l := newLedger(t, testDoc)
			l.must(t, start(sub), turn(sub, 1))
			raw := loadPayload(t, "PreToolUse-subagent.json", map[string]any{"transcript_path": transcript})
			done := make(chan *Result, 1)
			go func() {
				done <- (&Hook{L: l, Opts: Options{Locate: func(string) Location { return testLoc }}}).Handle(t.Context(), raw)
			}()
			select {
			case res := <-done:
				checkOutput(t, res, "{}", nil)
				if len(l.log) == 0 || !strings.Contains(l.log[0], `"parent":"`+sub+`"`) {
					t.Errorf("log %q", l.log)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the hook is still reading the metadata after 10s")
			}
		})
	}
}

// TestMetaReadDeadline: a metadata read that does not return (a hung
// network file system) is given up after metaTimeout.
func TestMetaReadDeadline(t *testing.T) {
	l := newLedger(t, testDoc)
	l.must(t, start(sub), turn(sub, 1))
	hung := make(chan struct{})
	defer close(hung)
	opts := Options{Locate: func(string) Location { return testLoc },
		ReadFile: func(string) ([]byte, error) { <-hung; return nil, os.ErrNotExist }}
	start := time.Now()
	res := (&Hook{L: l, Opts: opts}).Handle(t.Context(), loadPayload(t, "PreToolUse-subagent.json", nil))
	if d := time.Since(start); d > metaTimeout+2*time.Second {
		t.Errorf("took %s", d)
	}
	checkOutput(t, res, "{}", nil)
}
