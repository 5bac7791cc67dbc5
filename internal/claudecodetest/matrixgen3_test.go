package claudecodetest

// matrixGenAllow1: what the generated allow rules of seed 1 found.
func matrixGenAllow1() []dcase {
	probes := shs("pwd", "for i in 1; do LANG=C sed -n 1p a.txt; done", "for i in 1; do sed -n 1p a.txt; done",
		"for i in 1; do LANG=C cat a.txt; done", "for i in 1; do cat a.txt; done", "LANG=C sed -n 1p a.txt",
		"if true; then LANG=C sed -n 1p a.txt; fi", "{ LANG=C sed -n 1p a.txt; }", "(LANG=C sed -n 1p a.txt)",
		"for i in 1; do FOO=1 cat a.txt; done", "while false; do LANG=C cat a.txt; done", "for i in 1; do ls; done",
		"env FOO=1 ls ../outside", "env ls ../outside", "ls ../outside", "env FOO=1 ls ../outside 2>&1; ls",
		"env FOO=1 ls ../outside; ls", "env FOO=1 ls ../outside 2>&1", "nohup cat ../outside/o.txt", "env cat ../outside/o.txt",
		"env FOO=1 touch ../outside/t1.txt", "env rm ../outside/o.txt", "env FOO=1 cat secret/s.txt", "env ls ../outside; ls")
	out := sh4Cases("genallow1", "generated allow rules", []string{"default"},
		Settings{Allow: []string{"Bash(nohup:*)", "Bash(find:*)", "Bash(env:*)", "Bash(ls:*)"}}, genFiles, probes)
	more := shs("pwd", "cd src && sed -n 1p a.txt", "cd src && sed -i s/a/b/ a.txt", "cd src && touch x.txt", "touch x2.txt && cd src",
		"cd src; rm f1.txt", "cd src && cat a.txt", "cd .. && touch y.txt", "sed -n 1p a.txt && cd src", "(cd src && touch z.txt)",
		"cd src && echo x > o.txt", "cd src && sed -n 1p a.txt > o2.txt", "echo $(cd src) && touch w.txt", "cd src && mkdir m1",
		"env ls ../outside", "env FOO=1 touch ../outside/t1.txt", "env -i cat ../outside/o.txt", "env -S 'cat ../outside/o.txt'",
		"env timeout 5 cat ../outside/o.txt", "env -u X ls ../outside", "env - ls ../outside", "sudo cat ../outside/o.txt",
		"env cat a.txt", "env touch ../outside/t2.txt", "env FOO=1 cd ..", "env -i FOO=1 rm ../outside/o.txt", "env -- ls ../outside")
	return append(out, sh4Cases("genallow1-cd", "generated allow rules", []string{"default"},
		Settings{Allow: []string{"Bash(* a.txt)", "Bash(touch:*)", "Bash(sed:*)", "Bash(cd:*)", "Bash(rm:*)", "Bash(mkdir:*)",
			"Bash(env:*)", "Bash(sudo:*)"}}, genFiles, more)...)
}

// matrixGenLoops: read-only commands inside loops, which the generated
// allow rules of seed 1 found asking.
func matrixGenLoops() []dcase {
	probes := shs("pwd", "for i in 1; do ls; done", "for i in 1; do echo hi; done", "for i in 1; do cat a.txt; done",
		"for i in a b; do cat a.txt; done", "for i; do cat a.txt; done", "for ((i=0;i<1;i++)); do cat a.txt; done",
		"for i in 1; do cat $i; done", "for f in *.txt; do cat \"$f\"; done", "until true; do cat a.txt; done",
		"while false; do cat a.txt; done", "for i in 1; do pwd; done", "for i in 1; do git status; done",
		"for i in 1; do cat ./a.txt; done", "for i in 1; do wc -l a.txt; done", "for i in 1; do head -1 a.txt; done",
		"for i in 1; do cat /etc/hostname; done", "for i in 1; do ls src; done", "for i in 1; do ls a.txt; done",
		"while true; do cat a.txt; break; done", "cat a.txt; for i in 1; do echo hi; done", "for i in 1; do echo hi; done; cat a.txt",
		"for i in 1; do grep x a.txt; done", "for i in 1; do echo a.txt; done", "for i in 1; do ls -la; done",
		"for i in 1; do cat a.txt | wc -l; done", "for i in 1; do cat a.txt; cat a.txt; done", "for i in 1\ndo cat a.txt\ndone",
		"if true; then cat a.txt; fi", "while false; do ls src; done", "for i in 1; do stat a.txt; done",
		"for i in 1; do diff a.txt a.txt; done", "for i in 1; do echo $i; done", "for i in 1; do sort a.txt; done")
	out := sh4Cases("genloops", "generated allow rules", []string{"default"}, Settings{}, genFiles, probes)
	return append(out, sh4Cases("genloops-allowed", "generated allow rules", []string{"default"},
		Settings{Allow: []string{"Bash(cat:*)", "Bash(ls:*)"}}, genFiles, probes)...)
}

