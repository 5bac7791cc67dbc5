package claudecode

import (
	"slices"
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

// TestTextPatterns: jq and hostname are read-only as Claude Code 2.1.328's
// patterns on the subcommand's text read them, their names written
// plainly and first in the text (row 141; TestDifferential/
// textpatterns-default).
func TestTextPatterns(t *testing.T) {
	runCalls(t, `{"permissions":{}}`, "default", append(
		bashCalls(ask, codeDefaultPrompt, `\jq . x.json`, "'jq' . x.json", `"jq" . x.json`, `j\q . x.json`, "''jq . x.json",
			"LANG=C jq . x.json", "TZ=UTC command jq . x.json", `\command jq . x.json`, "LANG=C timeout 5 jq . x.json",
			"command 'jq' . x.json", `command \jq . x.json`, "ls && LANG=C jq . x.json", "jq -0 . x.json", "jq -r. x.json",
			"jq '.a'x x.json", "jq -- . x.json", "jq . 'x'.json", `jq . "x".json`, "jq -R1 . x.json", "jq --a_b . x.json",
			"jq -n '1'x", `\hostname`, "'hostname'", "LANG=C hostname", `h\ostname`, "hostname -fs", "hostname --",
			"hostname '-f'"),
		bashCalls(allow, codeDefaultReadOnly, "jq . x.json", "command jq . x.json", "timeout 5 jq . x.json", "noglob jq . x.json",
			"builtin jq . x.json", "timeout 5s jq . x.json", "command -p jq . x.json", "jq . x'.json'", "jq -n 1", "jq --arg a 1 . x.json",
			"jq --indent 2 . x.json", "jq -r '.a' x.json", "jq --raw-output=x . x.json", "jq\t. x.json", `jq . x\.json`,
			`jq '.a' "x.json"`, "jq -rj . x.json", "jq . x.json ''", "jq -n a'b'", "jq . x.json 2>&1", "jq . < x.json",
			"hostname", "command hostname", "timeout 5 hostname", "hostname -f", "hostname -f -s", "hostname --fqdn",
			"hostname -I", "hostname\t-f", "hostname -f | cat")...))
}

// TestNoglobAfterTimeout: the release's read-only strip takes noglob,
// command and builtin off before the timeouts only, so noglob after a
// timeout asks, as command and builtin do there; allow rules see through
// it (row 142; TestDifferential/timeoutnoglob-*).
func TestNoglobAfterTimeout(t *testing.T) {
	runCalls(t, `{"permissions":{"allow":["Bash(npm test:*)"]}}`, "default", slices.Concat(
		bashCalls(ask, codeDefaultPrompt, "timeout 5 noglob ls", "timeout 5s noglob find . -name a.txt", "timeout 5 noglob cat a.txt",
			"timeout 5 noglob echo hi", "timeout 5 noglob noglob ls", "timeout 5 timeout 5 noglob ls", "command timeout 5 noglob ls",
			"noglob timeout 5 noglob ls", "true && timeout 5s noglob find . -name a.txt | cat", "timeout 5 command ls", "timeout 5 builtin ls"),
		bashCalls(allow, codeDefaultReadOnly, "noglob timeout 5 ls", "noglob noglob ls", "noglob command ls", "timeout 5 timeout 5 ls"),
		bashCalls(allow, codePermissionAllow, "timeout 5 noglob npm test", "noglob timeout 5 npm test")))
}
