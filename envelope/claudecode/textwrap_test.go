package claudecode

import (
	"strings"
	"testing"
)

// TestTextCheckedWrappers: the read-only commands Claude Code 2.1.328
// checks on the subcommand's text are read-only behind wrappers only where
// the wrappers begin the text, plainly written; the ones it checks on the
// words are read-only behind any (row 107; TestDifferential/
// textwrap-default).
func TestTextCheckedWrappers(t *testing.T) {
	runCalls(t, `{"permissions":{}}`, "default", append(
		bashCalls(ask, codeDefaultPrompt, `\command git log -1`, "TZ=UTC command git log -1", "LANG=C timeout 5 git log -1",
			"timeout 5 command git status", `\timeout 5 git log -1`, "'command' git log -1", "LANG=C command grep x a.txt",
			"LANG=C timeout 5 sort a.txt", "LANG=C command sed -n 1p a.txt", "TZ=UTC command date", `\command which ls`,
			"LANG=C noglob git status", "for i in 1; do LANG=C timeout 5s git log -1; done"),
		bashCalls(allow, codeDefaultReadOnly, "command git log -1", "LANG=C git log -1", "timeout 5 git log -1",
			"command timeout 5 git status", "command -p git log -1", "command -- git status", "noglob git status",
			"builtin git status", "command grep x a.txt", "TZ=UTC date", "LANG=C command ls", `\command ls`,
			"LANG=C timeout 5 cat a.txt", `\timeout 5 head -1 a.txt`, "ls | xargs grep x")...))
}

// TestPlainTextPrefix: the release's strips, in their order.
func TestPlainTextPrefix(t *testing.T) {
	for raw, want := range map[string]bool{
		"": true, "LANG=C": true, "LANG=C TZ=UTC": true, "command": true, "command -p": true, "command -pp --": true,
		"builtin": true, "noglob": true, "timeout 5": true, "timeout 5s timeout 1.5m": true, "command timeout 5": true,
		"timeout 5 command": false, `\command`: false, "'command'": false, "LANG=C command": false, "command -v": false,
		"timeout -s KILL 5": false, "timeout 5x": false, "nice": false,
	} {
		if got := plainTextPrefix(strings.Fields(raw)); got != want {
			t.Errorf("plainTextPrefix(%q) = %v, want %v", raw, got, want)
		}
	}
}
