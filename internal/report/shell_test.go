package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// hostileNames are tool names (and inputs) that a shell would run, split
// or expand if printed bare (issue 15: a tool named x$(touch f);id ran code
// when the report's ledger why command was pasted).
var hostileNames = []string{
	"x$(touch f);id", "`touch f`", "a'b", `a"b`, "a b", "a\tb", "x\ny", "", "-", "*", "?", "[a]", "~",
	"$HOME", "${IFS}", "a;b", "a&b", "a|b", "a>f", "a<f", "!x", "#x", `\`, "é", "'", "''", "'\\''",
	`{"command":"rm -rf / ; echo 'hi'"}`, "read", "mcp__server__tool", "agent:main:main",
}

// TestCommandRoundTripsThroughAShell: a printed command, split by a POSIX
// shell, gives back every word exactly, and runs nothing.
func TestCommandRoundTripsThroughAShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	for _, name := range hostileNames {
		printed := whyCall(ledgercmd.Conn{}, name, 7)
		args, ok := strings.CutPrefix(printed, "ledger ")
		if !ok {
			t.Fatalf("%q does not start with ledger: %s", name, printed)
		}
		cmd := exec.Command(sh, "-c", `printf '%s\0' `+args)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: sh: %v (printed %s)", name, err, printed)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		want := []string{"why", "--call", name, "--record", "7"}
		if name == "" {
			want = []string{"why", "--record", "7"} // no call id: the record
		}
		if len(got) != len(want) {
			t.Fatalf("%q: the shell split %s into %q, want %q", name, printed, got, want)
		}
		for i := range want {
			if !bytes.Equal([]byte(got[i]), []byte(want[i])) {
				t.Errorf("%q: word %d is %q, want %q (printed %s)", name, i, got[i], want[i], printed)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
		t.Error("a printed command ran code: f was created")
	}
}

func TestShellQuoteLeavesPlainWordsAlone(t *testing.T) {
	for in, want := range map[string]string{
		"read": "read", "agent:main:subagent:a": "agent:main:subagent:a", "--tool": "--tool", "mcp__gh__pr": "mcp__gh__pr",
		"": "''", "a b": "'a b'", "x$(touch f);id": "'x$(touch f);id'", "a'b": `'a'\''b'`,
	} {
		if got := shellquote.Join(in); got != want {
			t.Errorf("shellquote.Join(%q) = %s, want %s", in, got, want)
		}
	}
}
