package claudecode

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// at is a call's input with where it runs: the project /p, home /h.
func at(primary string, v string) map[string]any {
	return map[string]any{primary: v, PathsKey: map[string]any{"project": "/p", "home": "/h", "dirs": []string{"/added"}}}
}

func cmdAt(c string) map[string]any  { return at("command", c) }
func fileAt(f string) map[string]any { return at("file_path", f) }

// TestDecideWhereItRuns: paths as Claude Code 2.1.328 reads them when the
// input says where the call runs (section 0.2, rows 8 to 16; each
// behaviour is a CLI case of TestDifferential/i25-*).
func TestDecideWhereItRuns(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(//**/*.pem)", "Edit(//**/.env)", "Read(~/.aws/**)", "Read(/anch.txt)"],
		"allow": ["Bash(echo:*)", "Bash(cat:*)", "Edit(./out/**)", "Read(*)", "Edit(*)"],
		"additionalDirectories": ["../extra", "~/shared"]}}`
	runCalls(t, doc, "", []call1{
		// Anchors against the absolute path.
		{"Read", fileAt("/p/k.pem"), deny, codePermissionDeny},
		{"Read", fileAt("sub/k.pem"), deny, codePermissionDeny},
		{"Write", fileAt("/p/.env"), deny, codePermissionDeny},
		{"Read", fileAt("/h/.aws/credentials"), deny, codePermissionDeny},
		{"Read", fileAt("~/.aws/credentials"), deny, codePermissionDeny},
		{"Read", fileAt("/p/anch.txt"), deny, codePermissionDeny},
		{"Read", fileAt("/p/sub/anch.txt"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("cat $HOME/.aws/credentials"), deny, codePermissionDeny},
		{"Bash", cmdAt(`cat "$HOME/.aws/credentials"`), deny, codePermissionDeny},
		{"Bash", cmdAt("cat /h/.aws/credentials"), deny, codePermissionDeny},
		// Braces make the line one the release does not read ("A variable
		// in braces in this command can't be checked before it runs":
		// TestDifferential/builtinforms-default, echo ${HOME}): it asks
		// before any path is looked at.
		{"Bash", cmdAt("cat ${HOME}/.aws/credentials"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo x > .env"), deny, codePermissionDeny},
		{"Bash", cmdAt("echo $(echo x > sub/.env)"), deny, codePermissionDeny},
		// Read(*) and Edit(*) approve nothing.
		{"Read", fileAt("/etc/hostname"), ask, codeDefaultPrompt},
		{"Write", fileAt("/p/s1.txt"), ask, codeDefaultPrompt},
		// The working directories: the project, additionalDirectories
		// (relative to the project, or home), the added dirs.
		{"Read", fileAt("/extra/e.txt"), allow, codeDefaultReadOnly},
		{"Read", fileAt("/h/shared/x"), allow, codeDefaultReadOnly},
		{"Read", fileAt("/added/f.txt"), allow, codeDefaultReadOnly},
		{"Read", fileAt("/outside/o.txt"), ask, codeDefaultPrompt},
		// The path scope of read-only and allowed commands.
		{"Bash", cmdAt("cat /etc/hostname"), ask, codePathScope},
		{"Bash", cmdAt("ls .."), ask, codePathScope},
		{"Bash", cmdAt("grep root /etc/passwd"), ask, codePathScope},
		{"Bash", cmdAt("find / -maxdepth 0"), ask, codePathScope},
		{"Bash", cmdAt("cat < /etc/hostname"), ask, codePathScope},
		{"Bash", cmdAt("cat /p/a.txt ../extra/e.txt /added/f"), allow, codePermissionAllow},
		{"Bash", cmdAt("du -s .."), allow, codeDefaultReadOnly},
		// Output redirections.
		{"Bash", cmdAt("echo hi > out.md"), ask, codeRedirect},
		{"Bash", cmdAt("echo hi > out/x.md"), allow, codePermissionAllow},
		{"Bash", cmdAt("echo hi > /dev/null 2>&1"), allow, codePermissionAllow},
		{"Bash", cmdAt("cd out && echo hi > x.md"), ask, codeRedirect},
		// The read-only list of the release.
		{"Bash", cmdAt("date -u"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("date 010100002030"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sort -r a.txt"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("sort -o x a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sed -n 1,2p a.txt"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("sed -i s/a/b/ a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("git branch -a"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("git branch -D x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("git tag v1"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("git log -5 --format=%H"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("git log --format=%G?"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("node --version"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("jq -r .a x.json"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("jq -f prog x.json"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("rg -n a src"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("rg --pre cat a"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ps aux"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ps e"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("uniq -c"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("uniq a.txt b.txt"), ask, codeDefaultPrompt},
		{"Monitor", cmdAt("cat /etc/hostname"), ask, codePathScope},
		// WebFetch's preapproved sites, after deny and ask rules.
		{"WebFetch", "https://docs.python.org/3/", allow, codePreapproved},
		{"WebFetch", "https://go.dev/doc/effective_go", allow, codePreapproved},
		{"WebFetch", "https://go.dev/blog/x", ask, codeDefaultPrompt},
		{"WebFetch", "https://www.docs.python.org/3/", ask, codeDefaultPrompt},
		{"WebFetch", "https://github.com/anthropics/claude-code", allow, codePreapproved},
		{"WebFetch", "https://github.com/other/repo", ask, codeDefaultPrompt},
		{"WebFetch", "https://go.dev/doc%2f..%2fx", ask, codeDefaultPrompt},
	})
	// A bare Bash allow rule approves every command whole; dontAsk and
	// bypass keep deny rules on redirect targets.
	runCalls(t, `{"permissions": {"allow": ["Bash"], "deny": ["Edit(./locked/**)"]}}`, "", []call1{
		{"Bash", cmdAt("cat /etc/hostname"), allow, codePermissionAllow},
		{"Bash", cmdAt("echo hi > ../x"), allow, codePermissionAllow},
		{"Bash", cmdAt("echo hi > locked/x"), deny, codePermissionDeny},
	})
	runCalls(t, `{"permissions": {"deny": ["Edit(./locked/**)"], "ask": ["Edit(./asked/**)"]}}`, "bypassPermissions", []call1{
		{"Bash", cmdAt("echo hi > locked/x"), deny, codePermissionDeny},
		{"Bash", cmdAt("echo hi > /etc/x"), allow, codeModeBypass},
	})
	runCalls(t, `{"permissions": {"deny": ["Edit(./locked/**)"], "ask": ["Edit(./asked/**)"]}}`, "acceptEdits", []call1{
		{"Bash", cmdAt("echo hi > asked/x"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls > r.txt"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("echo hi > .vscode/x.json"), ask, codeRedirect},
		{"Bash", cmdAt("echo hi > ../outside/x"), ask, codeRedirect},
		{"Write", fileAt("/extra2/x"), ask, codeDefaultPrompt},
	})
	// Read(*) and Edit(*) in deny rules are as strict as the bare rules:
	// a deny of Read(*) refuses a Write, as the bare rule's does under an
	// ask Edit (TestDifferential/readstar-deny-default,
	// files-bare-read-default), and no path of a command (cat a.txt runs).
	runCalls(t, `{"permissions": {"deny": ["Read(*)"], "ask": ["Edit(*)"]}}`, "", []call1{
		{"Read", fileAt("/p/a.txt"), deny, codePermissionDeny},
		{"Read", nil, deny, codePermissionDeny},
		{"Write", fileAt("/p/a.txt"), deny, codePermissionDeny},
		{"Edit", fileAt("/h/x.txt"), deny, codePermissionDeny},
	})
	runCalls(t, `{"permissions": {"deny": ["Read(*)"]}}`, "", []call1{
		{"Bash", cmdAt("cat a.txt"), allow, codeDefaultReadOnly},
		{"Write", fileAt("/h/n.txt"), deny, codePermissionDeny},
	})
	runCalls(t, `{"permissions": {"deny": ["Read(**)"]}}`, "", []call1{
		{"Bash", cmdAt("cat a.txt"), deny, codePermissionDeny},
	})
	// Parameter rules on MCP tools are ignored.
	runCalls(t, `{"permissions": {"allow": ["mcp__github__get_issue"], "deny": ["mcp__github__get_issue(repo:x)"]}}`, "", []call1{
		{"mcp__github__get_issue", map[string]any{"repo": "x"}, allow, codePermissionAllow},
	})
}

// TestCallSaysWhereItRuns: only an absolute project makes a context; a
// bad one leaves the call as written.
func TestCallSaysWhereItRuns(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{`{"file_path":"a","ledger:paths":{"project":"/p"}}`, true},
		{`{"file_path":"a","ledger:paths":{"project":"p"}}`, false},
		{`{"file_path":"a","ledger:paths":"/p"}`, false},
		{`{"file_path":"a"}`, false},
	} {
		c := newCall(toolRead, []byte(tt.raw))
		if got := c.at() != nil; got != tt.want {
			t.Errorf("%s: context %v, want %v", tt.raw, got, tt.want)
		}
		p, _ := c.inputPath()
		if tt.want && (p.kind != pathAbs || len(p.segs) != 2) {
			t.Errorf("%s: path %+v", tt.raw, p)
		}
	}
}

// TestShellScriptWhereItRuns: the commands of a shell -c script are read
// where the call runs, as the same commands outside it are: a path a deny
// rule covers asks (permission:deny_in_script) exactly when the command
// alone is denied, whatever form the path takes (Claude Code 2.1.328:
// TestDifferential/shell-c-paths-*). The script used to be read without
// the call's project and home, so an anchored rule let bash -c 'rm
// /p/plock/x' run in bypassPermissions, and a floating one asked for bash
// -c 'rm ../locked/x', outside the project.
func TestShellScriptWhereItRuns(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(/anch.txt)", "Read(~/.aws/**)", "Read(./secret/**)", "Edit(/plock/**)",
		"Edit(~/hlock/**)", "Edit(./locked/**)", "Edit(//etc/**)"]}}`
	w := newWorld(t, doc, decideCatalogue...)
	w.start(t, "lead", events.StartedData{Agent: "main", Mode: "bypassPermissions"})
	for _, tt := range []struct {
		cmd    string
		denied bool
	}{
		{"cat /p/anch.txt", true},
		{"cat anch.txt", true},
		{"cat sub/anch.txt", false},
		{"cat /h/.aws/credentials", true},
		{"cat ~/.aws/credentials", true},
		{"cat secret/s.txt", true},
		{"cat ../secret/s.txt", false}, // /secret/s.txt: outside the project the rule is anchored at
		{"rm /p/plock/x", true},
		{"rm plock/x", true},
		{"rm /h/hlock/x", true},
		{"rm ~/hlock/x", true},
		{"rm ../etc/x", true}, // /etc/x
		{"rm /p/locked/x", true},
		{"rm locked/x", true},
		{"rm sub/locked/x", true},
		{"rm ../locked/x", false},
		{"rm /elsewhere/locked/x", false},
	} {
		want := deny
		if !tt.denied {
			want = allow
		}
		if v := w.decide("lead", "Bash", cmdAt(tt.cmd)); v.Decision != want {
			t.Errorf("%s = %s (%s), want %s", tt.cmd, v.Decision, v.Reason.Code, want)
		}
		wantIn, wantCode := allow, codeModeBypass
		if tt.denied {
			wantIn, wantCode = ask, codeDenyInScript
		}
		for _, script := range []string{"bash -c '" + tt.cmd + "'", "sh -c '" + tt.cmd + "'", `bash -c "sh -c '` + tt.cmd + `'"`} {
			if v := w.decide("lead", "Bash", cmdAt(script)); v.Decision != wantIn || v.Reason.Code != wantCode {
				t.Errorf("%s = %s (%s), want %s (%s)", script, v.Decision, v.Reason.Code, wantIn, wantCode)
			}
		}
	}
}

