package claudecodetest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// genAllowCases draws cases of n calls in all: each case has random Bash
// allow rules (prefixes, wildcards, wrappers and launchers named as the
// rule's command) and commands built around what they name: assignments
// and wrappers before, arguments, redirections and further statements
// after, the whole inside a group, a substitution or a shell's -c, in
// default mode and acceptEdits. A call the dialect runs where the release
// asks is an allow rule approving more than it does: a fail-open.
func genAllowCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0xa110))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	rules := []string{"git diff:*", "npm run test:*", "ls:*", "echo *", "cat *", "git * main", "npm run *", "* --version",
		"timeout:*", "env:*", "nice:*", "bash:*", "sh -c:*", "xargs:*", "find:*", "git:*", "sed:*", "awk:*", "python3:*",
		"echo hi", "ls -la", "cat a.txt", "git log *", "grep *", "node:*", "make:*", "command:*", "time:*", "sudo:*", "cd:*",
		"git -C *", "git status:*", "echo:*", "ls *", "cat:*", "grep:*", "touch:*", "mkdir:*", "cp:*", "* a.txt", "rm f1.txt",
		"tee:*", "nohup:*", "watch:*", "stdbuf:*", "git diff *", "npm *", "echo hi *", "cat *.txt", "ls -la *"}
	cores := []string{"git diff", "git diff HEAD", "npm run test", "npm run test -- --watch=false", "ls -la", "ls", "echo hi",
		"echo hi there", "cat a.txt", "cat f1.txt a.txt", "find . -name a.txt", "find . -name f2.txt -delete", "sed -n 1p a.txt",
		"sed -i s/a/b/ a.txt", "python3 -c 1", "git log -1", "git status", "grep x a.txt", "grep -r x .", "node -e 1",
		"make -n", "awk 1 a.txt", "git -C src status", "rm f1.txt", "touch t1.txt", "cat secret/s.txt", "cd src",
		"echo $HOME", "git diff --output=out1.txt", "timeout 5 rm f1.txt", "env rm f1.txt", "nice rm f3.txt",
		"bash -c 'rm f1.txt'", "sh -c 'ls'", "cp a.txt c1.txt", "mkdir m1", "tee t2.txt < a.txt", "echo $(rm f4.txt)",
		"cat a.txt > out3.txt", "ls ../outside", "cat ../outside/o.txt", "git push", "touch locked/t3.txt",
		"find . -exec cat {} +", "sed -n 1w out4.txt a.txt", "awk '{print > \"out5.txt\"}' a.txt", "xargs rm < a.txt",
		"command ls", "time ls", "sudo ls", "nohup ls", "stdbuf -oL ls", "echo hi > /dev/null"}
	befores := []string{"", "", "", "", "FOO=1 ", "LANG=C ", "timeout 5 ", "nice ", "env ", "command ", "cd src && ",
		"ls && ", "echo hi; ", "time ", "A=$(rm f2.txt) ", "env FOO=1 ", "sudo "}
	afters := []string{"", "", "", "", " 2>&1", " > out2.txt", " | cat", " && rm f1.txt", " ; rm f1.txt", " || ls", " &",
		" # c", " $(rm f1.txt)", " `ls`", " \"$(ls)\"", " && cd .. && ls", " | xargs rm", " > locked/o1.txt",
		" >> a.txt", " 2>/dev/null", " | sh", " && echo hi", " -x", " --version", " main", " a.txt"}
	wraps := []string{"%s", "%s", "%s", "%s", "(%s)", "{ %s; }", "echo $(%s)", "bash -c '%s'", "if true; then %s; fi",
		"! %s", "%s\nls", "for i in 1; do %s; done", "x=$(%s)", "true || %s", "sh -c \"%s\"", "%s; ls"}
	var out []dcase
	for c := 0; n > 0; c++ {
		var s Settings
		for range 4 {
			s.Allow = append(s.Allow, "Bash("+pick(rules)+")")
		}
		lines := distinct(30, func() string {
			line := pick(befores) + pick(cores) + pick(afters)
			return wrapLine(pick(wraps), line)
		})
		n -= 2 * len(lines)
		out = append(out, sh4Cases(fmt.Sprintf("gen-allow%d", c), "generated allow rules", []string{"default", "acceptEdits"},
			s, genFiles, genProbes(lines))...)
	}
	return out
}

