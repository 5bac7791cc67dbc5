package claudecode

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
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
		"echo $(FOO=1 ionice -c3 grep x secret/s.txt # c)", "echo $[", "echo $[1+2"}
	closed := []string{`echo "a`, "echo 'a", "(ls", "{ ls", "echo `ls", "ls )", "echo <(ls", "case x in", "echo $(ls) # (",
		"echo `ls # c`", "(ls # c)", "{ ls # c; }", "echo $(ls#c)", "echo $(ls # c\n)", "echo $( # c\nls)", "echo $((1+2))",
		"echo ${a:-'x'}", "echo $(ls)", `echo "$(ls)"`, "echo ${a}", "echo $[1+2]", "echo a[1"}
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

// TestBackquoteCommandInSubstitution: a command inside $( ) whose first
// word is backquoted asks in bypassPermissions, as the release's parser
// cannot read it (row 82; TestDifferential/genevade1-bq-*).
func TestBackquoteCommandInSubstitution(t *testing.T) {
	var calls []call1
	calls = append(calls, bashCalls(ask, codeCriticalPath, "echo $(`echo cat` a.txt)", "echo $(`echo cat` a*.txt)", "echo \"$(`echo cat` a*.txt)\"",
		"echo $(`true`)", "x=$(`echo cat` a*.txt)", "echo $(ls; `echo cat` a*.txt)", "echo $( `echo cat` a*.txt )", "echo $(`echo rm` f1*.txt)",
		"echo $(ls && `true`)", "echo $(ls\n`true`)")...)
	calls = append(calls, bashCalls(allow, codeModeBypass, "echo $(echo `echo a` *.txt)", "echo $(ls `echo a`*.txt)", "echo `echo $(echo cat) a*.txt`",
		"echo $(echo $(echo cat) a*.txt)", "echo $(ls *.txt `echo x`)", "(`echo cat` a*.txt)", "{ `echo cat` a*.txt; }", "echo $(cat `echo a.txt`)",
		"cat $(echo a*.txt)", "echo $(\\`echo cat\\` a*.txt)", "ls `echo a*.txt`", "`echo rm` f1.txt", "$(echo rm) f1*.txt")...)
	runCalls(t, `{}`, "bypassPermissions", calls)
}

// TestWriteAfterCd: a command that writes, in a line with a cd, asks
// whatever approved it, and a printing sed reads (row 80;
// TestDifferential/genallow1-cd-default).
func TestWriteAfterCd(t *testing.T) {
	doc := `{"permissions":{"allow":["Bash(* a.txt)","Bash(touch:*)","Bash(sed:*)","Bash(cd:*)","Bash(rm:*)","Bash(mkdir:*)"]}}`
	var calls []call1
	calls = append(calls, bashCalls(ask, codePathScope, "cd src && sed -i s/a/b/ a.txt", "cd src && touch x.txt", "touch x2.txt && cd src",
		"cd src; rm f1.txt", "cd .. && touch y.txt", "cd src && mkdir m1")...)
	calls = append(calls, call1{"Bash", cmdAt("(cd src && touch z.txt)"), ask, codeDefaultPrompt})
	calls = append(calls, bashCalls(allow, codePermissionAllow, "cd src && sed -n 1p a.txt", "sed -n 1p a.txt && cd src", "cd src && cat a.txt",
		"touch x.txt", "sed -i s/a/b/ a.txt")...)
	runCalls(t, doc, "", calls)
}

// TestEnvAllowPaths: an allow rule naming env approves env, and the paths
// of the command it runs are still checked (row 79;
// TestDifferential/genallow1-default, genallow1-cd-default).
func TestEnvAllowPaths(t *testing.T) {
	doc := `{"permissions":{"allow":["Bash(env:*)"]}}`
	var calls []call1
	calls = append(calls, bashCalls(ask, codePathScope, "env ls ../outside", "env FOO=1 ls ../outside", "env cat ../outside/o.txt",
		"env FOO=1 touch ../outside/t1.txt", "env rm ../outside/o.txt", "env -i cat ../outside/o.txt", "env -u X ls ../outside",
		"env timeout 5 cat ../outside/o.txt", "env FOO=1 ls ../outside 2>&1; ls")...)
	calls = append(calls, bashCalls(allow, codePermissionAllow, "env cat a.txt", "env FOO=1 ls")...)
	runCalls(t, doc, "", calls)
}

