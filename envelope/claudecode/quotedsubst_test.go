package claudecode

import (
	"slices"
	"testing"
)

// TestQuotedSubstitution: a command substituted inside double quotes is a
// command of its own, and the string holds a value the dialect does not
// know, as Claude Code 2.1.328 reads them (row 140;
// internal/claudecodetest TestDifferential/quotedsubst-*).
func TestQuotedSubstitution(t *testing.T) {
	const rules = `{"permissions": {"allow": ["Bash(echo:*)", "Bash(touch:*)", "Bash(cat:*)"], "deny": ["Bash(rm:*)", "Read(./secret/**)"]}}`
	var calls []call1
	// Read-only commands inside, two characters or more beside them.
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, `echo "ab$(date)"`, `echo "a $(date) b"`, `echo "ab$(date)$(pwd)"`,
		`echo "a$(date)b$(pwd)"`, `echo "ab$(ls && pwd)"`, `echo "ab$(ls || pwd)"`, `echo "ab$( date )"`, `echo "ab$(date 2>/dev/null)"`,
		`echo "ab$(date)" | cat`, `echo "ab$(date)" "cd$(pwd)"`, `echo -n "ab$(date)"`, `cd sub && echo "ab$(pwd)"`, `echo "(ab$(date)"`)...)
	// The text is little more than the value; an option word; the
	// command not read-only; a redirection inside; forms not read.
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, `echo "$(date)"`, `echo "a$(date)"`, `echo "$(date)$(pwd)"`, `echo "-a$(date)"`,
		`echo "ab$(touch t1.txt)"`, `A="ab$(date)" echo x`, `echo "ab$(ls | wc -l)"`, `echo "ab$(date; pwd)"`, `echo "ab$(echo "c d")"`,
		`echo "ab$(echo $(pwd))"`, `echo "ab$(date &)"`, `echo $(date) "ab$(pwd)"`, `(echo "ab$(date)")`,
		"echo \"ab$(date)\" `pwd`", "echo \"ab$(date)`pwd`\"")...)
	calls = append(calls, bashCalls(ask, codeRedirect, `echo "ab$(date > o2.txt)"`, `echo "ab$(date)" > o1.txt`)...)
	calls = append(calls, bashCalls(ask, codeCriticalPath, "echo \"ab$(`pwd`)\"")...)
	calls = append(calls, bashCalls(ask, codePathScope, `echo "ab$(cat /etc/hostname)"`)...)
	runCalls(t, `{}`, "", calls)

	calls = nil
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, `echo "ab$(date)"`)...)
	calls = append(calls, bashCalls(allow, codePermissionAllow, `echo "ab$(touch t2.txt)"`, `echo "ab$(cat a.txt)"`)...)
	calls = append(calls, bashCalls(deny, codePermissionDeny, `echo "ab$(rm f2.txt)"`, `echo "ab$(cat secret/s.txt)"`, `echo "ab$(ls secret)"`)...)
	calls = append(calls, bashCalls(ask, codeRedirect, `echo "ab$(date > o2.txt)"`)...)
	runCalls(t, rules, "", calls)

	// acceptEdits approves no write inside the substitution ("The
	// following part requires approval: echo "ab$(rm f1.txt)"").
	calls = nil
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, `echo "ab$(date)"`, `echo "ab$(date)" > o1.txt`)...)
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, `echo "ab$(rm f1.txt)"`, `echo "ab$(touch t1.txt)"`)...)
	calls = append(calls, bashCalls(ask, codeRedirect, `echo "ab$(date > o2.txt)"`)...)
	runCalls(t, `{}`, "acceptEdits", calls)
}

// TestQuotedCommands: what quotedCommands reads of a subcommand.
func TestQuotedCommands(t *testing.T) {
	for _, c := range []struct {
		raw, outer, counted string
		inners              []string
	}{
		{`echo "ab$(date)"`, `echo "ab$PWD"`, `echo "ab$?"`, []string{"date"}},
		{`echo "a$(date)b$(ls -a)" x`, `echo "a$PWDb$PWD" x`, `echo "a$?b$?" x`, []string{"date", "ls -a"}},
		{`echo "ab$(ls || pwd)"`, `echo "ab$PWD"`, `echo "ab$?"`, []string{"ls || pwd"}},
		{`echo "ab$(ls 2>&1)" 'x$(rm y)' "\$(z)"`, `echo "ab$PWD" 'x$(rm y)' "\$(z)"`, `echo "ab$?" 'x$(rm y)' "\$(z)"`, []string{"ls 2>&1"}},
	} {
		outer, counted, inners, ok := quotedCommands(c.raw)
		if !ok || outer != c.outer || counted != c.counted || !slices.Equal(inners, c.inners) {
			t.Errorf("quotedCommands(%q) = %q, %q, %q, %v; want %q, %q, %q", c.raw, outer, counted, inners, ok, c.outer, c.counted, c.inners)
		}
	}
	for _, raw := range []string{`echo $(date)`, `echo "ab$((1))"`, "echo \"ab`date`\"", `echo "ab$(ls | wc)"`, `echo "ab$(ls; pwd)"`,
		`echo "ab$(ls &)"`, `echo "ab$(echo 'x')"`, `echo "ab$(echo $X)"`, `echo "ab$(echo \x)"`, `echo "ab$(ls`, `(echo "ab$(ls)")`,
		`echo "ab$(ls)`, `echo "ab$( )"`, "echo \"ab$(`ls`)\"", `echo "ab$(echo (x))"`, `echo "ab$(ls\npwd)"`, `echo <(ls) "ab$(pwd)"`, `echo 'ab`, `echo "ab"`} {
		if outer, _, inners, ok := quotedCommands(raw); ok {
			t.Errorf("quotedCommands(%q) = %q, %q: want none", raw, outer, inners)
		}
	}
}