// TestCdMovesPaths: a path after a cd in the line is also read from where
// the cd went, as Claude Code 2.1.328 reads it (TestDifferential/
// shell-c-cd-*): cd locked && rm c1.txt is denied by Edit(./locked/**).
// It is still read from where the call runs too, so a cd the dialect
// cannot follow never lets less be denied.
func TestCdMovesPaths(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(./secret/**)", "Edit(./locked/**)", "Edit(/plock/**)", "Edit(~/hlock/**)"]}}`
	calls := []call1{}
	for _, c := range []string{"cd locked && rm x", "cd locked; rm x", "cd sub && rm ../plock/x", "cd secret && cat s",
		"cd ~/hlock && rm x", "cd $HOME/hlock && rm x", "cd /p/locked && rm x", "cd locked && echo x > y",
		"pushd locked && rm x", "cd locked && cd - && rm keep", "cd locked && cd ../plock && rm x", "cd -- locked && rm x",
		"cd locked 2>/dev/null && rm x", "(cd locked && rm x)", "cd sub && cd ../locked && rm x", "cd locked && cd $X && rm x",
		"rm locked/x", "cd sub && rm /p/locked/x"} {
		calls = append(calls, call1{"Bash", cmdAt(c), deny, codePermissionDeny})
	}
	for _, c := range []string{"cd sub && rm a.txt", "cd $X && rm a.txt", "cd a b && rm x", "cd locked && cd /tmp && rm x",
		"cd ~ && rm x", "rm ../locked/x"} {
		calls = append(calls, call1{"Bash", cmdAt(c), allow, codeModeBypass})
	}
	for _, c := range []string{"cd locked && bash -c 'rm x'", "bash -c 'cd locked && rm x'", "cd locked && sh -c \"bash -c 'rm x'\"",
		"cd sub; bash -c 'rm ../plock/x'", "cd bash && cd ../locked && bash -c 'rm x'"} {
		calls = append(calls, call1{"Bash", cmdAt(c), ask, codeDenyInScript})
	}
	// Without where the call runs, paths keep the kind they were written in.
	calls = append(calls, call1{"Bash", "cd locked && rm x", deny, codePermissionDeny},
		call1{"Bash", "cd sub && rm a.txt", allow, codeModeBypass})
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestCdInCompound: after a cd in the line Claude Code 2.1.328 approves
// no write in acceptEdits, and no relative read while a Read deny rule
// exists (TestDifferential/sh3-cd-*); without a Read deny rule the read
// runs (i25-readonly-more).
func TestCdInCompound(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(./secret/**)", "Edit(./locked/**)"]}}`
	runCalls(t, doc, "acceptEdits", []call1{
		{"Bash", cmdAt("cd sub && rm a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cd - ; rm d1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cd sub; touch t.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("rm a.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("cd locked && ls"), ask, codePathScope},
	})
	runCalls(t, doc, "", []call1{
		{"Bash", cmdAt("cd locked && ls"), ask, codePathScope},
		{"Bash", cmdAt("cd src; cat main.go"), ask, codePathScope},
		{"Bash", cmdAt("cd src && cat /p/a.txt"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("cd src && echo hi"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls"), allow, codeDefaultReadOnly},
	})
	runCalls(t, `{"permissions": {"deny": ["Edit(./locked/**)"]}}`, "", []call1{
		{"Bash", cmdAt("cd locked && ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("cd src; cat main.go"), allow, codeDefaultReadOnly},
	})
}

// TestShellKeepsCd: a relative path is read from the shell's directory
// the input names (cwd), where an earlier call's cd left it: Claude Code
// 2.1.328 denies rm x.txt after cd locked under Edit(./locked/**)
// (TestDifferential/sh3-cwd-*); rule anchors and the working directories
// stay the project's.
func TestShellKeepsCd(t *testing.T) {
	in := func(k, v, cwd string) map[string]any {
		return map[string]any{k: v, PathsKey: map[string]any{"project": "/p", "home": "/h", "cwd": cwd}}
	}
	doc := `{"permissions": {"deny": ["Edit(./locked/**)", "Read(./secret/**)"]}}`
	runCalls(t, doc, "bypassPermissions", []call1{
		{"Bash", in("command", "rm x.txt", "/p/locked"), deny, codePermissionDeny},
		{"Bash", in("command", "rm ./sub/../x.txt", "/p/locked"), deny, codePermissionDeny},
		{"Bash", in("command", "cat s.txt", "/p/secret"), deny, codePermissionDeny},
		{"Bash", in("command", "cd .. && rm locked/y.txt", "/p/sub"), deny, codePermissionDeny},
		{"Write", in("file_path", "z.txt", "/p/locked"), deny, codePermissionDeny},
		{"Bash", in("command", "rm ../x.txt", "/p/locked"), allow, codeModeBypass},
		{"Bash", in("command", "rm x.txt", "/p"), allow, codeModeBypass},
		{"Bash", in("command", "rm x.txt", "/p/sub"), allow, codeModeBypass},
		{"Bash", in("command", "rm /p/x.txt", "/p/locked"), allow, codeModeBypass},
	})
	runCalls(t, doc, "acceptEdits", []call1{
		{"Bash", in("command", "touch t.txt", "/p/sub"), allow, codeModeAcceptEdits},
		{"Bash", in("command", "touch t.txt", "/p/locked"), deny, codePermissionDeny},
		{"Bash", in("command", "touch t.txt", "/elsewhere"), ask, codeDefaultPrompt},
	})
}

// TestRulesFromShellDir: once a cd has moved the shell, an allow rule
// without a root of its own is read from the shell's directory, a deny
// rule from it and from the project, a rule rooted with / from the
// project (row 101, TestDifferential/gencwd-*).
func TestRulesFromShellDir(t *testing.T) {
	in := func(f, cwd string) map[string]any {
		return map[string]any{"file_path": f, PathsKey: map[string]any{"project": "/p", "home": "/h", "cwd": cwd}}
	}
	allowDoc := `{"permissions": {"allow": ["Edit(/sub/**)", "Edit(gp/**)", "Edit(./x/**)", "Edit(*.md)"]}}`
	runCalls(t, allowDoc, "", []call1{
		{"Write", in("../sub/n5.txt", "/p/gp"), allow, codePermissionAllow},
		{"Write", in("x/n9.txt", "/p/gp"), allow, codePermissionAllow},
		{"Write", in("gp/n11.txt", "/p/gp"), allow, codePermissionAllow},
		{"Write", in("n13.md", "/p/gp"), allow, codePermissionAllow},
		{"Write", in("n8.txt", "/p/gp"), ask, codeDefaultPrompt},
		{"Write", in("sub/x/n10.txt", "/p/gp"), ask, codeDefaultPrompt},
		{"Write", in("../n12.md", "/p/gp"), ask, codeDefaultPrompt},
		// Without a cd the project is the shell's directory.
		{"Write", in("gp/n8.txt", "/p"), allow, codePermissionAllow},
		{"Write", in("x/n9.txt", "/p"), allow, codePermissionAllow},
	})
	denyDoc := `{"permissions": {"deny": ["Edit(sub/x/**)", "Read(sub/x/**)"]}}`
	for _, mode := range []string{"", "bypassPermissions"} {
		runCalls(t, denyDoc, mode, []call1{
			{"Write", in("sub/x/n10.txt", "/p/gp"), deny, codePermissionDeny},
			{"Write", in("../sub/x/n6.txt", "/p/gp"), deny, codePermissionDeny},
			{"Read", in("sub/x/k.txt", "/p/gp"), deny, codePermissionDeny},
		})
	}
}

// TestWritersRead: Read deny rules see the sources of cp and mv and sed's
// files (TestDifferential/sh3-reads-*).
func TestWritersRead(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(./secret/**)"]}}`
	var calls []call1
	for _, c := range []string{"cp secret/s.txt x", "cp -r secret x", "mv secret/s.txt x", "sed -n p secret/s.txt",
		"sed -i s/a/b/ secret/s.txt", "cp a.txt secret/s.txt x"} {
		calls = append(calls, call1{"Bash", cmdAt(c), deny, codePermissionDeny})
	}
	for _, c := range []string{"cp a.txt secret/x", "mv a.txt secret/", "sed -n p a.txt"} {
		calls = append(calls, call1{"Bash", cmdAt(c), allow, codeModeBypass})
	}
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestUncheckedWrites: a write or create path the shell would expand, and
// cp or mv with an option, ask whatever approved the command; acceptEdits
// approves touch without options and sed only as sed -i 's/a/b/' FILES
// (Claude Code 2.1.328: TestDifferential/globwrite-*, fsflags-*; section
// 0.2 row 44).
func TestUncheckedWrites(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(touch:*)", "Bash(rm:*)", "Bash(cp:*)", "Bash(mv:*)", "Bash(sed:*)", "Bash(tee:*)", "Bash(echo:*)"]}}`
	for _, mode := range []string{"", "acceptEdits", "plan"} {
		approved := codePermissionAllow
		if mode == "acceptEdits" {
			approved = codeModeAcceptEdits
		}
		runCalls(t, rules, mode, []call1{
			{"Bash", cmdAt("touch gw?.txt"), ask, codeWriteExpansion},
			{"Bash", cmdAt("touch 'gq*.txt'"), ask, codeWriteExpansion},
			{"Bash", cmdAt(`touch gw\*.txt`), ask, codeWriteExpansion},
			{"Bash", cmdAt("touch gw[12].txt"), ask, codeWriteExpansion},
			{"Bash", cmdAt("touch gl}1"), ask, codeWriteExpansion},
			{"Bash", cmdAt("rm free/*.txt"), ask, codeWriteExpansion},
			{"Bash", cmdAt("cp a.txt gc*.txt"), ask, codeWriteExpansion},
			{"Bash", cmdAt("sed s/a/b/ gs*.txt"), ask, codeWriteExpansion},
			{"Bash", cmdAt("tee -a gt?.txt"), ask, codeWriteExpansion},
			{"Bash", cmdAt("cp -r free gcr"), ask, codeCopyOptions},
			{"Bash", cmdAt("mv -- a.txt b.txt"), ask, codeCopyOptions},
			{"Bash", cmdAt("echo x > gr*.txt"), ask, codeRedirect},
			{"Bash", cmdAt("touch 'gl[1'"), allow, approved},
			{"Bash", cmdAt("touch gl]1"), allow, approved},
			{"Bash", cmdAt("sed -i 's/a*/b/' gs1.txt"), allow, approved},
			{"Bash", cmdAt("cp a.txt b.txt"), allow, approved},
		})
	}
	runCalls(t, `{}`, "acceptEdits", []call1{
		{"Bash", cmdAt("touch gw?.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cp a*.txt free/"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cp -r free gcr"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch -c gw6.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sed -i -e s/a/b/ gs1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sed -i.bak s/a/b/ gs1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sed -i 's/a/b/w out' gs1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sed -i 's/a/b/e' gs1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo x > gr*.txt"), ask, codeRedirect},
		{"Bash", cmdAt("sed -i 's/a*/b/g' gs1.txt"), allow, codeModeAcceptEdits},
		// Only '/' delimits: 2.1.328 asks for sed -i 's|a|b|' a.txt in
		// acceptEdits (TestDifferential/sedflags-acceptEdits).
		{"Bash", cmdAt("sed -i 's|a|b|2' gs1.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch gw5.txt"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("mkdir -p gp/x"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("rm -rf gd1"), allow, codeModeAcceptEdits},
		{"Bash", cmdAt("cat a*.txt"), allow, codeDefaultReadOnly},
	})
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "", []call1{
		{"Bash", cmdAt("touch gw?.txt"), allow, codePermissionAllow},
		{"Bash", cmdAt("cp -r free gcr"), allow, codePermissionAllow},
	})
	runCalls(t, `{}`, "bypassPermissions", []call1{{"Bash", cmdAt("rm gr1*"), allow, codeModeBypass}})
	runCalls(t, rules, "dontAsk", []call1{{"Bash", cmdAt("rm gr1*"), deny, codeDontAsk}})
}

