package claudecode

import "testing"

// builtinRules allow every command TestBuiltinsUnchecked runs.
const builtinRules = `{"permissions": {"allow": ["Bash(jobs:*)", "Bash(print:*)", "Bash(set:*)", "Bash(declare:*)", "Bash(typeset:*)",
	"Bash(local:*)", "Bash(export:*)", "Bash(readonly:*)", "Bash(printf:*)", "Bash(eval:*)", "Bash(fc:*)", "Bash(compgen:*)",
	"Bash(exec:*)", "Bash(source:*)", "Bash(trap:*)", "Bash(alias:*)", "Bash(let:*)", "Bash(hash:*)", "Bash(shopt:*)",
	"Bash(emulate:*)", "Bash(setopt:*)", "Bash(watch:*)", "Bash(flock:*)", "Bash(setsid:*)", "Bash(jq:*)", "Bash(find:*)",
	"Bash(echo:*)", "Bash(npm test:*)"]}}`

// TestBuiltinsUnchecked: the commands Claude Code 2.1.328 asks for
// whatever allow rule names them (section 0.2, row 49; TestDifferential/
// builtins-allowed-default, builtinforms-allowed-default,
// expansions-allowed-default), beside the forms of the same commands it
// runs.
func TestBuiltinsUnchecked(t *testing.T) {
	u := codeUncheckedCommand
	runCalls(t, builtinRules, "", []call1{
		{"Bash", cmdAt("jobs -x echo jx"), ask, u},
		{"Bash", cmdAt("jobs +x echo jx"), ask, u},
		{"Bash", cmdAt("jobs -l"), allow, codePermissionAllow},
		{"Bash", cmdAt("print -P '%n'"), ask, u},
		{"Bash", cmdAt("print -rP x"), ask, u},
		{"Bash", cmdAt("print hi"), allow, codePermissionAllow},
		{"Bash", cmdAt("set -a"), ask, u},
		{"Bash", cmdAt("set -k"), ask, u},
		{"Bash", cmdAt("set -B"), ask, u},
		{"Bash", cmdAt("set +H"), ask, u},
		{"Bash", cmdAt("set +o history"), ask, u},
		{"Bash", cmdAt("set -o posix"), ask, u},
		{"Bash", cmdAt("set -euo pipefail"), allow, codePermissionAllow},
		{"Bash", cmdAt("set -Eeuo pipefail"), allow, codePermissionAllow},
		{"Bash", cmdAt("set -o no_glob"), allow, codePermissionAllow},
		{"Bash", cmdAt("set -- -a -k"), allow, codePermissionAllow},
		{"Bash", cmdAt("set -ex"), allow, codePermissionAllow},
		{"Bash", cmdAt("declare -i x=1+2"), ask, u},
		{"Bash", cmdAt("declare -a arr"), ask, u},
		{"Bash", cmdAt("typeset -u x=a"), ask, u},
		{"Bash", cmdAt("declare -m x"), ask, u},
		{"Bash", cmdAt("declare -g x=1"), ask, u},
		{"Bash", cmdAt("declare 'a[$(echo 1)]=x'"), ask, u},
		{"Bash", cmdAt("export -a x=1"), ask, u},
		{"Bash", cmdAt("export -a x"), allow, codePermissionAllow},
		{"Bash", cmdAt("declare x=a[1]"), allow, codePermissionAllow},
		{"Bash", cmdAt("export X=a[1]"), ask, u},
		{"Bash", cmdAt("declare x=1"), allow, codePermissionAllow},
		{"Bash", cmdAt(`declare x="a b"`), allow, codePermissionAllow},
		{"Bash", cmdAt("declare -r x=1"), allow, codePermissionAllow},
		{"Bash", cmdAt("export X=1"), allow, codePermissionAllow},
		{"Bash", cmdAt("export -p"), allow, codePermissionAllow},
		{"Bash", cmdAt("printf '%d\\n' 'a[$(echo 1)]'"), ask, u},
		{"Bash", cmdAt("printf '%d\\n' 5"), allow, codePermissionAllow},
		{"Bash", cmdAt("eval echo hi"), ask, u},
		{"Bash", cmdAt("exec ls"), ask, u},
		{"Bash", cmdAt("source b.sh"), ask, u},
		{"Bash", cmdAt("trap 'echo x' EXIT"), ask, u},
		{"Bash", cmdAt("alias ll=ls"), ask, u},
		{"Bash", cmdAt("let x=1+2"), ask, u},
		{"Bash", cmdAt("hash ls"), ask, u},
		{"Bash", cmdAt("fc -e true"), ask, u},
		{"Bash", cmdAt("fc -l"), allow, codePermissionAllow},
		{"Bash", cmdAt("compgen -W 'a b'"), ask, u},
		{"Bash", cmdAt("compgen -c ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("shopt -s extglob"), ask, u},
		{"Bash", cmdAt("emulate sh"), ask, u},
		{"Bash", cmdAt("setopt x"), ask, u},
		{"Bash", cmdAt("watch ls"), ask, u},
		{"Bash", cmdAt("flock f.lock ls"), ask, u},
		{"Bash", cmdAt("setsid ls"), ask, u},
		{"Bash", cmdAt(`jq 'system("x")' a.json`), ask, u},
		{"Bash", cmdAt(`jq -n 'include "m"; 1'`), ask, u},
		{"Bash", cmdAt("jq -nf prog.jq"), ask, u},
		{"Bash", cmdAt("jq -L . -n 1"), ask, u},
		{"Bash", cmdAt("jq --rawfile x a.txt -n '$x'"), ask, u},
		{"Bash", cmdAt("jq --library-path=. -n 1"), ask, u},
		{"Bash", cmdAt("jq .a a.json"), allow, codePermissionAllow},
		{"Bash", cmdAt("jq -c . a.json"), allow, codePermissionAllow},
		{"Bash", cmdAt("find . -name *.txt"), ask, u},
		{"Bash", cmdAt("find a?txt"), ask, u},
		{"Bash", cmdAt("find '*.txt'"), ask, u},
		{"Bash", cmdAt("find . -xf"), ask, u},
		{"Bash", cmdAt("find . -name '*.txt'"), allow, codePermissionAllow},
		{"Bash", cmdAt("find . -type f -name 'a*'"), allow, codePermissionAllow},
	})
	// A bare Bash allow rule runs them, as bypassPermissions does.
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "", []call1{
		{"Bash", cmdAt("eval echo hi"), allow, codePermissionAllow},
		{"Bash", cmdAt("set -a"), allow, codePermissionAllow},
	})
	// The read-only list: find with a glob outside quotes asks.
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("find . -name *.txt"), ask, u},
		{"Bash", cmdAt("find . -name '*.txt'"), allow, codeDefaultReadOnly},
	})
}

