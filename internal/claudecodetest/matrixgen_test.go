package claudecodetest

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
)

// The generated cases run only when asked for: they explore, and what
// they find is kept as a case of its own (envpaths-* came from seed 1).
// go test ./internal/claudecodetest -run 'TestDifferential/case/gen-'
// -gen.lines 120 -gen.seed 1
var (
	genLines = flag.Int("gen.lines", 0, "add the generated cases gen-*, with this many Bash lines each (0: none)")
	genSeed  = flag.Uint64("gen.seed", 1, "the seed of the generated cases' lines")
)

// genCommands draws n Bash lines from a grammar of the forms the earlier
// probes took one at a time (assignments, wrappers, commands that read,
// write or remove, redirections, operators, groups, substitutions and
// shell scripts), combined: a seeded generator, so a case is the same
// lines at every run.
func genCommands(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0x5e551))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	assigns := []string{"", "", "", "LANG=C ", "FOO=1 ", "TZ=UTC ", "NODE_ENV=test ", "A=$(ls) ", "PATH=/x ", "LC_ALL=C.UTF-8 "}
	wrappers := []string{"timeout 5 ", "nice ", "nohup ", "time ", "stdbuf -oL ", "command ", "env ", "sudo ",
		"exec ", "builtin ", "nice -n 5 ", "timeout -s KILL 5 ", "setsid ", "env -i ", "env FOO=1 ", "sudo -u root ",
		"ionice -c3 ", "noglob ", "/usr/bin/env ", "\\command ", "'nice' ", "nice -- ", "timeout 5s "}
	cores := []string{"rm f1.txt", "rm -rf f2.txt", "npm test", "npm test --x", "touch t1.txt", "cat secret/s.txt",
		"ls", "cat a.txt", "mkdir d1", "rm locked/keep.txt", "cp a.txt locked/c1.txt", "sed -i s/a/b/ a.txt",
		"git status", "git push", "mv a.txt locked/m1.txt", "head -1 secret/s.txt", "grep x secret/s.txt", "echo hi",
		"echo x | tee locked/t2.txt", "rmdir d2", "touch locked/t3.txt", "ls secret", "cat ../outside/o.txt", "git log -1",
		"find . -name a.txt", "wc -l a.txt", "unlink f3.txt", "chmod 600 a.txt", "ln -s a.txt l1", "python3 -c 1"}
	suffixes := []string{"", "", "", " 2>&1", " > out1.txt", " | cat", " && ls", " &", " # c", " 2>/dev/null",
		" >> locked/o2.txt", " < secret/s.txt", " | tee locked/o3.txt", " ; npm test", " || rm f4.txt", " >/dev/null",
		" 2> err.txt", " &> locked/o4.txt", " | xargs rm", " && cd locked && touch o5.txt"}
	wraps := []string{"%s", "%s", "%s", "(%s)", "{ %s; }", "echo $(%s)", "bash -c '%s'", "if true; then %s; fi",
		"sh -c \"%s\"", "echo `%s`", "for i in 1; do %s; done", "cd secret && %s", "true && %s", "! %s", "%s\nls"}
	return distinct(n, func() string {
		core := pick(cores)
		for range r.IntN(3) {
			core = pick(wrappers) + core
		}
		line := pick(assigns) + core + pick(suffixes)
		return wrapLine(pick(wraps), line)
	})
}

// wrapLine puts line in place of the %s of w, or is "" (no draw) when w
// quotes it with a quote the line holds.
func wrapLine(w, line string) string {
	if strings.Contains(w, "'%s'") && strings.Contains(line, "'") || strings.Contains(w, "\"%s\"") && strings.Contains(line, "\"") {
		return ""
	}
	return strings.Replace(w, "%s", line, 1)
}

// genProbes are a generated case's Bash calls: pwd, then lines. Until a
// command has run in its shell the CLI asks for a line that sets a
// variable (docs/dialects/claude-code.md section 14, "The CLI's shell
// before its first command"), which the dialect does not model.
func genProbes(lines []string) []probe {
	return shs(append([]string{"pwd"}, lines...)...)
}

