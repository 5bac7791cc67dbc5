package claudecodetest

// A round on glob and brace characters in the paths of filesystem
// commands (matrixGlobWrites): a write or create target that a shell would
// expand (*, ?, [...], {a,b}), quoted or escaped, in the name or the
// directory, as a redirection's target, and beside the same commands'
// reads.

// matrixGlobWrites: touch, mkdir, rm, rmdir, mv, cp, sed -i and tee with
// glob or brace characters in their paths, in every mode, and under allow
// rules for the commands in default mode.
func matrixGlobWrites() []dcase {
	probes := shs(
		// Create and write targets with a glob.
		"touch gw?.txt", "touch gw*.txt", "touch gw[12].txt", "touch 'gq*.txt'", `touch gw\*.txt`, "touch free/*/gx.txt",
		"mkdir gd*", "rmdir gd?", "rm gr1*", "rm -f gr?.txt", "rm free/*.txt", "cp a.txt gc*.txt", "cp a*.txt free/",
		"mv gm*.txt free/", "mv gm1.txt free/gn*.txt", "sed -i s/a/b/ gs*.txt", "tee gt*.txt < a.txt",
		// Edges: a lone bracket or brace, the characters in a sed script
		// or an option's value, after --, with ./, in tee -a and cp -t.
		"touch 'gl[1'", "touch gl]1", "touch gl}1", "rm -- gz*", "sed -i 's/a*/b/' gs1.txt", "sed -e 's/x?/y/' -i gs1.txt",
		"tee -a gt?.txt < a.txt", "cp -t free a*.txt", "mkdir -p gp/*/x", "touch ./gw?.txt", "touch -d '2020-01-01' gw5.txt",
		// Braces.
		"touch {gb1,gb2}.txt", "mkdir {gbd1,gbd2}", "cp a.txt {gbc1,gbc2}.txt", "rm {gbr1,gbr2}.txt", "touch gb{1..2}.txt",
		// Redirections.
		"echo x > gr*.txt", "echo x > {grr1,grr2}.txt", "echo x >> gr?.txt",
		// Reads beside them.
		"cat a*.txt", "ls gd*", "sed s/a/b/ gs*.txt", "cat {a,gs1}.txt", "head -1 free/*.txt")
	files := map[string]string{"a.txt": "a\n", "gr1.txt": "r\n", "gr2.txt": "r\n", "gm1.txt": "m\n", "gs1.txt": "a\n",
		"free/f.txt": "f\n", "free/sub/.keep": "", "gbr1.txt": "b\n", "gbr2.txt": "b\n"}
	out := sh4Cases("globwrite", "glob writes", []string{"default", "acceptEdits", "dontAsk", "bypassPermissions"}, Settings{}, files, probes)
	out = append(out, sh4Cases("globwrite-bare", "glob writes", []string{"default"}, Settings{Allow: []string{"Bash"}}, files, probes)...)
	return append(out, sh4Cases("globwrite-allowed", "glob writes", []string{"default", "acceptEdits", "plan"},
		Settings{Allow: []string{"Bash(touch:*)", "Bash(mkdir:*)", "Bash(rm:*)", "Bash(rmdir:*)", "Bash(cp:*)", "Bash(mv:*)", "Bash(sed:*)",
			"Bash(tee:*)", "Bash(echo:*)"}}, files, probes)...)
}

// matrixFsFlags: the filesystem commands acceptEdits approves and allow
// rules name, with options: cp and mv with a flag, sed's -e before -i,
// touch with an option's value, mkdir -p and -m, rm -f.
func matrixFsFlags() []dcase {
	probes := shs("cp -r free gcr", "cp -- a.txt gcc.txt", "cp -t free gs1.txt", "mv -f gm1.txt gm2.txt", "mv -- gm2.txt gm3.txt",
		"mv -n gm3.txt gm4.txt", "cp a.txt gcp.txt", "mv gm4.txt gm5.txt", "sed -e s/a/b/ -i gs1.txt", "sed -i -e s/a/b/ gs1.txt",
		"sed -i.bak s/a/b/ gs1.txt", "sed -n -i p gs1.txt", "touch -d 2020-01-01 gw5.txt", "touch -c gw6.txt", "touch -r a.txt gw7.txt",
		"mkdir -p gpp/x", "mkdir -m 755 gmm", "rm -f gr2.txt", "rm -r gd1", "rmdir -p gd2/x")
	files := map[string]string{"a.txt": "a\n", "gr2.txt": "r\n", "gm1.txt": "m\n", "gs1.txt": "a\n", "free/f.txt": "f\n",
		"gd1/.keep": "", "gd2/x/.keep": ""}
	out := sh4Cases("fsflags", "filesystem flags", []string{"default", "acceptEdits"}, Settings{}, files, probes)
	return append(out, sh4Cases("fsflags-allowed", "filesystem flags", []string{"default"},
		Settings{Allow: []string{"Bash(touch:*)", "Bash(mkdir:*)", "Bash(rm:*)", "Bash(rmdir:*)", "Bash(cp:*)", "Bash(mv:*)", "Bash(sed:*)"}},
		files, probes)...)
}

