package claudecodetest

// The fourth round of how a shell reads a command line: allow and ask
// rules with ':*' and ' *' against the forms a command takes around them
// (prefixes, wrappers, operators, redirections, quoting), in every mode.

// sh4Cases is one case per mode of the probes, a paths case, with the
// issue 25 files beside the case's own.
func sh4Cases(name, group string, modes []string, settings Settings, files map[string]string, probes []probe) []dcase {
	var out []dcase
	for _, m := range modes {
		mode := cliMode(m)
		out = append(out, dcase{name: name + "-" + m, group: group, paths: true, mode: mode, settings: settings,
			files: withIssue25Files(files), sessions: []session{root([][]probe{probes})}})
	}
	return out
}

// matrixAllow4: allow rules with ':*', ' *', an exact command and a
// leading '*', against the command with prefixes, wrappers, operators,
// redirections and quoting.
func matrixAllow4() []dcase {
	probes := shs("npm test", "npm test --watch", "npm testing", "npm  test", "FOO=1 npm test", "LANG=C npm test",
		"NO_COLOR=1 npm test", "timeout 5 npm test", "nice npm test", "nohup npm test", "time npm test", "stdbuf -o0 npm test",
		"command npm test", "sudo npm test", "env npm test", "npm test && npm test", "npm test; npm test", "npm test || ls",
		"npm test | grep x", "npm test 2>&1", "npm test 2>&1 | tail -1", "npm test &", "(npm test)", "{ npm test; }",
		"npm test > al1.txt", "npm test 2>/dev/null", "npm test # c", "npm test \\\n --x", "npm test $(ls)", "npm test `ls`",
		`npm test "$HOME"`, "npm test <<< x", "npm test < a.txt", "npm test & ls", "npm test |& cat", "'npm' test", "npm 'test'",
		`"npm test"`, "npm test\n", "npm test;", "npm test ;ls", "npm test\tx", "npm test && rm al2.txt",
		"git log", "git log --oneline -1", "git logx", "git  log -1", "git log -1 | cat",
		"make build", "make build x", "make  build", "make build 2>&1",
		"node --version", "foo bar --version", "ls --version",
		"git push", "git push origin main", "timeout 5 git push", "FOO=1 git push", "git -C . push", "ls && git push",
		"echo x | git push", "git push 2>&1", "LANG=C git push", "nice git push", "git push # x", "(git push)")
	return sh4Cases("sh4-allow", "sh4 allow and ask rules", []string{"default", "plan", "dontAsk", "acceptEdits"},
		Settings{Allow: []string{"Bash(npm test:*)", "Bash(git log *)", "Bash(make build)", "Bash(* --version)"},
			Ask: []string{"Bash(git push:*)"}},
		map[string]string{"al2.txt": "x\n"}, probes)
}

// matrixBackground4: the background '&' after commands an allow rule, the
// read-only list or acceptEdits approves, in every mode.
func matrixBackground4() []dcase {
	probes := shs("ls &", "ls & ls", "echo a &", "sleep 0 &", "cat a.txt &", "ls &>/dev/null", "ls 2>&1 &", "(ls &)", "ls & wait",
		"ls &\nls", "touch bg1.txt &", "npm test &", "npm test & wait", "echo a && ls &", "ls >/dev/null 2>&1 &", "nohup ls &",
		"ls &&\nls", "echo a & echo b & wait", "touch bg2.txt & touch bg3.txt", "rm bg4.txt &", "ls;&", "ls & ;", "echo '&'", `echo \&`,
		"echo a&&ls", "ls&")
	out := sh4Cases("sh4-background", "sh4 background", []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"},
		Settings{Allow: []string{"Bash(npm test:*)"}}, map[string]string{"bg4.txt": "x\n"}, probes)
	// A bare Bash allow rule approves the line whole, but not its '&'.
	return append(out, sh4Cases("sh4-background-bare", "sh4 background", []string{"default"}, Settings{Allow: []string{"Bash"}}, nil,
		shs("ls &", "make nothing-here &", "touch bgb1.txt &", "make nothing-here", "ls & ;"))...)
}

// matrixQuoteAllow4: allow rules against a command word or argument
// quoted, escaped or spaced, and an exact rule against the forms of its
// command.
func matrixQuoteAllow4() []dcase {
	probes := shs("'npm' test", `"npm" test`, `n\pm test`, `\npm test`, "'git' log", `"git" "log"`, `git "log"`, "'make' build",
		"make 'build'", "npm 'test'", `npm "test"`, "'npm test'", "npm test 'a b'", "/usr/bin/npm test", "'make build'", `"make build"`,
		"make  build", "make build ", " make build", "make\tbuild", "make build;", "make build\n", "make build # c", "make build 2>&1",
		"make build > /dev/null", "LANG=C make build", "timeout 5 make build", "make build && make build", "make build | cat",
		"npm test\\\n", "npm\\\n test", "make \\\nbuild", "'npm' 'test'", "npm''  test", "''npm test", "npm test ''", "git log ''",
		"'git log'", "git lo'g'", "\"$(echo npm)\" test", "npm $'test'", "npm te\\st", "git log\\ -1")
	return sh4Cases("sh4-quote-allow", "sh4 allow and ask rules", []string{"default", "bypassPermissions"},
		Settings{Allow: []string{"Bash(npm test:*)", "Bash(git log *)", "Bash(make build)"}, Ask: []string{"Bash(git log -1:*)"}},
		nil, probes)
}

