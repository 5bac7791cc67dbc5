package claudecode

import (
	"slices"
	"testing"
)

// TestQuotedWordsInSegments: a quoted span or an escaped blank before a
// denied command inside a substitution, a subshell or a group stays one
// word, so the deny rule sees the command (nestedSegments' second
// reading; each call is a 2.1.328 case of TestDifferential/
// nestedquoted-*, where the release denies in both modes).
func TestQuotedWordsInSegments(t *testing.T) {
	denyRm := `{"permissions":{"deny":["Bash(rm:*)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, denyRm, mode, []call1{
			{"Bash", cmdAt(`echo $(> "a b" rm nq1.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(FOO="a b" rm nq2.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(2> 'a b' rm nq3.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`(FOO="a b" rm nq4.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`{ FOO="a b" rm nq5.txt; }`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo "$(FOO='a b' rm nq6.txt)"`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(env FOO="a b" rm nq7.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt("echo `FOO=\"a b\" rm nq9.txt`"), deny, codePermissionDeny},
			{"Bash", cmdAt(`cat <(FOO="a b" rm nq10.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(FOO="a;b" rm nq12.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(FOO='x y z' BAR="1 2" rm nq13.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(> "a b" FOO=1 rm nq14.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(< "a b" rm nq19.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(FOO="a b"c rm nq20.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(FOO=a\ b rm nq21.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(> a\ b rm nq22.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`(> a\ b rm nq23.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(env "FOO=a b" rm nq24.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo $(FOO="a b" BAR=c env rm nq27.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`echo ${x:-$(rm rs28.txt)}`), deny, codePermissionDeny},
			{"Bash", cmdAt("echo \"${x:-`rm rs28.txt`}\""), deny, codePermissionDeny},
		})
	}
}

// TestQuotedWordsBeforePathsAndRemovals: the second reading reaches the
// path rules and the critical-path check too (2.1.328 cases of
// TestDifferential/nestedquoted-paths-* and nestedquoted-critical-*).
func TestQuotedWordsBeforePathsAndRemovals(t *testing.T) {
	paths := `{"permissions":{"deny":["Read(./secret/**)","Edit(./locked/**)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, paths, mode, []call1{
			{"Bash", cmdAt(`(> "a b" cat secret/s.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`cat "secret/s.txt"`), deny, codePermissionDeny},
			// Stricter than the release, which asks (runs, in
			// bypassPermissions): deliberate.json.
			{"Bash", cmdAt(`echo $(FOO="a b" cat secret/s.txt)`), deny, codePermissionDeny},
			{"Bash", cmdAt(`{ FOO='a b' touch locked/q1.txt; }`), deny, codePermissionDeny},
		})
	}
	for _, mode := range []string{"bypassPermissions", "acceptEdits"} {
		runCalls(t, `{}`, mode, []call1{
			{"Bash", cmdAt(`(FOO="a b" rm -rf /)`), ask, codeCriticalPath},
			{"Bash", cmdAt(`echo $(> "a b" rm -rf ~)`), ask, codeCriticalPath},
			{"Bash", cmdAt(`{ FOO='a b' rm -rf /etc; }`), ask, codeCriticalPath},
			{"Bash", cmdAt("echo `> 'a b' rm -rf /`"), ask, codeCriticalPath},
		})
	}
}