// distinct draws lines until it has n different ones; a draw of ""
// is none.
func distinct(n int, draw func() string) []string {
	seen := map[string]bool{"": true}
	var out []string
	for len(out) < n {
		if line := draw(); !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

// genFiles are the files the generated lines read, write and remove.
var genFiles = map[string]string{
	"secret/s.txt": "s\n", "f1.txt": "1\n", "f2.txt": "2\n", "f3.txt": "3\n", "f4.txt": "4\n", "d2/.keep": "",
}

// matrixGenerated: generated lines under allow, ask and deny rules that
// speak about commands, reads and writes, in default mode, acceptEdits
// and bypassPermissions.
func matrixGenerated(seed uint64, n int) []dcase {
	return sh4Cases("gen", "generated lines", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Allow: []string{"Bash(npm test:*)", "Bash(git status)"}, Ask: []string{"Bash(git push:*)"},
			Deny: []string{"Bash(rm:*)", "Edit(./locked/**)", "Read(./secret/**)"}},
		genFiles, genProbes(genCommands(seed, n)))
}

// matrixEnvPaths: Read and Edit deny rules on the paths of a command run
// by env with an assignment, found by the generated lines (gen-*).
func matrixEnvPaths() []dcase {
	probes := shs("env cat secret/s.txt", "env FOO=1 cat secret/s.txt", "command env FOO=1 cat secret/s.txt",
		`\command env FOO=1 cat secret/s.txt`, `\command env cat secret/s.txt`, `true && \command env FOO=1 cat secret/s.txt | cat`,
		`\command env FOO=1 cat secret/s.txt | cat`, "env FOO=1 cat secret/s.txt | cat", "env FOO=1 touch locked/e1.txt",
		"env FOO=1 cp a.txt locked/e3.txt", "sudo FOO=1 cat secret/s.txt", "env -i FOO=1 cat secret/s.txt",
		"env FOO=1 BAR=2 cat secret/s.txt", "env -u X cat secret/s.txt", "FOO=1 env cat secret/s.txt",
		"nice env FOO=1 cat secret/s.txt", "env FOO=1 nice cat secret/s.txt", "env FOO=1 head -1 secret/s.txt",
		"env A=1 sed -n 1p secret/s.txt", "env FOO= cat secret/s.txt", "env 'FOO=1' cat secret/s.txt",
		"env FOO=1 echo x > locked/e5.txt", "env FOO=1 mkdir locked/e6", "env FOO=1 rm f1.txt", "sudo -E cat secret/s.txt")
	return sh4Cases("envpaths", "env paths", []string{"default", "bypassPermissions"},
		Settings{Deny: []string{"Bash(rm:*)", "Edit(./locked/**)", "Read(./secret/**)"}}, genFiles, probes)
}

// genReadOnly draws n Bash lines from a grammar of the read-only list's
// commands with options (some that write, run or reach further), paths in
// and out of the working directories, pipes, redirections and wrappers:
// what the read-only list and the path scope approve without a rule.
func genReadOnly(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0x20e0))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	cmds := []string{"cat", "head", "tail", "grep x", "rg x", "ls", "find", "wc", "sort", "uniq", "cut -c1", "diff a.txt",
		"stat", "du", "file", "jq .", "sed -n 1p", "awk 1", "tree", "xxd", "od", "strings", "git log", "git diff", "git show",
		"git blame", "echo", "printf %s", "basename", "readlink -f", "realpath", "which", "type", "date", "id", "tr a b <",
		"nl", "tac", "rev", "comm a.txt", "paste", "sha256sum", "base64", "test -f", "[ -f", "true", "column", "fold",
		"less", "more", "man", "git status", "git branch", "git tag", "git config --get", "git ls-files", "fd x", "lsof",
		"ps", "pwd", "cd", "yq .", "hexdump", "cmp a.txt", "md5sum", "sum", "expand", "fmt", "look x", "egrep x", "zcat"}
	opts := []string{"", "", "", "-n", "-r", "-l", "-a", "-o out2.txt", "--output=out3.txt", "-exec rm {} \\;", "-delete",
		"-i", "-w", "--pre=cat", "-e x", "-1", "-c 3", "--color=always", "-z", "-s", "-R", "-L", "--", "-0",
		"-maxdepth 1", "-fprint out4.txt", "-w out5.txt", "-S", "-p", "-v", "-x", "-h", "--help", "-D", "-E", "-P"}
	// No line reads its standard input, whose end the CLI's shell may
	// not give, nor follows a file (tail -f runs until the CLI's timeout).
	paths := []string{"a.txt", "../outside/o.txt", "/etc/hostname", "~/notes.txt", "$HOME/notes.txt", "secret/s.txt",
		"*.txt", "sub/../a.txt", "locked/keep.txt", ".", "..", "/", "~", "'a b.txt'", "a.txt a.txt",
		"src", "${HOME}/x", "/proc/self/environ", "../extra/e.txt", "\"$X\"", "a.txt:1", "--", ".git/config", "~root"}
	prefixes := []string{"", "", "", "", "LANG=C ", "timeout 5 ", "nice ", "command ", "env ", "FOO=1 ", "time ",
		"stdbuf -oL ", "nohup ", "\\", "NO_COLOR=1 ", "builtin "}
	suffixes := []string{"", "", "", " | head -1", " | wc -l", " > /dev/null", " 2>&1", " > out6.txt", " < a.txt",
		" | sort | uniq", " && echo ok", " || true", " ; ls", " 2>/dev/null | cat", " | xargs cat", " | tee out7.txt",
		" | sh", " >&2", " | grep -v x", " &"}
	return distinct(n, func() string {
		line := strings.TrimSpace(strings.Join([]string{pick(prefixes) + pick(cmds), pick(opts), pick(paths)}, " "))
		if strings.Contains(line, "lsof -r") {
			// lsof -r repeats until killed: the CLI runs it as
			// read-only and the case hung to its deadline (seed 5411).
			return ""
		}
		return strings.Join(strings.Fields(line), " ") + pick(suffixes)
	})
}

// matrixGeneratedReadOnly: genReadOnly's lines under a Read deny rule and
// one allow rule, in default, plan and acceptEdits modes.
func matrixGeneratedReadOnly(seed uint64, n int) []dcase {
	return sh4Cases("gen-ro", "generated read-only lines", []string{"default", "plan", "acceptEdits"},
		Settings{Allow: []string{"Bash(npm test:*)"}, Deny: []string{"Read(./secret/**)"}},
		genFiles, genProbes(genReadOnly(seed, n)))
}

// matrixCompoundAssignments: safe assignments before a command inside a
// for, while, if or group, found by the generated lines (seed 3).
func matrixCompoundAssignments() []dcase {
	probes := shs("TZ=UTC find . -name a.txt", "TZ=UTC ls", "for i in 1; do TZ=UTC ls; done", "for i in 1; do find . -name a.txt; done",
		"for i in 1; do TZ=UTC find . -name a.txt; done", "for i in 1; do LANG=C ls; done", "if true; then TZ=UTC ls; fi",
		"while false; do TZ=UTC ls; done", "{ TZ=UTC ls; }", "(TZ=UTC ls)", "TZ=UTC find . -name a.txt ; npm test",
		"for i in 1; do TZ=UTC npm test; done", "for i in 1; do LANG=C npm test; done", "if true; then LANG=C npm test; fi",
		"for i in 1; do TZ=UTC find . -name a.txt ; npm test; done", "for i in 1; do ls; npm test; done",
		"if true; then NO_COLOR=1 ls; else LANG=C ls; fi", "until true; do LANG=C ls; done", "for i in 1; do LANG=C timeout 5 ls; done",
		"case x in x) LANG=C ls;; esac", "for i in 1; do LANG=C echo hi > /dev/null; done", "select i in 1; do LANG=C ls; done",
		"for i in 1; do TZ=UTC cat a.txt; done", "for i in 1; do touch ca1.txt; done", "for i in 1; do LANG=C touch ca2.txt; done",
		"if true; then LANG=C touch ca3.txt; fi", "for i in 1\ndo\nLANG=C ls\ndone", "for ((i=0;i<1;i++)); do LANG=C ls; done")
	out := sh4Cases("compoundassign", "compound assignments", []string{"default", "acceptEdits"},
		Settings{Allow: []string{"Bash(npm test:*)"}}, nil, probes)
	probes = append(probes, shs("find .", "find . -name x", "ls -R", "grep -r x .", "rg x", "du .", "tree", "find src",
		"ls", "ls .", "find . -maxdepth 0", "ls secret", "grep -r x src")...)
	return append(out, sh4Cases("compoundassign-readdeny", "compound assignments", []string{"default"},
		Settings{Allow: []string{"Bash(npm test:*)"}, Deny: []string{"Read(./secret/**)"}}, genFiles, probes)...)
}