// matrixGenEvade1: what the generated evasions of seed 1 found.
func matrixGenEvade1() []dcase {
	probes := shs("pwd", "echo $(`echo rm` f1*.txt)", "`echo rm` f1*.txt", "`echo rm` f1.txt", "$(echo rm) f1*.txt", "$(echo rm) f1.txt",
		"echo $($(echo rm) f1.txt)", "x=rm; $x f1*.txt", "\"$(echo rm)\" f3*.txt", "echo `echo rm f1*.txt`", "echo $(ls f1*.txt)",
		"`echo ls` f1*.txt", "$(echo ls) *.txt", "echo $(`echo cat` a*.txt)", "`echo rm` -rf f2.txt", "$(echo cat) secret/s.txt",
		"find . -maxdepth 0 -exec look s secret/* \\;", "find . -maxdepth 0 -exec look s secret/s.txt \\;",
		"find . -maxdepth 0 -exec cat secret/* \\;", "find . -maxdepth 0 -exec cat secret/s.txt \\;", "look s secret/*",
		"look s secret/s.txt", "find . -maxdepth 0 -exec wc -l secret/* \\;", "find . -maxdepth 0 -exec look s a.txt \\;",
		"find . -maxdepth 0 -exec look s secret/s.t?t \\;", "find . -maxdepth 0 -exec grep s secret/* \\;", "look secret/*",
		"find . -maxdepth 0 -exec tac secret/* \\;", "find . -maxdepth 0 -exec sort secret/* \\;",
		"find . -maxdepth 0 -exec cat 'secret/*' \\;", "find . -maxdepth 0 -exec cat secret/'*' \\;", "find . -name secret/*",
		"grep -r s . --include=secret/*", "ls -d secret/*", "git grep s secret/*", "git log secret/*", "git diff secret/*",
		"find . -maxdepth 0 -exec cat secre[t]/s.txt \\;", "find . -maxdepth 0 -exec cat ../outside/* \\;", "wc -l a.txt secret/s.tx?",
		"sed -n 1p a.txt secret/*", "sed -n 1p secret/*")
	return sh4Cases("genevade1", "generated evasions", []string{"bypassPermissions", "default"},
		Settings{Deny: []string{"Bash(rm:*)", "Bash(git push:*)", "Read(./secret/**)", "Edit(./locked/**)"}}, genFiles, probes)
}

// matrixGenEvadeBackquote: a backquoted command inside $( ) with a glob,
// which the generated evasions of seed 1 found asking in
// bypassPermissions.
func matrixGenEvadeBackquote() []dcase {
	probes := shs("pwd", "echo $(`echo cat` a.txt)", "echo $(`echo cat` a*.txt)", "echo \"$(`echo cat` a*.txt)\"", "echo $(`true` a*.txt)",
		"echo $(`true`)", "echo $(echo `echo a` *.txt)", "echo $(ls `echo a`*.txt)", "x=$(`echo cat` a*.txt)",
		"echo `echo $(echo cat) a*.txt`", "echo $(echo $(echo cat) a*.txt)", "echo $(`echo cat` a.txt *.md)", "echo $(ls *.txt `echo x`)",
		"echo $(ls `echo x` *.txt)", "echo $(`ls`)", "(`echo cat` a*.txt)", "{ `echo cat` a*.txt; }", "echo $(ls; `echo cat` a*.txt)",
		"echo $(cat `echo a.txt`)", "echo $(cat a*.txt `true`)", "echo $(`echo cat` a?.txt)", "echo $(`echo cat` [a].txt)",
		"echo $(echo x; ls a*.txt)", "echo $(ls a*.txt)", "cat $(echo a*.txt)", "echo $(`echo ls`)", "echo $( `echo cat` a*.txt )",
		"echo $(\\`echo cat\\` a*.txt)", "echo $(echo \\`x\\` a*.txt)", "ls `echo a*.txt`")
	return sh4Cases("genevade1-bq", "generated evasions", []string{"bypassPermissions"}, Settings{}, genFiles, probes)
}

