package claudecode

import "testing"

// The fourth round of Bash readings, each from a TestDifferential/sh4-*
// case of internal/claudecodetest.

// TestBackgroundOperator: a line that sends a command to the background
// asks whatever approved it, and runs in bypassPermissions; a line with an
// operator that follows no command is broken (sh4-background-*).
func TestBackgroundOperator(t *testing.T) {
	doc := `{"permissions": {"allow": ["Bash(npm test:*)"]}}`
	for _, mode := range []string{"", "acceptEdits", "plan"} {
		runCalls(t, doc, mode, []call1{
			{"Bash", cmdAt("ls &"), ask, codeBackgroundOp},
			{"Bash", cmdAt("ls&"), ask, codeBackgroundOp},
			{"Bash", cmdAt("ls & ls"), ask, codeBackgroundOp},
			{"Bash", cmdAt("echo a && ls &"), ask, codeBackgroundOp},
			{"Bash", cmdAt("ls >/dev/null 2>&1 &"), ask, codeBackgroundOp},
			{"Bash", cmdAt("npm test &"), ask, codeBackgroundOp},
			{"Bash", cmdAt("ls &>/dev/null"), allow, codeDefaultReadOnly},
			{"Bash", cmdAt("echo a&&ls"), allow, codeDefaultReadOnly},
			{"Bash", cmdAt("echo '&'"), allow, codeDefaultReadOnly},
			{"Bash", cmdAt(`echo \&`), allow, codeDefaultReadOnly},
			{"Bash", cmdAt("ls &&\nls"), allow, codeDefaultReadOnly},
		})
	}
	runCalls(t, doc, "acceptEdits", []call1{{"Bash", cmdAt("touch bg1.txt &"), ask, codeBackgroundOp}})
	runCalls(t, doc, "dontAsk", []call1{{"Bash", cmdAt("ls &"), deny, codeDontAsk}})
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "", []call1{
		{"Bash", cmdAt("make x &"), allow, codePermissionAllow},
		{"Bash", cmdAt("touch x &"), allow, codePermissionAllow},
		{"Bash", cmdAt("ls & ;"), allow, codePermissionAllow},
		{"Bash", cmdAt("ls &"), ask, codeBackgroundOp},
	})
	runCalls(t, doc, "bypassPermissions", []call1{
		{"Bash", cmdAt("npm test &"), allow, codeModeBypass},
		{"Bash", cmdAt("rm x &"), allow, codeModeBypass},
		{"Bash", cmdAt("ls & ;"), allow, codeModeBypass},
	})
	runCalls(t, doc, "", []call1{
		{"Bash", cmdAt("ls & ;"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls;&"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("; ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls;"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls\n\nls\n"), allow, codeDefaultReadOnly},
	})
}

// TestAllowReadsTheCommandWord: allow rules and the read-only list read the
// command word as the shell does, an exact rule the command as written, a
// deny or ask rule an escaped blank as a blank, and the read-only list no
// wrapper it does not see through (sh4-allow-*, sh4-quote-allow-*,
// sh4-readonly-default).
func TestAllowReadsTheCommandWord(t *testing.T) {
	doc := `{"permissions": {"allow": ["Bash(npm test:*)", "Bash(make build)"], "ask": ["Bash(git log -1:*)"]}}`
	runCalls(t, doc, "", []call1{
		{"Bash", cmdAt("'npm' test"), allow, codePermissionAllow},
		{"Bash", cmdAt(`"npm" test`), allow, codePermissionAllow},
		{"Bash", cmdAt(`\npm test`), allow, codePermissionAllow},
		{"Bash", cmdAt(`n\pm test`), allow, codePermissionAllow},
		{"Bash", cmdAt("''npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("'make' build"), allow, codePermissionAllow},
		{"Bash", cmdAt("npm  test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("npm 'test'"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("'npm test'"), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`"$(echo npm)" test`), ask, codeDefaultPrompt},
		{"Bash", cmdAt("make  build"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("make\tbuild"), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`git log\ -1`), ask, codePermissionAsk},
		{"Bash", cmdAt(`\ls`), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("'git log'"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5 ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("command ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("nice ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("nohup ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("stdbuf -o0 ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("time ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls | xargs echo"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls | xargs cat"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("git --no-pager log"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("git log -1"), ask, codePermissionAsk},
		{"Bash", cmdAt("ls 2>&-"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls >&-"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls <> f"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls 2>&1"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt(`A="x y"`), allow, codeDefaultReadOnly},
	})
	runCalls(t, doc, "bypassPermissions", []call1{{"Bash", cmdAt(`git log\ -1`), ask, codePermissionAsk}})
}
