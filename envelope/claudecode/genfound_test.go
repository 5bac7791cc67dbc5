package claudecode

import (
	"testing"

	"github.com/sessionledger/ledger/envelope"
)

// What the generated lines of internal/claudecodetest found (section 0.2,
// rows 69 to 72), each against Claude Code 2.1.328's recorded decisions.

// TestGlobOutside: an unquoted glob keeps a command out of the read-only
// list unless the release lists it as one that takes globs (row 69;
// TestDifferential/globro-default, genfound4-globs-default).
func TestGlobOutside(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "sort *.txt", "uniq *.txt", "file *.txt", "jq . *.txt", "rg x *.txt", "git diff *.txt",
		"base64 *.txt", "tree *.txt", "cat a.txt | sort *.txt", "git log *.txt", "false *.txt", "timeout 5 sort *.txt",
		"id a*", "id *.txt", "id ?.txt", "id [a].txt", "which *.txt", "LANG=C sort *.txt", "sort [a].txt", "git status *.txt",
		"rg -l x *", "sort ~/*.txt", "date +%s*", "uname *.txt", "seq *.txt", "true *.txt", "locale *.txt", "sleep *.txt",
		"sort -k 2 *.txt")...)
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "grep x *.txt", "tail *.txt", "column *.txt", "ls | grep *.txt", "timeout 5 cat *.txt",
		"sort 'a*'", `sort a\*`, `sort "*.txt"`, "sort a.txt", "sha256sum *.txt", "md5sum *.txt", "strings *.txt",
		"hexdump *.txt", "rev *.txt", "echo *.txt | sort", "echo *.txt", "basename *.txt", "wc *.txt", "cut -c1 *.txt",
		"stat *.txt", "readlink *.txt", "realpath *.txt", "dirname *.txt", "head *.txt", "cmp *.txt", "diff *.txt", "od *.txt",
		"nl *.txt", "ls *.txt", "id 'a*'", "id ~", "id a.txt f1.txt")...)
	// find keeps its own reason, asked for whatever approved it.
	calls = append(calls, call1{"Bash", cmdAt("find . -name *.txt"), ask, codeUncheckedCommand},
		call1{"Bash", cmdAt("awk 1 *.txt"), ask, codeDefaultPrompt})
	runCalls(t, `{}`, "", calls)
	// An allow rule naming the command approves it as before.
	runCalls(t, `{"permissions":{"allow":["Bash(sort:*)"]}}`, "", []call1{
		{"Bash", cmdAt("sort *.txt"), allow, codePermissionAllow},
	})
}