// matrixHeredoc4: here-documents (plain, quoted, with '-') and
// here-strings after read-only and allowed commands.
func matrixHeredoc4() []dcase {
	probes := shs("cat <<EOF\nx\nEOF", "cat <<'EOF'\nx\nEOF", "cat <<-EOF\n\tx\n\tEOF", "cat << EOF\n$HOME\nEOF", "cat <<EOF > hd1.txt\nx\nEOF",
		"grep x <<< abc", `cat <<< "$(ls)"`, "wc -l <<EOF\na\nEOF", "python3 <<EOF\nprint(1)\nEOF", "cat <<EOF | grep x\nx\nEOF",
		"echo x <<< y", "python3 - <<'EOF'\nprint(1)\nEOF", `cat <<"EOF"`+"\n$(rm hd2.txt)\nEOF", "cat <<EOF\n`ls`\nEOF",
		"cat <<EOF && ls\nx\nEOF", "cat <<EOF; rm hd3.txt\nx\nEOF", "grep -c a <<< \"$HOME\"", "tr a b <<< abc", "cat <<\\EOF\nx\nEOF",
		"sort <<EOF\nb\na\nEOF", "head -1 <<EOF\nx\ny\nEOF", "cat <<EOF\n${HOME}\nEOF", "cat <<EOF\n$(echo x)\nEOF", "base64 <<< abc",
		"jq . <<< '{}'", "cat <<E1 <<E2\na\nE1\nb\nE2", "cat<<EOF\nx\nEOF", "python3 -c 'print(1)' <<< x")
	return sh4Cases("sh4-heredoc", "sh4 here-documents", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Allow: []string{"Bash(python3 -:*)"}, Deny: []string{"Bash(rm:*)"}},
		map[string]string{"hd2.txt": "x\n", "hd3.txt": "x\n"}, probes)
}

// matrixReadOnly4: read-only commands with the flags that make them write
// or run something (git, grep, find, sed, sort, rg, tree, date), comments,
// line continuations, globs and redirections of every form after them.
func matrixReadOnly4() []dcase {
	probes := shs("git -C .. status", "git --no-pager log -1", "git -c core.pager=cat log -1", "git log --output=ro1.txt",
		"git diff --output=ro2.txt", "git status --porcelain", "git remote -v", "git remote add x y", "git config --get user.name",
		"git config user.name x", "git ls-files", "git rev-parse HEAD", "git stash list", "git stash", "git branch -v",
		"git branch new1", "git tag -l", "git show-ref", "git reflog", "git shortlog -s", "git describe", "git grep x",
		"git grep -O x", "git diff --ext-diff", "git blame a.txt", "git cat-file -p HEAD", "git ls-tree HEAD",
		"git --git-dir=x log", "git --work-tree=.. status", "git log -p -- a.txt", "git diff --no-index a.txt docs/x.md",
		"grep -f a.txt a.txt", "grep -r x", "grep --include=*.go x .", "grep -P x a.txt", "grep -e x -e y a.txt",
		"find . -exec ls {} \\;", "find . -delete", "find . -ok ls {} \\;", "find . -fprint ro3.txt", "find . -newer a.txt",
		"find . -name '*.txt' -print0", "find . -type f -printf '%p'", "find -L . -name a.txt", "find . -maxdepth 1 -ls",
		"sed -n '1,3p' a.txt", "sed 's/a/b/' a.txt", "sed -n /a/p a.txt", "sed --in-place s/a/b/ ro4.txt", "sed -E -n 1p a.txt",
		"sed -i.bak s/a/b/ ro5.txt", "sed 1d a.txt", "sed -n 1p", "sort -o ro6.txt a.txt", "sort --output=ro7.txt a.txt", "sort -u a.txt",
		"sort -T /tmp a.txt", "sort -S 1M a.txt", "rg -f a.txt x", "rg --files", "rg -z x", "tree -o ro8.txt",
		"date -s 2020-01-01", "date +%s", "date -d yesterday", "hostname x", "uniq a.txt ro9.txt", "wc", "awk '{print}' a.txt",
		"jq -n 1", "base64 -d a.txt", "tr -d a", "diff -u a.txt docs/x.md", "stat -c %s a.txt", "du -sh .", "ls -R",
		"file -b a.txt", "readlink -f .", "test -f a.txt", "[ -f a.txt ]", "echo $(( 1 + 1 ))", "printf '%s\\n' a",
		"man ls", "type -a ls", "command -v ls", "ps -ef", "pgrep x", "env", "printenv", "printenv HOME", "id -u", "df .",
		"nohup ls", "timeout 5 ls", "nice ls", "time ls", "stdbuf -o0 ls", "command ls", "'ls'", `"cat" a.txt`, `\ls`,
		"ls # rm -rf ro10", "ls #x", "echo a#b", "ls; # x", "# just a comment", `ls \# x`, "echo '#'; ls", "ls #$(rm ro11)",
		"ls \\\n-la", "ls\\\n -la", "echo a \\\n&& ls", "ls *.txt", "cat *.txt", "ls src/*", "cat s?c/main.go", "ls [a-z].txt",
		"ls **/*.go", "ls ../*", "ls /etc/*", "echo *", "ls >| ro12.txt", "ls <> ro13.txt", "ls 3>&-", "ls 2>&-", "ls >&-",
		"echo x 1>&2", "ls 2>>/dev/null", "ls &>>/dev/null", "cat 0<a.txt", "ls 9>/dev/null", "ls > /dev/stdout",
		"ls > /dev/stderr", "ls >/dev/null 2>/dev/null", "echo x > /dev/fd/2", "cat a.txt - < a.txt", "cat < a.txt > /dev/null",
		"ls 2>&1 | grep a", "git log -1", "git --no-pager log", "git --no-pager status", "ls | xargs echo", "echo a | xargs -I{} echo {}", "ls | xargs cat", "cat a.txt | tee")
	return sh4Cases("sh4-readonly", "sh4 read-only commands", []string{"default"}, Settings{},
		map[string]string{"ro4.txt": "a\n", "ro5.txt": "a\n", "ro11": "x\n"}, probes)
}