// TestGlobOperandsRead: an unquoted glob among a reading command's
// arguments is a path it reads (row 81; TestDifferential/genevade1-*).
func TestGlobOperandsRead(t *testing.T) {
	doc := `{"permissions":{"deny":["Read(./secret/**)","Bash(rm:*)"]}}`
	var calls []call1
	calls = append(calls, bashCalls(deny, codePermissionDeny, "find . -maxdepth 0 -exec cat secret/* \\;", "find . -maxdepth 0 -exec look s secret/s.t?t \\;",
		"find . -exec grep s secret/* \\;", "git grep s secret/*", "sed -n 1p a.txt secret/*")...)
	calls = append(calls, bashCalls(allow, codeModeBypass, "find . -maxdepth 0 -exec cat secret/s.txt \\;", "look s secret/*", "look s secret/s.txt",
		"find . -maxdepth 0 -exec look s a.txt \\;", "find . -maxdepth 0 -exec cat 'secret/*' \\;", "find . -maxdepth 0 -exec cat secret/'*' \\;",
		"find . -maxdepth 0 -exec cat secre[t]/s.txt \\;", "git log secret/*", "grep -r s . --include=secret/*")...)
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestForWithoutList: for NAME with no word list loops over the
// positional parameters and runs nothing itself (TestDifferential/
// genloops-default).
func TestForWithoutList(t *testing.T) {
	runCalls(t, `{}`, "", bashCalls(allow, codeDefaultReadOnly, "for i; do cat a.txt; done", "for i in 1; do cat a.txt; done"))
	runCalls(t, `{}`, "", bashCalls(ask, codeDefaultPrompt, "for i; do rm a.txt; done", "for PATH; do cat a.txt; done", "for i x; do cat a.txt; done"))
}

// TestCdAndGit: a line that changes directory and runs git asks in every
// mode but bypassPermissions, whatever approved it (row 83;
// TestDifferential/gencdgit-*, gencdgit2-*).
func TestCdAndGit(t *testing.T) {
	cmds := []string{"cd src && git status", "cd src && git diff HEAD", "cd src; git log -1", "git status && cd src", "cd .. && git status",
		"if true; then cd src && git diff HEAD; fi", "for i in 1; do cd src && git diff HEAD a.txt; done", "cd src && ls && git status",
		"if true; then cd src; fi; git status", "cd src && git status | cat", "cd src || git status", "if cd src; then git status; fi",
		"pushd src && git status", "cd src && /usr/bin/git status", "cd src && command git status", "cd src && timeout 5 git status",
		"cd src && \\git status", "git log -1 && cd src && ls", "popd; git status", "cd src && 'git' status", "cd && git status",
		"cd src && echo x | git status", "builtin cd src && git status", "cd src && LANG=C git status"}
	doc := `{"permissions":{"allow":["Bash(git diff:*)","Bash(git status:*)","Bash(cd:*)","Bash(git log:*)"]}}`
	for _, mode := range []string{"", "acceptEdits"} {
		var calls []call1
		for _, c := range cmds {
			calls = append(calls, call1{"Bash", cmdAt(c), ask, ""})
		}
		w := newWorld(t, doc, decideCatalogue...)
		w.start(t, "lead", events.StartedData{Agent: "main", Mode: mode})
		for _, c := range calls {
			if v := w.decide("lead", c.tool, c.input); v.Decision != ask {
				t.Errorf("[%s] %v = %s (%s), want ask", mode, c.input, v.Decision, v.Reason.Code)
			}
		}
	}
	var calls []call1
	calls = append(calls, bashCalls(allow, codePermissionAllow, "cd . && git status", "cd src && echo git", "git status", "cd src")...)
	calls = append(calls, bashCalls(allow, codeModeBypass, "cd src && git status")...)
	runCalls(t, doc, "", calls[:4])
	runCalls(t, doc, "bypassPermissions", calls[4:])
}

// TestAssignedSubstitution: an assignment of a plain command substitution
// is decided as its command, joined by && or || (row 85;
// TestDifferential/genassign-*, assignor-*).
func TestAssignedSubstitution(t *testing.T) {
	doc := `{"permissions":{"deny":["Read(./secret/**)"]}}`
	var calls []call1
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "x=$(echo hi a.txt)", "x=$(echo hi)", "x=$(ls)", "x=$(cat a.txt)", "x=`ls`",
		"x=$(git status)", "x=$(echo a) && ls", "x=$(ls -la src)", "x+=$(ls)", "x=$(date)", "x=$(sleep 0)", "x=$( ls )",
		"x=$(LANG=C ls)", "x=$(ls 2>/dev/null)", "x=$(ls 2>&1)", "x=$(cat a.txt 2>&1)", "x=$(ls &> /dev/null)",
		"x=$(ls >/dev/null 2>&1)", "x=$(cat < a.txt)", "x=$(ls || pwd)", "x=$(cat a.txt || echo no)", "x=$(ls && pwd || date)",
		"x=`ls || pwd`", "x=$(ls 2>/dev/null || echo none)")...)
	// A word after a redirection's target, as in a line's own commands,
	// asks whatever approved the command (TestDifferential/redirtargets-default).
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "x=$(echo hi > /dev/null -x)", "x=$(cat < a.txt -n)",
		"x=$(ls 2>/dev/null a.txt)", "x=$(echo hi 2>&1 -x)")...)
	calls = append(calls, bashCalls(deny, codePermissionDeny, "x=$(cat secret/s.txt)", "x=$(ls || cat secret/s.txt)")...)
	for _, c := range []string{"x=$(rm f1.txt)", "x=$(ls) y=$(pwd)", "x=$(echo hi); echo $x", `x="$(ls)"`, "export x=$(ls)", "x=$(npm test)",
		"x=$(ls | wc -l)", "PATH=$(pwd)", "x=$(ls) ls", "x=$(touch t9.txt)", "x=a$(ls)b", "x=$(echo $(ls))", "local x=$(ls)", "x=$(ls;)",
		"x=$(ls &)", "x=$(cat ../outside/o.txt)", "x=$(echo hi > o5.txt)", "x=$(ls || rm f1.txt)", "x=$(ls | cat || pwd)", "x=$(ls | | pwd)",
		"x=$(ls ||| pwd)", "x=$(ls || cat ../outside/o.txt)", "PATH=$(ls || pwd)", "x=$(ls || pwd; ls)"} {
		calls = append(calls, call1{"Bash", cmdAt(c), ask, ""})
	}
	w := newWorld(t, doc, decideCatalogue...)
	w.start(t, "lead", events.StartedData{Agent: "main"})
	for _, c := range calls {
		v := w.decide("lead", c.tool, c.input)
		if v.Decision != c.want || c.reason != "" && v.Reason.Code != c.reason {
			t.Errorf("%v = %s (%s), want %s %s", c.input, v.Decision, v.Reason.Code, c.want, c.reason)
		}
	}
	runCalls(t, `{"permissions":{"allow":["Bash(npm test:*)"]}}`, "acceptEdits", []call1{
		{"Bash", cmdAt("x=$(npm test)"), allow, codePermissionAllow}, {"Bash", cmdAt("x=$(touch t9.txt)"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("x=$(cd src && ls)"), allow, codeDefaultReadOnly},
	})
}

