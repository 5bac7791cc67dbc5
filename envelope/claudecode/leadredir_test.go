package claudecode

import "testing"

// TestLeadingRedirectsAndGluedStatements: deny rules see a command past a
// redirection written before it and past a statement's end it is glued to;
// allow rules do not see past the redirection (section 0.2 row 54; each
// call is a 2.1.328 case of TestDifferential/leadredir-*, glued-* or
// compound-deny2-*).
func TestLeadingRedirectsAndGluedStatements(t *testing.T) {
	denyRm := `{"permissions":{"deny":["Bash(rm:*)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, denyRm, mode, []call1{
			{"Bash", cmdAt("> al1.txt rm dr1.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2>/dev/null rm dr2.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("< a.txt rm dr8.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2>&1 rm dr9.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("&>/dev/null rm dr11.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt(">>al5.txt rm dr12.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("<<< x rm dr13.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("> al7.txt FOO=1 rm dr15.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("> al8.txt timeout 5 rm dr16.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("> al10.txt sudo rm dr18.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2> al11.txt \\rm dr19.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("( > al12.txt rm dr20.txt )"), deny, codePermissionDeny},
			{"Bash", cmdAt("echo $(> al13.txt rm dr21.txt)"), deny, codePermissionDeny},
			{"Bash", cmdAt("fi rm dg1.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("done rm dg2.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("esac rm dg3.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("[ a ] rm dg8.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("for f in a; do ls; done rm dg11.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("case x in *) ls;; esac rm dg13.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("[[ a ]] rm"), deny, codePermissionDeny},
			{"Bash", cmdAt("[[ a ]] timeout 5 rm dg20.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("[[ a ]] > al1.txt rm dg25.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("if true; then ls; fi rm dm22.txt"), deny, codePermissionDeny},
		})
	}
	// Not commands of their own: rm is test's word, ]]rm one word.
	runCalls(t, denyRm, "bypassPermissions", []call1{
		{"Bash", cmdAt("test a rm dg9.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("[[ a ]]rm dg7.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("echo x fi rm dg16.txt"), allow, codeModeBypass},
	})
	runCalls(t, denyRm, "default", []call1{
		{"Bash", cmdAt("test a rm dg9.txt"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("2>/dev/null ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("< a.txt grep x"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("</dev/null ls -la"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls -la < /dev/null"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls < /etc/hosts"), ask, codePathScope},
	})
	// Critical removals behind a redirection ask in bypassPermissions.
	runCalls(t, `{}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("> al1.txt rm -rf /"), ask, codeCriticalPath},
		{"Bash", cmdAt("2>&1 rm -rf /etc"), ask, codeCriticalPath},
		{"Bash", cmdAt("( 2>&1 rm -rf / )"), ask, codeCriticalPath},
		{"Bash", cmdAt("echo $(&>/dev/null rm -rf ~)"), ask, codeCriticalPath},
		{"Bash", cmdAt("[[ a ]] rm -rf ~"), ask, codeCriticalPath},
		{"Bash", cmdAt("> al2.txt rm dr1.txt"), allow, codeModeBypass},
	})
	// An allow rule does not see past a leading redirection.
	runCalls(t, `{"permissions":{"allow":["Bash(rm:*)"]}}`, "default", []call1{
		{"Bash", cmdAt("rm dr2.txt"), allow, codePermissionAllow},
		{"Bash", cmdAt("2>/dev/null rm dr2.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("< a.txt rm dr8.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("<<< x rm dr13.txt"), ask, codeDefaultPrompt},
	})
}

