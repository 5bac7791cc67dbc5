package claudecode

import (
	"strings"
	"testing"
)

// TestFlagsOK: the read-only list's option walk, each line an outcome of
// Claude Code 2.1.328 (TestDifferential/flags-readonly-default, recorded
// in testdata/claude-code-cli/flags-readonly-default.json). The first
// group ran read-only in the dialect before section 0.2 row 40: a
// fail-open the walk must not grow back.
func TestFlagsOK(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		ok  bool
	}{
		{"sort -k1 a.txt", false}, {"sort -t, a.txt", false}, {"sort -S1M a.txt", false}, {"sort -rk1 a.txt", false},
		{"sort -k -r a.txt", false}, {"sort --key=-1 a.txt", false}, {"sort --key -1 a.txt", false},
		{"sort --parallel=x a.txt", false}, {"sort -@ a.txt", false}, {"git log -n5", false}, {"git log -n -5", false},
		{"git log --author=-x", false}, {"git log --author -x", false}, {"git for-each-ref --sort -committerdate", false},
		{"git grep -A5 x", false}, {"grep -A5x x a.txt", false}, {"grep -iA2 x a.txt", false}, {"grep -e -x a.txt", false},
		{"grep -e-x a.txt", false}, {"base64 -w0 a.txt", false}, {"git blame -L1,2 a.txt", false}, {"tree -L2", false},

		{"sort -k 1 a.txt", true}, {"sort -t , a.txt", true}, {"sort --key=1 a.txt", true}, {"sort -k=1 a.txt", true},
		{"sort -rn a.txt", true}, {"sort --parallel 2 a.txt", true}, {"sort -- -r", true}, {"sort - a.txt", true},
		{"git log -5", true}, {"git log -n 5", true}, {"git log --max-count 5", true},
		{"git for-each-ref --sort=-committerdate", true}, {"git branch --sort=-committerdate", true}, {"git grep -A 5 x", true},
		{"grep -A5 x a.txt", true}, {"grep -C2 x a.txt", true}, {"grep -m1 x a.txt", true}, {"rg -C2 x", true},
		{"egrep -B1 x a.txt", true}, {"grep -in x a.txt", true}, {"base64 -w 0 a.txt", true}, {"base64 -- -d", true},
		{"git blame -L 1,2 a.txt", true}, {"tree -L 2", true},
	} {
		u := strings.Fields(tc.cmd)
		name, rest := u[0], u[1:]
		if name == "git" {
			name, rest = "git "+u[1], u[2:]
		}
		if _, ok := flagTables[name]; !ok {
			t.Fatalf("%s: no table %q", tc.cmd, name)
		}
		if got := flagsOK(name, rest, flagTables[name]); got != tc.ok {
			t.Errorf("%s: flagsOK %v, want %v", tc.cmd, got, tc.ok)
		}
	}
}