// matrixGenCdGit: a cd before git, which the generated allow rules of
// seed 2 found asking inside if and for.
func matrixGenCdGit() []dcase {
	probes := shs("pwd", "cd src && git status", "cd src && git diff HEAD", "cd src; git log -1", "git status && cd src", "cd .. && git status",
		"cd /tmp && git status", "if true; then cd src && git diff HEAD; fi", "for i in 1; do cd src && git diff HEAD a.txt; done",
		"(cd src && git status)", "cd src && ls && git status", "git -C src status", "cd src && git --version", "cd src && echo git",
		"if true; then cd src; fi; git status", "while false; do cd src && git status; done", "{ cd src && git status; }",
		"cd src && git status | cat", "cd src || git status", "if cd src; then git status; fi", "echo $(cd src && git status)")
	out := sh4Cases("gencdgit", "generated allow rules", []string{"default"}, Settings{}, genFiles, probes)
	return append(out, sh4Cases("gencdgit-allowed", "generated allow rules", []string{"default"},
		Settings{Allow: []string{"Bash(git diff:*)", "Bash(git status:*)", "Bash(cd:*)", "Bash(git log:*)"}}, genFiles, probes)...)
}

// matrixGenCdGitModes: a cd before git and two directory changes, in each
// mode.
func matrixGenCdGitModes() []dcase {
	probes := shs("pwd", "cd src && cd ..", "cd src; cd ..; ls", "pushd src && popd", "cd src && pushd ..", "(cd src) && cd ..",
		"cd src && git status", "pushd src && git status", "cd src && xargs git status < /dev/null", "cd src && /usr/bin/git status",
		"cd src && command git status", "cd src && timeout 5 git status", "cd src && GIT_DIR=x git status", "cd src && \\git status",
		"git log -1 && cd src && ls", "popd; git status", "cd src && 'git' status", "cd && git status", "cd . && git status",
		"cd src && git", "cd src && gitk", "cd src && echo x | git status", "builtin cd src && git status", "cd src && LANG=C git status")
	return sh4Cases("gencdgit2", "generated allow rules", []string{"default", "acceptEdits", "bypassPermissions"}, Settings{}, genFiles, probes)
}