// matrixGenFound4: what the generated lines of seed 4 found: a comment
// inside a substitution, /proc/*/environ named anywhere, id's options.
func matrixGenFound4() []dcase {
	probes := shs("echo $(ls # c)", "echo $(ls # c", "echo $(ls", "echo `ls # c`", `echo "$(ls # c)"`, "(ls # c)", "{ ls # c; }",
		"echo $(ls #c)", "echo $(ls#c)", "echo $(ls # c\n)", "echo $( # c\nls)", "echo $(FOO=1 ionice -c3 grep x secret/s.txt # c)",
		"printf %s /proc/self/environ", "echo /proc/self/environ", "echo '/proc/self/environ'", "grep x /proc/self/environ",
		"cat /proc/self/environ", "ls /proc/1/environ", "echo /proc/environ", "echo /proc/self/environment", "echo /proc//environ",
		"echo x # /proc/self/environ", "echo /PROC/self/environ", "ls -la /proc/self/", "printf %s -fprint out4.txt /proc/self/environ 2>&1",
		"LANG=C id -v *.txt | head -1", "id -v *.txt", "id -v", "id *.txt", "LANG=C id -v a.txt", "id -u", "id -un", "id root",
		"id -Z", "id a.txt", "id -G", "id --help", "id -a")
	return sh4Cases("genfound4", "generated lines", []string{"default", "bypassPermissions"},
		Settings{Deny: []string{"Bash(rm:*)", "Edit(./locked/**)", "Read(./secret/**)"}}, genFiles, probes)
}

// matrixGenFound4b: which read-only commands ask for an unquoted glob,
// and which unclosed constructs Claude Code asks for in
// bypassPermissions.
func matrixGenFound4b() []dcase {
	globs := shs("id *.txt", "echo *.txt", "uname *.txt", "groups *.txt", "basename *.txt", "seq *.txt", "expr *.txt",
		"type *.txt", "wc *.txt", "cat *.txt", "nproc *.txt", "sleep *.txt", "true *.txt", "locale *.txt", "cut -c1 *.txt",
		"df *.txt", "du *.txt", "stat *.txt", "readlink *.txt", "realpath *.txt", "dirname *.txt", "id ?.txt", "id [a].txt",
		"id 'a*'", "id a.txt f1.txt", "printf %s *.txt", "ls *.txt", "head *.txt", "cmp *.txt", "diff *.txt", "tac *.txt",
		"id ~", "id ~/x", "echo ~", "cal *.txt", "uptime *.txt", "free *.txt", "od *.txt", "nl *.txt")
	open := shs(`echo "a`, "echo 'a", "(ls", "{ ls", "echo ${a", "echo `ls", "ls )", "echo $((1+2)", "if true; then ls",
		"for i in 1; do ls", "echo $(ls # c) ; ls", "echo $(ls # c)\nls", "ls; echo $(", "echo $(echo $(ls)", "echo <(ls",
		"echo \"$(ls\"", "case x in", "ls |", "ls &&", "echo $(ls) # (")
	return append(sh4Cases("genfound4-globs", "generated lines", []string{"default"}, Settings{}, genFiles, globs),
		sh4Cases("genfound4-open", "generated lines", []string{"default", "bypassPermissions"},
			Settings{Deny: []string{"Bash(rm:*)"}}, genFiles, open)...)
}

// matrixGlobReadOnly: an unquoted glob in a read-only command outside the
// release's list of commands that take one (cli.js X4r).
func matrixGlobReadOnly() []dcase {
	probes := shs("sort *.txt", "uniq *.txt", "file *.txt", "jq . *.txt", "rg x *.txt", "git diff *.txt", "base64 *.txt",
		"paste *.txt", "fold *.txt", "expand *.txt", "fmt *.txt", "comm *.txt", "numfmt *.txt", "tsort *.txt", "pr *.txt",
		"tree *.txt", "sha512sum *.txt", "grep x *.txt", "tail *.txt", "column *.txt", "ls | grep *.txt",
		"cat a.txt | sort *.txt", "git log *.txt", "false *.txt", "unexpand *.txt", "timeout 5 sort *.txt", "timeout 5 cat *.txt",
		"id a*", "which *.txt", "sort 'a*'", "sort a\\*", "sort \"*.txt\"", "sort a.txt", "LANG=C sort *.txt", "nice sort ?.txt",
		"sha256sum *.txt", "md5sum *.txt", "strings *.txt", "hexdump *.txt", "rev *.txt", "tr a b", "echo *.txt | sort",
		"sort [a].txt", "git status *.txt", "jq -r .a x.json *.json", "rg -l x *", "sort {a,b}.txt", "sort ~/*.txt", "date +%s*", "sort -k 2 *.txt",
		"find . -name *.txt", "awk 1 *.txt", "grep -e * a.txt", "wc -l */s.txt", "id ~", "basename *.txt")
	return sh4Cases("globro", "glob read-only", []string{"default"}, Settings{}, genFiles, probes)
}