// matrixPathForms: path words the release will not check as written, in
// reads and writes under allow rules and in acceptEdits: tilde variants
// (~root, ~+, ~-), a leading '=', a UNC-like //host path, '..' after a
// directory, and the same paths spelled plainly.
func matrixPathForms() []dcase {
	probes := shs("cat ~root/pf1.txt", "ls ~+", "cat ~+/a.txt", "cat ~-/a.txt", "touch ~+/pf2.txt", "touch =pf3", "cat =pf4",
		"cat //pfhost/share/x", "touch //pfhost/share/y", "touch sub/../pf5.txt", "cat sub/../a.txt", "cat ./a.txt", "touch ./pf6.txt",
		"ls ~", "cat ~/pf7.txt", "touch ~/pf8.txt")
	files := map[string]string{"a.txt": "a\n", "sub/.keep": ""}
	out := sh4Cases("pathforms", "path forms", []string{"acceptEdits"}, Settings{}, files, probes)
	return append(out, sh4Cases("pathforms-allowed", "path forms", []string{"default"},
		Settings{Allow: []string{"Bash(cat:*)", "Bash(ls:*)", "Bash(touch:*)"}}, files, probes)...)
}

// matrixTooComplex: the shapes Claude Code's command reader refuses
// ("too-complex") beyond control characters and Unicode blanks (row 6c):
// a zsh =cmd expansion, ~[ dynamic directories, <N-M> numeric ranges,
// backslash-escaped blanks, a brace holding a quote; and tilde variants
// outside a path command.
func matrixTooComplex() []dcase {
	probes := shs("echo =x1", "echo a =x2", "echo a=x3", "echo x;=y4", "echo '=x5'", "echo ~[x]", "cat ~[1]", "echo <1-5>",
		"cat a<1-2>.txt", `echo a\ b`, `cat a\ b.txt`, `echo 'a\ b'`, "echo {a,'b'}", `echo {a,"b"}`, "echo '{a,b}'", `echo "{'x'}"`,
		"echo ~+", "echo ~root", "echo x\\\ny")
	files := map[string]string{"a.txt": "a\n", "a b.txt": "ab\n", "a1.txt": "1\n"}
	return sh4Cases("toocomplex-allowed", "too complex", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)"}}, files, probes)
}

// matrixReadOnlyWrites: commands of the read-only list with an option or
// program that writes, executes or reaches the network, in default mode
// with no rule (does the list approve them?).
func matrixReadOnlyWrites() []dcase {
	probes := shs("git log --output=rw1.txt -1", "sort -o rw2.txt a.txt", "sort --output=rw3.txt a.txt", `awk '{print > "rw4.txt"}' a.txt`,
		`awk 'BEGIN{system("touch rw5.txt")}'`, "rg --pre cat a a.txt", "git diff --output=rw6.txt",
		"sed -n 1p a.txt", "sed s/a/b/ a.txt", "sed -n 's/a/b/w rw7.txt' a.txt", "find . -name rw8 -fprint rw8.txt", "find . -newer a.txt",
		"tree -o rw9.txt", "uniq a.txt rw10.txt", "jq -n 1", "xxd a.txt", "xxd -r a.txt rw11.txt", "split a.txt rw12", "md5sum -c a.txt",
		"tar -tf none.tar", "unzip -l none.zip", "git show HEAD:a.txt", "git blame a.txt", "ls -la > rw13.txt", "pwd -P", "hostname",
		"uname -a", "which ls", "type ls", "command -v ls", "env", "printenv HOME", "less a.txt", "more a.txt",
		"file -C -m rw15", "diff a.txt a.txt", "cmp a.txt a.txt", "stat a.txt", "du -sh .", "df -h", "ps aux", "free -m", "id", "whoami")
	files := map[string]string{"a.txt": "a\nb\n"}
	return sh4Cases("rowrites", "read-only writes", []string{"default"}, Settings{}, files, probes)
}