// matrixCritical4: removals of critical paths, under an rm allow rule and
// in every mode; every target is harmless if removed (a top-level
// directory that does not exist, / which rm refuses, and -i with no
// answer), so a run that lets one through removes nothing.
func matrixCritical4() []dcase {
	probes := shs("rm -rf /", "rm -rf /sh4none", "rm -rf /sh4none/", "rm -rf $SH4NONE/", "rm -rf ${SH4NONE}/", "rm -fr /sh4none",
		"rm -r -f /sh4none", "rm --recursive --force /sh4none", "rm /sh4none", "rm -f /sh4none", "rm -rf /sh4none/x",
		"rm -rf /usr/sh4none", "rm -ri ..", "rm -ri ~", "rm -ri ~/", "rm -ri $HOME", "rm -ri \"$HOME\"", "rm -ri ${HOME}/",
		"rm -ri .", "rm -ri ./", "rm -ri ../..", "rm -ri /sh4none/*", "rm -ri ~/*", "rm -ri *", "rm -ri ./*", "rm -ri ../*",
		"rm -rf ${SH4NONE:?}/", "rm -rf \"$SH4NONE\"/", "rm -rf '/sh4none'", "rmdir /sh4none", "rmdir ~", "rmdir ..",
		"sudo rm -rf /sh4none", "timeout 5 rm -rf /sh4none", "ls && rm -rf /sh4none", "echo $(rm -rf /sh4none)",
		"rm -rf -- /sh4none", "rm -rf /sh4none /sh4none2", "rm -rf cr1 /sh4none", "rm -rf cr2", "rm -rf ~/cr3", "rm -rf $HOME/cr4",
		"rm -rf /sh4none/.", "rm -rf //", "rm -rf /./", "rm -rf /sh4none/..", "rm -rf $PWD",
		"rm -rf $PWD/")
	return sh4Cases("sh4-critical", "sh4 critical removals", []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"},
		Settings{Allow: []string{"Bash(rm:*)", "Bash(rmdir:*)"}},
		map[string]string{"cr1": "x\n", "cr2": "x\n", "../home/cr3": "x\n", "../home/cr4": "x\n"}, probes)
}

// sh4Pending are cases that still disagree, kept out of the matrix until
// the dialect reads them (run them by adding them to matrixShell4). None
// now: matrixHeredoc4 and matrixCritical4 agree, or differ only as
// testdata/deliberate.json says (section 0.2 rows 42 and 43;
// matrixshell5_test.go has the rounds that followed).
var sh4Pending = []func() []dcase{}

// matrixShell4 is the round's cases.
func matrixShell4() []dcase {
	var out []dcase
	for _, f := range []func() []dcase{matrixBackground4, matrixAllow4, matrixQuoteAllow4, matrixReadOnly4, matrixCritical4, matrixHeredoc4} {
		out = append(out, f()...)
	}
	return out
}