// genWrites draws n Bash lines from a grammar of the commands acceptEdits
// approves and their neighbours, with options, targets in and out of the
// working directories and protected ones, wrappers and redirections.
func genWrites(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0xacce))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	cmds := []string{"mkdir", "mkdir -p", "touch", "rm", "rm -r", "rm -f", "rmdir", "mv a.txt", "cp a.txt", "cp -r src",
		"sed -i s/a/b/", "sed -i.bak s/a/b/", "ln -s a.txt", "chmod 600", "tee", "install a.txt", "truncate -s 0", "touch -d now",
		"mkdir -m 700", "cp -p a.txt", "mv -f a.txt", "rm --", "touch --", "sed -ie s/a/b/", "sed --in-place s/a/b/"}
	paths := []string{"new1.txt", "sub/new2.txt", "../outside/o3.txt", "/tmp/x1", "~/x2", "locked/x3", ".git/x4",
		".claude/x5", ".vscode/x6", "a.txt", "'a b.txt'", "*.txt", "f?.txt", "{a,b}.txt", "$HOME/x7", "sub/../x8", "./x9",
		"-x10", ".env", "node_modules/x11", ".bashrc", "src", "new12.txt new13.txt", "d2", "\"$X\"", "x14\\ y", "../extra/e2.txt",
		".gitconfig", ".claude/settings.json", "sub/", ".git"}
	// No target is /, ~ or ..: the lines run in acceptEdits, and the
	// critical paths are the rmdir probes' (critwrap-*).
	prefixes := []string{"", "", "", "LANG=C ", "timeout 5 ", "nice ", "command ", "env ", "sudo ", "\\", "FOO=1 ", "NO_COLOR=1 "}
	suffixes := []string{"", "", "", " > out1.txt", " 2>&1", " && ls", " ; touch y1.txt", " | cat", " &", " 2>/dev/null",
		" >> locked/o2.txt", " < a.txt", " && echo ok", " # c"}
	return distinct(n, func() string { return pick(prefixes) + pick(cmds) + " " + pick(paths) + pick(suffixes) })
}

// matrixGeneratedWrites: genWrites' lines under an Edit deny rule, in
// acceptEdits and default mode.
func matrixGeneratedWrites(seed uint64, n int) []dcase {
	return sh4Cases("gen-w", "generated write lines", []string{"acceptEdits", "default"},
		Settings{Deny: []string{"Edit(./locked/**)"}}, genFiles, genProbes(genWrites(seed, n)))
}

// matrixGenFound6: what the generated lines of seed 6 found: words after a
// redirection's target, find before its paths.
func matrixGenFound6() []dcase {
	probes := shs("tr a b < -p src", "tr a b < a.txt src", "cat < a.txt a.txt", "ls > /dev/null src", "tr a b < -p",
		"cat < -x", "echo x > out9.txt y", "cat a.txt 2> /dev/null a.txt", "wc -l < a.txt -", "grep x < a.txt a.txt",
		"find ~root", "find -n ~root", "find -n .", "NO_COLOR=1 find ~root", "find . -n", "find -n", "find -H .", "find -L .",
		"find -P .", "find -x .", "find -E .", "find -O2 .", "find -D tree .", "find -s .", "find -X .", "find -d .", "ls ~root",
		"cat ~root/x", "find -n src", "ls 2>&1 src", "echo a 2>/dev/null b", "cat <<< x a.txt", "echo a > /dev/null 2>&1",
		"ls > /dev/null 2> /dev/null", "echo ~root", "echo '~root'", "echo ~+", "echo a ~x", "ls -la ~root", "echo ~", "echo ~/x",
		"echo x~y", "grep x ~root", `echo \~root`, "wc -l ~-")
	return sh4Cases("genfound6", "generated lines", []string{"default"}, Settings{}, genFiles, probes)
}

// matrixGenFound8: the generated lines of seed 8. Claude Code 2.1.328
// does not see through a timeout to a shell builtin (cli.js: its strip
// stops at [[, alias, cd, help, history and type after the duration), so
// timeout 5 type ls asks where type ls runs read-only.
func matrixGenFound8() []dcase {
	probes := shs("timeout 5 type ls", "timeout 5 'type' ls", "timeout 5s type ls", "timeout 1.5 type ls", "timeout 5 type",
		"timeout 5 alias", "timeout 5 history", "timeout 5 cd src", "timeout 5 help", "timeout 5 [[ -f a.txt ]]",
		"timeout 5 timeout 5 type ls", "timeout 5 true", "timeout 5 pwd", "command timeout 5 type ls", "timeout 5 ls",
		"timeout 5 echo hi", "timeout 5 printf x", "timeout 5 test -f a.txt", "timeout 5 [ -f a.txt ]", "type ls",
		"timeout 5 type ls; ls", "ls && timeout 5 history", "timeout 5 \\type ls", "timeout 5 \"type\" ls", "timeout 5 TYPE ls",
		"timeout 5 typeset", "timeout 5 nice type ls", "nice timeout 5 type ls", "timeout 5 type --pre=cat /etc/hostname",
		"timeout 5 cat a.txt", "timeout 5 alias ls", "timeout 5 cd", "timeout 5 help cd", "timeout 5 history 5", "timeout 5 type -a ls",
		"command [ -f a.txt ]", "builtin [ -f a.txt ]", "command type ls", "builtin type ls", "command cd src", "command history",
		"timeout 5 [ -f a.txt ] && ls", "FOO=1 timeout 5 type ls", "timeout 5 FOO=1 type ls", "[ -f a.txt ]", "timeout 5 ] x",
		"timeout 5 test -f a.txt ]", "timeout 5 command ls", "timeout -- 5 type ls", "timeout 5 -- type ls",
		"FOO=1 [ -f a.txt ]", "LANG=C [ -f a.txt ]", "FOO=1 type ls", "FOO=1 [[ -f a.txt ]]", "command [[ -f a.txt ]]",
		"command test -f a.txt", "\\[ -f a.txt ]", "'[' -f a.txt ]", "timeout 5 '[[' -f a.txt ]]", "cd", "cd ~", "command cd", "nice cd", "cd --", "cd -", "timeout 5 cd ~",
		"timeout 5 cd /tmp", "cd; ls", "timeout 5 cd; ls")
	out := sh4Cases("genfound8", "generated lines", []string{"default"}, Settings{}, genFiles, probes)
	return append(out, sh4Cases("genfound8-allowed", "generated lines", []string{"default"},
		Settings{Allow: []string{"Bash(type:*)", "Bash(alias:*)", "Bash(history:*)", "Bash(cd:*)"}, Deny: []string{"Bash(help:*)"}}, genFiles, probes)...)
}