// genEvadeCases draws cases of n calls in all: commands that a deny rule
// names (rm f1.txt, git push, a read of secret/s.txt, a write into
// locked/), spelled and carried the ways a shell allows: quoted and
// escaped names, paths to the program, launchers (xargs, find -exec, eval,
// sh -c, env -S, a here-string to a shell), substitutions and arguments
// spelled otherwise, under Bash, Read and Edit deny rules, in
// bypassPermissions and default mode. A call the dialect runs where the
// release denies or asks is a fail-open.
func genEvadeCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0xe7ade))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	rmNames := []string{"rm", "\\rm", "'rm'", "\"rm\"", "r''m", "r\\m", "$'rm'", "\"r\"m", "/bin/rm", "/usr/bin/rm",
		"command rm", "exec rm", "eval rm", "$(echo rm)", "`echo rm`", "${x:-rm}", "builtin command rm", "env rm",
		"nohup rm", "timeout 5 rm", "sudo rm", "time rm", "nice -n 1 rm", "env -S rm", "setsid rm"}
	rmArgs := []string{"f1.txt", "'f1.txt'", "\"f1.txt\"", "f1\\.txt", "f1.t?t", "f1*.txt", "{f1,f9}.txt", "./f1.txt",
		"$PWD/f1.txt", "-f f1.txt", "-- f1.txt", "-rf f1.txt", "f1.txt f2.txt"}
	readers := []string{"cat", "head -1", "tail -1", "grep s", "wc -l", "sort", "base64", "less", "xxd", "od -c", "strings",
		"diff a.txt", "cut -c1", "awk 1", "sed -n 1p", "nl", "tac", "cp", "dd if=", "source", ".", "git diff --no-index a.txt",
		"tar cf /dev/null", "md5sum", "file", "stat", "look s", "comm a.txt", "paste", "rev", "tr s x <", "cat <", "<"}
	secrets := []string{"secret/s.txt", "./secret/s.txt", "secret//s.txt", "secret/./s.txt", "sub/../secret/s.txt",
		"'secret/s.txt'", "secret/s.t?t", "secret/*", "secret", "$PWD/secret/s.txt", "\"secret\"/s.txt", "secre[t]/s.txt",
		"secret/{s,x}.txt", "~+/secret/s.txt"}
	writers := []string{"touch", "echo x >", "echo x >>", "cp a.txt", "mv f3.txt", "tee", "mkdir", "sed -i s/k/x/",
		"ln -s a.txt", "rm", "echo x | tee", "install a.txt", "dd of=", "truncate -s 0", "chmod 600", "echo x 2>"}
	lockeds := []string{"locked/e1.txt", "./locked/e2.txt", "locked//e3.txt", "sub/../locked/e4.txt", "'locked'/e5.txt",
		"locked/keep.txt", "locked/k*.txt", "$PWD/locked/e6.txt", "locked/./e7.txt"}
	gits := []string{"git push", "git  push", "git 'push'", "git -C . push", "git -c x=y push", "\\git push", "/usr/bin/git push",
		"git push origin main", "git --no-pager push", "command git push", "git \"push\" -f"}
	carriers := []string{"%s", "%s", "%s", "%s", "bash -c '%s'", "sh -c \"%s\"", "eval '%s'", "eval \"%s\"", "(%s)", "{ %s; }",
		"echo $(%s)", "x=`%s`", "bash <<< '%s'", "%s &", "true && %s", "false || %s", "if true; then %s; fi", "! %s",
		"for f in 1; do %s; done", "ls | %s", "%s | cat", "f() { %s; }; f", "echo f1.txt | xargs %s", "env -S '%s'",
		"find . -maxdepth 0 -exec %s \\;", "echo | xargs -I{} %s"}
	var out []dcase
	for c := 0; n > 0; c++ {
		lines := distinct(30, func() string {
			var core string
			switch r.IntN(4) {
			case 0:
				core = pick(rmNames) + " " + pick(rmArgs)
			case 1:
				rd := pick(readers)
				if strings.HasSuffix(rd, "=") || strings.HasSuffix(rd, "<") && !strings.Contains(rd, " ") {
					core = rd + pick(secrets)
				} else {
					core = rd + " " + pick(secrets)
				}
				if rd == "<" {
					core += " cat"
				}
				if rd == "cp" {
					core += " cp1.txt"
				}
			case 2:
				w := pick(writers)
				if strings.HasSuffix(w, "=") {
					core = w + pick(lockeds) + " < a.txt"
				} else if w == "tee" {
					core = "tee " + pick(lockeds) + " < a.txt"
				} else {
					core = w + " " + pick(lockeds)
				}
			default:
				core = pick(gits)
			}
			carrier := pick(carriers)
			if carrier == "env -S '%s'" && strings.Contains(core, "<") {
				// env -S hands the < to tee, dd or tr as a word: they
				// would read the CLI's standard input, and a
				// bypassPermissions run waited on one past its minute
				// (gen-evade seed 5112). No draw, as wrapLine's.
				return ""
			}
			return wrapLine(carrier, core)
		})
		n -= 2 * len(lines)
		out = append(out, sh4Cases(fmt.Sprintf("gen-evade%d", c), "generated evasions", []string{"bypassPermissions", "default"},
			Settings{Deny: []string{"Bash(rm:*)", "Bash(git push:*)", "Read(./secret/**)", "Edit(./locked/**)"}},
			genFiles, genProbes(lines))...)
	}
	return out
}