// TestMultipleCd: a line that changes directory more than once asks in
// every mode but bypassPermissions, whatever approved it (row 86;
// TestDifferential/genmulticd-*).
func TestMultipleCd(t *testing.T) {
	doc := `{"permissions":{"allow":["Bash(cd:*)","Bash(pushd:*)","Bash(popd:*)","Bash(ls:*)"]}}`
	cmds := []string{"pushd src && popd", "cd src && pushd ..", "cd . && cd .", "cd src && cd .", "cd src; cd src", "pushd src; popd; ls",
		"cd src && ls && cd .", "cd . && ls && cd .", "popd && popd", "cd src || cd ."}
	for _, mode := range []string{"", "acceptEdits"} {
		runCalls(t, doc, mode, bashCalls(ask, codePathScope, cmds...))
		runCalls(t, doc, mode, bashCalls(allow, codePermissionAllow, "cd src", "pushd src", "cd src && ls"))
	}
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, cmds...))
}

// TestPlanHoldsMCPTools: in plan mode an MCP tool asks whatever allow rule
// names it, by tool, server or wildcard; deny and ask rules still decide
// first, and the other modes keep the allow (row 87;
// TestDifferential/gentools-plan-*).
func TestPlanHoldsMCPTools(t *testing.T) {
	doc := `{"permissions":{"allow":["mcp__srv__echo","mcp__other","mcp__wide__*","WebFetch(domain:example.com)"],
		"ask":["mcp__wide__ping"],"deny":["mcp__srv__danger"]}}`
	cat := append(slices.Clone(decideCatalogue), "mcp__srv__echo", "mcp__srv__danger", "mcp__other__ping", "mcp__wide__echo",
		"mcp__wide__ping", "mcp__third__x")
	check := func(mode string, calls []call1) {
		t.Helper()
		w := newWorld(t, doc, cat...)
		w.start(t, "lead", events.StartedData{Agent: "main", Mode: mode})
		for _, c := range calls {
			in := `{"text":"a"}`
			if c.tool == "WebFetch" {
				in = `{"url":"https://example.com/","prompt":"p"}`
			}
			if v := w.decide("lead", c.tool, json.RawMessage(in)); v.Decision != c.want || v.Reason.Code != c.reason {
				t.Errorf("[%s] %s = %s (%s), want %s (%s)", mode, c.tool, v.Decision, v.Reason.Code, c.want, c.reason)
			}
		}
	}
	check("plan", []call1{{"mcp__srv__echo", nil, ask, codeModePlan}, {"mcp__other__ping", nil, ask, codeModePlan},
		{"mcp__wide__echo", nil, ask, codeModePlan}, {"mcp__wide__ping", nil, ask, codePermissionAsk},
		{"mcp__srv__danger", nil, deny, codePermissionDeny}, {"mcp__third__x", nil, ask, codeModePlan},
		{"WebFetch", nil, allow, codePermissionAllow}})
	for _, mode := range []string{"", "acceptEdits", "dontAsk"} {
		check(mode, []call1{{"mcp__srv__echo", nil, allow, codePermissionAllow}, {"mcp__other__ping", nil, allow, codePermissionAllow},
			{"mcp__wide__echo", nil, allow, codePermissionAllow}})
	}
	check("", []call1{{"mcp__third__x", nil, ask, codeDefaultPrompt}})
}