// genFlagTable are commands of the release's read-only list with options
// drawn from what the release accepts and from what it should not (an
// option that writes, runs a program, reads another file or takes a bad
// value). No option follows a file, opens an editor, sets the clock or
// reads standard input, and what an option would write or run stays in
// the case's project (out*.txt, cat, ls).
var genFlagTable = map[string][]string{
	"grep x": {"-n", "-i", "-r", "-l", "-c", "-v", "-w", "-A 2", "-B1", "-C x", "-e y", "-f secret/s.txt", "-f a.txt", "-m 1",
		"-o", "-E", "-P", "--include=*.txt", "--exclude-dir=d", "--color=always", "--max-count=2", "-nA2", "-rn", "-d recurse",
		"--binary-files=text", "-D skip", "--label=x", "--context=2", "--after-context x", "--file=secret/s.txt", "-Z9"},
	"rg x": {"-n", "-i", "-l", "-c", "-g '*.txt'", "--glob=*.txt", "-t txt", "-u", "--hidden", "--no-ignore", "--files",
		"--pre=cat", "--pre cat", "-z", "--json", "-A 1", "-e y", "-f secret/s.txt", "--max-depth 1", "-L", "--replace y",
		"--sort=path", "--type-add 'x:*.x'", "--ignore-file=secret/s.txt", "-j2", "--search-zip"},
	"sort": {"-n", "-r", "-u", "-k 2", "-t ,", "-o out1.txt", "--output=out2.txt", "-c", "-m", "-f", "-h", "-V", "-z",
		"--parallel=2", "-S 10M", "-T src", "--compress-program=cat", "--files0-from=secret/s.txt", "-k2,2n", "-ro out3.txt", "-Q"},
	"sed": {"-n 1p", "-e 1p", "-E -n 1p", "-s -n 1p", "-z -n 1p", "-i s/a/b/", "--in-place s/a/b/", "-n 's/a/b/w out4.txt'",
		"'1e ls'", "'1r secret/s.txt'", "-f a.txt", "--debug -n 1p", "-u -n 1p", "--posix -n 1p", "--sandbox -n 1p",
		"-n '1R secret/s.txt'", "-n 1p -i", "-ni 1p", "-n 'w out5.txt'", "-E 's/(a)/\\1/'"},
	"git log": {"--oneline", "-n 3", "-3", "--stat", "-p", "--format=%H", "--pretty=oneline", "--all", "--author=x",
		"--since=1.day", "--grep=x", "-S x", "--output=out6.txt", "--ext-diff", "--textconv", "-L 1,2:a.txt", "--follow", "-G x"},
	"git diff": {"--stat", "--name-only", "--cached", "-U3", "--output=out7.txt", "--no-index", "--ext-diff", "--word-diff",
		"--color-words", "--exit-code", "-R", "--relative", "--submodule", "--textconv"},
	"git branch": {"-a", "-r", "-v", "--list", "--contains HEAD", "-d x", "-D x", "-m x", "-c x", "newb", "--show-current",
		"--merged", "--set-upstream-to=x", "-u x", "--format=%(refname)", "--sort=-committerdate"},
	"git tag": {"-l", "--list", "-n", "-d x", "newt", "--contains HEAD", "--sort=x", "-v x", "--points-at HEAD", "-f t"},
	"git config": {"--get x.y", "--list", "-l", "--get-regexp x", "--unset x.y", "x.y z", "--add x.y z", "--show-origin",
		"--global --list", "--file=a.txt --list", "-f secret/s.txt -l", "--get-all x.y", "--includes -l", "--replace-all x.y z"},
	"git status": {"-s", "--short", "-b", "--porcelain", "-uno", "--ignored", "--column", "-z", "--no-optional-locks"},
	"git show":   {"--stat", "HEAD", "--format=%s", "--name-only", "--output=out8.txt", "--ext-diff", "-s", "HEAD:a.txt"},
	"date": {"+%s", "-u", "-d now", "--date=now", "-r a.txt", "-r secret/s.txt", "-I", "--iso-8601=s", "-R", "-f a.txt",
		"--reference=secret/s.txt", "+%Y -u", "-ud now"},
	"base64": {"-d", "-w 0", "--wrap=0", "-i", "--decode", "-b 3", "-D", "-o out9.txt", "--input=secret/s.txt", "-w x"},
	"file":   {"-b", "-i", "-L", "-z", "-m secret/s.txt", "-C", "-f a.txt", "-0", "--mime-type", "-F :", "-e ascii", "-P x=1"},
	"head":   {"-n 1", "-c 3", "-1", "-q", "-v", "--lines=2", "--bytes=3", "-n -1", "-n x", "-z"},
	"tail":   {"-n 1", "-c 3", "-1", "-q", "-v", "--lines=2", "-n +2", "--pid=1", "-s 1", "-z", "-r"},
	"wc":     {"-l", "-c", "-w", "-m", "-L", "--files0-from=secret/s.txt", "--total=never"},
	"du": {"-s", "-h", "-a", "-c", "-d 1", "--max-depth=1", "-x", "--exclude=x", "-X secret/s.txt", "--time", "-L",
		"--files0-from=a.txt"},
	"ls": {"-la", "-R", "-1", "-d", "-h", "--color=always", "-I x", "--hide=x", "-w 80", "--format=long", "-T 4",
		"--time-style=+%s", "-D", "--dired", "-Z", "--block-size=1K"},
	"find": {"-name x.txt", "-type f", "-maxdepth 1", "-exec cat {} \\;", "-execdir cat {} +", "-name nothing.txt -delete", "-fprint out10.txt", "-fls out11.txt", "-print0", "-newer a.txt", "-size +1",
		"-mtime -1", "-path x", "-regex x", "-printf '%p\\n'", "-fprintf out12.txt %p", "-quit", "-prune", "-newer secret/s.txt",
		"-samefile secret/s.txt", "-files0-from secret/s.txt"},
	"tree": {"-a", "-L 2", "-d", "-f", "-i", "-o out13.txt", "-J", "-I x", "-P x", "--noreport", "-h", "--du",
		"--fromfile", "-R", "--filelimit 3", "-X"},
	"xxd": {"-l 16", "-c 8", "-g 1", "-p", "-r", "-s 1", "-u", "-i", "-b", "-e", "-n x", "-o 1"},
	"od":  {"-c", "-x", "-A x", "-t x1", "-N 8", "-j 1", "-w8", "-v", "--traditional", "-S 2"},
	"jq .": {"-r", "-c", "-s", "-n", "-e", "--arg x y", "--argjson x 1", "--slurpfile x secret/s.txt", "--rawfile x secret/s.txt",
		"-f a.txt", "--tab", "--indent 2", "-S", "-j", "-L src", "--from-file secret/s.txt", "--seq"},
	"uniq": {"-c", "-d", "-u", "-i", "-f 1", "-s 1", "-w 2", "--group", "-z"},
	"cut":  {"-c1", "-d, -f1", "-b1", "--complement -c1", "-s -f1", "--output-delimiter=x -f1", "-f x"},
	"diff a.txt": {"-u", "-q", "-r", "-N", "--brief", "-y", "-w", "-B", "-I x", "--to-file=secret/s.txt", "--from-file=src",
		"-D x", "--color", "--label x", "-x x", "-X secret/s.txt", "--line-format=%L"},
	"stat": {"-c %s", "--format=%n", "-L", "-f", "-t", "--printf=%s", "-c"},
	"fd x": {"-H", "-I", "-e txt", "-t f", "-x cat", "-X cat", "--exec cat", "-d 1", "-L", "-a", "-0", "-E x", "-g",
		"--base-directory src", "--search-path .", "--changed-within 1d", "--ignore-file secret/s.txt", "-l"},
	"sha256sum":        {"-c", "-b", "-t", "--tag", "-z", "--status", "-w", "--check"},
	"nl":               {"-ba", "-v 1", "-i 2", "-s x", "-w 3", "-n ln", "-d x"},
	"awk":              {"-F,", "-v x=1", "-f a.txt", "--sandbox", "-E a.txt", "-e 1", "-P", "--lint"},
	"strings":          {"-n 3", "-a", "-t x", "-e l", "-o", "-f", "-w", "--output-separator=x"},
	"realpath":         {"-e", "-m", "-s", "--relative-to=src", "-q", "-z", "--relative-base=.", "-L", "-P"},
	"readlink":         {"-f", "-e", "-m", "-n", "-q", "-s", "-v", "-z", "--canonicalize"},
	"df":               {"-h", "-i", "-T", "-l", "-x tmpfs", "--output=source", "-t ext4", "-a", "-P", "--total", "-B 1K"},
	"cmp a.txt":        {"-l", "-s", "-b", "-i 1", "-n 4", "--verbose", "--bytes=4", "--ignore-initial=1:2"},
	"comm a.txt":       {"-1", "-2", "-3", "--check-order", "--output-delimiter=x", "-z", "--total"},
	"column":           {"-t", "-s,", "-c 80", "-x", "-J", "-o x", "-N a,b", "-R 1"},
	"paste":            {"-d,", "-s", "-z", "--delimiters=x", "--serial"},
	"hexdump":          {"-C", "-n 16", "-s 1", "-v", "-e '\"%x\"'", "-f secret/s.txt", "-b", "-x"},
	"tr a b <":         {"", "-d", "-s", "-c", "-t"},
	"test":             {"-f", "-d", "-e", "-r", "-s", "-n x", "-z \"\"", "-nt a.txt", "-v X", "-o -f", "-a -f"},
	"man":              {"-P cat", "-k x", "-f x", "--pager=cat", "-l", "-w", "-H", "-t", "--html=cat", "-E utf8"},
	"ps":               {"aux", "-ef", "-p 1", "-o pid,cmd", "e", "-E", "ewww", "-u root", "-A", "--forest", "-e", "-ww"},
	"uname":            {"-a", "-r", "-m", "-n", "-s", "-p", "-i", "-o", "--all", "-x"},
	"id":               {"-u", "-g", "-n", "-G", "-r", "-z", "-a", "-Z", "-un"},
	"seq":              {"1 3", "-s, 1 3", "-w 1 3", "-f %g 1 3", "-f %n 1", "1"},
	"numfmt":           {"--to=si 1000", "--from=iec 1K", "--field 1", "-d , 1", "--invalid=ignore 1", "--format=%f 1"},
	"fold":             {"-w 10", "-s", "-b", "-w x"},
	"cal":              {"-3", "-y 2020", "-m 1", "-j", "2020", "1 2020"},
	"free":             {"-h", "-m", "-g", "-t", "-w", "-c 1 -s 1", "--si"},
	"locale":           {"-a", "-m", "-k LC_TIME", "-v", "LC_TIME"},
	"nproc":            {"--all", "--ignore=1", "-x"},
	"expr":             {"1 + 1", "length x", "match x x", "x : x", "1 \\> 0"},
	"basename":         {"-a", "-s .txt", "-z", "--suffix=.txt", "--multiple"},
	"pr":               {"-2", "-l 10", "-h x", "-o 2", "-w 40", "-t", "-n", "-F"},
	"fmt":              {"-w 40", "-s", "-u", "-p x", "-g 20", "-40"},
	"less":             {"-R", "-F", "-X", "-N", "+G", "-f", "-o out15.txt", "-O out16.txt", "-k secret/s.txt", "--LESSKEYIN=secret/s.txt"},
	"lsof":             {"-i", "-p 1", "-n -P -i", "-t", "+D src", "-u root", "-c x", "-a -p 1"},
	"ss":               {"-t", "-l", "-n", "-p", "-a", "-tlnp", "-s", "-x", "-D out17.txt", "-F secret/s.txt", "--diag=out18.txt", "-N x"},
	"netstat":          {"-t", "-l", "-n", "-p", "-a", "-tlnp", "-r", "-i", "-s"},
	"tput":             {"cols", "lines", "-T xterm cols", "-x clear", "colors", "-V", "init"},
	"docker logs x":    {"-f", "--tail 10", "--since 1h", "-t", "--details", "-n 5", "--until 1h"},
	"docker inspect x": {"-f '{{.Id}}'", "--format={{.Id}}", "-s", "--type=container"},
	"pyright":          {"--version", "-p x", "--outputjson", "--verbose", "--createstub x"},
	"git blame":        {"-L 1,2", "-e", "-s", "-w", "-M", "-C", "--porcelain", "--contents secret/s.txt", "-S secret/s.txt", "--root"},
	"git ls-files":     {"-m", "-o", "--others", "--exclude-standard", "-s", "-z", "--with-tree=HEAD", "-X secret/s.txt", "--exclude-from=secret/s.txt"},
	"git remote":       {"-v", "show", "add x y", "remove x", "get-url origin", "set-url x y", "prune x", "update"},
	"git rev-parse":    {"HEAD", "--show-toplevel", "--git-dir", "--abbrev-ref HEAD", "--verify x", "--git-path x", "--local-env-vars"},
	"git reflog":       {"show", "expire --all", "delete x", "-n 1", "--all", "exists x"},
	"git stash":        {"list", "show", "show -p", "push", "drop", "clear", "pop"},
	"git ls-remote":    {"--heads", "--tags", "-q", "--get-url", "--upload-pack=cat x", "--refs", "--sort=x"},
}