// matrixSensitiveReads: reads of files inside the project whose names
// hold credentials or shell configuration (.env, .npmrc, .netrc, keys,
// secrets.*, .ssh/, .aws/), by the Read tool and by cat, in default mode
// with no rule and in bypassPermissions (2.1.328 runs every one); and
// writes of them in acceptEdits, by the Write tool, touch and a
// redirection.
func matrixSensitiveReads() []dcase {
	names := []string{".env", ".env.local", ".env.example", ".npmrc", ".netrc", "id_rsa", "server.pem", "secrets.yaml", ".ssh/config",
		".aws/credentials", ".git-credentials", ".bashrc", "config.fish", "a.txt.bak",
		".envrc", "kubeconfig", ".pgpass", "plain.txt"}
	files := map[string]string{}
	var probes []probe
	for _, n := range names {
		files[n] = "x\n"
		probes = append(probes, rd(n))
	}
	for _, n := range names {
		probes = append(probes, sh("cat "+n))
	}
	out := sh4Cases("sensitive-reads", "sensitive reads", []string{"default", "bypassPermissions"}, Settings{}, files, probes)
	var writes []probe
	for _, n := range names {
		writes = append(writes, wr("w/"+n))
	}
	for _, n := range names {
		writes = append(writes, sh("touch t/"+n), sh("echo x > r/"+n))
	}
	wfiles := map[string]string{"w/.keep": "", "t/.ssh/.keep": "", "t/.aws/.keep": "", "r/.ssh/.keep": "", "r/.aws/.keep": "", "w/.ssh/.keep": "", "w/.aws/.keep": ""}
	return append(out, sh4Cases("sensitive-writes", "sensitive reads", []string{"acceptEdits"}, Settings{}, wfiles, writes)...)
}

// matrixToolPathForms: the file tools' paths in the forms the Bash path
// check refuses: a glob or a brace, a tilde form, '..' after a directory,
// a '$', in acceptEdits and under Edit and Read allow rules.
func matrixToolPathForms() []dcase {
	probes := []probe{wr("tw*.txt"), wr("tw?.txt"), wr("{tb1,tb2}.txt"), wr("tw[1].txt"), wr("~+/tp1.txt"), wr("sub/../tp2.txt"),
		wr("$HOME/tp3.txt"), rd("a*.txt"), rd("~+/a.txt"), rd("sub/../a.txt"), rd("a[1].txt"), rd("$PWD/a.txt"), wr("tp4.txt")}
	edits := []probe{ed("e*.txt"), ed("e[1].txt"), ed("~+/e1.txt")}
	files := map[string]string{"a.txt": "a\n", "a*.txt": "s\n", "a[1].txt": "b\n", "sub/.keep": "", "e*.txt": "old\n", "e[1].txt": "old\n", "e1.txt": "old\n"}
	var out []dcase
	for _, c := range []struct {
		name, mode string
		s          Settings
	}{{"toolpaths-acceptEdits", "acceptEdits", Settings{}}, {"toolpaths-allowed-default", "", Settings{Allow: []string{"Edit(./**)", "Read(./**)"}}}} {
		out = append(out, dcase{name: c.name, group: "tool path forms", paths: true, mode: c.mode, settings: c.s,
			files: files, sessions: []session{root([][]probe{probes, edits})}})
	}
	return out
}