// TestNestedShellScripts: a shell -c script run inside a subshell or a
// substitution is read as at the top level, and a lone "-" or "--" ends
// a shell's options (2.1.328 cases of TestDifferential/shlaunch-*).
func TestNestedShellScripts(t *testing.T) {
	denyRm := `{"permissions":{"deny":["Bash(rm:*)"]}}`
	runCalls(t, denyRm, "bypassPermissions", []call1{
		{"Bash", cmdAt(`(bash -c 'rm sl18.txt')`), ask, codeDenyInScript},
		{"Bash", cmdAt(`echo $(bash -c 'rm sl19.txt')`), ask, codeDenyInScript},
		{"Bash", cmdAt(`bash -c - 'rm sl7.txt'`), ask, codeDenyInScript},
		{"Bash", cmdAt(`sh -c - 'rm sl9.txt'`), ask, codeDenyInScript},
		{"Bash", cmdAt(`bash -c -- 'rm si7.txt'`), ask, codeDenyInScript},
		{"Bash", cmdAt(`bash - -c 'rm sl8.txt'`), allow, codeModeBypass},
		{"Bash", cmdAt(`xargs -I{} sh -c 'rm {}' < a.txt`), allow, codeModeBypass},
	})
}

// TestQuotedSegments: the shell's words of a line, segment by segment.
func TestQuotedSegments(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want [][]string
	}{
		{`echo $(FOO="a b" rm x)`, [][]string{{"echo"}, {"FOO=a b", "rm", "x"}}},
		{`echo "a; $(rm x) b" c`, [][]string{{"echo", "a; "}, {"rm", "x"}, {" b", "c"}}},
		{`(> a\ b rm x) && ls`, [][]string{{">", "a b", "rm", "x"}, {"ls"}}},
		{`echo $'a\'b c' 2>&1 &>/dev/null`, [][]string{{"echo", `$'a\'b c'`, "2>&1", "&>/dev/null"}}},
		{"a\\\nb 'open ; rest", [][]string{{"a", "b", "open ; rest"}}},
		{"\"x\\\ny\"", [][]string{{"xy"}}},
		{`x=${a:-"b c"} y`, [][]string{{`x=${a:-"b c"}`, "y"}}},
		{`echo ${x:-$(rm f)} y`, [][]string{{"echo", "${x:-"}, {"rm", "f"}, {"y"}}},
		{"echo `rm x`; ls", [][]string{{"echo"}, {"rm", "x"}, {"ls"}}},
		{`"" ''`, [][]string{{"", ""}}},
		{`xargs -I{} sh -c 'rm {}' < a.txt; { ls; }`, [][]string{{"xargs", "-I{}", "sh", "-c", "rm {}", "<", "a.txt"}, {"ls"}}},
		{`echo {a,b} }x {}`, [][]string{{"echo", "{a,b}", "}x", "{}"}}},
		{`echo \>& rm x`, [][]string{{"echo", ">"}, {"rm", "x"}}},
		{`echo '>'& rm x; a 2>&1`, [][]string{{"echo", ">"}, {"rm", "x"}, {"a", "2>&1"}}},
	} {
		if got := quotedSegments(c.cmd); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("quotedSegments(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

// TestWrappersByPath: a wrapper named by its path is read through as by
// its name (2.1.328 cases of TestDifferential/cmdpaths-*).
func TestWrappersByPath(t *testing.T) {
	denyRm := `{"permissions":{"deny":["Bash(rm:*)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, denyRm, mode, []call1{
			{"Bash", cmdAt("/usr/bin/timeout 5 rm cp17.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("/bin/timeout 5 rm cp35.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("/usr/bin/timeout -s KILL 5 rm cp36.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("/usr/bin/timeout 5 /usr/bin/timeout 5 rm cp39.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("/usr/bin/nohup rm cp21.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("echo cp24.txt | /usr/bin/xargs rm"), deny, codePermissionDeny},
			{"Bash", cmdAt("/usr/bin/stdbuf -o0 rm cp22.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("/usr/bin/time rm cp23.txt"), deny, codePermissionDeny},
		})
	}
}

// TestCriticalAndAcceptEditsWrappers: the critical-path check reads
// through wrappers named by their paths and through env, and acceptEdits
// does not approve what xargs runs nor touch, mv or cp behind a wrapper
// (2.1.328 cases of TestDifferential/critwrap-* and acceptwrap-*).
func TestCriticalAndAcceptEditsWrappers(t *testing.T) {
	runCalls(t, `{}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("/usr/bin/timeout 5 rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("/usr/bin/nohup rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("/usr/bin/nice rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("/usr/bin/time rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("/usr/bin/stdbuf -o0 rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("env rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("/usr/bin/env rmdir /usr"), ask, codeCriticalPath},
		{"Bash", cmdAt("setsid rmdir /usr"), allow, codeModeBypass},
		{"Bash", cmdAt("/usr/bin/setsid rmdir /usr"), allow, codeModeBypass},
	})
	runCalls(t, `{}`, "acceptEdits", []call1{
		{"Bash", cmdAt("timeout 5 rm a2.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("nohup mkdir d1"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("LANG=C rm a11.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("timeout 5 touch t1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=C touch t4.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("command touch t3.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("nohup cp s1.txt c1.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("stdbuf -o0 cp s1.txt c2.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("timeout 5 sed -i s/a/b/ s1.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("xargs rmdir < a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("xargs rm < list.txt"), ask, codeDefaultPrompt},
	})
}

// TestAcceptEditsRedirectsAndWrappers: acceptEdits approves a filesystem
// command whose output goes to /dev/null, a descriptor or a file in the
// project, as Claude Code 2.1.328 does, and asks behind a wrapper it cannot
// check and for touch not written as the first word
// (TestDifferential/acceptredir-acceptEdits, acceptwrap2-acceptEdits,
// timeopts-acceptEdits).
func TestAcceptEditsRedirectsAndWrappers(t *testing.T) {
	runCalls(t, `{}`, "acceptEdits", []call1{
		{"Bash", cmdAt("touch r1.txt > o2.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("rm r2.txt 2> e1.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("cp s1.txt r4.txt >> o3.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("touch r5.txt &> /dev/null"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("rm r6.txt >/dev/null 2>&1"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("touch r10.txt >| o4.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("sed -i s/a/b/ s1.txt > o5.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("rm r11.txt 1>&2"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("mkdir r13 2>/dev/null && touch r13/x.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt(`touch r21.txt > "o8.txt"`), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("mkdir r3 > /tmp/ledger-probe-o.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch r7.txt 2>&-"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("mv s2.txt r8.txt > .claude/o.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch r9.txt > ~/o.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch r12.txt > o*.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch r16.txt > ../o6.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch r22.txt > $HOME/o9.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`\touch t7.txt`), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`\cp s1.txt c7.txt`), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("time -p rm b10.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout -s KILL 5 rm b2.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("nice -5 rm b11.txt"), allow, codeModeAcceptEdits},
	})
}

// TestAcceptEditsMonitor: acceptEdits approves Monitor's filesystem
// commands as Bash's (TestDifferential/acceptmon-acceptEdits).
func TestAcceptEditsMonitor(t *testing.T) {
	runCalls(t, `{}`, "acceptEdits", []call1{
		{"Monitor", cmdAt("touch m2.txt"), allow, codeModeAcceptEdits},
		{"Monitor", cmdAt("mkdir md1"), allow, codeModeAcceptEdits},
		{"Monitor", cmdAt("rm m0.txt"), allow, codeModeAcceptEdits},
		{"Monitor", cmdAt("touch ../m0.txt"), ask, codeDefaultPrompt},
	})
	runCalls(t, `{}`, "default", []call1{
		{"Monitor", cmdAt("touch m2.txt"), ask, codeDefaultPrompt},
	})
}

// TestAllowPastWrappers: what allow rules and the read-only list see past
// a wrapper, as Claude Code 2.1.328 reads it: an assignment only before
// the wrappers, stdbuf only with its modes written into its options, and
// command or builtin not after timeout for the read-only list
// (TestDifferential/allowwrapopts-*, allowwraporder-default).
func TestAllowPastWrappers(t *testing.T) {
	runCalls(t, `{"permissions":{"allow":["Bash(npm test:*)"]}}`, "default", []call1{
		{"Bash", cmdAt("LANG=C nice npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice LANG=C npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("nice -n 5 LANG=C npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5 NO_COLOR=1 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=C LC_ALL=C npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -oL npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -o0 -e0 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -o 0 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("stdbuf -i 0 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("stdbuf -o0 -o 0 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("stdbuf --output=0 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("stdbuf --error=L npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5 command npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout 5 command ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5 builtin ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5 command -p ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5 LANG=C ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("command timeout 5 ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("timeout 5 timeout 5 ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("LANG=C command ls"), allow, codeDefaultReadOnly},
	})
	runCalls(t, `{"permissions":{"allow":["Bash(stdbuf:*)"]}}`, "default", []call1{
		{"Bash", cmdAt("stdbuf -o L ls"), allow, codePermissionAllow},
		// The rule sees stdbuf and what it runs (row 116,
		// TestDifferential/wrapallow-stdbuf-default); the option the
		// release does not read through asks (row 66).
		{"Bash", cmdAt("stdbuf -x ls"), ask, codeUncheckedCommand},
	})
}

// TestAllowPastAssignments: the assignments allow rules and the read-only
// list see past, each call as Claude Code 2.1.328 decided it
// (TestDifferential/allowassign-default, allowassignval-default).
func TestAllowPastAssignments(t *testing.T) {
	runCalls(t, `{"permissions":{"allow":["Bash(npm test:*)", "Bash(git log:*)"]}}`, "default", []call1{
		{"Bash", cmdAt("NODE_ENV=test npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("FORCE_COLOR=1 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("TERM=dumb npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LC_CTYPE=C npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("TZ=UTC npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("CI=1 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("RUST_BACKTRACE=1 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("PYTHONUNBUFFERED=1 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("DEBUG=1 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANGUAGE=C npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LC_MESSAGES=C npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NO_COLOR= npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG= npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=C.UTF-8 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LANG='C' npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=\"C\" npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=C ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("LC_CTYPE=C ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("TZ=UTC ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("COLUMNS=80 ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("PAGER=cat git log"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("GIT_PAGER=cat git log"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=C LANG=C npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NO_COLOR=1 LANG=C ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("LANG=C\\ x npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LC_ALL=en_US.UTF-8 ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("LANG=~ ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=foo npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("TZ=/etc/localtime npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("TZ=America/New_York npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NODE_ENV=./x npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("TERM=xterm-256color npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("GOOS=linux npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("ANTHROPIC_API_KEY=x npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LC_TIME=C npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NODE_ENV=a..b npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NODE_ENV=a/../b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("CI=true ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("TERM=a//b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=x:/y npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LANG=c.utf8 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LANG=en_US.UTF-8@euro npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=te*st npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a,b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a%b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a+b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a=b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a@b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=\u00e9 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("LC_ALL=POSIX npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LC_CTYPE=UTF-8 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LANG=C.utf8 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NODE_ENV=~x npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=x~ npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a:b npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NODE_ENV=a:.b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=.. npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=a/b npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("NODE_ENV=a\\b npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("NODE_ENV=-x npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LINES=24 COLUMNS=80 ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("NO_COLOR=1 DEBUG=1 npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("DEBIAN_FRONTEND=noninteractive npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("GIT_TERMINAL_PROMPT=0 git log"), allow, codePermissionAllow},
		{"Bash", cmdAt("LANG=C LC_MESSAGES=C ls"), ask, codeDefaultPrompt},
	})
}

// TestQuotedWrapperWords: a wrapper named with quotes or a backslash is
// the wrapper, and a quoted or escaped word of its options asks, as Claude
// Code 2.1.328 decides (TestDifferential/quotedwrap-default,
// timeoutforms-default).
func TestQuotedWrapperWords(t *testing.T) {
	runCalls(t, `{"permissions":{"allow":["Bash(npm test:*)"]}}`, "default", []call1{
		{"Bash", cmdAt("timeout '5' npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("nice -n '5' npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("stdbuf '-oL' npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout \"5\" npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("timeout 5\\s npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("'timeout' 5 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("\"nice\" npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("\\timeout 5 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout 5 'npm' test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout -s \"KILL\" 5 ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("nice '-5' npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("'nohup' npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("time 'nohup' npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout 5 \\nice npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout -s KIL\\L 5 npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("timeout -s 'KILL' 5 npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("'nice' ls"), ask, codeDefaultPrompt},
	})
}

// TestWrapperStripForms: the wrapper forms of the release's allow strip,
// each call as Claude Code 2.1.328 decided it under Bash(npm test:*)
// (TestDifferential/stripforms-default).
func TestWrapperStripForms(t *testing.T) {
	runCalls(t, `{"permissions":{"allow":["Bash(npm test:*)"]}}`, "default", []call1{
		{"Bash", cmdAt("stdbuf npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("stdbuf -oK npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("stdbuf -o1M npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("stdbuf -e1k npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("stdbuf -oN npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -o0L npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -oL -- npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("nice -n 5 -n 6 npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("nice -5 -5 npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("nice -n 5 -- npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("nice -- npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("time time npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("command -pp npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("command -p -p npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("builtin -- npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("noglob noglob npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout -v -v 5 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice -n -5 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice -n +5 npm test"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("nice - npm test"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("stdbuf -i0 -o0 -e0 npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -oL nice npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice stdbuf -oL npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -oL stdbuf -eL npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nice time npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("timeout 5 time npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("nohup time npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("command time npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("LANG=C time npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("time nohup npm test"), allow, codePermissionAllow},
		{"Bash", cmdAt("stdbuf -oL time npm test"), allow, codePermissionAllow},
	})
}

// TestEnvPaths: Read and Edit deny rules see the command env runs past its
// assignments, -i, -0, -v and -u NAME, as Claude Code 2.1.328's path
// check does (section 0.2, row 68; TestDifferential/envpaths-*), and env
// itself past any other option (leadredir-paths-*).
func TestEnvPaths(t *testing.T) {
	doc := `{"permissions":{"deny":["Bash(rm:*)","Edit(./locked/**)","Read(./secret/**)"]}}`
	for _, mode := range []string{"", "bypassPermissions"} {
		other := ask
		otherCode := codeDefaultPrompt
		if mode == "bypassPermissions" {
			other, otherCode = allow, codeModeBypass
		}
		runCalls(t, doc, mode, []call1{
			{"Bash", cmdAt("env cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env FOO=1 cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt(`\command env FOO=1 cat secret/s.txt`), deny, codePermissionDeny},
			{"Bash", cmdAt(`true && \command env FOO=1 cat secret/s.txt | cat`), deny, codePermissionDeny},
			{"Bash", cmdAt("env -i FOO=1 cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env -u X cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env -0 -v cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env 'FOO=1' cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env FOO= cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("FOO=1 env cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("nice env FOO=1 cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env FOO=1 nice cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("/usr/bin/env cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt(`\env cat secret/s.txt`), deny, codePermissionDeny},
			{"Bash", cmdAt("env FOO=1 touch locked/e1.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env FOO=1 cp a.txt locked/e3.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env FOO=1 mkdir locked/e6"), deny, codePermissionDeny},
			// Past another option, or with no command, env is the
			// command.
			{"Bash", cmdAt("env - cat secret/s.txt"), other, otherCode},
			{"Bash", cmdAt("env -S cat secret/s.txt"), other, otherCode},
			{"Bash", cmdAt("env -C secret cat s.txt"), other, otherCode},
			{"Bash", cmdAt("env -u"), other, otherCode},
			{"Bash", cmdAt("sudo cat secret/s.txt"), other, otherCode},
			{"Bash", cmdAt("sudo env cat secret/s.txt"), other, otherCode},
		})
	}
}