// TestLaunchersAndContinuations: deny rules see the command of pkexec,
// nsenter, unshare, script -c, env - and env --split-string, through a
// cluster of short options whose last takes a value (sudo -nu root), and
// in a line continued with a backslash-newline (rm\<newline> f); not
// through the launchers the release does not read (each call is a 2.1.328
// case of TestDifferential/launchers5-* or sh3-*).
func TestLaunchersAndContinuations(t *testing.T) {
	denyRm := `{"permissions":{"deny":["Bash(rm:*)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, denyRm, mode, []call1{
			{"Bash", cmdAt("pkexec rm dl1.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("nsenter -t 1 rm dl2.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("unshare rm dl3.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("sudo -nu root rm dl4.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("sudo -Eu root rm dl25.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("env --split-string='rm dl5.txt'"), deny, codePermissionDeny},
			{"Bash", cmdAt("env - rm dl6.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("script -c 'rm dl8.txt'"), deny, codePermissionDeny},
			{"Bash", cmdAt("rm\\\n dl9.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("sudo -u root -- rm dl26.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("sudo -g wheel rm dl27.txt"), deny, codePermissionDeny},
		})
	}
	runCalls(t, denyRm, "bypassPermissions", []call1{
		{"Bash", cmdAt("chroot / rm dl10.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("su -c 'rm dl11.txt'"), allow, codeModeBypass},
		{"Bash", cmdAt("systemd-run rm dl12.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("parallel rm ::: dl7.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("r\\\nm q9"), allow, codeModeBypass},
	})
	// Every word as the shell reads it; git's global options are not
	// read through, by the release either (gitglobal-deny-*).
	denyPush := `{"permissions":{"deny":["Bash(git push:*)"]}}`
	runCalls(t, denyPush, "bypassPermissions", []call1{
		{"Bash", cmdAt("git pu\\sh"), deny, codePermissionDeny},
		{"Bash", cmdAt("GIT_DIR=. git push"), deny, codePermissionDeny},
		{"Bash", cmdAt("git -C . push"), allow, codeModeBypass},
		{"Bash", cmdAt("git -c x=y push"), allow, codeModeBypass},
	})
}

// TestPathRulesPastLeadingRedirects: Read and Edit deny rules see the
// command past a redirection written before it and past [[ ]], not past
// fi; and a path as the shell reads it (section 0.2 row 54; each call is a
// 2.1.328 case of TestDifferential/leadredir-paths-*, whose two stricter
// calls are named in section 0.3).
func TestPathRulesPastLeadingRedirects(t *testing.T) {
	doc := `{"permissions":{"deny":["Read(./secret/**)","Edit(./locked/**)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, doc, mode, []call1{
			{"Bash", cmdAt("> al1.txt cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2>/dev/null cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2>&1 head secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("< a.txt grep x secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("[[ a ]] cat secret/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2>/dev/null touch locked/a1.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("> al2.txt rm locked/keep.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("[ a ] cp a.txt locked/a2.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("2>&1 mv a.txt locked/a3.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("cat secr\\et/s.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("echo $(2>/dev/null cat secret/s.txt)"), deny, codePermissionDeny},
		})
	}
	// A redirection's target is read as the shell reads it
	// (pathspell-*); ln, chmod, dd, install and truncate are no path
	// commands, to the release either.
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, doc, mode, []call1{
			{"Bash", cmdAt("echo x > lock\\ed/p1.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("echo x 2> lock\\ed/p3.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("echo x &> lock\\ed/p4.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("echo x > \\locked/p13.txt"), deny, codePermissionDeny},
			{"Bash", cmdAt("cat < secr\\et/s.txt"), deny, codePermissionDeny},
		})
	}
	runCalls(t, doc, "bypassPermissions", []call1{
		{"Bash", cmdAt("chmod 600 locked/keep.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("dd if=a.txt of=locked/p8.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("fi cat secret/s.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("fi rm locked/keep.txt"), allow, codeModeBypass},
		{"Bash", cmdAt("env - cat secret/s.txt"), allow, codeModeBypass},
	})
}

// TestShellScriptOptions: a deny rule matching the -c script of a shell
// asks whatever options surround -c, and for ash and busybox's shells
// (section 0.2 row 57; each call is a 2.1.328 case of
// TestDifferential/shellinput-*).
func TestShellScriptOptions(t *testing.T) {
	denyRm := `{"permissions":{"deny":["Bash(rm:*)"]}}`
	for _, mode := range []string{"bypassPermissions", "default"} {
		runCalls(t, denyRm, mode, []call1{
			{"Bash", cmdAt("bash -c -- 'rm si7.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("bash --norc -c 'rm si8.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("busybox sh -c 'rm si9.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("bash -o pipefail -c 'rm si14.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("bash +e -c 'rm si15.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("bash --rcfile a.txt -c 'rm si17.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("busybox ash -c 'rm si18.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("bash -O extglob -c 'rm si19.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("bash -c -x 'rm si21.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("ash -c 'rm si23.txt'"), ask, codeDenyInScript},
			{"Bash", cmdAt("sh -c 'cd . && rm si13.txt'"), deny, codePermissionDeny},
		})
	}
	runCalls(t, denyRm, "bypassPermissions", []call1{
		{"Bash", cmdAt("echo 'rm si2.txt' | sh"), allow, codeModeBypass},
		{"Bash", cmdAt("bash -s <<< 'rm si4.txt'"), allow, codeModeBypass},
	})
}
