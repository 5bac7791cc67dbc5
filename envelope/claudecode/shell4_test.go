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