// matrixLinksAndDirs: ln and link, whose targets the release checks as
// reads, and pushd and env -C, whose directory it checks as a read,
// under a Read deny rule in default and bypassPermissions; and output and
// input redirections in the path forms row 44 and 45 name, in acceptEdits.
func matrixLinksAndDirs() []dcase {
	probes := shs("ln -s secret/s.txt lk1", "ln secret/s.txt lk2", "link secret/s.txt lk3", "ln -s free/f.txt lk4", "ln -s ../secret/s.txt free/lk5",
		"ln -sf secret lk6", "pushd secret", "pushd free", "env -C secret ls", "env --chdir=secret ls", "env -C free ls", "cp -s secret/s.txt lk7")
	files := map[string]string{"secret/s.txt": "s\n", "free/f.txt": "f\n"}
	out := sh4Cases("lnpushd", "links and dirs", []string{"default", "bypassPermissions"},
		Settings{Deny: []string{"Read(./secret/**)"}, Allow: []string{"Bash(ln:*)", "Bash(link:*)", "Bash(pushd:*)", "Bash(env:*)", "Bash(cp:*)"}}, files, probes)
	redirs := shs("echo x > ~+/rf1.txt", "echo x > sub/../rf4.txt", "cat < ~+/free/f.txt", "cat < free/*.txt", "echo x 2> e*.log",
		"echo x &> rf7*.txt", "echo x >| rf8?.txt", "echo x > 'rf6 q.txt'", "echo x > free/rf9.txt")
	rfiles := map[string]string{"free/f.txt": "f\n", "sub/.keep": ""}
	return append(out, sh4Cases("redirforms", "links and dirs", []string{"acceptEdits"}, Settings{}, rfiles, redirs)...)
}

// matrixEnvChdir: env with a directory change, and input redirections
// after a cd, under allow rules for the commands env runs.
func matrixEnvChdir() []dcase {
	probes := shs("env -C free ls", "env --chdir free ls", "env -C free cat f.txt", "env -i ls", "env FOO=1 ls", "env -u X ls",
		"cd free && cat < f.txt", "cd free; cat < "+projP+"/free/f.txt", "cat < free/f.txt", "cd free && cat f.txt")
	files := map[string]string{"free/f.txt": "f\n"}
	return sh4Cases("envchdir", "links and dirs", []string{"default", "acceptEdits"}, Settings{Allow: []string{"Bash(ls:*)", "Bash(cat:*)"}}, files, probes)
}

// matrixReadGlobs: reads whose globs match files in a directory a Read
// deny rule names, the glob before, in or after the denied directory's
// name, in default mode and bypassPermissions.
func matrixReadGlobs() []dcase {
	probes := shs("cat se*/s.txt", "cat secre?/s.txt", "cat [s]ecret/s.txt", "head -1 */s.txt", "grep s secret/*", "cat secret/*",
		"cat secret/s.*", "ls secret*", "wc -l ./se*t/s.txt", "cat "+projP+"/se*/s.txt")
	files := map[string]string{"secret/s.txt": "s\n", "free/f.txt": "f\n"}
	return sh4Cases("readglobs", "read globs", []string{"default", "bypassPermissions"}, Settings{Deny: []string{"Read(./secret/**)"}}, files, probes)
}

// matrixUncheckable: more of what Claude Code's command reader calls
// impossible to check before it runs: cd with two directories, wrappers
// with options it does not read, digits before a redirection, words after
// one, $'...' strings, text after a closing ], awk's options; with no rule
// (the read-only list) and under allow rules naming the commands.
func matrixUncheckable() []dcase {
	probes := shs("cd free free", "cd free", "timeout -s KILL 5 ls", "timeout --foreground 5 ls", "timeout 5s ls", "timeout 5 ls",
		"stdbuf -oL ls", "stdbuf -o L ls", "command -p ls", "command -V ls", "nice -n 5 ls", "echo x2>uc1.txt", "echo x 2>uc2.txt",
		"echo x > uc3.txt y", `echo $'a\nb'`, "echo $é", "echo [a]b", "echo a[b]c", "awk -f prog.awk a.txt", "awk -v x=1 '{print}' a.txt",
		"awk '{print}' a.txt", "awk -i inc.awk '{print}' a.txt", "awk -E prog.awk a.txt", "awk -l ordchr '{print}' a.txt",
		"awk --file=prog.awk a.txt", "awk -F: '{print}' a.txt", "ls | cat", "cat a.txt | head -1", "echo $~x", "ls -l; ls", "echo '$é'", "echo \"$'x\"", "echo \\$~")
	files := map[string]string{"a.txt": "a\n", "free/f.txt": "f\n", "prog.awk": "{print}\n", "inc.awk": "\n"}
	out := sh4Cases("uncheckable", "uncheckable", []string{"default"}, Settings{}, files, probes)
	return append(out, sh4Cases("uncheckable-allowed", "uncheckable", []string{"default"},
		Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)", "Bash(ls:*)", "Bash(awk:*)", "Bash(cd:*)", "Bash(timeout:*)", "Bash(stdbuf:*)",
			"Bash(command:*)", "Bash(nice:*)", "Bash(head:*)"}}, files, probes)...)
}