// genFlags draws n lines from genFlagTable: a command, up to three of its
// options (now and then one the release's table does not know), and its
// operands, in and out of the working directories.
func genFlags(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0xf1a9))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	cmds := make([]string, 0, len(genFlagTable))
	for c := range genFlagTable {
		cmds = append(cmds, c)
	}
	slices.Sort(cmds)
	// A program or script the command needs before its operands, so
	// that none reads its standard input for want of one.
	tails := map[string][]string{
		"awk": {"1", "'BEGIN{system(\"ls\")}'", "'{print > \"out14.txt\"}'", "'{print | \"cat\"}'",
			"'{getline l < \"secret/s.txt\"}'", "'{print}'"},
		"sed": {"1p", "-n 1p", "s/a/b/", "'1r secret/s.txt'", "-e 1p"},
	}
	bogus := []string{"-Z9", "--nope", "-@", "--output=out19.txt", "-0x", "--exec=cat", "-W", "--=x"}
	operands := []string{"a.txt", "a.txt", "f1.txt", "src", ".", "secret/s.txt", "../outside/o.txt", "/etc/hostname",
		"'a b.txt'", "-- a.txt", "a.txt f1.txt", "~/notes.txt", "locked/keep.txt"}
	return distinct(n, func() string {
		c := pick(cmds)
		words := []string{c}
		for range r.IntN(4) {
			if r.IntN(10) == 0 {
				words = append(words, pick(bogus))
			} else {
				words = append(words, pick(genFlagTable[c]))
			}
		}
		if t, ok := tails[c]; ok {
			words = append(words, pick(t))
		}
		words = append(words, pick(operands))
		return strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	})
}

