package claudecodetest

import (
	"slices"
	"strings"
)

// Cases for the differences the differential round of seeds 5401 to 5419
// found where the dialect was stricter than Claude Code 2.1.328.

// matrixCdComment: a cd or pushd followed by a comment, alone and before a
// command on the next line that writes or reads under a denied directory
// (gen seeds 5401-5419 found cd src # c run where the dialect asked).
func matrixCdComment() []dcase {
	files := map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n", "locked/e1.txt": "e\n", "locked/e2.txt": "e\n", "src/n.txt": "n\n"}
	probes := shs("pwd", "cd src # c", "cd .. # c", "cd src #c d", "cd ..", "cd src '#' c", "cd src \\# c", "pushd src # c", "popd # c",
		"cd locked # c\nrm e1.txt", "cd ..", "cd secret # c\ncat s.txt", "cd ..", "cd src # c\nls", "cd ..", "cd locked # c; rm e2.txt", "cd ..",
		"cd src #", "cd ..", "cd src # && rm ../locked/e2.txt", "cd ..", "cd src# c", "cd ..", "ls")
	out := sh4Cases("cdcomment", "comments", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./locked/**)", "Read(./secret/**)"}}, files, probes)
	// cd with a comment alone goes home, as cd does.
	home := map[string]string{"../home/hl/h1.txt": "h\n", "../home/hl/h2.txt": "h\n", "../home/hl/h3.txt": "h\n", "../home/hl/h4.txt": "h\n"}
	return append(out, sh4Cases("cdcommenthome", "comments", []string{"bypassPermissions"}, Settings{Deny: []string{"Edit(~/hl/**)"}}, home,
		shs("pwd", "cd #\ncd hl\nrm h1.txt", "cd # c\ncd hl\nrm h2.txt", "cd\ncd hl\nrm h3.txt", "cd # c; cd hl; rm h4.txt"))...)
}

// matrixAssignOr: an assignment of a command substitution whose commands
// are joined by || (row 85 reads && only; gen seeds 5401-5419 found
// x=$(A || B) run where the dialect asked), with a denied command, a
// denied path and a path outside the project among them.
func matrixAssignOr() []dcase {
	files := map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n", "f1.txt": "f\n", "f2.txt": "f\n"}
	probes := shs("pwd", "x=$(ls || pwd)", "x=$(cat a.txt || echo no)", "x=$(false || true)", "x=$(ls || rm f1.txt)",
		"x=$(rm f2.txt || ls)", "x=$(cat secret/s.txt || echo no)", "x=$(ls || cat secret/s.txt)", "x=$(ls || cat ../outside/o.txt)",
		"x=$(ls || touch t1.txt)", "x=$(ls || pwd || date)", "x=$(ls && pwd || date)", "x=$(ls || pwd) && ls", "x=$(ls||pwd)",
		"x=$( ls || pwd )", "x=`ls || pwd`", "x+=$(ls || pwd)", "PATH=$(ls || pwd)", "x=$(ls | cat || pwd)", "x=$(ls || pwd; ls)",
		"x=$(cd src || ls)", "x=$(ls 2>/dev/null || echo none)")
	return sh4Cases("assignor", "assignments", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Bash(rm:*)", "Read(./secret/**)"}}, files, probes)
}

// matrixPrefixBesideWildcard: the prefix ask rule Bash(echo hi:*) beside
// the wildcard deny rule Bash(echo hi *), against echo hi spelled and
// extended several ways (gen-rules, seeds 5401-5419).
func matrixPrefixBesideWildcard() []dcase {
	probes := shs("pwd", "echo hi", "echo hi x", "echo hix", "echo hi  x", "echo hi\tx", "echo  hi x", "echo 'hi' x", "echo hi 'x y'",
		"echo hi;", "echo hi # c", "echo hi > /dev/null", "echo hi 2>&1", "echo hi | cat", "echo hi && ls", "echo hi*", "echo hi -n",
		"echo 'hi x'", "echo \"hi\"", "echo hi\\ x", "echo hi x y", "echo hi:x", "echo hi\nls", "echo ho", "echo h", "echo", "FOO=1 echo hi x",
		"timeout 5 echo hi x", "echo hi x &", "(echo hi x)", "echo $(echo hi x)")
	out := sh4Cases("prefixwild", "rules", []string{"default", "bypassPermissions"},
		Settings{Ask: []string{"Bash(echo hi:*)"}, Deny: []string{"Bash(echo hi *)"}}, nil, probes)
	// An exact allow rule, and an exact ask rule, beside the same deny.
	out = append(out, sh4Cases("exactwild", "rules", []string{"default"},
		Settings{Allow: []string{"Bash(echo hi)"}, Deny: []string{"Bash(echo hi *)"}}, nil, probes)...)
	return append(out, sh4Cases("exactaskwild", "rules", []string{"default"},
		Settings{Ask: []string{"Bash(echo hi)"}, Deny: []string{"Bash(echo hi *)"}}, nil, probes)...)
}

// matrixScriptReads: sed's r and R commands and awk's getline < FILE,
// which read a file their script names, under a Read deny rule (gen seeds
// 5401-5419 found the dialect denying or asking where the CLI runs them).
func matrixScriptReads() []dcase {
	files := map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n"}
	probes := shs("pwd", "sed '1r secret/s.txt' a.txt", "sed 1rsecret/s.txt a.txt", "sed 'R secret/s.txt' a.txt", "sed -n '1r secret/s.txt' a.txt",
		"sed '1r a.txt' a.txt", "sed '1w secret/w.txt' a.txt",
		`awk '{getline x < "secret/s.txt"; print x}' a.txt`, `awk 'BEGIN{while ((getline l < "secret/s.txt") > 0) print l}'`,
		`awk '{getline x < "a.txt"; print x}' a.txt`, `awk '{print}' secret/s.txt`, `awk '{print > "secret/w.txt"}' a.txt`)
	return sh4Cases("scriptreads", "reads", []string{"default", "bypassPermissions"},
		Settings{Deny: []string{"Read(./secret/**)"}}, files, probes)
}

// matrixEditStar: Edit(*) as a deny and an ask rule, in the project's
// settings and the user's, against writes of new files in the project,
// under HOME and outside, edits, and Bash writes (gen-user seeds 5415 and
// 5419: the dialect refused writes the CLI ran).
func matrixEditStar() []dcase {
	files := map[string]string{"a.txt": "a\n", "e1.txt": "e\n", "sub/e2.txt": "e\n", "../home/h.txt": "h\n", "../home/gp/h2.txt": "h\n"}
	probes := []probe{wr("n1.txt"), wr("sub/n2.txt"), wr(homeP + "/n3.txt"), wr(homeP + "/gp/n4.txt"), wr(homeP + "/.claude/gp/n5.txt"),
		wr(projP + "/n6.txt"), wr("../outside/n7.txt"), rd("a.txt"), rd(homeP + "/h.txt"), ed("e1.txt"), ed("sub/e2.txt"),
		sh("touch t1.txt"), sh("echo x > o1.txt"), sh("touch ~/t2.txt"), sh("cat a.txt")}
	var out []dcase
	for _, c := range []struct {
		name       string
		user, proj Settings
	}{
		{"deny", Settings{}, Settings{Deny: []string{"Edit(*)"}}},
		{"denyuser", Settings{Deny: []string{"Edit(*)"}}, Settings{}},
		{"ask", Settings{}, Settings{Ask: []string{"Edit(*)"}}},
		{"askuser", Settings{Ask: []string{"Edit(*)"}}, Settings{}},
		{"denybare", Settings{}, Settings{Deny: []string{"Edit"}}},
		{"askbare", Settings{}, Settings{Ask: []string{"Edit"}}},
	} {
		p := probes
		if strings.HasPrefix(c.name, "ask") {
			p = slices.DeleteFunc(slices.Clone(probes), func(x probe) bool { return x.tool == "Edit" })
		}
		out = append(out, filesCases("editstar-"+c.name, "generated user rules", []string{"default", "acceptEdits"}, "", c.user, c.proj,
			files, [][]probe{p})...)
	}
	return out
}

// matrixFindExecRedirect: an output redirection into a directory an Edit
// deny rule covers, written inside find's -exec before its \; or after
// it, and followed by other words (gen seeds 5401-5419 found find -exec
// echo x >> locked/e1.txt \; run by the CLI in bypassPermissions).
func matrixFindExecRedirect() []dcase {
	files := map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n", "locked/keep.txt": "k\n"}
	probes := shs("pwd", "find . -maxdepth 0 -exec echo x >> locked/e1.txt \\;", "find . -maxdepth 0 -exec echo x \\; >> locked/e2.txt",
		"find . -maxdepth 0 >> locked/e3.txt", "find . -maxdepth 0 -exec echo {} + >> locked/e4.txt", "echo x >> locked/e5.txt \\;",
		"echo x >> locked/e6.txt y", "echo x >> locked/e7.txt", "find . -maxdepth 0 -exec echo x > locked/e8.txt \\;",
		"find . -maxdepth 0 -exec cat < secret/s.txt \\;", "find . -maxdepth 0 -exec echo x >> n1.txt \\;")
	return sh4Cases("findexecredir", "redirections", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./locked/**)", "Read(./secret/**)"}}, files, probes)
}

// matrixAskBeforeDeny: lines Claude Code 2.1.328 cannot read whole (a
// quoted variable, a backslash before a blank, '&;' inside a for or an
// if) around a command or a path a deny rule names (gen seeds 5401-5419
// found the CLI asking where the dialect denied).
func matrixAskBeforeDeny() []dcase {
	files := map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n", "f1": "f\n", "f2": "f\n", "f3": "f\n", "f4": "f\n", "f5": "f\n",
		"f6": "f\n", "f7": "f\n", "f8": "f\n", "f9": "f\n", "locked/keep.txt": "k\n"}
	probes := shs("pwd", `rm "$X" f1`, `rm f2 "$X"`, `"$X" rm f3`, `echo "$X"; rm f4`, `cat "$X" secret/s.txt`, `echo "$HOME"; rm f5`,
		`rm a\ b f6`, `echo a\ b; rm f7`, `cat secret/s\ .txt`, `cat a\ .txt secret/s.txt`, `echo x > locked/a\ b.txt`,
		"for i in 1; do echo a &; done; rm f8", "if true; then echo a &; fi; rm f9", "for i in 1; do rm f1 &; done",
		"if true; then cat secret/s.txt &; fi", "echo a &; rm f2", "for i in 1; do echo a & done; rm f3")
	return sh4Cases("askbeforedeny", "rules", []string{"default", "bypassPermissions"},
		Settings{Deny: []string{"Bash(rm:*)", "Edit(./locked/**)", "Read(./secret/**)"}}, files, probes)
}