// TestDomainStarIsADomainRule: WebFetch(domain:*) is a domain rule that
// matches every host, not the bare rule: denied, WebFetch stays in the
// pool and each call is denied, in bypassPermissions too (row 88;
// TestDifferential/gentools-domainstar-*).
func TestDomainStarIsADomainRule(t *testing.T) {
	fetch := func(url string, want envelope.Decision, code string) call1 {
		return call1{"WebFetch", map[string]any{"url": url, "prompt": "p"}, want, code}
	}
	urls := []string{"https://example.com/", "https://a.b.example.com/", "http://127.0.0.1:9/", "http://[::1]:9/",
		"https://go.dev/doc/effective_go"}
	for _, mode := range []string{"", "bypassPermissions"} {
		doc := `{"permissions":{"deny":["WebFetch(domain:*)"]}}`
		w := newWorld(t, doc, decideCatalogue...)
		w.start(t, "lead", events.StartedData{Agent: "main", Mode: mode})
		if ts := w.tools("lead"); !slices.Contains(ts.Allowed, "WebFetch") {
			t.Errorf("[%s] WebFetch left the pool under a deny of WebFetch(domain:*): %+v", mode, ts)
		}
		var calls []call1
		for _, u := range urls {
			calls = append(calls, fetch(u, deny, codePermissionDeny))
		}
		runCalls(t, doc, mode, calls)
	}
	var calls []call1
	for _, u := range urls {
		calls = append(calls, fetch(u, allow, codePermissionAllow))
	}
	runCalls(t, `{"permissions":{"allow":["WebFetch(domain:*)"]}}`, "", calls)
}

// TestSkippedSpecifiers: the specifiers Claude Code 2.1.328 skips as
// invalid or reads no parameter from stop no call; the parameter rules it
// reads still do (row 89; TestDifferential/genparams-tools-*,
// genparams-star-*, genparams-leadingstar-*).
func TestSkippedSpecifiers(t *testing.T) {
	doc := `{"permissions":{"deny":["WebFetch(prompt:*secret*)","WebSearch(query:led*)","Write(content:*key*)","Read(limit:*)",
		"Edit(replace_all:*)","Read(offset:1*)","Edit(old_string:zap)","WebSearch(query:go docs)","Write(content:kez*)",
		"Write(content:a:*)","Edit(new_string:*ew)","Read(offset:*1)"],"ask":["Glob(pattern:*.md)"]}}`
	for _, mode := range []string{"", "bypassPermissions"} {
		free := envelope.Allow
		if mode == "" {
			free = envelope.Ask
		}
		freeCode := codeModeBypass
		if mode == "" {
			freeCode = codeDefaultPrompt
		}
		read := codeModeBypass
		if mode == "" {
			read = codeDefaultReadOnly
		}
		runCalls(t, doc, mode, []call1{
			{"WebFetch", map[string]any{"url": "https://example.com/", "prompt": "find the secret"}, free, freeCode},
			{"WebSearch", map[string]any{"query": "ledger"}, free, freeCode},
			{"Write", map[string]any{"file_path": "w.txt", "content": "key=1"}, free, freeCode},
			{"Read", map[string]any{"file_path": "a.txt", "limit": 5}, allow, read},
			{"Edit", map[string]any{"file_path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": true}, free, freeCode},
			{"Read", map[string]any{"file_path": "a.txt", "offset": 12}, deny, codePermissionDeny},
			{"Edit", map[string]any{"file_path": "a.txt", "old_string": "zap", "new_string": "b"}, deny, codePermissionDeny},
			{"WebSearch", map[string]any{"query": "go docs"}, deny, codePermissionDeny},
			{"Write", map[string]any{"file_path": "w.txt", "content": "kez=1"}, deny, codePermissionDeny},
			{"Write", map[string]any{"file_path": "w.txt", "content": "a:key"}, free, freeCode},
			{"Edit", map[string]any{"file_path": "a.txt", "old_string": "a", "new_string": "brew"}, free, freeCode},
			{"Read", map[string]any{"file_path": "a.txt", "offset": 21}, allow, read},
			{"Glob", map[string]any{"pattern": "*.md"}, ask, codePermissionAsk},
		})
	}
}

