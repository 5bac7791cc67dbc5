package shellquote

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestWord(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Bash", "Bash"},
		{"agent:main:subagent:x", "agent:main:subagent:x"},
		{"", "''"},
		{"a b", "'a b'"},
		{"x$(touch f);id", "'x$(touch f);id'"},
		{"it's", `'it'\''s'`},
		{`{"command":"ls"}`, `'{"command":"ls"}'`},
		{"ü", "'ü'"},
	} {
		if got := Word(c.in); got != c.want {
			t.Errorf("Word(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestJoinRoundTrip: sh reads every joined word back exactly.
func TestJoinRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	words := []string{"plain", "", "two words", "x$(touch f);id", "`id`", "it's", "a\nb", "*", "~", "\\", `"q"`, "--flag=$HOME"}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	script := "for w in " + Join(words...) + "; do printf '%s\\0' \"$w\"; done"
	out, err := exec.CommandContext(ctx, "sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(words) {
		t.Fatalf("sh read %d words back, want %d: %q", len(got), len(words), got)
	}
	for i := range words {
		if got[i] != words[i] {
			t.Errorf("word %d: sh read %q, want %q", i, got[i], words[i])
		}
	}
}