// matrixGeneratedFlags: genFlags's lines under Read and Edit deny rules,
// in default mode and plan.
func matrixGeneratedFlags(seed uint64, n int) []dcase {
	return sh4Cases("gen-flags", "generated options", []string{"default", "plan"},
		Settings{Allow: []string{"Bash(npm test:*)"}, Deny: []string{"Read(./secret/**)", "Edit(./locked/**)"}},
		genFiles, genProbes(genFlags(seed, n)))
}

// matrixGenFound10: the generated options of seed 10: sed's options
// after its script.
func matrixGenFound10() []dcase {
	probes := shs("sed -u -n 1p a.txt", "sed -s -n 1p a.txt", "sed --debug -n 1p a.txt", "sed -n 1p -n a.txt", "sed -n 1p -u a.txt",
		"sed -n -n 1p a.txt", "sed -u -n 1p -n 1p a.txt", "sed -n 1p -s a.txt", "sed -n 1p 1p a.txt", "sed -n -u 1p a.txt",
		"sed -n 1p -- a.txt", "sed -n 1p a.txt -n", "sed -n 1p a.txt -E", "sed -n 1p -E a.txt", "sed -E -n 1p a.txt",
		"sed -n 1p a.txt -i", "sed -n 1p a.txt --posix", "sed -n -e 1p a.txt -n", "sed -n 1p a.txt -z", "sed -nE 1p a.txt",
		"sed -n 1p a.txt f1.txt", "sed -n 1p -- -n", "sed -n 1p a.txt -", "sed -n 1p -n", "sed -n '1p' a.txt -u",
		"sed -n p a.txt", "sed -n '1p;2p' a.txt", "sed -n -e 1p a.txt", "sed -n --expression=1p a.txt", "sed -n 1p -- -x",
		"sed -n -- 1p a.txt", "sed --quiet 1p a.txt", "sed -rn 1p a.txt", "sed -nz 1p a.txt", "sed -ns 1p a.txt",
		"sed -n ' 1p ' a.txt", "sed -n '1p; 2p' a.txt", "sed -n 1,p a.txt", "sed -e 1p -n a.txt", "sed --silent -E 1p a.txt")
	return sh4Cases("genfound10", "generated lines", []string{"default"}, Settings{}, genFiles, probes)
}

// genPathFiles are the files the generated path rules are tried on.
var genPathFiles = map[string]string{
	"gp/a.txt": "a\n", "gp/b.md": "b\n", "gp/.env": "e\n", "gp/x/a.txt": "a\n", "gp/x/y/a.txt": "a\n", "gp/x/y/z/b.md": "b\n",
	"gp/.hidden/a.txt": "a\n", "gp/A/B.txt": "b\n", "gp/d e/f.txt": "f\n", "gp/q[1]/a.txt": "a\n", "gp/x/.env": "e\n",
	"gp/x/a.TXT": "a\n", "gp/ab.txt": "a\n", "gp/x/b/c.txt": "c\n",
}

// genPathRules draws a Read or Edit rule's path from pieces of the
// pattern language: anchors, globstars, classes, braces, escapes.
func genPathRule(r *rand.Rand) string {
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	anchors := []string{"./gp/", "gp/", "/gp/", "**/", "./gp/**/", "*/", "/gp/x/", "./gp/x/", ""}
	segs := []string{"x", "y", "z", "*", "**", "?", "a.txt", "*.txt", "*.md", ".env", ".*", "[ab].txt", "{a,b}.txt", "a*",
		"*.{txt,md}", "A", ".hidden", "d e", "q\\[1\\]", "b", "[!a]*.txt", "*.TXT", "?.txt", "x/y", "**/a.txt", "ab.txt"}
	p := pick(anchors)
	for n := 1 + r.IntN(3); n > 0; n-- {
		p += pick(segs)
		if n > 1 {
			p += "/"
		}
	}
	if r.IntN(10) == 0 {
		p += "/"
	}
	return p
}