// TestSkillRules: a Skill rule's name form (exact, or a prefix ending in
// ":*" or " *", matched as text; no other wildcard) in deny and allow, its
// parameter form (skill:<glob>) in deny and ask (row 90;
// TestDifferential/genskills-*).
func TestSkillRules(t *testing.T) {
	doc := `{"permissions":{"allow":["Skill(hello)","Skill(tool*)","Skill(model:*)","Skill(/toolz)","Skill(ns:*)"],
		"ask":["Skill(help*)","Skill(helper)","Skill(skill:dep*)"],"deny":["Skill(deploy:*)","Skill(skill:zap*)","Skill(rm *)"]}}`
	sk := func(name string, want envelope.Decision, code string) call1 {
		return call1{"Skill", map[string]any{"skill": name}, want, code}
	}
	runCalls(t, doc, "", []call1{
		sk("hello", allow, codePermissionAllow), sk("/hello", allow, codePermissionAllow), sk(" hello ", allow, codePermissionAllow),
		sk("helper", ask, codeDefaultPrompt), sk("tooly", ask, codeDefaultPrompt), sk("toolz", allow, codePermissionAllow),
		sk("modely", allow, codePermissionAllow), sk("deploy-it", deny, codePermissionDeny), sk("deployment", deny, codePermissionDeny),
		sk("zapper", deny, codePermissionDeny), sk("rmx", deny, codePermissionDeny), sk("ns:thing", ask, codeDefaultPrompt),
	})
	runCalls(t, doc, "bypassPermissions", []call1{
		sk("helper", allow, codeModeBypass), sk("dep", ask, codePermissionAsk), sk("deploy-it", deny, codePermissionDeny),
		sk("hello", allow, codeModeBypass),
	})
	// The parameter form reads the skill without a leading "/" too
	// (row 94; TestDifferential/genskills-slash-*).
	runCalls(t, doc, "bypassPermissions", []call1{
		sk("/zapper", deny, codePermissionDeny), sk(" /zapper", deny, codePermissionDeny), sk("/dep", ask, codePermissionAsk),
		sk("/helper", allow, codeModeBypass),
	})
}

// TestReservedWordAfterPrefix: time after an assignment or a redirection
// asks whatever approved it once an if, while or until came before it in
// the line, and any other reserved word (not in) there asks in every mode,
// bypassPermissions included (row 91; TestDifferential/genreserved-*).
func TestReservedWordAfterPrefix(t *testing.T) {
	doc := `{"permissions":{"allow":["Bash(ls *)","Bash(ls)","Bash(time:*)","Bash(* a.txt)","Bash(cat:*)","Bash(true)","Bash(:)"]}}`
	timeAsks := []string{"if true; then LANG=C time ls || ls; fi", "while false; do :; done; LANG=C time ls",
		"until true; do :; done; LANG=C time ls", "if true; then LANG=C ls; fi; LANG=C time ls", "if LANG=C time ls; then :; fi"}
	timeRuns := []string{"LANG=C time ls", "LANG=C time ls; if true; then ls; fi", "for i in 1; do LANG=C time ls; done",
		"if true; then time ls; fi"}
	keywordAsks := []string{"FOO=1 if true; then ls; fi", "echo $(FOO=1 if true; then ls; fi)", "(FOO=1 while false; do :; done)",
		">/dev/null if true; then ls; fi", "FOO=1 done", "ls; A=1 for i in 1; do ls; done", "FOO=1 function f { ls; }",
		"FOO=1 select x in a; do break; done"}
	runCalls(t, doc, "", bashCalls(ask, codeUncheckedCommand, timeAsks...))
	for _, cmd := range timeRuns {
		w := newWorld(t, doc, decideCatalogue...)
		w.start(t, "lead", events.StartedData{Agent: "main"})
		if v := w.decide("lead", "Bash", cmdAt(cmd)); v.Decision != allow {
			t.Errorf("%q = %s (%s), want allow", cmd, v.Decision, v.Reason.Code)
		}
	}
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, timeAsks...))
	runCalls(t, doc, "bypassPermissions", bashCalls(ask, codeCriticalPath, keywordAsks...))
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, "FOO=1 in x", "echo if", "FOO=1 ls", `echo "x; FOO=1 if y"`))
}