// TestProcEnviron: a word or redirection naming a process's environment
// asks whatever approved it, and runs in bypassPermissions (row 70;
// genfound4-*).
func TestProcEnviron(t *testing.T) {
	for _, mode := range []string{"", "acceptEdits", "plan"} {
		runCalls(t, `{"permissions":{"allow":["Bash(printf:*)"]}}`, mode, []call1{
			{"Bash", cmdAt("printf %s /proc/self/environ"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("echo /proc/self/environ"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("echo '/proc/self/environ'"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("cat /proc/self/environ"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("echo /proc/self/environment"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("echo /proc//environ"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("cat < /proc/1/environ"), ask, codeUncheckedCommand},
			{"Bash", cmdAt("echo /proc/environ"), allow, codeDefaultReadOnly},
			{"Bash", cmdAt("echo /PROC/self/environ"), allow, codeDefaultReadOnly},
			{"Bash", cmdAt("echo x # /proc/self/environ"), allow, codeDefaultReadOnly},
		})
	}
	runCalls(t, `{}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("cat /proc/self/environ"), allow, codeModeBypass},
	})
}

// TestTrailingListOperator: a line that ends in && or || is a parse error
// the release asks for, and runs in bypassPermissions (row 71;
// genfound4-open-*).
func TestTrailingListOperator(t *testing.T) {
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("ls &&"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls ||"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls && "), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls &&\n"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls |"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls && ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls &&\nls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("echo '&&'"), allow, codeDefaultReadOnly},
	})
	runCalls(t, `{}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("ls &&"), allow, codeModeBypass},
	})
}

// TestUnclosedDollar: a $( or ${ left open asks in every mode (row 72;
// genfound4-open-*, genfound4-*).
func TestUnclosedDollar(t *testing.T) {
	open := []string{"echo ${a", "echo $((1+2)", "echo $(ls # c) ; ls", "echo $(ls # c)\nls", "ls; echo $(",
		"echo $(echo $(ls)", `echo "$(ls"`, "echo $(ls # c)", "echo $(ls # c", "echo $(ls", `echo "$(ls # c)"`, "echo $(ls #c)",
		"echo $(FOO=1 ionice -c3 grep x secret/s.txt # c)"}
	closed := []string{`echo "a`, "echo 'a", "(ls", "{ ls", "echo `ls", "ls )", "echo <(ls", "case x in", "echo $(ls) # (",
		"echo `ls # c`", "(ls # c)", "{ ls # c; }", "echo $(ls#c)", "echo $(ls # c\n)", "echo $( # c\nls)", "echo $((1+2))",
		"echo ${a:-'x'}", "echo $(ls)", `echo "$(ls)"`, "echo ${a}"}
	for _, c := range open {
		if !unclosedDollar(c) {
			t.Errorf("unclosedDollar(%q) = false, want true", c)
		}
	}
	for _, c := range closed {
		if unclosedDollar(c) {
			t.Errorf("unclosedDollar(%q) = true, want false", c)
		}
	}
	var calls []call1
	for _, c := range open {
		calls = append(calls, call1{"Bash", cmdAt(c), ask, codeCriticalPath})
	}
	calls = append(calls, bashCalls(allow, codeModeBypass, `echo "a`, "echo 'a", "(ls", "{ ls", "echo `ls", "echo <(ls", "echo $(ls # c\n)")...)
	runCalls(t, `{}`, "bypassPermissions", calls)
	runCalls(t, `{"permissions":{"allow":["Bash"]}}`, "", []call1{
		{"Bash", cmdAt("echo $(ls # c)"), ask, codeCriticalPath},
	})
}

// TestWordAfterRedirect: a word after a redirection's target makes the
// line one the release cannot read (row 73; genfound6-default).
func TestWordAfterRedirect(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "tr a b < -p src", "tr a b < a.txt src", "cat < a.txt a.txt", "ls > /dev/null src",
		"cat a.txt 2> /dev/null a.txt", "wc -l < a.txt -", "grep x < a.txt a.txt", "ls 2>&1 src", "echo a 2>/dev/null b")...)
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "tr a b < -p", "cat < -x", "cat <<< x a.txt", "echo a > /dev/null 2>&1",
		"ls > /dev/null 2> /dev/null", "< a.txt grep x", "[[ a > b ]] && ls")...)
	runCalls(t, `{}`, "", calls)
	runCalls(t, `{"permissions":{"allow":["Bash(ls:*)"]}}`, "", []call1{
		{"Bash", cmdAt("ls > /dev/null src"), ask, codeDefaultPrompt},
	})
	runCalls(t, `{}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("ls > /dev/null src"), allow, codeModeBypass},
	})
}

// TestTildeWord: a word starting with ~ and another character than /
// keeps a command off the read-only list (row 74; genfound6-default).
func TestTildeWord(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "echo ~root", "echo '~root'", "echo ~+", "echo a ~x", `echo \~root`, "find -n ~root",
		"NO_COLOR=1 find -n ~root", "grep x ~root", "wc -l ~-", "cat < ~root")...)
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "echo ~", "echo ~/x", "echo x~y", "find -n .")...)
	runCalls(t, `{}`, "", calls)
}

// TestTimeoutBuiltins: the read-only list does not read a timeout through
// to the builtins of timeoutBuiltins, nor a test spelled [ or [[ after any
// prefix or quoted (row 75; TestDifferential/genfound8-*).
func TestTimeoutBuiltins(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "timeout 5 type ls", "timeout 5 'type' ls", "timeout 5s type ls", "timeout 1.5 type ls",
		"timeout 5 history", "timeout 5 help cd", "timeout 5 [[ -f a.txt ]]", "timeout 5 timeout 5 type ls",
		"command timeout 5 type ls", "timeout 5 type ls; ls", "ls && timeout 5 history", `timeout 5 \type ls`,
		"timeout 5 [ -f a.txt ]", "command [ -f a.txt ]", "builtin [ -f a.txt ]", "LANG=C [ -f a.txt ]", `\[ -f a.txt ]`,
		"'[' -f a.txt ]", "command [[ -f a.txt ]]", "timeout 5 '[[' -f a.txt ]]")...)
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "type ls", "timeout 5 true", "timeout 5 ls", "timeout 5 test -f a.txt", "[ -f a.txt ]",
		"[[ -f a.txt ]]", "command type ls", "builtin type ls", "command test -f a.txt", "timeout 5 echo hi")...)
	runCalls(t, `{}`, "", calls)
	// An allow rule still reads through the timeout (Bash(type:*) runs
	// timeout 5 type ls).
	runCalls(t, `{"permissions":{"allow":["Bash(type:*)"]}}`, "", []call1{
		{"Bash", cmdAt("timeout 5 type ls"), allow, codePermissionAllow},
	})
}

// TestCdAloneGoesHome: cd with no directory checks the home directory
// (row 76; TestDifferential/genfound8-*).
func TestCdAloneGoesHome(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codePathScope, "cd", "cd --", "command cd", "cd; ls", "timeout 5 cd")...)
	calls = append(calls, call1{"Bash", cmdAt("cd -"), allow, codePermissionAllow})
	runCalls(t, `{"permissions":{"allow":["Bash(cd:*)"]}}`, "", calls)
}

// TestSedPrintFlags: a printing sed runs read-only only with the options
// the release's check knows, wherever they stand (row 77;
// TestDifferential/genfound10-default).
func TestSedPrintFlags(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "sed -u -n 1p a.txt", "sed -s -n 1p a.txt", "sed --debug -n 1p a.txt", "sed -n 1p -u a.txt",
		"sed -n -e 1p a.txt", "sed -n --expression=1p a.txt", "sed -n 1p -- -x", "sed -ns 1p a.txt", "sed -n 1p a.txt -",
		"sed -e 1p -n a.txt", "sed -n 1,p a.txt", "sed -n 1p a.txt -i", "sed 1p a.txt", "sed -n '$p' a.txt")...)
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "sed -n 1p a.txt", "sed -n 1p -n a.txt", "sed -n 1p a.txt -E", "sed -nE 1p a.txt", "sed -rn 1p a.txt",
		"sed --quiet 1p a.txt", "sed --silent -E 1p a.txt", "sed -n -- 1p a.txt", "sed -n p a.txt", "sed -n '1p;2p' a.txt",
		"sed -n ' 1p ' a.txt", "sed -n 1,2p a.txt", "sed -n 1p 1p a.txt")...)
	runCalls(t, `{}`, "", calls)
}

// TestUnredirectedDenyText: a deny or ask rule matches the command
// without its redirections (row 78; TestDifferential/genrules1-*).
func TestUnredirectedDenyText(t *testing.T) {
	cmds := []string{"echo hi > out1.txt", "echo hi 2>&1", "echo hi >/dev/null", "echo hi < a.txt", "echo hi >> out3.txt",
		"echo hi > out4.txt 2>&1", "echo hi>out9.txt", "echo hi &> out10.txt", "echo hi 1> out11.txt", "ls -la > out6.txt",
		"echo hi #c", "echo hi # c d", "echo hi > out12.txt # c"}
	for _, mode := range []string{"", "bypassPermissions"} {
		var denied, asked []call1
		for _, c := range cmds {
			denied = append(denied, call1{"Bash", cmdAt(c), deny, codePermissionDeny})
			asked = append(asked, call1{"Bash", cmdAt(c), ask, codePermissionAsk})
		}
		runCalls(t, `{"permissions":{"deny":["Bash(echo hi)","Bash(ls -la:*)"]}}`, mode, denied)
		runCalls(t, `{"permissions":{"ask":["Bash(echo hi)","Bash(ls -la:*)"]}}`, mode, asked)
	}
	// The words the redirection leaves are the command: echo hi there >
	// x is not echo hi.
	runCalls(t, `{"permissions":{"deny":["Bash(echo hi)"]}}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("echo hi there > out5.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("echo hi#c"), allow, codeModeBypass},
		{"Bash", cmdAt("echo hi '#c'"), allow, codeModeBypass},
	})
}

// bashCalls makes a Bash call of each command, each wanting want with code.
func bashCalls(want envelope.Decision, code string, cmds ...string) []call1 {
	out := make([]call1, 0, len(cmds))
	for _, c := range cmds {
		out = append(out, call1{"Bash", cmdAt(c), want, code})
	}
	return out
}
