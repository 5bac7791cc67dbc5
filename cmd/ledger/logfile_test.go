package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFileIsChecked: a log file (--log, the lines 'ledger log --json'
// prints) is folded only when it is the log as the ledger wrote it: a
// line deleted, repeated, moved or with a decision edited is refused with
// its line and what is wrong, as ledger verify refuses a stream (found by
// the replay review: export --log renumbered every later record, report
// --log counted one denial fewer, all with exit 0).
func TestLogFileIsChecked(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "l")
	if _, stderr, err := runCLI(t, "", "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v\n%s", err, stderr)
	}
	whole, stderr, err := runCLI(t, "", "log", "--data", data, "--json")
	if err != nil {
		t.Fatalf("log --json: %v\n%s", err, stderr)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(whole, "\n"), "\n")
	if len(lines) < 12 {
		t.Fatalf("the demo's log has %d records", len(lines))
	}
	write := func(name string, ls []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(ls, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("whole.jsonl", lines)
	if out, stderr, err := runCLI(t, "", "export", "--log", ok); err != nil || strings.Count(out, "\n") != len(lines) {
		t.Fatalf("export --log of the whole file: %v, %d lines\n%s", err, strings.Count(out, "\n"), stderr)
	}
	// The first policy.set, which later policy records link to: the
	// edit of a subject's last record is what a file cannot show.
	edited := slicesClone(lines)
	if !strings.Contains(edited[0], `"deny":["gateway"]`) {
		t.Fatalf("the demo's first record: %.200s", edited[0])
	}
	edited[0] = strings.Replace(edited[0], `"deny":["gateway"]`, `"deny":["gatewaz"]`, 1)
	moved := slicesClone(lines)
	moved[5], moved[6] = moved[6], moved[5]
	spaced := slicesClone(lines)
	spaced[3] = strings.Replace(spaced[3], `"actor":`, `"actor": `, 1)
	for _, c := range []struct {
		name string
		ls   []string
		want string
	}{
		{"a line deleted", append(slicesClone(lines[:9]), lines[10:]...), "record 10 is missing"},
		{"a line repeated", append(slicesClone(lines[:12]), lines[11:]...), "record 12 appears again"},
		{"two lines swapped", moved, "record 6 is missing"},
		{"a decision edited", edited, "altered"},
		{"a line not canonical", spaced, "canonical"},
	} {
		p := write(strings.ReplaceAll(c.name, " ", "-")+".jsonl", c.ls)
		for _, args := range [][]string{{"export", "--log", p}, {"report", "--log", p, "--html", filepath.Join(dir, "r.html")}, {"tree", "--log", p}} {
			out, stderr, err := runCLI(t, "", args...)
			if err == nil {
				t.Errorf("%s: %s exited 0 (%d bytes out)", c.name, args[0], len(out))
				continue
			}
			if msg := stderr + err.Error(); !strings.Contains(msg, p+":") || !strings.Contains(msg, c.want) {
				t.Errorf("%s: %s: %v %s; want the file's line and %q", c.name, args[0], err, stderr, c.want)
			}
		}
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