// TestExpansionsNotRead: the expansions Claude Code 2.1.328 will not read
// ahead of the shell make the line one it asks for under every rule but a
// bare Bash one (section 0.2, row 6c; TestDifferential/variables-*,
// expansions-*, builtinforms-*).
func TestExpansionsNotRead(t *testing.T) {
	p := codeDefaultPrompt
	cases := []call1{
		{"Bash", cmdAt("echo $X"), ask, p},
		{"Bash", cmdAt(`echo "$X"`), ask, p},
		{"Bash", cmdAt("echo x$X"), ask, p},
		{"Bash", cmdAt("echo $?"), ask, p},
		{"Bash", cmdAt("echo $1"), ask, p},
		{"Bash", cmdAt(`echo "$@"`), ask, p},
		{"Bash", cmdAt("echo $PWD"), ask, p},
		{"Bash", cmdAt(`echo "$PWD"`), ask, p},
		{"Bash", cmdAt(`echo "x$PWD"`), ask, p},
		{"Bash", cmdAt("echo ${HOME}"), ask, p},
		{"Bash", cmdAt(`echo "${#HOME}"`), ask, p},
		{"Bash", cmdAt("A=1; echo $A"), ask, p},
		{"Bash", cmdAt("npm test $X"), ask, p},
		{"Bash", cmdAt(`npm test "$PATH"`), ask, p},
		{"Bash", cmdAt("echo $HOME[1]"), ask, p},
		{"Bash", cmdAt(`echo "$HOME:h"`), ask, p},
		{"Bash", cmdAt(`echo "$#[1]"`), ask, p},
		{"Bash", cmdAt("echo $[1+2]"), ask, p},
		{"Bash", cmdAt("A=~/x"), ask, p},
		{"Bash", cmdAt("A='~'"), ask, p},
		{"Bash", cmdAt("A=x:~/y"), ask, p},
		{"Bash", cmdAt("export A=~/x"), ask, p},
		{"Bash", cmdAt("echo $HOME"), allow, ""},
		{"Bash", cmdAt(`echo "$HOME/x"`), allow, ""},
		{"Bash", cmdAt(`echo "$HOME$PWD"`), allow, ""},
		{"Bash", cmdAt(`echo "xy$PWD"`), allow, ""},
		{"Bash", cmdAt("echo '$X' \\$X"), allow, ""},
		// A lone '$' outside quotes is too complex, under a rule naming
		// echo too (TestDifferential/lonedollarallowed-default).
		{"Bash", cmdAt("echo a $ b"), ask, p},
		{"Bash", cmdAt("echo A=~"), allow, ""},
		{"Bash", cmdAt("cat <<'EOF'\n$X\nEOF"), allow, ""},
	}
	withCode := func(code string) []call1 {
		out := make([]call1, len(cases))
		for i, c := range cases {
			out[i] = c
			if c.want == allow {
				out[i].reason = code
			}
		}
		return out
	}
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)", "Bash(npm test:*)", "Bash(export:*)", "Bash(cat:*)"]}}`, "",
		withCode(codePermissionAllow))
	bare := withCode(codePermissionAllow)
	for i := range bare {
		bare[i].want, bare[i].reason = allow, codePermissionAllow
	}
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "", bare)
}