// genFileRuleCases draws cases of n calls in all: each case has random
// Read and Edit allow, ask and deny rules (genPathRule), now and then an
// added directory, and reads, writes, globs and greps of the files of
// genPathFiles and outside the project under several spellings, in
// default mode, acceptEdits and plan. A call the dialect runs where the
// release asks or denies is an allow rule or a mode approving more than
// it does: a fail-open.
func genFileRuleCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0xf11e))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	files := slices.Sorted(maps.Keys(genPathFiles))
	outside := []string{"../outside/o.txt", "../extra/e.txt", "../extra2/f.txt", "/etc/hostname", BaseToken + "/extra/e.txt",
		"../outside/new_o.txt", "../extra/new_e.txt"}
	var out []dcase
	for c := 0; n > 0; c++ {
		var s Settings
		for range 1 + r.IntN(3) {
			s.Allow = append(s.Allow, pick([]string{"Read(", "Edit(", "Edit(", "Write("})+genPathRule(r)+")")
		}
		if r.IntN(2) == 0 {
			s.Allow = append(s.Allow, pick([]string{"Read(", "Edit("})+pick([]string{"../outside/**", "//etc/**", "../extra/**", "~/**"})+")")
		}
		if r.IntN(2) == 0 {
			s.Ask = append(s.Ask, pick([]string{"Read(", "Edit("})+genPathRule(r)+")")
		}
		if r.IntN(2) == 0 {
			s.Deny = append(s.Deny, pick([]string{"Read(", "Edit("})+genPathRule(r)+")")
		}
		if r.IntN(3) == 0 {
			s.AdditionalDirectories = []string{"../extra"}
		}
		var probes []probe
		for range 40 {
			f := respell(r, pick(files), 7, func(string) string { return pick(outside) })
			switch k := r.IntN(8); {
			case k < 4 || strings.Contains(f, "new_") && k < 6:
				if strings.Contains(f, "new_") {
					probes = append(probes, wr(f))
				} else {
					probes = append(probes, rd(f))
				}
			case k < 6 && strings.HasPrefix(f, "/etc/"):
				// A new file in /etc is a write outside the test's
				// directories that an allow rule may let through (the
				// suite runs as root in CI): it is read instead.
				probes = append(probes, rd(f))
			case k < 6:
				f = newName(f)
				probes = append(probes, wr(f))
			case k == 6:
				probes = append(probes, globAt("*.txt", path.Dir(f)))
			default:
				probes = append(probes, grepAt("a", path.Dir(f), ""))
			}
		}
		n -= 3 * len(probes)
		out = append(out, filesCases(fmt.Sprintf("gen-files%d", c), "generated file rules", []string{"default", "acceptEdits", "plan"}, "",
			Settings{}, s, genPathFiles, [][]probe{probes})...)
	}
	return out
}