// TestTooComplexShapesAndTildeForms: the shapes Claude Code 2.1.328's
// command reader refuses (zsh =cmd, ~[, <N-M>, backslash-escaped blanks,
// a continuation inside a word) ask under allow rules that name the
// command, and a tilde form (~user, ~+, ~-) in a path command's path asks
// under them and in acceptEdits (TestDifferential/toocomplex-*,
// pathforms-*).
func TestTooComplexShapesAndTildeForms(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(echo:*)", "Bash(cat:*)", "Bash(ls:*)", "Bash(touch:*)"]}}`
	runCalls(t, rules, "", []call1{
		{"Bash", cmdAt("echo =x1"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo a =x2"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo ~[x]"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cat a<1-2>.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`echo a\ b`), ask, codeDefaultPrompt},
		{"Bash", cmdAt(`echo 'a\ b'`), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo x\\\ny"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cat ~root/pf1.txt"), ask, codePathScope},
		{"Bash", cmdAt("ls ~+"), ask, codePathScope},
		{"Bash", cmdAt("touch ~+/pf2.txt"), ask, codePathScope},
		{"Bash", cmdAt("echo a=x3"), allow, codePermissionAllow},
		{"Bash", cmdAt("echo '=x5'"), allow, codePermissionAllow},
		{"Bash", cmdAt("echo ~+"), allow, codePermissionAllow},
		{"Bash", cmdAt("echo x \\\n y"), allow, codePermissionAllow},
		{"Bash", cmdAt("cat ./a.txt"), allow, codePermissionAllow},
	})
	runCalls(t, `{}`, "acceptEdits", []call1{
		{"Bash", cmdAt("touch ~+/pf2.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch =pf3"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("touch ./pf6.txt"), allow, codeModeAcceptEdits},
	})
}

// TestRedirectionFormsAndEnvChdir: an input redirection from a globbed or
// tilde path, or from a relative path after a cd, an output redirection to
// a tilde path, and env changing directory ask whatever approved the
// command (Claude Code 2.1.328: TestDifferential/redirforms-*,
// envchdir-*, lnpushd-*).
func TestRedirectionFormsAndEnvChdir(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(cat:*)", "Bash(echo:*)", "Bash(env:*)", "Bash(ls:*)"]}}`
	for _, mode := range []string{"", "acceptEdits"} {
		runCalls(t, rules, mode, []call1{
			{"Bash", cmdAt("cat < free/*.txt"), ask, codeRedirect},
			{"Bash", cmdAt("cat < ~+/free/f.txt"), ask, codeRedirect},
			{"Bash", cmdAt("cd free && cat < f.txt"), ask, codeRedirect},
			{"Bash", cmdAt("echo x > ~+/rf1.txt"), ask, codeRedirect},
			{"Bash", cmdAt("env -C free ls"), ask, codePathScope},
			{"Bash", cmdAt("env --chdir=free ls"), ask, codePathScope},
			{"Bash", cmdAt("env -u X -C free ls"), ask, codePathScope},
			{"Bash", cmdAt("cat < free/f.txt"), allow, codePermissionAllow},
			{"Bash", cmdAt("cd free; cat < /p/free/f.txt"), allow, codeDefaultReadOnly},
			{"Bash", cmdAt("env -i ls"), allow, codePermissionAllow},
		})
	}
	runCalls(t, rules, "bypassPermissions", []call1{{"Bash", cmdAt("env -C free ls"), allow, codeModeBypass}})
}