// TestEditAllowReads: an Edit allow rule approves a read as the write it
// implies, so not on a protected path, and opens no path a Bash command
// reads outside the working directories; a Read allow rule does both
// (row 95; TestDifferential/genuser-edit-protected-read-*,
// genuser-bash-read-*).
func TestEditAllowReads(t *testing.T) {
	glob := func(dir string) map[string]any {
		m := at("path", dir)
		m["pattern"] = "*"
		return m
	}
	protected := []string{"/h/.gitconfig", "/h/.git/config", "/h/.vscode/s.json", "/h/.Claude/a.txt", "/h/.bashrc",
		"/h/.config/git/config", "/h/sub/.mcp.json", "/h/.claude/gp/a.txt"}
	for _, doc := range []string{`{"permissions":{"allow":["Edit(~/**)"]}}`, `{"permissions":{"allow":["Edit(//**)"]}}`} {
		var calls []call1
		for _, f := range protected {
			calls = append(calls, call1{"Read", fileAt(f), ask, codeDefaultPrompt})
		}
		calls = append(calls, call1{"Glob", glob("/h/.git"), ask, codeDefaultPrompt},
			call1{"Read", fileAt("/h/.config/other/a.txt"), allow, codePermissionAllow},
			call1{"Read", fileAt("/h/.claude/worktrees/w.txt"), allow, codePermissionAllow},
			call1{"Read", fileAt("/h/gp/a.txt"), allow, codePermissionAllow},
			call1{"Bash", cmdAt("cat ~/gp/a.txt"), ask, codePathScope},
			call1{"Bash", cmdAt("cat /h/.config/other/a.txt"), ask, codePathScope})
		runCalls(t, doc, "", calls)
	}
	var calls []call1
	for _, f := range protected {
		calls = append(calls, call1{"Read", fileAt(f), allow, codePermissionAllow})
	}
	calls = append(calls, call1{"Bash", cmdAt("cat ~/gp/a.txt"), allow, codeDefaultReadOnly},
		call1{"Bash", cmdAt("cat ~/.gitconfig"), allow, codeDefaultReadOnly})
	runCalls(t, `{"permissions":{"allow":["Read(~/**)"]}}`, "", calls)
}