// matrixGlobArgs: read-only commands given a bare glob or ~ word, which a
// file name can turn into an option ("A pattern or ~ word here may become
// an option, a variable name or a number"), with no rule and under allow
// rules naming them.
func matrixGlobArgs() []dcase {
	probes := shs("cat *", "ls *", "grep x *", "wc -l *", "head -n 1 *", "echo *", "cat ./*", "cat -- *", "ls -d */", "cat *.txt",
		"head -n * a.txt", "ls ~", "cat ~", "sort -k *", "sort -k '*'", "sort -t * a.txt", "grep -e * a.txt", "jobs -x ls", "print -P x", "ls |& cat")
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d/.keep": ""}
	out := sh4Cases("globargs", "glob arguments", []string{"default"}, Settings{}, files, probes)
	return append(out, sh4Cases("globargs-allowed", "glob arguments", []string{"default"},
		Settings{Allow: []string{"Bash(cat:*)", "Bash(ls:*)", "Bash(grep:*)", "Bash(wc:*)", "Bash(head:*)", "Bash(echo:*)", "Bash(sort:*)"}}, files, probes)...)
}

// matrixDirOptions: commands given another directory by an option (git
// -C, --git-dir, --work-tree, make -C, tar -C), and xargs feeding a
// command, with no rule, under allow rules naming them, and under a Read
// deny rule on the directory.
func matrixDirOptions() []dcase {
	probes := shs("git -C free status", "git -C secret log -1", "git --git-dir=free/.git log -1", "git --work-tree=free status",
		"git -C free diff", "make -C free", "tar -C free -tf none.tar", "ls | xargs cat", "ls | xargs -n1 cat", "echo a.txt | xargs cat",
		"echo secret/s.txt | xargs cat", "find . -name '*.txt' | xargs grep x", "git status", "git -c core.pager=cat log -1")
	files := map[string]string{"free/f.txt": "f\n", "secret/s.txt": "s\n", "a.txt": "a\n"}
	out := sh4Cases("diropts", "dir options", []string{"default"}, Settings{Deny: []string{"Read(./secret/**)"}}, files, probes)
	return append(out, sh4Cases("diropts-allowed", "dir options", []string{"default"},
		Settings{Deny: []string{"Read(./secret/**)"}, Allow: []string{"Bash(git:*)", "Bash(make:*)", "Bash(tar:*)", "Bash(ls:*)", "Bash(xargs:*)",
			"Bash(echo:*)", "Bash(find:*)", "Bash(cat:*)"}}, files, probes)...)
}

// matrixAcceptEditsMore: writing commands beyond the five acceptEdits
// approves (tee, ln, chmod, truncate, install, dd) and the five with more
// than one path, in acceptEdits with no rule.
func matrixAcceptEditsMore() []dcase {
	probes := shs("echo x | tee ae1.txt", "tee -a ae2.txt < a.txt", "ln -s a.txt ae3", "chmod +x a.txt", "truncate -s 0 b.txt",
		"install -m 644 a.txt ae4.txt", "dd if=a.txt of=ae5.txt", "mkdir ae6 && touch ae6/x", "touch ae7.txt ae8.txt", "mv c.txt sub/",
		"sed -i 's/a/b/' a.txt b.txt", "touch .gitignore", "rm -rf sub/none", "mkdir -p ae9/x/y", "rmdir ae6x")
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "sub/.keep": "", "ae6x/.keep": ""}
	return sh4Cases("acceptedits-more", "acceptEdits more", []string{"acceptEdits"}, Settings{}, files, probes)
}

// matrixGlobDeny: glob and brace write targets inside a directory an Edit
// deny rule names: does the deny rule or the glob's ask decide?
func matrixGlobDeny() []dcase {
	probes := shs("touch locked/*.txt", "rm locked/k*", "echo x > locked/*.txt", "touch locked/{a,b}.txt", "touch locked/n.txt", "cat locked/*")
	files := map[string]string{"locked/k.txt": "k\n"}
	return sh4Cases("globdeny", "glob deny", []string{"default", "acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Edit(./locked/**)"}}, files, probes)
}