// TestUncheckableArgs: $'...', $ before a non-ASCII byte or ~, cd with two
// directories and awk's program options ask under allow rules naming the
// commands; timeout with an option is not read-only (Claude Code 2.1.328:
// TestDifferential/uncheckable-*).
func TestUncheckableArgs(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(echo:*)", "Bash(cd:*)", "Bash(awk:*)"]}}`
	runCalls(t, rules, "", []call1{
		{"Bash", cmdAt(`echo $'a\nb'`), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo $é"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("echo $~x"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("cd free free"), ask, codePathScope},
		// Still asked for; the reason is the release's own, "awk has an
		// option that can't be checked before it runs" (TestDifferential/
		// uncheckable-allowed-default), not a path outside the project.
		{"Bash", cmdAt("awk -f prog.awk a.txt"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("awk --file=prog.awk a.txt"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("awk -E prog.awk a.txt"), ask, codeUncheckedCommand},
		{"Bash", cmdAt("echo '$é' \"$'x\" \\$~"), allow, codePermissionAllow},
		{"Bash", cmdAt("awk -v x=1 -F: '{print}' a.txt"), allow, codePermissionAllow},
		{"Bash", cmdAt("cd free"), allow, codePermissionAllow},
	})
	runCalls(t, `{}`, "", []call1{
		{"Bash", cmdAt("timeout -s KILL 5 ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout --foreground 5 ls"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("timeout 5s ls"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("sort -k * a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sort -t * a.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("sort -k '*' a.txt"), allow, codeDefaultReadOnly},
		// Claude Code 2.1.328 asks for sort given a glob, an option's value
		// or not (TestDifferential/globro-default: sort *.txt and sort -k 2
		// *.txt ask).
		{"Bash", cmdAt("sort -k 2 *.txt"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("grep -e * a.txt"), allow, codeDefaultReadOnly},
	})
}

// TestAllowRuleNamingXargs: an allow rule naming xargs approves the
// command xargs runs, as Claude Code 2.1.328 does (TestDifferential/
// diropts-allowed-default); without it, xargs grep is approved by grep's
// read-only entry only while no Read deny rule exists (diropts-default,
// wrapawk-default).
func TestAllowRuleNamingXargs(t *testing.T) {
	runCalls(t, `{"permissions": {"allow": ["Bash(find:*)", "Bash(xargs:*)"]}}`, "", []call1{
		{"Bash", cmdAt("find . -name '*.txt' | xargs grep x"), allow, codePermissionAllow},
		{"Bash", cmdAt("xargs grep x"), allow, codePermissionAllow},
	})
	// As diropts-default ran it, under Read(./secret/**): the paths xargs
	// hands grep cannot be checked against the deny rule. With no deny
	// rule grep's read-only entry runs it (wrapawk-default).
	runCalls(t, `{"permissions": {"allow": ["Bash(find:*)"], "deny": ["Read(./secret/**)"]}}`, "", []call1{
		{"Bash", cmdAt("find . -name '*.txt' | xargs grep x"), ask, codeDefaultPrompt},
	})
	runCalls(t, `{"permissions": {"allow": ["Bash(find:*)"]}}`, "", []call1{
		{"Bash", cmdAt("find . -name '*.txt' | xargs grep x"), allow, codePermissionAllow},
		{"Bash", cmdAt("ls | xargs -0 grep x"), allow, codeDefaultReadOnly},
		{"Bash", cmdAt("ls | xargs cat"), ask, codeDefaultPrompt},
		{"Bash", cmdAt("ls | xargs -I{} grep x {}"), ask, codeDefaultPrompt},
	})
}

// zshShapeRE is the release's expressions for the shapes zshShape reads
// (cli.js 2.1.328: mno, hno, BZo, and Hn = gQt|fno), kept as the oracle of
// the scan.
var zshShapeRE = regexp.MustCompile(`~\[|(?:^|[\s;&|])=[a-zA-Z_]|<\d*-\d*>|\\[ \t]|(?:^|[^ \t\\])(?:\\\\)*\\\n|[ \t](?:\\\\)+\\\n|\\[ \t]\\\n`)

// TestZshShapeIsTheReleasesExpressions: zshShape agrees with zshShapeRE
// on every string of up to four bytes over the characters that matter, on
// every string of up to seven over the backslash, blanks, newline and a
// letter (the continuations), and on random longer ones.
func TestZshShapeIsTheReleasesExpressions(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := zshShape(s), zshShapeRE.MatchString(s); got != want {
			t.Fatalf("zshShape(%q) = %v, the release's expressions say %v", s, got, want)
		}
	}
	var walk func(alphabet string, prefix []byte, depth int)
	walk = func(alphabet string, prefix []byte, depth int) {
		check(string(prefix))
		if depth == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			walk(alphabet, append(prefix, alphabet[i]), depth-1)
		}
	}
	const alphabet = "~[=<>-1 \t\n\\a;&|_'\""
	walk(alphabet, nil, 4)
	walk(" \t\n\\a", nil, 7)
	r := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		b := make([]byte, 5+r.IntN(20))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// TestTildeRedirect: an output redirection to a path starting with ~ or
// holding a $ asks in every mode but bypassPermissions, whatever Edit allow
// rule or working directory holds the path; its absolute spelling and an
// input redirection do not (row 103, TestDifferential/tilderedir-*).
func TestTildeRedirect(t *testing.T) {
	doc := `{"permissions":{"allow":["Edit(~/gp/**)","Read(~/gp/**)"]}}`
	for _, mode := range []string{"", "acceptEdits"} {
		calls := bashCalls(ask, codeRedirect, "echo x > ~/gp/r1.txt", "echo x >> ~/gp/r2.txt", "echo x 2> ~/gp/r3.txt",
			"echo x > $HOME/gp/r5.txt", "echo x > ~/gp/r6.txt && ls", "ls > ~/gp/r7.txt")
		calls = append(calls, call1{"Bash", cmdAt("echo x > /h/gp/r4.txt"), allow, codeDefaultReadOnly},
			call1{"Bash", cmdAt("cat < ~/gp/h.txt"), allow, codeDefaultReadOnly})
		runCalls(t, doc, mode, calls)
	}
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, "echo x > ~/gp/r1.txt", "echo x > $HOME/gp/r5.txt"))
}

// TestEditDenySources: Edit deny rules see the paths a command writes, not
// those it only reads: a plain cp's sources and a read-only sed's files
// (row 104, TestDifferential/editdenysrc-*).
func TestEditDenySources(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(./gp/**)"]}}`
	runCalls(t, doc, "bypassPermissions", append(
		bashCalls(allow, codeModeBypass, "cp gp/a.txt n1.txt", "sed -n p gp/a.txt", "sed -n 1p gp/b.txt", "cp gp/a.txt gp/b.txt n4/"),
		bashCalls(deny, codePermissionDeny, "cp n0.txt gp/c.txt", "mv gp/m.txt n3.txt", "sed -i s/a/b/ gp/a.txt", "sed p gp/a.txt",
			"cp -t gp a.txt", "cp -r gp/x n5", "cp gp/a.txt ~/gp/c1.txt", "cp gp/a.txt $HOME/c5.txt")...))
	runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, "cp gp/a.txt /h/gp/c4.txt", "cp n0.txt ~/gp/c2.txt"))
}

// TestRedirectIsNoOperand: a redirection is no operand of the command it
// follows: under Edit(./locked/**) and Read(./secret/**) Claude Code
// 2.1.328 denies cp a.txt locked/c1.txt 2>&1 and cp a.txt locked/c3.txt >
// /dev/null in bypassPermissions (a plain cp's last operand is its
// destination, row 104, not the redirection's target), and runs cat a.txt
// > secret/o1.txt and cp a.txt secret/n2.txt 2>/dev/null (a write target
// is no read) (row 105; TestDifferential/redirnotarg-*).
func TestRedirectIsNoOperand(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(./locked/**)","Read(./secret/**)"]}}`
	runCalls(t, doc, "bypassPermissions", append(
		bashCalls(deny, codePermissionDeny, "cp a.txt locked/c1.txt 2>&1", "true && cp a.txt locked/c2.txt 2>&1",
			"cp a.txt locked/c3.txt > /dev/null", "cp a.txt locked/c4.txt 2>/dev/null", "cp secret/s.txt n3.txt 2>&1",
			"mv n9.txt locked/m1.txt 2>&1", "wc -l a.txt > locked/o4.txt", "cp 2>/dev/null a.txt locked/c5.txt"),
		bashCalls(allow, codeModeBypass, "cp a.txt n1.txt 2>&1", "cp a.txt secret/n2.txt 2>/dev/null", "cat a.txt > secret/o1.txt",
			"cat a.txt 2> secret/o2.txt", "sed -n p a.txt > secret/o3.txt")...))
}

// TestCopySourcesRead: a cp's sources are only read (Read deny rules see
// them, Edit deny rules its destination alone) when the cp is written as
// Claude Code 2.1.328's literal-copy check wants it: cp by that name,
// first in its segment, options only -[pfinv]+ or --, no $, no cd in the
// line, every path a plain name; otherwise every path is Edit's
// (row 108, TestDifferential/cpsrclit-*; gen seed 305 found NODE_ENV=test
// timeout 5s nohup cp a.txt locked/c1.txt # c run, the comment's words
// taken for the copy's destination).
func TestCopySourcesRead(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(./gp/**)","Edit(./locked/**)"]}}`
	runCalls(t, doc, "bypassPermissions", append(
		bashCalls(deny, codePermissionDeny, "timeout 5 cp gp/a.txt n2.txt", "nohup cp gp/a.txt n3.txt", "FOO=1 cp gp/a.txt n4.txt",
			"cp gp/a.txt n=5.txt", "cp gp/a.txt 5", "cp gp/a.txt 'n6#.txt'", "command cp gp/a.txt n13.txt", "/bin/cp gp/a.txt n15.txt",
			"cp gp/a.txt n^16.txt", "cp gp/a.txt @n17.txt", "time cp gp/a.txt n23.txt", "cp gp/a.txt n28.txt '#'",
			"nice cp gp/a.txt n30.txt", "cp gp/a.txt 37", "cp gp/a.txt +n39.txt", "cp gp/a.txt é40.txt", "LANG=C cp gp/a.txt n42.txt",
			"cp -a gp/a.txt n37.txt", "cp -t n20 gp/a.txt", "/usr/bin/rm gp/c.txt", "/bin/mv gp/d.txt n52.txt",
			"NODE_ENV=test timeout 5s nohup cp a.txt locked/c1.txt # c", "cp a.txt locked/c2.txt # c", "cp a.txt locked/c3.txt #c d",
			"cp a.txt locked/c5.txt '#' c", `cp a.txt locked/c6.txt \# c`, "timeout 5 cp a.txt locked/d2.txt # c"),
		bashCalls(allow, codeModeBypass, "cp gp/a.txt n1.txt", "cp -p gp/a.txt n8.txt", "cp -- gp/a.txt n35.txt", "cp -i gp/a.txt n36.txt",
			`\cp gp/a.txt n14.txt`, "cp gp/b.txt gp/a.txt n20/", "cp gp/a.txt n21.txt 2>/dev/null", "true && cp gp/a.txt n22.txt",
			"x=1; cp gp/a.txt n11.txt", "cp -pv gp/a.txt n57.txt", "cp gp/a.txt 'n 19.txt'", "cp gp/a.txt _n38.txt", "cp gp/a.txt 3.txt")...))
}

// TestSedReadsInAcceptEdits: acceptEdits runs a sed that only reads
// behind nohup, nice and time, where the read-only list does not see
// through them, and asks when its files are a pattern (row 109,
// TestDifferential/sedsrclit-*).
func TestSedReadsInAcceptEdits(t *testing.T) {
	doc := `{"permissions":{"deny":["Edit(./gp/**)"]}}`
	runCalls(t, doc, "acceptEdits", append(
		bashCalls(allow, codeModeAcceptEdits, "nohup sed -n p gp/a.txt", "nice sed -n p gp/a.txt", "time sed -n p gp/a.txt",
			"nohup sed -n p n0.txt", "nice -n 5 sed -n p n0.txt", "nohup sed -n 1p gp/a.txt gp/b.txt"),
		bashCalls(ask, codeDefaultPrompt, "nice sed -n p g*/a.txt", "nohup sed -n p gp/*.txt", "nice sed -n p gp/{a,b}.txt",
			"time sed -n '/a/p' n0.txt", "nice sed -n p /etc/hostname", "nohup sed -n p ../outside/o.txt")...))
}

// TestProtectedWritesAsk: a write to a protected path asks whatever allow
// rule approved the command, a bare Bash rule too, and runs in
// bypassPermissions (row 111, TestDifferential/wholebash-prot*). Under a
// rule with a specifier a redirection asks first, as any redirection
// does.
func TestProtectedWritesAsk(t *testing.T) {
	cmds := []string{"touch .claude/p3", "mkdir .claude/p4", "cp a.txt .git/p5", "cp .git/keep n12.txt", "rm .claude/keep",
		"mv a.txt .vscode/p9", "sed -i s/k/x/ .git/keep", "tee .git/p8 < a.txt", "echo x | tee -a .envrc", "touch .mcp.json",
		"touch sub/.husky/h", "touch .claude", "cp a.txt n13.txt .git"}
	redirs := []string{"echo hi > .claude/p1.txt", "echo hi > .git/p2", "echo hi > ~/.bashrc", "git diff > .claude/p7.txt", "echo hi >> .claude/keep"}
	fine := []string{"cat .git/keep", "touch .gitignore", "mkdir -p .claude/worktrees/w1", "git diff > /dev/null"}
	for _, doc := range []string{`{"permissions":{"allow":["Bash"]}}`, `{"permissions":{"allow":["Bash(*)"]}}`} {
		runCalls(t, doc, "default", append(bashCalls(ask, codeProtectedPath, append(cmds, redirs...)...), bashCalls(allow, codePermissionAllow, fine...)...))
		runCalls(t, doc, "bypassPermissions", bashCalls(allow, codeModeBypass, append(append(cmds, redirs...), fine...)...))
	}
	spec := `{"permissions":{"allow":["Bash(touch:*)","Bash(mkdir:*)","Bash(cp:*)","Bash(rm:*)","Bash(sed:*)","Bash(tee:*)","Bash(echo:*)","Bash(git diff:*)","Bash(mv:*)","Bash(cat:*)"]}}`
	runCalls(t, spec, "default", append(append(bashCalls(ask, codeProtectedPath, cmds...), bashCalls(ask, codeRedirect, redirs...)...),
		bashCalls(allow, codePermissionAllow, fine...)...))
}

// TestBareAllowWins: a bare Bash allow rule (Bash, Bash(*)) approves a
// line whole wherever it is written among the rules: Claude Code 2.1.328
// runs git diff > o1.txt under Bash(git diff *) and Bash(*), where
// Bash(git diff *) alone asks for the redirection (row 110,
// TestDifferential/wholebash-*).
func TestBareAllowWins(t *testing.T) {
	lines := []string{"git diff > o1.txt", "git diff HEAD > o2.txt", "git diff 2> o4.txt", "git diff >> o5.txt", "git diff > ../outside/o6.txt"}
	for _, doc := range []string{`{"permissions":{"allow":["Bash(git diff *)","Bash(*)"]}}`, `{"permissions":{"allow":["Bash(git diff *)","Bash"]}}`} {
		runCalls(t, doc, "default", bashCalls(allow, codePermissionAllow, lines...))
	}
	runCalls(t, `{"permissions":{"allow":["Bash(git diff *)"]}}`, "default", bashCalls(ask, codeRedirect, lines...))
}

// TestGitRefListOrder: git tag and git branch read their words in order,
// as Claude Code 2.1.328 does: a name before -l/--list creates a ref
// (row 112, TestDifferential/gitreforder-default; gen-flags seed 305).
func TestGitRefListOrder(t *testing.T) {
	runCalls(t, `{}`, "default", append(
		bashCalls(ask, codeDefaultPrompt, "git tag newt --contains HEAD --list src", "git tag newt --list", "git tag --sort=refname x",
			"git tag -- x", "git tag --merged HEAD x", "git branch x --merged", "git branch --contains HEAD x", "git branch x -l",
			"git branch -- x", "git branch -a x"),
		bashCalls(allow, codeDefaultReadOnly, "git tag --list newt", "git tag -n 3 --list x", "git tag --list -- x", "git tag -l --contains HEAD x",
			"git branch --merged main", "git branch --merged main x", "git branch -l x", "git branch --list -- x", "git branch -vl x",
			"git branch --sort=-committerdate --list x")...))
}

// TestGitRemoteShow: git remote show is read-only with -n and one plain
// remote name only, as Claude Code 2.1.328 checks it (row 113,
// TestDifferential/gitremoteshow-default; gen-flags seed 306).
func TestGitRemoteShow(t *testing.T) {
	runCalls(t, `{}`, "default", append(
		bashCalls(ask, codeDefaultPrompt, "git remote show a.txt f1.txt", "git remote show update remove x /etc/hostname", "git remote show origin",
			"git remote show -n origin upstream", "git remote show -- -n origin", "git remote show -n a.txt", "git remote show -n -x", "git remote show -n"),
		bashCalls(allow, codeDefaultReadOnly, "git remote show -n origin", "git remote show -n -- origin", "git remote show -n _x-1",
			"git remote show -n origin -n")...))
}

// TestWordsLiteral: the read-only list's commands checked on their words
// run with < > ( ) | & ; { } quoted or escaped in an argument, and ask
// for a process substitution and a brace expansion (row 114,
// TestDifferential/quotedspecials-default). A `$` or backtick the shell
// keeps as text is no reason to ask (row 119): cat 'a$b', cat \$HOME and
// cat 'a`b' ask for their paths (safety:path_scope), as
// TestDifferential/dollarwords-default shows the release running id 'a$b',
// id \$HOME and id 'a`b', whose words it does not read as paths.
func TestWordsLiteral(t *testing.T) {
	runCalls(t, `{}`, "default", slices.Concat(
		bashCalls(allow, codeDefaultReadOnly, `expr 1 \> 0`, "expr 1 '<' 2", "cat 'a;b.txt'", `cat a\;b.txt`, "cat 'x(1).txt'",
			`cat x\(1\).txt`, "cut -d';' -f1 a.txt", "cut -d '|' -f2 a.txt", "tr ';' ',' < a.txt", "tr '{}' '()' < a.txt",
			"paste -d'&' a.txt a.txt", "column -s'|' -t a.txt", "wc -l 'a&b'", "nl '{}'", "nl {} a.txt", "head -1 'a{b}.txt'",
			"basename 'a;b'", `cat a\>b`, `cat "a|b"`, `cat "a>b"`, `id -exec rm {} \;`, "stat -c '%n;%s' a.txt", "cut -f1 -d'}' a.txt",
			"rev 'a (b)'", "ls 'a;b.txt'", `ls x\(1\).txt`, "ls 'a|b' 'd;1'", "ifconfig 'a;b'", "cat '{a,b}.txt'", "cd 'd;1'",
			`cat \{a,b}.txt`, "cat a..b", "cat '{1..2}'"),
		bashCalls(ask, codePathScope, "cat 'a$b'", `cat \$HOME`, "cat 'a`b'"),
		bashCalls(ask, codeDefaultPrompt, `cat "a$b"`, "cat {a,b}.txt", "cat {1..2}.txt",
			"cat <(rm x)", "cat a.txt >(rm x)", "wc {a,'b'}", "cat 'a\nb'", "ls {a,b}", "cd {a,b}")))
}

// TestWordsLiteralWords: wordsLiteral itself, word by word, as written
// (the line's other checks ask for some of these first). 'a$b', \$HOME and
// 'a`b' are literal: TestDifferential/dollarwords-default (id 'a$b',
// id \$HOME, id 'a`b' run).
func TestWordsLiteralWords(t *testing.T) {
	for w, want := range map[string]bool{
		"a.txt": true, "'a;b'": true, `a\;b`: true, `"a|b"`: true, "{}": true, "'{a,b}'": true, `\{a,b}`: true, "{'a,b'}": true,
		"a..b": true, "{a.b}": true, "{1.'x'.3}": true, "'x(1)'": true, `"a\"(b"`: true,
		"<(rm x)": false, ">(rm x)": false, "@(a|b)": false, "a&b": false, "{a,b}": false, "x{1..3}": false, "{a,'b'}": false,
		"'a$b'": true, `\$HOME`: true, "'a`b'": true, "$HOME": true, `"$HOME"/x`: true, "x$HOME": true, `"a$"`: true,
		"'a\nb'": false, `"a"(b)`: false, "$X": false, `"$X"`: false, "`ls`": false, `"$(ls)"`: false, "$HOMEX": false,
		"${HOME}": false, "a$": false, "$": false,
	} {
		if got := wordsLiteral([]string{w}); got != want {
			t.Errorf("wordsLiteral(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestGlobTakers: a command of globTakers with a glob among its words is
// read-only whatever its options (row 115,
// TestDifferential/globtakers-default).
func TestGlobTakers(t *testing.T) {
	runCalls(t, `{}`, "default", slices.Concat(
		bashCalls(allow, codeDefaultReadOnly, "grep -nA2 x *.txt", "grep x --include=*.txt -nA2 -d recurse src",
			"grep -rnA3 x --include=*.txt .", "cat -Q *.txt", "ls -Z *.txt", "wc --files0-from=a.txt *.txt",
			"du --files0-from=a.txt *.txt", "sha256sum --check *.txt", "grep -f a.txt x *.txt", "cut -c1 [ab].txt",
			"stat --printf=%n *.txt", "diff -r a.txt b*.txt", "od -w8 ?.txt", "grep -nA2 x a[b]*", "grep -nA2 x 'a'*"),
		// cat $HOME*.txt asks for its path: $HOME is the home
		// directory (row 119, TestDifferential/homeargs-default).
		bashCalls(ask, codePathScope, "cat $HOME*.txt"),
		bashCalls(ask, codeDefaultPrompt, "grep -nA2 x a.txt", "grep -nA2 x a[.txt",
			"cat {a,b}*.txt", "sort -u *.txt", "grep x --include='*.txt' -nA2 src", `grep -nA2 x a\*`, "grep -nA2 x \"*\"",
			"cat -Q *.txt <(rm x)")))
	for w, want := range map[string]bool{"*": true, "a?": true, "[ab]": true, "a[b*": true, "a[.txt": false, "'*'": false,
		`\*`: false, `"a*"`: false, `a[\]`: false, "a[b'*'": false, "a]": false, "x'['a]": false} {
		if got := textGlob(w); got != want {
			t.Errorf("textGlob(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestWrapperAllowRules: an allow rule that names a wrapper approves the
// wrapper and what it runs, its paths checked as any (row 116,
// TestDifferential/wrapallow-*).
func TestWrapperAllowRules(t *testing.T) {
	for rule, wrap := range map[string]string{"Bash(timeout:*)": "timeout 5", "Bash(nice:*)": "nice", "Bash(nohup:*)": "nohup",
		"Bash(stdbuf:*)": "stdbuf -o0", "Bash(time:*)": "time", "Bash(command:*)": "command", "Bash(timeout 5:*)": "timeout 5",
		"Bash(nice -n 5:*)": "nice -n 5", "Bash(xargs:*)": "xargs"} {
		doc := `{"permissions":{"allow":["` + rule + `"]}}`
		runCalls(t, doc, "default", append(
			bashCalls(allow, codePermissionAllow, wrap+" touch t.txt", wrap+" npm run test", wrap+" rm f1.txt", wrap+" git status",
				wrap+" npm test | cat", "LANG=C "+wrap+" touch u.txt"),
			bashCalls(ask, codePathScope, wrap+" touch ../outside/o.txt")...))
	}
	runCalls(t, `{"permissions":{"allow":["Bash(timeout 5:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt,
		"timeout 6 touch t.txt", "nice timeout 5 touch t.txt"))
	runCalls(t, `{"permissions":{"allow":["Bash(LANG=C:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt,
		"LANG=C timeout 5 touch t.txt", "LANG=C touch t.txt"))
	runCalls(t, `{"permissions":{"allow":["Bash(time:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt, "time ! ls"))
}

// TestGitReflog: git reflog's words as Claude Code 2.1.328 checks them
// (row 117, TestDifferential/gitreflog-default).
func TestGitReflog(t *testing.T) {
	runCalls(t, `{}`, "default", append(
		bashCalls(allow, codeDefaultReadOnly, "git reflog", "git reflog show HEAD", "git reflog show -- a.txt", "git reflog -n 1 a.txt",
			"git reflog --all -- a.txt", "git reflog list", "git reflog show secret/s.txt", "git reflog -- show", "git reflog show main a.txt"),
		bashCalls(ask, codeDefaultPrompt, "git reflog HEAD", "git reflog show expire", "git reflog exists HEAD", "git reflog -n 1 write",
			"git reflog drop", "git reflog show delete", "git reflog a.txt")...))
}

// TestDollarWords: a `$` or backtick is text in single quotes, escaped, or
// lone in double quotes; $HOME, bare or in double quotes, is the home
// directory; the rest is live (row 119, TestDifferential/dollarwords-default,
// homeargs-default, lonedollar-default). Read-only commands whose words the
// release does not check run with the first two, and those it checks on
// their text (git, grep, sort, ...) ask for any `$` left as text.
func TestDollarWords(t *testing.T) {
	for w, want := range map[string][2]bool{
		"a": {false, false}, "'a$b'": {false, true}, `\$X`: {false, true}, "'a`b'": {false, true}, `"a$"`: {false, true},
		`"$/x"`: {false, true}, `"x$,"`: {false, true}, `"$"`: {false, true}, "\\`": {false, true},
		"$HOME": {false, false}, `"$HOME"`: {false, false}, "x$HOME/a": {false, false}, "$HOME$HOME": {false, false},
		`\\$HOME`: {false, false}, "$X": {true, false}, `"$X"`: {true, false}, "$HOMEX": {true, false}, "$HOME_1": {true, false},
		"${HOME}": {true, false}, "$(ls)": {true, false}, "`ls`": {true, false}, `"a` + "`ls`" + `"`: {true, false}, "a$": {true, false},
		"$": {true, false}, "$.": {true, false}, "$1": {true, false}, `"$1"`: {true, false}, "'$'$X": {true, true},
		"$((1+x))": {true, false},
	} {
		if live, text := dollarWords(w); live != want[0] || text != want[1] {
			t.Errorf("dollarWords(%q) = %v, %v, want %v, %v", w, live, text, want[0], want[1])
		}
	}
	runCalls(t, `{}`, "default", append(append(
		bashCalls(allow, codeDefaultReadOnly, "id -r $HOME/notes.txt", "id $HOME", `id "$HOME/notes.txt"`, "id 'a$b'", `id \$HOME`,
			"id 'a`b'", `basename "a\$b"`, "id x$HOME", `id "$HOME"x`, "basename $HOME", "realpath -S $HOME/a", "readlink -f $HOME/a",
			"which $HOME", "git ls-files $HOME/notes.txt", "git log -1 -- $HOME", "du -s $HOME", "tree $HOME", "date -r $HOME/a",
			`id "a$"`, "basename $((1+2))", "cut -d'$' -f1 a.txt", "tr '$' x < a.txt", "expr '$a' : x", "du -s '$x'", "basename $HOME/*"),
		bashCalls(ask, codeDefaultPrompt, "id ${HOME}", "id $HOMEX", "id $HOME/*.txt", "git log -1 '$x'", "grep 'a$' a.txt",
			"sort -t'$' a.txt", "date -d '$x'", "which '$x'", "id a$", "id $", `id "$(ls)"`, "echo a$", "echo $ x", "echo $.",
			"echo a$/b", "echo $,", "echo $]", `echo $\x`, "echo a$;", "basename $ x")...),
		bashCalls(ask, codePathScope, "cat $HOME/notes.txt", "ls $HOME", "find $HOME -maxdepth 0", "sed -n 1p $HOME/a", "cd $HOME")...))
	runCalls(t, `{"permissions": {"additionalDirectories": ["/h"]}}`, "default",
		bashCalls(allow, codeDefaultReadOnly, "cat $HOME/notes.txt", `head -1 "$HOME/notes.txt"`, "ls $HOME", "find $HOME -maxdepth 0",
			"sed -n 1p $HOME/a", "cd $HOME", "grep n $HOME/a", "diff a.txt $HOME/a", "ls $HOME/*.txt"))
	// Under a rule naming it, echo with a lone '$' still asks
	// (TestDifferential/lonedollarallowed-default).
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt, "echo a $ b", "echo a$"))
}

// TestParseRefusals: the lines Claude Code 2.1.328's parser refuses (a
// lone '=' word, a trailing backslash, a redirection with no target) ask
// under every rule but a bare Bash one, and run in bypassPermissions
// (row 121, TestDifferential/parseerrors-*, oddwords-default).
func TestParseRefusals(t *testing.T) {
	refused := []string{"echo =", "echo = x", "echo x = y", "ls =", "cat a.txt =", "wc -l = a.txt", "git log =", "npm test =",
		"echo x; echo =", "echo = | cat", "echo x=1 =", `echo a\`, `echo a \`, `ls \`, `echo a\\\`, "echo a>", "echo a >", "ls >",
		"echo a 2>", "echo a >>", "echo a <", "cat <", "echo a &>", "echo a >|", "echo a > ;", "echo a >&", "echo a 2>&",
		"echo a > && ls", "cat <<", "echo a 10>/dev/null", "ls 12<a.txt", "echo a 1&>/dev/null", "echo a 10>>/dev/null",
		"[[ a == #x ]]", "[ a = #x ]", "[[ a != #x ]]", "[ 1 -eq #1 ]", "[[ -n #x ]]",
		// A here-string given a descriptor (row 138, substforms-*).
		"cat 0<<< x", "cat 3<<< x a.txt", "cat 0<<<x", "echo a 2<<< x"}
	runCalls(t, `{"permissions": {"allow": ["Bash(npm test:*)", "Bash(echo:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt, refused...))
	runCalls(t, `{}`, "default", slices.Concat(
		bashCalls(ask, codeDefaultPrompt, refused...),
		bashCalls(allow, codeDefaultReadOnly, "echo ==", "echo x=", "echo '='", `echo \=`, "[ a = b ]", "[[ a = b ]]", "echo += x",
			`echo a\\`, `echo 'a\'`, `echo "a\\"`, "echo a > /dev/null", "echo x |", "basename $((1+2))",
			"echo a 2>&1", "echo 10 >/dev/null", "echo a10>/dev/null", "echo a 1>/dev/null",
			"[[ a = b#c ]]", "[[ a = b ]]", "[ a = b ]", "cat <<< x", "cat <<<a", `cat <<< "a b"`)))
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "default", bashCalls(allow, codePermissionAllow, refused...))
	runCalls(t, `{}`, "bypassPermissions", bashCalls(allow, codeModeBypass, refused...))
}

// TestTestRefusals: a [ ] comparison with no right-hand side and a [[ ]]
// pattern or regex zsh would split ask under every rule but a bare Bash
// one and run in bypassPermissions; the forms beside them run (row 130,
// TestDifferential/complexforms*).
func TestTestRefusals(t *testing.T) {
	refused := []string{"[ a = ]", "[ a -eq ]", "[[ a == a&b ]]", "[[ a =~ a&b ]]", "[[ a =~ a||b ]]", "[[ a =~ (a)||b ]]", "[[ a =~ a) ]]",
		"[[ a != x&y ]]", "echo a && [ b = ]"}
	runCalls(t, `{"permissions": {"allow": ["Bash([:*)", "Bash([[:*)", "Bash(echo:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt, refused...))
	runCalls(t, `{}`, "acceptEdits", slices.Concat(bashCalls(ask, codeDefaultPrompt, refused...),
		bashCalls(allow, codeDefaultReadOnly, "[ = ]", "[ -n = ]", "[[ a =~ (a||b) ]]", `[[ a =~ a\|\|b ]]`, "[[ a =~ 'a||b' ]]",
			"[[ a == 'a&b' ]]", `[[ a == a\&b ]]`, "[[ a == b && c == d ]]", "[[ a&&b ]]", "[ a = b ]")))
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "default", bashCalls(allow, codePermissionAllow, refused...))
	runCalls(t, `{}`, "bypassPermissions", bashCalls(allow, codeModeBypass, refused...))
	for w, want := range map[string]bool{"a||b": true, "(a||b)": false, "(a)||b": true, `a\|\|b`: false, "'a||b'": false, `"a||b"`: false,
		"a)": true, "(a": true, "(a)": false, `\(a`: false} {
		if got := regexSplit(w); got != want {
			t.Errorf("regexSplit(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestPatternBuiltins: the builtins that read their words as names or
// numbers ask under a rule naming them for a glob or a ~ word, and export,
// readonly and unset for an operand that is not a plain name (row 122,
// TestDifferential/patternbuiltinsallowed-default); with no rule, under a
// bare Bash rule and for set --, printf's operands and assignments, as
// before.
func TestPatternBuiltins(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(export:*)", "Bash(unset:*)", "Bash(readonly:*)", "Bash(set:*)", "Bash(shift:*)",
		"Bash(read:*)", "Bash(wait:*)", "Bash(jobs:*)", "Bash(printf:*)", "Bash(getopts:*)", "Bash(break:*)", "Bash(return:*)",
		"Bash(declare:*)"]}}`
	asked := []string{"export a*", "export ~x", "export A=1 b*", "export 'a*'", "readonly a*", "unset a*", "unset ~", `unset a\*`,
		"set *", "shift *", "read a* < a.txt", "wait *", "jobs *", "getopts ab a*", "break *", "return *", "printf a* x", "unset -v a?", "export A+"}
	runCalls(t, rules, "default", slices.Concat(bashCalls(ask, codeUncheckedCommand, asked...),
		bashCalls(allow, codePermissionAllow, "export A", "unset A", "set -- *", "set -- a*", "printf %s *", "printf %s ~",
			"declare x=a[1]", "export A=1", `export "A"`, "unset -f a.b", "read x < a.txt")))
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "default", bashCalls(allow, codePermissionAllow, asked...))
	for _, c := range []struct {
		a    string
		fun  bool
		want bool
	}{{"A", false, true}, {"A+", false, false}, {"_a1", false, true}, {"a*", false, false}, {"1a", false, false}, {"a.b", false, false},
		{"a.b", true, true}, {"a:b-c", true, true}, {"a*", true, false}, {"", false, false}} {
		if got := plainName(c.a, c.fun); got != c.want {
			t.Errorf("plainName(%q, %v) = %v, want %v", c.a, c.fun, got, c.want)
		}
	}
}

// TestPatternOperandMismatchAsks: words unquoted and as written in
// different numbers (no parse makes them today) are no reason to run: the
// builtin asks, where a skip would have let it through.
func TestPatternOperandMismatchAsks(t *testing.T) {
	if w, why := patternOperand("export", []string{"A"}, []string{"A", "b*"}); why == "" || w != "A b*" {
		t.Fatalf("patternOperand with 1 word and 2 as written = %q, %q; want an ask", w, why)
	}
	if _, why := patternOperand("echo", []string{"A"}, []string{"A", "b*"}); why != "" {
		t.Fatalf("echo is no pattern builtin, yet %q", why)
	}
	if _, why := patternOperand("export", []string{"A"}, []string{"A"}); why != "" {
		t.Fatalf("export A asks: %q", why)
	}
}

// TestSuspiciousPaths: writes to a path naming a Windows pattern ask in
// acceptEdits and under an Edit allow rule, by Write and by Bash, and run
// in bypassPermissions (row 123, TestDifferential/winpatterns-*,
// winpatternsrule-default).
func TestSuspiciousPaths(t *testing.T) {
	w := func(f string) call1 {
		return call1{"Write", map[string]any{"file_path": f, "content": "x", PathsKey: map[string]any{"project": "/p", "home": "/h"}}, ask,
			codeProtectedPath}
	}
	files := []string{"x.", "sub./y.txt", "PROGRA~1.txt", "a~1/b.txt", "x.nul", "x.CON", "a.com1", ".../x.txt", "x/.../y.txt", "x..",
		"a /b.txt"}
	var calls []call1
	for _, f := range files {
		calls = append(calls, w(f))
	}
	cmds := []string{"touch t.", "touch t~1.txt", "touch t.nul", "mkdir d.", "mkdir -p m/.../n", "cp a.txt c.", "echo x > r.",
		"echo x > o~2.txt"}
	runCalls(t, `{}`, "acceptEdits", slices.Concat(calls, bashCalls(ask, codeDefaultPrompt, cmds[:6]...),
		bashCalls(ask, codeRedirect, cmds[6:]...)))
	runCalls(t, `{"permissions": {"allow": ["Edit(**)"]}}`, "default", slices.Concat(calls, bashCalls(ask, codeRedirect, cmds[6:]...)))
	ok := func(f string) call1 {
		c := w(f)
		c.want, c.reason = allow, codeModeAcceptEdits
		return c
	}
	runCalls(t, `{}`, "acceptEdits", slices.Concat([]call1{ok("ok.txt"), ok("a~b.txt"), ok("x.nul.txt"), ok("..x.txt"), ok("x...txt"),
		ok("a.txt "), ok("con.txt"), ok("nul")}, bashCalls(allow, codeModeAcceptEdits, "touch ok.txt", "mkdir d"),
		bashCalls(allow, codeDefaultReadOnly, "echo x > ok.txt")))
	bypass := slices.Clone(calls)
	for i := range bypass {
		bypass[i].want, bypass[i].reason = allow, codeModeBypass
	}
	runCalls(t, `{}`, "bypassPermissions", slices.Concat(bypass, bashCalls(allow, codeModeBypass, cmds...)))
}

// TestSuspiciousReads: Read asks for a path naming a Windows pattern, under
// a Read allow rule too, and reads it in bypassPermissions; cat runs (row
// 123, TestDifferential/winreads-*).
func TestSuspiciousReads(t *testing.T) {
	r := func(f string, allowed bool, code string) call1 {
		c := call1{"Read", map[string]any{"file_path": f, PathsKey: map[string]any{"project": "/p", "home": "/h"}}, ask, code}
		if allowed {
			c.want = allow
		}
		return c
	}
	var asks, bypass []call1
	for _, f := range []string{"x.", "PROGRA~1.txt", "a~1/b.txt", "x.nul", "sub./y.txt"} {
		asks = append(asks, r(f, false, codeProtectedPath))
		bypass = append(bypass, r(f, true, codeModeBypass))
	}
	runCalls(t, `{}`, "default", slices.Concat(asks, []call1{r("ok.txt", true, codeDefaultReadOnly)},
		bashCalls(allow, codeDefaultReadOnly, "cat x.", "cat PROGRA~1.txt")))
	runCalls(t, `{"permissions": {"allow": ["Read(**)"]}}`, "default", asks)
	runCalls(t, `{}`, "bypassPermissions", bypass)
}

// TestProtectedNames: protected names match as Claude Code 2.1.328
// normalizes a segment (a ':' suffix, invisible format characters, a
// dotless i; row 124, TestDifferential/protspell-acceptEdits).
func TestProtectedNames(t *testing.T) {
	for s, want := range map[string]string{".bashrc": ".bashrc", ".bashrc:x": ".bashrc", ".g\u0131t": ".git", ".vs\u200dcode": ".vscode",
		".bashrc\u200f": ".bashrc", ".\u017fsh": ".ssh", "a:b.txt": "a", ".gitconfig\u202e": ".gitconfig", ".git.": ".git", "...": "...",
		"x\u200b.txt": "x\u200b.txt", ":x": ":x", ".zshrc\ufeff": ".zshrc", "\u200c": "\u200c"} {
		if got := protectedName(s); got != want {
			t.Errorf("protectedName(%q) = %q, want %q", s, got, want)
		}
	}
	w := func(f string) call1 {
		return call1{"Write", map[string]any{"file_path": f, "content": "x", PathsKey: map[string]any{"project": "/p", "home": "/h"}}, ask,
			codeProtectedPath}
	}
	var calls []call1
	for _, f := range []string{".bashrc:x", ".git:x/config", ".g\u0131t/config", ".vs\u200dcode/x.json", ".bashrc\u200f", ".npmrc:y",
		".\u0131dea/x.xml", ".claude:z/settings.json", ".gitconfig\u202e", ".config/g\u0131t/config", ".config/git:x/config"} {
		calls = append(calls, w(f))
	}
	ok := w("a:b.txt")
	ok.want, ok.reason = allow, codeModeAcceptEdits
	runCalls(t, `{}`, "acceptEdits", slices.Concat(calls, []call1{ok}))
}

// TestReadBlock: under permissions.blockReadsOutsideWorkingDirectories a
// read tool outside the working directories is denied and a command that
// reads outside them asked for, whatever mode or rule would approve them;
// writes and reads inside go on (row 125, TestDifferential/blockreads-*).
func TestReadBlock(t *testing.T) {
	r := func(f string) call1 {
		return call1{"Read", map[string]any{"file_path": f, PathsKey: map[string]any{"project": "/p", "home": "/h"}}, deny, codeReadBlock}
	}
	blocked := slices.Concat([]call1{r("/etc/hostname"), r("../outside/o.txt"), r("/h/notes.txt")},
		bashCalls(ask, codeReadBlock, "cat /etc/hostname", "cat ../outside/o.txt", "ls /", "cd .. && ls", "head -1 ~/notes.txt",
			"cat < /etc/hostname", "cat $X", "cd", "cat < /dev/null", "cat a.txt ../outside/o.txt"))
	for _, c := range []struct{ doc, mode string }{
		{`{"permissions": {"blockReadsOutsideWorkingDirectories": true}}`, "default"},
		{`{"permissions": {"blockReadsOutsideWorkingDirectories": true}}`, "bypassPermissions"},
		{`{"permissions": {"blockReadsOutsideWorkingDirectories": true, "allow": ["Read", "Bash"]}}`, "acceptEdits"},
		{`{"permissions": {"blockReadsOutsideWorkingDirectories": true, "allow": ["Read(//etc/**)", "Bash(cat:*)"]}}`, "default"},
	} {
		runCalls(t, c.doc, c.mode, blocked)
	}
	in := r("a.txt")
	in.want, in.reason = allow, codeDefaultReadOnly
	runCalls(t, `{"permissions": {"blockReadsOutsideWorkingDirectories": true}}`, "default", slices.Concat([]call1{in},
		bashCalls(allow, codeDefaultReadOnly, "cat a.txt", "pwd", "git log -1")))
	runCalls(t, `{"permissions": {"blockReadsOutsideWorkingDirectories": true}}`, "bypassPermissions",
		bashCalls(allow, codeModeBypass, "echo x > ../outside/w.txt"))
	runCalls(t, `{"permissions": {"blockReadsOutsideWorkingDirectories": false}}`, "default", bashCalls(ask, codePathScope, "cat /etc/hostname"))
}

// TestWriteBlock: under permissions.blockWritesOutsideWorkingDirectories a
// file tool's write outside the working directories, or of a Claude Code
// settings file inside them, is denied in every mode and under every rule;
// Bash is not limited; EnterWorktree and ExitWorktree leave the pool
// (row 126, TestDifferential/blockwrites-*; a settings file below a
// subdirectory and in another case, blockwritescase-*).
func TestWriteBlock(t *testing.T) {
	w := func(f string) call1 {
		return call1{"Write", map[string]any{"file_path": f, "content": "x", PathsKey: map[string]any{"project": "/p", "home": "/h"}}, deny,
			codeWriteBlock}
	}
	blocked := []call1{w("../outside/n1.txt"), w("/h/n2.txt"), w("/tmp/n3.txt"), w(".claude/settings.json"), w(".claude/settings.local.json"),
		w("sub/.Claude/Settings.json")}
	for _, c := range []struct{ doc, mode string }{
		{`{"permissions": {"blockWritesOutsideWorkingDirectories": true}}`, "default"},
		{`{"permissions": {"blockWritesOutsideWorkingDirectories": true}}`, "bypassPermissions"},
		{`{"permissions": {"blockWritesOutsideWorkingDirectories": true, "allow": ["Edit(//**)", "Edit", "Write"]}}`, "acceptEdits"},
	} {
		runCalls(t, c.doc, c.mode, blocked)
	}
	in := w("n4.txt")
	in.want, in.reason = allow, codeModeAcceptEdits
	runCalls(t, `{"permissions": {"blockWritesOutsideWorkingDirectories": true}}`, "acceptEdits", []call1{in})
	runCalls(t, `{"permissions": {"blockWritesOutsideWorkingDirectories": true}}`, "bypassPermissions",
		bashCalls(allow, codeModeBypass, "echo x > ../outside/b1.txt", "touch ../outside/b2.txt"))
	for _, tool := range []string{"EnterWorktree", "ExitWorktree"} {
		for _, c := range []struct {
			block  string
			want   envelope.Decision
			reason string
		}{{"true", deny, codeWriteBlock}, {"false", allow, codeModeBypass}} {
			w := newWorld(t, `{"permissions": {"blockWritesOutsideWorkingDirectories": `+c.block+`}}`, append(slices.Clone(decideCatalogue), tool)...)
			w.start(t, "lead", events.StartedData{Agent: "main", Mode: "bypassPermissions"})
			if v := w.decide("lead", tool, map[string]any{}); v.Decision != c.want || v.Reason.Code != c.reason {
				t.Errorf("%s with the block %s = %s (%s), want %s (%s)", tool, c.block, v.Decision, v.Reason.Code, c.want, c.reason)
			}
		}
	}
}

// TestRedirShapes: the redirection targets Claude Code 2.1.328's reader
// refuses ask whatever approved the command; the plain forms beside them
// are read as paths (TestDifferential/redirreader-*).
func TestRedirShapes(t *testing.T) {
	asked := []string{"echo a > '!x1.txt'", "echo a > '=x3.txt'", "cat < '=a.txt'", "cat < '!a.txt'", "echo a >&-x", "echo a >&'a b.txt'",
		"echo a >&a+b.txt", "echo a > \"x9\ny.txt\""}
	runCalls(t, `{}`, "acceptEdits", slices.Concat(bashCalls(ask, codeRedirect, asked...),
		bashCalls(allow, codeDefaultReadOnly, "echo a >&x4.txt", "echo a >& x5.txt", "echo a &> x6.txt", "echo a >&2", "echo a 2>&1",
			"echo a > x14.txt 2>&1", "cat <a.txt >x16.txt", "echo a > -x20.txt", "[[ a > '=b' ]]")))
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)", "Bash(cat:*)"]}}`, "default", bashCalls(ask, codeRedirect, append(asked, "echo a <> x11.txt")...))
	for u, want := range map[string]bool{"x.txt": true, "a/b-c_d.1": true, "a b": false, "a+b": false, "~/x": false, "": true} {
		if got := dupTarget(u); got != want {
			t.Errorf("dupTarget(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestInputConcat: a redirection target holding an unescaped $ or
// backtick that is not one quoted string asks whatever approved the
// command; "$HOME/x" and "$HOME" are read as paths, for input and output
// (TestDifferential/homeredirects-acceptEdits, inputconcat-acceptEdits,
// which shows cat < $HOME and cat < '$a'a.txt asking: the release tests
// the target's text, quotes and all).
func TestInputConcat(t *testing.T) {
	doc := `{"permissions": {"additionalDirectories": ["/h"]}}`
	runCalls(t, doc, "acceptEdits", slices.Concat(bashCalls(ask, codeRedirect, "cat < $HOME/notes.txt", "wc -l < $HOME/notes.txt",
		"cat <$HOME/notes.txt", `cat <"$HOME"/notes.txt`, "cat < $HOME", `cat < '$a'a.txt`, `echo x > "$HOME"/o.txt`, "echo x > $HOME"),
		bashCalls(ask, codeDefaultPrompt, "cat <&$X", "echo x >&$X", "[[ a < $HOME/x ]]"),
		bashCalls(allow, codeDefaultReadOnly, `cat < "$HOME/notes.txt"`, "cat < ~/notes.txt", `cat < "$HOME"`, `cat < 'a.txt'`,
			`echo x > "$HOME/o5.txt"`, `echo a > "$HOME"`)))
	for w, want := range map[string]bool{"$HOME/x": true, "a$X": true, "`pwd`/x": true, "$HOME": true, "${HOME}": true, `"$HOME/x"`: false,
		`"$HOME"/x`: true, "a.txt": false, "'$x'/a": true, "'$x'": false, `\$x/a`: false, `a\\$x`: true, `"a\"$"`: false, `"a"$`: true} {
		if got := redirUnread(w); got != want {
			t.Errorf("redirUnread(%q) = %v, want %v", w, got, want)
		}
	}
	for w, want := range map[string]bool{`"$HOME"`: true, `"$HOME/x"`: true, `"$HOMEX"`: false, `"$HOME/$X"`: false, `$HOME/x`: false,
		`"$HOME"/x`: false, `'$HOME'`: false} {
		if got := homeQuoted(w); got != want {
			t.Errorf("homeQuoted(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestCatHeredocs: a here-document given to a bare cat in a double-quoted
// command substitution is read as its text, as Claude Code 2.1.328 reads
// it; every other shape is left for the checks that ask for it (row 131,
// TestDifferential/catheredoc-*, catheredocrule-default).
func TestCatHeredocs(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(echo:*)", "Bash(git commit:*)"], "deny": ["Bash(rm:*)"]}}`
	ran := []string{"echo \"$(cat <<'EOF'\nhi\nEOF\n)\"", "echo \"$(cat <<'EOF'\nline1\nline2\nEOF\n)\"",
		"echo \"a $(cat <<'EOF'\nx\ny\nEOF\n)\"", "echo \"$(cat <<\"EOF\"\nhi\nEOF\n)\"", "git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nhi\nEOF\n)$(cat <<'EOF'\nho\nEOF\n)\"", "echo \"$(cat <<'EOF'\nrm a.txt\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\n-n\nEOF\n)\"", "echo \"$(  cat <<'EOF'\nhi\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\nEOF\n  )\"",
		"echo \"x$(cat <<'EOF'\n-n\ny\nEOF\n)\"", "echo \"$(cat <<'EOF'\nit's \"q\" x\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\n\n\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nEOF;x\nEOF\n)\""}
	asked := []string{"echo \"$(cat <<'EOF'\n-n\nx\nEOF\n)\"", "echo \"$(cat <<EOF\nhi\nEOF\n)\"", "echo \"$(cat <<\\EOF\nhi\nEOF\n)\"",
		"echo \"$(cat <<-'EOF'\n\thi\n\tEOF\n)\"", "echo \"$(cat -n <<'EOF'\nhi\nEOF\n)\"", "echo $(cat <<'EOF'\nhi\nEOF\n)",
		"echo \"$(cat <<'EOF'\n/proc/1/environ\nEOF\n)\"", "echo \"$(cat <<'EOF' | tr a b\nhi\nEOF\n)\"", "echo \"$(cat <<'EOF'\n--x\ny\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nsystem(\"x\")\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\nEOF)\"", "echo \"$(cat <<'EOF'\nEOF)x\nEOF\n)\"",
		"echo \"$(cat <<'EOF' 2>/dev/null\nhi\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\nEOF\necho x\n)\"",
		"echo \"$(cat <<'EOF'\nhi\nEOF\n)\" <<< x", "echo '\"' $(cat <<'EOF'\nhi\nEOF\n) '\"'",
		// The first body makes the word start -n for the second, as
		// the release reads the string's text so far.
		"echo \"$(cat <<'EOF'\n-n\nEOF\n)$(cat <<'EOF'\nx\ny\nEOF\n)\""}
	runCalls(t, rules, "default", slices.Concat(bashCalls(allow, codePermissionAllow, ran...), bashCalls(ask, codeDefaultPrompt, asked...),
		bashCalls(deny, codePermissionDeny, "rm \"$(cat <<'EOF'\nx\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\nEOF\n)\" && rm a.txt")))
	for in, want := range map[string]string{
		"echo \"$(cat <<'EOF'\nhi\nEOF\n)\"":                  `echo "hi"`,
		"echo \"a $(cat <<'EOF'\nx\ny\nEOF\n)\"":              "echo \"a \n" + cmdsubOutput + `"`,
		"echo \"$(cat <<'EOF'\n$x 'y'\nEOF\n)\"":              `echo ""'$x '\''y'\'''""`,
		"echo \"$(cat <<EOF\nhi\nEOF\n)\"":                    "echo \"$(cat <<EOF\nhi\nEOF\n)\"",
		"cat <<'X'\na\nX\necho \"$(cat <<'EOF'\nhi\nEOF\n)\"": "cat <<'X'\na\nX\necho \"$(cat <<'EOF'\nhi\nEOF\n)\"",
		"echo \"$(echo \"$(cat <<'EOF'\nhi\nEOF\n)\")\"":      "echo \"$(echo \"$(cat <<'EOF'\nhi\nEOF\n)\")\"",
	} {
		if got := catHeredocs(in); got != want {
			t.Errorf("catHeredocs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestQuotedArith: a double-quoted string holding an arithmetic expansion
// and at most one character besides its expansions asks under every rule
// but a bare Bash one (row 132, TestDifferential/paramforms-*,
// paramformsrule-default).
func TestQuotedArith(t *testing.T) {
	asked := []string{`echo "$(( 2 + 3 ))"`, `echo "$((1+2))"`, `echo "a$((1+2))"`, `echo "$((1+2))x"`, `echo "$((1+2)) "`, `echo "é$((1))"`,
		`echo x"$((1))"y`, `echo "$((1))$((2))"`}
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)"]}}`, "default", bashCalls(ask, codeDefaultPrompt, asked...))
	runCalls(t, `{}`, "acceptEdits", slices.Concat(bashCalls(ask, codeDefaultPrompt, asked...),
		bashCalls(allow, codeDefaultReadOnly, `echo "ab$((1+2))"`, `echo '"$((1))"'`, `echo "\$((1))"`, "echo $((0x10))")))
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "default", bashCalls(allow, codePermissionAllow, asked...))
}

// TestNestedLoops: a loop inside a loop's body, or inside an if, is read
// as the outer one is: its header runs nothing and its commands are
// decided, five deep at most (row 133, TestDifferential/paramforms-*,
// deeploops-*).
func TestNestedLoops(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(rm:*)"]}}`
	runCalls(t, rules, "default", slices.Concat(
		bashCalls(allow, codePermissionAllow, "for i in 1; do for j in 1; do for k in 1; do for l in 1; do echo; done; done; done; done",
			"for i in 1; do echo; for j in 1; do echo; done; done", "for i in 1; do echo for j in 1; done"),
		bashCalls(allow, codeDefaultReadOnly, "if true; then for i in 1; do echo; done; fi"),
		bashCalls(deny, codePermissionDeny, "for i in 1; do for j in 1; do rm a.txt; done; done"),
		bashCalls(ask, codeDefaultPrompt, "for i in 1; do for j in $(echo 1); do echo; done; done", "for i in 1; do for j in 1; do echo; done",
			// Six loops deep: TestDifferential/deeploops-*.
			"for a in 1; do for b in 1; do for c in 1; do for d in 1; do for e in 1; do for f in 1; do echo; done; done; done; done; done; done",
			"while false; do for a in 1; do for b in 1; do for c in 1; do for d in 1; do for e in 1; do echo; done; done; done; done; done; done"),
		bashCalls(allow, codePermissionAllow, "for a in 1; do for b in 1; do for c in 1; do for d in 1; do for e in 1; do echo; done; done; done; done; done")))
}

// TestQuotedSpecialParam: a special or positional parameter in double
// quotes is no read-only word, while a rule naming the command approves it
// (row 134, TestDifferential/quotedvars-*, quotedvarsrule-default).
func TestQuotedSpecialParam(t *testing.T) {
	special := []string{`echo "ab$?"`, `echo "ab$$"`, `echo "ab$#"`}
	runCalls(t, `{}`, "acceptEdits", slices.Concat(bashCalls(ask, codeDefaultPrompt, special...),
		bashCalls(allow, codeDefaultReadOnly, `echo "ab$RANDOM"`, `echo "ab$PWD"`, `echo "a$HOME"`, `echo "a$"`, `echo '$?'`)))
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)"]}}`, "default", bashCalls(allow, codePermissionAllow, special...))
	for w, want := range map[string]bool{`"ab$?"`: true, `"$1"`: true, `'$?'`: false, `\$?`: false, `"a\$?"`: false, `$?`: false, `"a"$?`: false} {
		if got := quotedSpecialParam([]string{w}); got != want {
			t.Errorf("quotedSpecialParam(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestGluedDoubleParen: a (( in a command's argument is read as the
// release's removal check reads it, asking in bypassPermissions; a [[ with
// no ]] closing it and a here-document body line that starts with the
// delimiter and holds a ) or } ask under the rules (row 135,
// TestDifferential/doubleparens-bypassPermissions, parseedges-*).
func TestGluedDoubleParen(t *testing.T) {
	glued := []string{"echo a((b))", "echo a((b)", "echo ((b))", "ls a((b))", "echo x((1))y", "echo a(( b ))", "echo a((", "echo a((b)) c",
		"echo a((b)); ls", "echo -a((b))", "echo /((b))", "echo a,((b))", "echo a$((1))((2))"}
	runCalls(t, `{}`, "bypassPermissions", slices.Concat(bashCalls(ask, codeCriticalPath, glued...),
		bashCalls(allow, codeModeBypass, "echo a(b)", "echo a$((1))", "echo 'a((b))'", `echo a\((b))`, "x=a((b))", "((a))", "echo a[(b)]",
			"echo a)(b", "for ((i=0;i<1;i++)); do echo x; done", `echo "a((b))"`)))
	runCalls(t, `{"permissions": {"allow": ["Bash([[:*)", "Bash(cat:*)"]}}`, "default", slices.Concat(
		bashCalls(ask, codeDefaultPrompt, "[[ a ]]x", "cat <<'EOF'\nEOF)x\nEOF", "cat <<'EOF'\nEOF}x\nEOF"),
		bashCalls(allow, codePermissionAllow, "[[ a == x]]y ]]", "cat <<'EOF'\nEOF x\nEOF", "cat <<'EOF'\nEOF;x\nEOF", "[[ a ]]")))
}

// TestOptionRuntime: an argument that reads as an option and holds a value
// the release does not know asks under every rule but a bare Bash one;
// one whose text does not start so, or holds only $HOME, runs (row 136,
// TestDifferential/optionvalues-*, optionvaluesrule-default).
func TestOptionRuntime(t *testing.T) {
	asked := []string{`echo "-a$PWD"`, `echo "--ab$PWD"`, `echo "-ab$((1))"`, `echo -"ab$PWD"`, `echo "-_$PWD"`, "echo -$((1))", "echo -a$((1))",
		`echo "-1$PWD"`, `echo "-A$PWD"`, `echo "--$PWD"`, `echo x "-a$PWD"`, `echo "-a$?"`, "echo a -$((1))", `echo "--x=$PWD"`, `echo "-x $PWD"`}
	ran := []string{`echo "éa$PWD"`, `echo "a-$PWD"`, `echo "-.$PWD"`, `echo "-/$PWD"`, `echo "-$HOME"`, `echo -"$HOME"x`, `echo "-a$HOME"`,
		`echo "-"`, `echo "-a"`}
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)"]}}`, "default", slices.Concat(bashCalls(ask, codeDefaultPrompt, asked...),
		bashCalls(allow, codePermissionAllow, ran...)))
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "default", bashCalls(allow, codePermissionAllow, asked...))
	for w, want := range map[string]string{`"-a$PWD"`: "-a_", `-"ab$PWD"`: "-ab", `"$HOME/x"`: "//x", `'-$x'`: "-$x", `\-a`: "-a", "-$((1))": "-_",
		`"-${X}y"`: "-_y"} {
		if got, _ := wordHead(w); got != want {
			t.Errorf("wordHead(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestLongLines: a line past maxLineLength bytes asks under every rule but
// a bare Bash one, a here-document given to cat in it too (row 137,
// TestDifferential/longlines-default).
func TestLongLines(t *testing.T) {
	body := func(n int) string {
		return "echo \"$(cat <<'EOF'\n" + strings.Repeat("word ", n/5) + "\nline two\nEOF\n)\""
	}
	long := []string{"echo " + strings.Repeat("x", 11000), body(11000), "echo " + strings.Repeat("a ", 5500), "echo " + strings.Repeat("x", maxLineLength-4)}
	runCalls(t, `{"permissions": {"allow": ["Bash(echo:*)"]}}`, "default", slices.Concat(bashCalls(ask, codeDefaultPrompt, long...),
		bashCalls(allow, codePermissionAllow, "echo "+strings.Repeat("x", 9000), body(9000), "echo "+strings.Repeat("x", maxLineLength-5))))
	runCalls(t, `{"permissions": {"allow": ["Bash"]}}`, "default", bashCalls(allow, codePermissionAllow, long...))
}

// TestMisreadEdges: a # starting a word of a for list asks, a comment after
// a loop's done or a test's ]] is none of their words, and quoted text in
// a subscript of an expansion asks in bypassPermissions too (row 139,
// TestDifferential/misreadedges-*, misreadedgesrule-default).
func TestMisreadEdges(t *testing.T) {
	rules := `{"permissions": {"allow": ["Bash(echo:*)", "Bash([[:*)", "Bash(for:*)"]}}`
	runCalls(t, rules, "default", slices.Concat(bashCalls(ask, codeDefaultPrompt, "for i in a #b; do echo x; done"),
		bashCalls(allow, codePermissionAllow, "for i in a b; do echo x; done # c", "[[ a == b ]] # c", "for i in a#b; do echo x; done",
			"for i in '#b'; do echo x; done")))
	runCalls(t, `{}`, "acceptEdits", slices.Concat(bashCalls(ask, codeDefaultPrompt, "for i in a #b; do echo x; done"),
		bashCalls(allow, codeDefaultReadOnly, "for i in a b; do echo x; done # c", "[[ a == b ]] # c")))
	runCalls(t, `{}`, "bypassPermissions", slices.Concat(bashCalls(ask, codeCriticalPath, "echo ${a['x']}", "echo $(( a['x'] ))", `echo ${a["x"]}`),
		bashCalls(allow, codeModeBypass, "echo a['x']", `echo a["x"]`, "echo ${a[1]}", "echo $(( a[1] ))", "echo 'a[1]'")))
}