// TestRulesBelowWorkingDirs: a deny or ask path pattern without a root of
// its own is read below every working directory that holds the path, the
// policy's additionalDirectories and the added ones; a pattern rooted at
// the project ("/x") and an allow rule are not (row 96;
// TestDifferential/genscopes-dirs-*).
func TestRulesBelowWorkingDirs(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(*.txt)","Read(e.txt)","Edit(./sub/**)","Edit(/top/**)"],"ask":["Read(s.md)"],
		"additionalDirectories":["../extra"]}}`
	for _, mode := range []string{"", "bypassPermissions"} {
		calls := []call1{
			{"Write", fileAt("/extra/n1.txt"), deny, codePermissionDeny},
			{"Write", fileAt("/added/n2.txt"), deny, codePermissionDeny},
			{"Write", fileAt("/added/deep/n2.txt"), deny, codePermissionDeny},
			{"Read", fileAt("/extra/e.txt"), deny, codePermissionDeny},
			{"Read", fileAt("/added/e.txt"), deny, codePermissionDeny},
			{"Write", fileAt("/extra/sub/n3.md"), deny, codePermissionDeny},
			{"Read", fileAt("/extra/s.md"), ask, codePermissionAsk},
			{"Bash", cmdAt("rm /extra/e.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("touch /added/sub/t.md"), deny, codePermissionDeny},
		}
		if mode == "" {
			calls = append(calls, call1{"Write", fileAt("/extra/top/n4.md"), ask, codeDefaultPrompt},
				call1{"Read", fileAt("/elsewhere/e.txt"), ask, codeDefaultPrompt},
				call1{"Write", fileAt("/elsewhere/n5.txt"), ask, codeDefaultPrompt})
		} else {
			calls = append(calls, call1{"Write", fileAt("/extra/top/n4.md"), allow, codeModeBypass},
				call1{"Read", fileAt("/elsewhere/e.txt"), allow, codeModeBypass})
		}
		runCalls(t, doc, mode, calls)
	}
	runCalls(t, `{"permissions":{"allow":["Edit(*.txt)"],"additionalDirectories":["../extra"]}}`, "", []call1{
		{"Write", fileAt("/extra/n1.txt"), ask, codeDefaultPrompt},
		{"Write", fileAt("/p/n1.txt"), allow, codePermissionAllow},
	})
}

// TestAcceptEditsEditRuleOpens: acceptEdits approves a filesystem command
// whose path outside the working directories an Edit allow rule opens,
// and not a protected one nor one only a Read allow rule names (row 98;
// TestDifferential/genscopes-accept-*).
func TestAcceptEditsEditRuleOpens(t *testing.T) {
	runCalls(t, `{"permissions":{"allow":["Edit(~/gp/**)"]}}`, "acceptEdits", []call1{
		{"Bash", cmdAt("touch ~/gp/t1.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("rm /h/gp/h.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("touch a.txt ~/gp/t2.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("touch ~/gp/.git/t9"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch ~/other/t3.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch a.txt ~/other/t4.txt"), ask, codeDefaultPrompt},
	})
	runCalls(t, `{"permissions":{"allow":["Read(~/gp/**)"]}}`, "acceptEdits", []call1{
		{"Bash", cmdAt("touch ~/gp/t1.txt"), ask, codeDefaultPrompt},
	})
	runCalls(t, `{"permissions":{"allow":["Edit(~/gp/**)"]}}`, "", []call1{
		{"Bash", cmdAt("touch ~/gp/t1.txt"), ask, codeDefaultPrompt},
	})
}

// TestRuleBlanks: a command rule written with a run of blanks. An exact or
// prefix rule matches the subcommand written with the same blanks, a
// wildcard rule with its blanks made one space (row 102,
// TestDifferential/rulespaces-*).
func TestRuleBlanks(t *testing.T) {
	doc := `{"permissions":{"ask":["Bash(echo  hi)","Bash(wc  *)"],"deny":["Bash(ls  -la)","Bash(head  -1:*)"],` +
		`"allow":["Bash(touch  a1.txt)","Bash(touch  a2.txt)","Bash(echo  hi:*)","Bash(cat  *)"]}}`
	for _, mode := range []string{"", "bypassPermissions"} {
		calls := []call1{
			{"Bash", cmdAt("echo  hi"), ask, codePermissionAsk},
			{"Bash", cmdAt("ls  -la"), deny, codePermissionDeny},
			{"Bash", cmdAt("ls  -la && pwd"), deny, codePermissionDeny},
			{"Bash", cmdAt("head  -1 a.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("wc  -l a.txt"), ask, codePermissionAsk},
			{"Bash", cmdAt("wc -l a.txt"), ask, codePermissionAsk},
		}
		ran := codeDefaultReadOnly
		if mode != "" {
			ran = codeModeBypass
		}
		for _, c := range []string{"echo hi", "ls -la", "echo   hi", "echo\thi", "head -1 a.txt"} {
			calls = append(calls, call1{"Bash", cmdAt(c), allow, ran})
		}
		runCalls(t, doc, mode, calls)
	}
	runCalls(t, doc, "", []call1{
		{"Bash", cmdAt("touch  a1.txt"), allow, codePermissionAllow},
		{"Bash", cmdAt("touch a2.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch a1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo  hi there"), allow, codePermissionAllow},
	})
}

// TestCdComment: a comment after cd's directory is no directory, for the
// read-only list, the path check and where the next commands run; a
// quoted '#' is an argument, and both readings of a '#' the path lists
// cannot tell apart are read (TestDifferential/cdcomment-*).
func TestCdComment(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(./locked/**)","Read(./secret/**)"]}}`
	var calls []call1
	calls = append(calls, bashCalls(allow, codeDefaultReadOnly, "cd src # c", "cd src #c d", "cd src #", "cd src#c")...)
	calls = append(calls, bashCalls(ask, codeDefaultPrompt, "cd src '#' c", `cd src \# c`)...)
	calls = append(calls, bashCalls(ask, codePathScope, "cd # c")...)
	runCalls(t, doc, "", calls)
	runCalls(t, doc, "bypassPermissions", bashCalls(deny, codePermissionDeny, "cd locked # c\nrm e1.txt", "cd locked #c d\ntouch e2.txt",
		"cd locked '#' c\nrm e1.txt", "cd locked; cd .. '#' c\nrm e1.txt", "cd sub; cd locked '#' c\nrm e1.txt", "cd secret # c\ncat s.txt", "cd sub # c\ncd locked\nrm e3.txt"))
	runCalls(t, doc, "bypassPermissions", bashCalls(ask, codeDenyInScript, "cd locked # c\nbash -c 'rm e1.txt'"))
	runCalls(t, `{"permissions":{"deny":["Edit(~/hlock/**)"]}}`, "bypassPermissions", bashCalls(deny, codePermissionDeny,
		"cd #\ncd hlock\nrm h1.txt", "cd # c\ncd hlock\nrm h1.txt", "cd '#'\ncd hlock\nrm h1.txt"))
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, "cd src # c\nrm e1.txt", "cd src # locked\nrm e1.txt"))
}

// TestEditStarWrite: a deny or ask Edit(*) holds every file editor, as
// the bare rule does (section 0.3), and no path of a Bash command
// (section 0.2 row 145; TestDifferential/editstar-*).
func TestEditStarWrite(t *testing.T) {
	for _, doc := range []string{`{"permissions":{"deny":["Edit(*)"]}}`, `{"permissions":{"deny":["Edit"]}}`,
		`{"permissions":{"ask":["Edit(*)"]}}`, `{"permissions":{"ask":["Edit"]}}`} {
		held, code := deny, codePermissionDeny
		if strings.Contains(doc, "ask") {
			held, code = ask, codePermissionAsk
		}
		runCalls(t, doc, "acceptEdits", []call1{
			{"Write", fileAt("n1.txt"), held, code}, {"Write", fileAt("/h/n3.txt"), held, code},
			{"Edit", fileAt("e1.txt"), held, code}, {"NotebookEdit", at("notebook_path", "n.ipynb"), held, code},
			{"Bash", cmdAt("touch t1.txt"), allow, codeModeAcceptEdits}, {"Bash", cmdAt("rm e1.txt"), allow, codeModeAcceptEdits},
			{"Bash", cmdAt("echo x > o1.txt"), allow, codeDefaultReadOnly},
		})
		runCalls(t, doc, "", []call1{{"Bash", cmdAt("touch t1.txt"), ask, codeDefaultPrompt}})
	}
	// A path pattern still matches a command's paths.
	runCalls(t, `{"permissions":{"deny":["Edit(**)"]}}`, "acceptEdits", bashCalls(deny, codePermissionDeny, "touch t1.txt", "echo x > o1.txt"))
}

// TestCdCommentsManyLines: a line of many cds with a comment is read in
// about one reading a cd, not two to the power of their number (each such
// cd read both ways doubled them: 20 lines took a second, 30 would take
// minutes); past maxCdReadings readings its relative paths are denied
// under any path deny rule of their tool (the line overflown, section 0.3),
// its absolute ones read as ever.
func TestCdCommentsManyLines(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(./locked/**)"]}}`
	few, many := strings.Repeat("cd src # c\n", 20), strings.Repeat("cd src # c\n", 300)
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, few+"rm e1.txt", many+"rm /tmp/e1.txt", many+"ls"))
	runCalls(t, doc, "bypassPermissions", bashCalls(deny, codePermissionDeny, "cd locked # c\n"+strings.Repeat("ls # c\n", 300)+"rm e1.txt",
		few+"cd "+strings.Repeat("../", 20)+"locked # c\nrm e1.txt", many+"rm e1.txt", "cd /tmp # c\n"+many+"cd - # c\n"+many+"rm e1.txt"))
	runCalls(t, doc, "bypassPermissions", bashCalls(ask, codeDenyInScript, many+"bash -c 'rm e1.txt'"))
	runCalls(t, `{"permissions":{"deny":["Bash(rm:*)"]}}`, "bypassPermissions", bashCalls(allow, codeModeBypass, many+"touch e1.txt"))
}

// TestEditAllowHeldRead: an Edit allow rule approves a read only where no
// Edit deny or ask rule speaks about the path (row 147,
// TestDifferential/editallowheld-*).
func TestEditAllowHeldRead(t *testing.T) {
	reads := func(want envelope.Decision, code string) []call1 {
		return []call1{{"Read", fileAt("/h/a.txt"), want, code}, {"Read", fileAt("/h/gp/a.txt"), want, code}}
	}
	for _, doc := range []string{`{"permissions":{"allow":["Edit(~/**)"],"deny":["Edit(~/*)"]}}`,
		`{"permissions":{"allow":["Edit(~/**)"],"ask":["Edit(~/*)"]}}`, `{"permissions":{"allow":["Edit(~/**/*)"],"deny":["Edit(~/*)"]}}`,
		`{"permissions":{"allow":["Edit(~/**)"],"deny":["Edit"]}}`} {
		runCalls(t, doc, "", reads(ask, codeDefaultPrompt))
	}
	for _, doc := range []string{`{"permissions":{"allow":["Edit(~/**)"]}}`, `{"permissions":{"allow":["Edit(~/**)"],"deny":["Edit(~/zz.txt)"]}}`,
		`{"permissions":{"allow":["Edit(~/**)"],"deny":["Read(~/zz.txt)"]}}`} {
		runCalls(t, doc, "", reads(allow, codePermissionAllow))
	}
}