// genPaths draws cases of n calls in all: each case has random Read and
// Edit deny rules (genPathRule) and reads and writes every file of
// genPathFiles under several spellings (relative, ./, absolute, through
// .., another case), in default mode.
func genPaths(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x9a7b))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	files := slices.Sorted(maps.Keys(genPathFiles))
	var out []dcase
	for c := 0; n > 0; c++ {
		var s Settings
		for range 4 {
			s.Deny = append(s.Deny, "Read("+genPathRule(r)+")")
		}
		for range 2 {
			s.Deny = append(s.Deny, "Edit("+genPathRule(r)+")")
		}
		var probes []probe
		for range 40 {
			f := respell(r, pick(files), 6, func(f string) string { return strings.Replace(f, "gp/", "gp//", 1) })
			if r.IntN(4) == 0 {
				probes = append(probes, wr(newName(f)))
			} else {
				probes = append(probes, rd(f))
			}
		}
		n -= len(probes)
		out = append(out, filesCases(fmt.Sprintf("gen-paths%d", c), "generated path rules", []string{"default"}, "", Settings{},
			s, genPathFiles, [][]probe{probes})...)
	}
	return out
}

// respell is f, a file of genPathFiles, spelled as one of n draws picks:
// as it is, from ./, absolute, through gp/x/.., or as other spells it
// (draw 4); the other draws leave it as it is.
func respell(r *rand.Rand, f string, n int, other func(string) string) string {
	switch r.IntN(n) {
	case 1:
		return "./" + f
	case 2:
		return projP + "/" + f
	case 3:
		return "gp/x/../" + strings.TrimPrefix(f, "gp/")
	case 4:
		return other(f)
	}
	return f
}

// newName is a file beside f that does not exist: f with _new before its
// extension.
func newName(f string) string {
	if i := strings.LastIndex(f, "."); i > strings.LastIndex(f, "/") {
		return f[:i] + "_new" + f[i:]
	}
	return f + "_new"
}

// genRuleCases draws cases of n calls in all: each case has random Bash
// allow, ask and deny rules (prefix rules, wildcards in any place, exact
// commands, odd spellings) and commands near them, in default mode and
// bypassPermissions: where an allow rule approves more in the dialect
// than in the release, or a deny rule stops less, is a fail-open.
func genRuleCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x4a1e))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	rules := []string{"git diff:*", "npm run test:*", "ls:*", "echo:*", "cat:*", "git * main", "ls *", "echo *", "* --version",
		"npm run *", "git diff *", "cat *.txt", "echo hi*", "echo \\*", "git log --oneline *", "git status", "echo hi", "ls -la",
		"echo:*:*", "echo **", "*", ":*", "echo  hi", "Echo hi", "rm:*", "rm *", "rm -rf *", "* f1.txt", "cat secret/*",
		"git *", "git push:*", "echo hi *", "ls -la *", "echo h?", "echo [h]i", "npm run test *", "npm:*", "git diff * main",
		"echo * there", "cat a.txt:*", "echo hi:*", "ls -*", "ls * src", "*hi", "echo*"}
	cmds := []string{"git diff", "git diff HEAD", "git diff --stat main", "git push origin main", "git log --oneline -1", "ls",
		"ls -la", "ls -la src", "echo hi", "echo hi there", "echo hithere", "echo *", "echo '*'", "npm run test",
		"npm run test:unit", "npm run build", "npm --version", "node --version", "cat a.txt", "cat f1.txt", "cat secret/s.txt",
		"echo hi && ls", "echo hi; rm f1.txt", "git status", "git status -s", "git  status", "ls  -la", "echo", "git", "npm run",
		"echo hi | cat", "echo $(ls)", "git diff > out1.txt", "echo hi > out2.txt", "rm f1.txt", "rm -rf f2.txt", "npm test",
		"git diff main..HEAD", "echo --version", "ls --version", "echo h", "echo hx", "echo hi hi", "ls src", "ls -R src",
		"git diff x main", "git diff main", "echo a there", "cat a.txt b", "echo hi:x", "ls -l", "echo 'hi'", "echo \"hi\" there",
		"ECHO hi", "echo hi\n", "echo hi #c", "rm f3.txt f4.txt", "cat ./a.txt", "git diff -- main", "echo  hi", "rm -r d2"}
	var out []dcase
	for c := 0; n > 0; c++ {
		var s Settings
		for range 3 {
			s.Allow = append(s.Allow, "Bash("+pick(rules)+")")
		}
		s.Ask = append(s.Ask, "Bash("+pick(rules)+")")
		for range 2 {
			s.Deny = append(s.Deny, "Bash("+pick(rules)+")")
		}
		probes := genProbes(distinct(25, func() string { return pick(cmds) }))
		n -= 2 * (len(probes) - 1)
		out = append(out, sh4Cases(fmt.Sprintf("gen-rules%d", c), "generated Bash rules", []string{"default", "bypassPermissions"},
			s, genFiles, probes)...)
	}
	return out
}

// matrixGenRules1: what the generated Bash rules of seeds 1 and 4 found:
// an exact ask or deny rule against the command with a redirection or a
// comment.
func matrixGenRules1() []dcase {
	probes := shs("echo hi > out1.txt", "echo hi 2>&1", "echo hi >/dev/null", "> out2.txt echo hi", "echo hi < a.txt",
		"echo hi >> out3.txt", "echo hi > out4.txt 2>&1", "echo hi", "echo hi there > out5.txt", "ls -la > out6.txt",
		"ls -la 2>/dev/null", "ls -la", "ls -la src > out7.txt", "echo hi >out8.txt", "echo hi>out9.txt", "echo hi | cat",
		"echo hi && ls", "echo hi &> out10.txt", "echo hi 1> out11.txt", "echo hi > /dev/null 2>&1", "echo hi #c", "echo hi # c d",
		"echo hi#c", "echo hi '#c'", "echo hi > out12.txt # c", "ls -la #c")
	var out []dcase
	for _, m := range []string{"ask", "deny"} {
		s := Settings{Allow: []string{"Bash(rm -rf *)"}}
		rules := []string{"Bash(echo hi)", "Bash(ls -la:*)"}
		if m == "ask" {
			s.Ask = rules
		} else {
			s.Deny = rules
		}
		out = append(out, sh4Cases("genrules1-"+m, "generated Bash rules", []string{"default", "bypassPermissions"}, s, genFiles, probes)...)
	}
	return out
}
