package envelope

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidNames compares both checks with the regular expressions they
// stand for, on names built to sit at each edge.
func TestValidNames(t *testing.T) {
	toolRE := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	agentRE := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	names := []string{"", "a", "Bash", "mcp__s__t", "-x", "_x", ".x", "x.y", "x y", "x/y", "é", "x\n",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "A-b_c.d", "0", "a\x00"}
	for _, n := range names {
		if got, want := ValidToolName(n), toolRE.MatchString(n); got != want {
			t.Errorf("ValidToolName(%q) = %v, want %v", n, got, want)
		}
		if got, want := ValidAgentName(n), agentRE.MatchString(n); got != want {
			t.Errorf("ValidAgentName(%q) = %v, want %v", n, got, want)
		}
	}
}