// TestTestReadOnly: test, [ and [[ as Claude Code 2.1.328 runs them with
// no rule (TestDifferential/echoforms-default, builtinforms-default), and
// the operands it asks for under a rule naming them
// (echoforms-allowed-default).
func TestTestReadOnly(t *testing.T) {
	ro := codeDefaultReadOnly
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("test -f a.txt"), allow, ro},
		{"Bash", cmdAt("[ -f a.txt ]"), allow, ro},
		{"Bash", cmdAt("[[ -f a.txt ]]"), allow, ro},
		{"Bash", cmdAt("[[ a == b ]]"), allow, ro},
		{"Bash", cmdAt("test 1 -lt 2"), allow, ro},
		{"Bash", cmdAt("test 0x1 -eq 1"), allow, ro},
		{"Bash", cmdAt("test a.txt -nt b.txt"), allow, ro},
		{"Bash", cmdAt("test ! -f a.txt"), allow, ro},
		{"Bash", cmdAt("[ a != b ]"), allow, ro},
		{"Bash", cmdAt("[ ]"), allow, ro},
		{"Bash", cmdAt("[ -t 1 ]"), allow, ro},
		{"Bash", cmdAt("test -f /etc/hostname"), allow, ro},
		{"Bash", cmdAt("[ -d free ] && ls free"), allow, ro},
		{"Bash", cmdAt("test -f a.txt || echo n"), allow, ro},
		{"Bash", cmdAt("test a = b"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("test -x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("test -v X"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("test a -a b"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("test a -lt 2"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("[ -f a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("[ -f a[1] ]"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("test -- -f"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("help"), allow, ro},
		{"Bash", cmdAt("help -d cd"), allow, ro},
		{"Bash", cmdAt("help ./x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("help -s cd"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("alias"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("printf '%s\\n' x*"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("printf '%s\\n' a[1]"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("printf '%d\\n' '$x'"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("printf '%s\\n' 'a[1]' '$x' a#b"), allow, ro},
	})
	runCalls(t, `{"permissions": {"allow": ["Bash(test:*)", "Bash([:*)"]}}`, "", []call1{
		{"Bash", cmdAt("test a -lt 2"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("test -t x"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("test a = b"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("[ -f a.txt -a -r a.txt ]"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("[ -f a.txt"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("test -v X"), allow, codePermissionAllow},
	})
}

// TestLiteralArithmetic: an arithmetic expansion of numbers alone is a
// word Claude Code 2.1.328 reads (echo $((1+2)) runs with no rule); one
// naming a variable, or $[...], is not (TestDifferential/builtinforms-*,
// expansions-*).
func TestLiteralArithmetic(t *testing.T) {
	ro, p := codeDefaultReadOnly, codeDefaultPrompt
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("echo $((1+2))"), allow, ro},
		{"Bash", cmdAt("echo $(( (1+2)*3 ))"), allow, ro},
		{"Bash", cmdAt("echo $((16#ff)) $((0x10)) $((1/0))"), allow, ro},
		// Alone in double quotes it asks ("Quoted text in this command
		// can't be checked before it runs": row 132, TestDifferential/
		// paramforms-* records echo "$((1+2))" and echo "a$((1+2))"
		// asking, echo "ab$((1+2))" running).
		{"Bash", cmdAt(`echo "$((1 << 2))"`), ask, p},
		{"Bash", cmdAt(`echo "ab$((1 << 2))"`), allow, ro},
		{"Bash", cmdAt("x=$((1+2))"), allow, ro},
		{"Bash", cmdAt("echo $((1+2)); ls"), allow, ro},
		{"Bash", cmdAt("echo $((x+1))"), ask, p},
		{"Bash", cmdAt("echo $((RANDOM))"), ask, p},
		{"Bash", cmdAt("echo $(($X))"), ask, p},
		// Left open, it is the release's unreadable line, asked for by its
		// removal check, in bypassPermissions too (TestDifferential/
		// genfound4-open-bypassPermissions: echo $((1+2) asks there).
		{"Bash", cmdAt("echo $((1+2)"), ask, codeCriticalPath},
		{"Bash", cmdAt("echo $((0x))"), ask, p},
		{"Bash", cmdAt("echo $(echo 1)"), ask, p},
		{"Bash", cmdAt("echo $[1+2]"), ask, p},
	})
	for _, c := range []struct {
		in   string
		want int
	}{{"$((1+2))", 8}, {"$((1+2)) x", 8}, {"$(( (1)+(2) ))", 14}, {"$((a))", 0}, {"$((1)", 0}, {"$(1)", 0}, {"$((9#z))", 8}} {
		if got := literalArith(c.in); got != c.want {
			t.Errorf("literalArith(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestWrappersAndAwk: awk programs, wrappers, read and unset operands,
// keywords as command names, xargs handing words to find or jq, and
// declarations' options, as Claude Code 2.1.328 asks for them under rules
// naming the commands (TestDifferential/wrapawk-allowed-default,
// builtinforms-allowed-default).
func TestWrappersAndAwk(t *testing.T) {
	u := codeUncheckedCommand
	rules := `{"permissions": {"allow": ["Bash(awk:*)", "Bash(ls:*)", "Bash(env:*)", "Bash(read:*)", "Bash(unset:*)",
		"Bash(wait:*)", "Bash(printf:*)", "Bash(if:*)", "Bash(then:*)", "Bash(xargs:*)", "Bash(find:*)", "Bash(jq:*)",
		"Bash(grep:*)", "Bash(declare:*)", "Bash(export:*)", "Bash(readonly:*)", "Bash(local:*)"]}}`
	runCalls(t, rules, "", []call1{
		{"Bash", cmdAt(`awk '{system("echo x")}' a.txt`), ask, u},
		{"Bash", cmdAt(`awk '{print | "cat"}' a.txt`), ask, u},
		{"Bash", cmdAt(`awk '{ "date" | getline d; print d }' a.txt`), ask, u},
		{"Bash", cmdAt(`awk '@load "x"' a.txt`), ask, u},
		{"Bash", cmdAt(`awk 'BEGIN{extension("x")}'`), ask, u},
		{"Bash", cmdAt(`awk 'BEGIN{print "x" > "/inet/tcp/0/localhost/80"}'`), ask, u},
		{"Bash", cmdAt("awk '{print}' *.txt"), ask, u},
		{"Bash", cmdAt("awk -e '{print}' a.txt"), ask, u},
		{"Bash", cmdAt(`awk '{print $1}' a.txt`), allow, codePermissionAllow},
		{"Bash", cmdAt(`awk '{print $1 > "out"; n = a || b}' a.txt`), allow, codePermissionAllow},
		{"Bash", cmdAt("time -p ls"), ask, u},
		{"Bash", cmdAt("command -x ls"), ask, u},
		{"Bash", cmdAt("stdbuf -x ls"), ask, u},
		{"Bash", cmdAt("timeout 5x ls"), ask, u},
		{"Bash", cmdAt("timeout --bogus 5 ls"), ask, u},
		{"Bash", cmdAt("nice -x ls"), ask, u},
		{"Bash", cmdAt("time ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout -k 5 10 ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout 1m ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice -n 5 ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -oL ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("command -p ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("command noglob ls"), ask, u},
		{"Bash", cmdAt("builtin noglob ls"), ask, u},
		{"Bash", cmdAt("noglob command ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("env -S 'ls -l'"), ask, u},
		{"Bash", cmdAt("env -i -u X A=1 ls"), allow, codePermissionAllow},
		{"Bash", cmdAt("read -a 'arr[1]' < a.txt"), ask, u},
		{"Bash", cmdAt("unset 'a[1]'"), ask, u},
		{"Bash", cmdAt("read -t x y < a.txt"), ask, u},
		{"Bash", cmdAt("read -p 'a[1]' x < a.txt"), ask, u},
		{"Bash", cmdAt("printf -v 'a[1]' x"), ask, u},
		{"Bash", cmdAt("wait -p 'v[1]'"), ask, u},
		{"Bash", cmdAt("read -t 1 x < a.txt"), allow, codePermissionAllow},
		{"Bash", cmdAt("unset -v x"), allow, codePermissionAllow},
		{"Bash", cmdAt("printf -v v x"), allow, codePermissionAllow},
		{"Bash", cmdAt("'if' true"), ask, u},
		{"Bash", cmdAt(`"then"`), ask, u},
		{"Bash", cmdAt("ls | xargs find"), ask, u},
		{"Bash", cmdAt("ls | xargs jq ."), ask, u},
		{"Bash", cmdAt("ls | xargs grep x"), allow, codePermissionAllow},
		{"Bash", cmdAt("export -n X=1"), ask, u},
		{"Bash", cmdAt("export X=1 -n"), ask, u},
		{"Bash", cmdAt("readonly R=1 R=2"), ask, u},
		{"Bash", cmdAt("declare -I x"), ask, u},
		{"Bash", cmdAt("export -n X"), allow, codePermissionAllow},
		{"Bash", cmdAt("declare -rx X=1"), allow, codePermissionAllow},
		{"Bash", cmdAt("local -r x=1"), allow, codePermissionAllow},
	})
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("command -x ls"), ask, u},
		{"Bash", cmdAt("command noglob ls"), ask, u},
		{"Bash", cmdAt("timeout 5x ls"), ask, u},
		{"Bash", cmdAt("ls | xargs grep x"), allow, codeDefaultReadOnly},
	})
}

// TestFindActionsAndShellVariables: find's actions under a rule naming
// find, the variables unset, read, printf -v and getopts may not write,
// and a comment line inside quotes (TestDifferential/redirshapes-*).
func TestFindActionsAndShellVariables(t *testing.T) {
	u := codeUncheckedCommand
	rules := `{"permissions": {"allow": ["Bash(find:*)", "Bash(unset:*)", "Bash(read:*)", "Bash(printf:*)", "Bash(getopts:*)",
		"Bash(echo:*)", "Bash(cat:*)"]}}`
	runCalls(t, rules, "", []call1{
		{"Bash", cmdAt("find . -name rs9 -exec ls {} \\;"), ask, u},
		{"Bash", cmdAt("find . -name rs9 -exec rm {} +"), ask, u},
		{"Bash", cmdAt("find . -name rs9 -delete"), ask, u},
		{"Bash", cmdAt("find . -name rs9 -ok ls {} \\;"), ask, u},
		{"Bash", cmdAt("find . -name rs9 -execdir ls {} +"), ask, u},
		{"Bash", cmdAt("find . -name rs9 -fprint rs10.txt"), ask, u},
		{"Bash", cmdAt("find . -name rs9 -print"), allow, codePermissionAllow},
		{"Bash", cmdAt("unset PATH"), ask, u},
		{"Bash", cmdAt("unset IFS"), ask, u},
		{"Bash", cmdAt("unset LD_PRELOAD"), ask, u},
		{"Bash", cmdAt("unset RANDOM"), ask, u},
		{"Bash", cmdAt("unset -n X"), ask, u},
		{"Bash", cmdAt("read PATH < a.txt"), ask, u},
		{"Bash", cmdAt("read -r IFS < a.txt"), ask, u},
		{"Bash", cmdAt("printf -v PATH x"), ask, u},
		{"Bash", cmdAt("getopts ab PATH"), ask, u},
		{"Bash", cmdAt("unset X"), allow, codePermissionAllow},
		{"Bash", cmdAt("unset -f fn"), allow, codePermissionAllow},
		{"Bash", cmdAt("read x < a.txt"), allow, codePermissionAllow},
		{"Bash", cmdAt("getopts ab opt"), allow, codePermissionAllow},
		{"Bash", cmdAt("cat 'a.txt\n#b'"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo \"x\n  # y\""), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo 'x\ny # z'"), allow, codePermissionAllow},
		{"Bash", cmdAt("cat <<'EOF'\nit's\n# x\nEOF"), allow, codePermissionAllow},
	})
}

// TestZshFlagsAndQuotedDeclarations: zsh's expansion flags make a line
// one 2.1.328 does not read; a declaration's quoted operand is read
// unquoted, and export's literal arithmetic is an expansion it will not
// assign unchecked (TestDifferential/zshflags-*).
func TestZshFlagsAndQuotedDeclarations(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(echo:*)", "Bash(declare:*)", "Bash(export:*)", "Bash(local:*)"]}}`
	runCalls(t, rules, "", []call1{
		{"Bash", cmdAt("echo $+x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo $^x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo $=x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`echo "$+x"`), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo a$+"), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`echo 'a$+' "x$"`), allow, codePermissionAllow},
		{"Bash", cmdAt(`declare "x=1"`), allow, codePermissionAllow},
		{"Bash", cmdAt(`local "x"=1`), allow, codePermissionAllow},
		// A quoted arithmetic alone makes the line too complex first
		// (row 132, TestDifferential/paramforms-*: echo "$((1+2))" asks).
		{"Bash", cmdAt(`declare x="$((1+2))"`), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`declare 'x=a\b'`), ask, codeUncheckedCommand},
		{"Bash", cmdAt("export A=$((1+2))"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("export A=1"), allow, codePermissionAllow},
		{"Bash", cmdAt("export X=$HOME"), allow, codePermissionAllow},
	})
}

// TestConditionalGlobsAndOperators: a glob outside quotes in a test, [ ]
// or [[ ]] asks; inside [[ ]] its own operators are words of the test, not
// the line's, and a deny rule still sees the commands after its ]]
// (TestDifferential/condglobs-default, shellforms-default).
func TestConditionalGlobsAndOperators(t *testing.T) {
	ro, prompt := codeDefaultReadOnly, codeDefaultPrompt
	runCalls(t, `{"permissions": {"deny": ["Bash(rm:*)"]}}`, "", []call1{
		{"Bash", cmdAt("[[ a == b* ]]"), ask, prompt},
		{"Bash", cmdAt("[[ a =~ b* ]]"), ask, prompt},
		{"Bash", cmdAt("[[ -f *.txt ]]"), ask, prompt},
		{"Bash", cmdAt(`[[ a == "b"* ]]`), ask, prompt},
		{"Bash", cmdAt("[ a = b* ]"), ask, prompt},
		{"Bash", cmdAt("test -f a*"), ask, prompt},
		{"Bash", cmdAt("[[ -z a? ]]"), ask, prompt},
		{"Bash", cmdAt("[[ a == 'b*' ]]"), allow, ro},
		{"Bash", cmdAt(`[[ a == \*b ]]`), allow, ro},
		{"Bash", cmdAt("[[ a =~ ^a ]]"), allow, ro},
		{"Bash", cmdAt("[[ a < b ]]"), allow, ro},
		{"Bash", cmdAt("[[ -f a.txt || -f b.txt ]]"), allow, ro},
		{"Bash", cmdAt("[[ -f a.txt && -r a.txt ]] && ls"), allow, ro},
		{"Bash", cmdAt("[[ ( -f a.txt ) ]]"), allow, ro},
		{"Bash", cmdAt("[[ -f a.txt && ( -r a.txt || -w a.txt ) ]]"), allow, ro},
		{"Bash", cmdAt("[[ -f a.txt ]] && rm a.txt"), deny, codePermissionDeny},
		{"Bash", cmdAt("[[ -f a.txt ]]; rm a.txt"), deny, codePermissionDeny},
		{"Bash", cmdAt("[[ -f a.txt && rm a.txt"), deny, codePermissionDeny},
		{"Bash", cmdAt("echo [[ a && rm a.txt ]]"), deny, codePermissionDeny},
		{"Bash", cmdAt("[[ -f a.txt && $(rm a.txt) ]]"), deny, codePermissionDeny},
		{"Bash", cmdAt("echo \\; [[ a && rm a.txt ]]"), deny, codePermissionDeny},
		{"Bash", cmdAt("ls; ! [[ -f a.txt && -r a.txt ]] || rm a.txt"), deny, codePermissionDeny},
		{"Bash", cmdAt("[[ -f <(rm a.txt) ]]"), deny, codePermissionDeny},
		{"Bash", cmdAt("[[ -f a.txt && -f >(rm a.txt) ]]"), deny, codePermissionDeny},
	})
	// [[ as an argument is a word like any other: the operators after it
	// split the line.
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)"]}}`, "", []call1{
		{"Bash", cmdAt("echo [[ a && rm a.txt ]]"), ask, prompt},
		{"Bash", cmdAt("echo \\; [[ a && rm a.txt ]]"), ask, prompt},
		{"Bash", cmdAt("echo x [[ a || rm a.txt ]]"), ask, prompt},
		{"Bash", cmdAt("echo x; [[ -f a.txt && -r a.txt ]]"), allow, codePermissionAllow},
		{"Bash", cmdAt("[[ -f <(rm a.txt) ]]"), ask, prompt},
	})
}

// TestCompoundStatements: the commands of if, while, until and for
// statements are decided as any other, their keywords and a plain for
// header run nothing; a line whose statements do not open and close in
// order, case, select, for ((...)) and functions keep asking; a deny rule
// sees every command of them (TestDifferential/shellforms-*).
func TestCompoundStatements(t *testing.T) {
	ro, prompt := codeDefaultReadOnly, codeDefaultPrompt
	runCalls(t, `{"permissions": {"deny": ["Bash(rm:*)"]}}`, "", []call1{
		{"Bash", cmdAt("if true; then ls; fi"), allow, ro},
		{"Bash", cmdAt("if [ -f a.txt ]; then cat a.txt; fi"), allow, ro},
		{"Bash", cmdAt("if true; then ls; elif false; then ls; else echo x; fi"), allow, ro},
		{"Bash", cmdAt("while false; do ls; done"), allow, ro},
		{"Bash", cmdAt("until true; do ls; done"), allow, ro},
		{"Bash", cmdAt("for f in *.txt; do echo x; done"), allow, ro},
		{"Bash", cmdAt("for f in a b; do echo x; done | sort"), allow, ro},
		{"Bash", cmdAt("if true\nthen\n  ls\nfi"), allow, ro},
		{"Bash", cmdAt("if true; then while false; do ls; done; fi"), allow, ro},
		{"Bash", cmdAt("if [[ -f a.txt && -r a.txt ]]; then cat a.txt; fi"), allow, ro},
		{"Bash", cmdAt("for f in a.txt; do cat $f; done"), ask, prompt},
		{"Bash", cmdAt("for PATH in a; do echo x; done"), ask, prompt},
		{"Bash", cmdAt("for f in $(ls); do echo x; done"), ask, prompt},
		{"Bash", cmdAt("for f in 'a b'; do echo x; done"), allow, ro}, // runs in 2.1.328: TestDifferential/compound-default
		{"Bash", cmdAt("for f in 'a;b'; do echo x; done"), ask, prompt},
		{"Bash", cmdAt("for ((i=0;i<1;i++)); do echo x; done"), ask, prompt},
		{"Bash", cmdAt("case x in a) ls;; esac"), ask, prompt},
		{"Bash", cmdAt("select x in a; do ls; done"), ask, prompt},
		{"Bash", cmdAt("then ls"), ask, prompt},
		{"Bash", cmdAt("if true; then ls"), ask, prompt}, // deliberate: 2.1.328 runs it (compound-default), Bash refuses the line
		{"Bash", cmdAt("while true; then ls; fi"), ask, prompt},
		{"Bash", cmdAt("ls; fi"), ask, prompt},
		{"Bash", cmdAt("for f in a; do echo x; done > out.txt"), ask, prompt},
		{"Bash", cmdAt("if true; then touch x.txt; fi"), ask, prompt},
		{"Bash", cmdAt("if true; then rm a.txt; fi"), deny, codePermissionDeny},
		{"Bash", cmdAt("while rm a.txt; do ls; done"), deny, codePermissionDeny},
		{"Bash", cmdAt("for f in a; do rm a.txt; done"), deny, codePermissionDeny},
		{"Bash", cmdAt("! ls"), allow, ro},
		{"Bash", cmdAt("if ! ls; then echo x; fi"), allow, ro},
		{"Bash", cmdAt("if true; then ls; fi | grep x"), allow, ro},
		{"Bash", cmdAt("if true; then echo x | grep x; fi"), ask, prompt},
		{"Bash", cmdAt("if ls | grep x; then echo y; fi"), ask, prompt},
		{"Bash", cmdAt("! rm a.txt"), deny, codePermissionDeny},
		{"Bash", cmdAt("if ! rm a.txt; then ls; fi"), deny, codePermissionDeny},
	})
	runCalls(t, `{"permissions": {"allow": ["Bash(rm:*)"]}}`, "", []call1{
		{"Bash", cmdAt("if ls; then rm al1.txt; fi"), allow, ro}, // as ls; rm al1.txt
		{"Bash", cmdAt("if ls; then rm al1.txt; touch b.txt; fi"), ask, prompt},
	})
}

// TestReadOnlyCallbacks: the read-only entries whose options the release
// checks with a function of its own: tput, ss, lsof, git ls-remote,
// docker logs and inspect, fd, man (TestDifferential/callbacks-default).
func TestReadOnlyCallbacks(t *testing.T) {
	ro, prompt := codeDefaultReadOnly, codeDefaultPrompt
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("tput cols"), allow, ro},
		{"Bash", cmdAt("tput -T xterm cols"), allow, ro},
		{"Bash", cmdAt("tput setaf 1"), allow, ro},
		{"Bash", cmdAt("tput clear"), ask, prompt},
		{"Bash", cmdAt("tput reset"), ask, prompt},
		{"Bash", cmdAt("tput -S"), ask, prompt},
		{"Bash", cmdAt("tput -xS"), ask, prompt},
		{"Bash", cmdAt("tput -- init"), ask, prompt},
		{"Bash", cmdAt("ss -tln"), allow, ro},
		{"Bash", cmdAt("ss state listening"), allow, ro},
		{"Bash", cmdAt("ss -tlnp dst 1.2.3.4"), allow, ro},
		{"Bash", cmdAt("ss -f inet"), allow, ro},
		{"Bash", cmdAt("ss dst ::1"), allow, ro},
		{"Bash", cmdAt("ss -K"), ask, prompt},
		{"Bash", cmdAt("ss dst example.com"), ask, prompt},
		{"Bash", cmdAt("ss dst cafe"), ask, prompt},
		{"Bash", cmdAt("lsof -i"), allow, ro},
		{"Bash", cmdAt("lsof -p 1"), allow, ro},
		{"Bash", cmdAt("lsof +D ."), allow, ro},
		{"Bash", cmdAt("lsof -i @1.2.3.4"), allow, ro},
		{"Bash", cmdAt("lsof +m"), ask, prompt},
		{"Bash", cmdAt("lsof -i @example.com"), ask, prompt},
		{"Bash", cmdAt("lsof -i@example.com:80"), ask, prompt},
		{"Bash", cmdAt("lsof +x"), ask, prompt},
		{"Bash", cmdAt("git ls-remote"), allow, ro},
		{"Bash", cmdAt("git ls-remote --tags"), allow, ro},
		{"Bash", cmdAt("git ls-remote origin"), ask, prompt},
		{"Bash", cmdAt("git ls-remote -- origin"), ask, prompt},
		{"Bash", cmdAt("git ls-remote --upload-pack=x"), ask, prompt},
		{"Bash", cmdAt("docker logs x"), allow, ro},
		{"Bash", cmdAt("docker logs -f --tail 10 x"), allow, ro},
		{"Bash", cmdAt("docker inspect --format '{{.Id}}' x"), allow, ro},
		{"Bash", cmdAt("docker logs -H tcp://h x"), ask, prompt},
		{"Bash", cmdAt("docker logs --since=~x x"), ask, prompt},
		{"Bash", cmdAt("docker run x"), ask, prompt},
		{"Bash", cmdAt("docker"), ask, prompt},
		{"Bash", cmdAt("fd x"), allow, ro},
		{"Bash", cmdAt("fdfind -e txt"), allow, ro},
		{"Bash", cmdAt("fd -x ls"), ask, prompt},
		{"Bash", cmdAt("fd --exec ls"), ask, prompt},
		{"Bash", cmdAt("man ls"), allow, ro},
		{"Bash", cmdAt("man -k ls"), allow, ro},
		{"Bash", cmdAt("man -s 1 ls"), allow, ro},
		{"Bash", cmdAt("man -f ./x"), allow, ro},
		{"Bash", cmdAt("man -s 'a b' ls"), ask, prompt},
		{"Bash", cmdAt("man -P cat ls"), ask, prompt},
		{"Bash", cmdAt("man --pager=cat ls"), ask, prompt},
		{"Bash", cmdAt("man ./x.1"), ask, prompt},
		{"Bash", cmdAt("man ~/x.1"), ask, prompt},
		{"Bash", cmdAt("man -k -- -x"), ask, prompt},
	})
}

// TestConditionalForms: a [[ ]] Bash cannot read asks under any rule; its
// < and > compare, a redirection after its ]] is one; a pattern's group,
// an extended pattern and a brace are words of it
// (TestDifferential/condforms-*, condglobs-default).
func TestConditionalForms(t *testing.T) {
	ro, prompt := codeDefaultReadOnly, codeDefaultPrompt
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("[[ a < b && c > d ]]"), allow, ro},
		{"Bash", cmdAt("[[ (a) ]]"), allow, ro},
		{"Bash", cmdAt("[[ a == (b) ]]"), allow, ro},
		{"Bash", cmdAt("[[ x == @(a|b) ]]"), allow, ro},
		{"Bash", cmdAt("[[ a == {a,b} ]]"), allow, ro},
		{"Bash", cmdAt("[[ -f a.txt && ls ]]"), allow, ro},
		{"Bash", cmdAt("[[ ! ( -f a.txt || ! -d b ) ]]"), allow, ro},
		{"Bash", cmdAt("[[ a b c ]]"), ask, prompt},
		{"Bash", cmdAt("[[ -f a.txt rm ]]"), ask, prompt},
		{"Bash", cmdAt("[[ a == ]]"), ask, prompt},
		{"Bash", cmdAt("[[ ( a ]]"), ask, prompt},
		{"Bash", cmdAt("[[ a > b ]] > out.txt"), ask, codeRedirect},
	})
	runCalls(t, `{"permissions": {"allow": ["Bash(rm:*)", "Bash([[:*)"]}}`, "", []call1{
		{"Bash", cmdAt("[[ a && rm x ]]"), ask, prompt},
		{"Bash", cmdAt("[[ a b c ]]"), ask, prompt},
		{"Bash", cmdAt("[[ a == b ]]"), allow, codePermissionAllow},
	})
}