// matrixGenAssignSubst: an assignment standing alone whose value is a
// command substitution, which the generated allow rules of seed 4 found
// running in the release.
func matrixGenAssignSubst() []dcase {
	probes := shs("pwd", "x=$(echo hi a.txt)", "x=$(echo hi)", "x=$(ls)", "x=$(cat a.txt)", "x=$(cat ../outside/o.txt)", "x=$(rm f1.txt)",
		"x=`ls`", "x=$(ls) y=$(pwd)", "x=$(echo hi); echo $x", "x=\"$(ls)\"", "export x=$(ls)", "x=$(git status)", "x=$(npm test)",
		"x=$(ls | wc -l)", "x=$(cat secret/s.txt)", "PATH=$(pwd)", "x=$(ls) ls", "x=$(echo a) && ls", "x=$(touch t9.txt)",
		"x=a$(ls)b", "x=$(ls -la src)", "x=$(echo $(ls))", "local x=$(ls)", "x+=$(ls)", "x=$(date)", "x=$(sleep 0)")
	out := sh4Cases("genassign", "generated allow rules", []string{"default"},
		Settings{Deny: []string{"Read(./secret/**)"}}, genFiles, probes)
	more := shs("pwd", "x=$(touch t9.txt)", "x=$(npm test)", "x=$(rm f1.txt)", "x=$(mkdir m5)", "x=$(sed -i s/a/b/ a.txt)",
		"x=$(cat ../outside/o.txt)", "x=$(npm test --x)", "x=$(git push)", "x=$(ls)", "x=$(npm test) && ls", "x=$(touch locked/t8.txt)",
		"x=$(echo hi > o5.txt)", "x=$(ls > o6.txt)", "x=$(ls 2>/dev/null)", "x=$( ls )", "x=$(LANG=C ls)", "x=$(timeout 5 ls)",
		"x=$(cd src)", "x=$(cd src && ls)", "x=$(ls;)", "x=$(ls &)", "A=$(touch x)", "A=`touch x`", "A=$(rm x)")
	return append(out, sh4Cases("genassign-rules", "generated allow rules", []string{"default", "acceptEdits"},
		Settings{Allow: []string{"Bash(npm test:*)", "Bash(touch:*)"}, Ask: []string{"Bash(git push:*)"}, Deny: []string{"Edit(./locked/**)", "Bash(rm:*)"}}, genFiles, more)...)
}

// matrixGenMultiCd: two directory changes in one line under allow rules
// for them.
func matrixGenMultiCd() []dcase {
	probes := shs("pwd", "pushd src && popd", "cd src && pushd ..", "cd . && cd .", "cd src && cd .", "cd src; cd src", "pushd src; popd; ls",
		"cd src && ls && cd .", "cd src", "pushd src", "cd src && ls", "cd . && ls && cd .", "popd && popd", "cd src || cd .")
	return sh4Cases("genmulticd", "generated allow rules", []string{"default", "acceptEdits"},
		Settings{Allow: []string{"Bash(cd:*)", "Bash(pushd:*)", "Bash(popd:*)", "Bash(ls:*)"}}, genFiles, probes)
}

// matrixGenReserved: a reserved word or a word starting with { where a
// command's name stands after assignments or redirections, after time,
// and time itself after an if or a while (gen-allow seed 11).
func matrixGenReserved() []dcase {
	probes := shs("pwd", "if true; then LANG=C time ls || ls; fi", "LANG=C time ls", "while false; do :; done; LANG=C time ls",
		"LANG=C time ls; if true; then ls; fi", ">/dev/null time ls", "if true; then >/dev/null time ls; fi",
		"FOO=1 if true; then ls; fi", "{ls,cat} a.txt", "FOO=1 {ls,cat} a.txt", "time { ls; }", "time ! ls",
		"time if true; then ls; fi", "for i in 1; do LANG=C time ls; done", "until true; do :; done; LANG=C time ls",
		"if true; then time ls; fi", "if true; then LANG=C ls; fi; LANG=C time ls", "case a in a) LANG=C time ls;; esac",
		"LANG=C ! ls", "2>/dev/null { ls; }", "time -p { ls; }", "LANG=C [[ -f a.txt ]]", "if LANG=C time ls; then :; fi",
		"if true; then 2> /dev/null time ls; fi", "while false; do :; done; A=1 B=2 time ls", "if true; then :; fi && LANG=C time cat a.txt",
		"echo $(FOO=1 if true; then ls; fi)", "(FOO=1 while false; do :; done)", ">/dev/null if true; then ls; fi", "FOO=1 in x",
		"FOO=1 done", "ls; A=1 for i in 1; do ls; done", "FOO=1 function f { ls; }", "FOO=1 select x in a; do break; done",
		`echo "x; FOO=1 if y"`, "sh -c 'FOO=1 if true; then ls; fi'")
	out := sh4Cases("genreserved", "generated allow rules", []string{"default", "bypassPermissions"}, Settings{}, genFiles, probes)
	return append(out, sh4Cases("genreserved-allowed", "generated allow rules", []string{"default"},
		Settings{Allow: []string{"Bash(ls *)", "Bash(ls)", "Bash(time:*)", "Bash(* a.txt)", "Bash(cat:*)", "Bash(true)", "Bash(:)"}},
		genFiles, probes)...)
}
