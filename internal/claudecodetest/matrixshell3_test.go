package claudecodetest

import "fmt"

// The third round of how a shell reads a command line: where a directory
// change leaves the later commands of the line (matrixCd3) and the later
// calls (matrixCwd3), commands that read or write a file a Read or Edit
// deny rule covers (matrixReads3, matrixWrites3), redirections and process
// substitutions (matrixRedirect3), the wrappers and launchers that run a
// command word in front of a denied command (matrixWrap3), quoting and
// expansion of the command word (matrixQuote3), and compound commands
// around a denied command (matrixCompound3).

// sh3Modes are the modes each case runs in; paths cases add acceptEdits.
func sh3Modes(paths bool) []string {
	if paths {
		return []string{"default", "acceptEdits", "bypassPermissions"}
	}
	return []string{"default", "bypassPermissions"}
}

// sh3Cases is one case per mode of the probes, with the issue 25 files
// beside the case's own.
func sh3Cases(name, group string, paths bool, settings Settings, files map[string]string, probes []probe) []dcase {
	var out []dcase
	for _, m := range sh3Modes(paths) {
		mode := cliMode(m)
		merged := withIssue25Files(files)
		out = append(out, dcase{name: name + "-" + m, group: group, paths: paths, mode: mode, settings: settings,
			files: merged, sessions: []session{root([][]probe{probes})}})
	}
	return out
}

// numbered are files prefix1..prefixN, each holding "x".
func numbered(dir, prefix string, n int) map[string]string {
	out := map[string]string{}
	for i := 1; i <= n; i++ {
		out[fmt.Sprintf("%s%s%d", dir, prefix, i)] = "x\n"
	}
	return out
}

// matrixCd3: directory changes the shell-c-cd cases do not make: cd with
// no argument, to $HOME and ~, cd -, pushd then popd, a cd in a subshell
// or after ||, in a brace group, through an absolute path, quoted.
func matrixCd3() []dcase {
	probes := shs("cd && rm hlock/h5.txt", "cd $HOME && rm hlock/h6.txt", "cd ~ && rm hlock/h7.txt", "cd ~/hlock/ && rm h8.txt",
		"cd - ; rm d1.txt", "cd locked; cd - ; rm d2.txt", "pushd locked && rm d3.txt; popd", "pushd locked; popd; rm d4.txt",
		"(cd locked) && rm d5.txt", "cd locked || rm d6.txt",
		"cd "+projP+"/locked && rm d9.txt", `cd "locked" && rm d10.txt`, "cd ./locked/ && rm d11.txt", "cd locked; ls; rm d12.txt",
		"cd sub; cd ..; cd locked && rm d13.txt", "cd locked && touch d14.txt", "cd secret; cat s.txt", "cd sub && rm a3.txt",
		// Last, as the CLI keeps a cd between calls (cd sub && rm a3.txt
		// leaves its shell in sub; sh3-cwd): the calls above run from the
		// project.
		"cd locked && rm ../d8.txt", "cd locked && ls", "{ cd locked; } && rm d7.txt")
	files := map[string]string{"secret/s.txt": "s\n", "sub/a3.txt": "a\n"}
	for i := 5; i <= 8; i++ {
		files[fmt.Sprintf("../home/hlock/h%d.txt", i)] = "h\n"
	}
	for i := 1; i <= 13; i++ {
		// In the project and under locked, so each reading removes a file.
		files[fmt.Sprintf("d%d.txt", i)] = "d\n"
		files[fmt.Sprintf("locked/d%d.txt", i)] = "d\n"
	}
	return sh3Cases("sh3-cd", "sh3 directory changes", true,
		Settings{Deny: []string{"Read(./secret/**)", "Edit(./locked/**)", "Edit(~/hlock/**)"}}, files, probes)
}

// matrixCwd3: the CLI keeps a Bash call's cd for the calls after it (the
// PreToolUse payload's cwd says where its shell is): relative paths of the
// next calls are read from there.
func matrixCwd3() []dcase {
	probes := shs("cd locked", "rm e1.txt", "cat ../secret/s.txt", "touch e2.txt", "ls", "cd ../sub", "rm ../locked/e3.txt",
		"rm e4.txt", "cat s.txt", "cd ..", "rm e5.txt", "cd secret", "cat s.txt", "cd ~", "rm hlock/h9.txt")
	files := map[string]string{"secret/s.txt": "s\n", "locked/e1.txt": "e\n", "locked/e3.txt": "e\n", "sub/e4.txt": "e\n",
		"e5.txt": "e\n", "sub/s.txt": "s\n", "../home/hlock/h9.txt": "h\n"}
	return sh3Cases("sh3-cwd", "sh3 directory changes", true,
		Settings{Deny: []string{"Read(./secret/**)", "Edit(./locked/**)", "Edit(~/hlock/**)"}}, files, probes)
}

// matrixReads3: commands that read a file a Read deny rule covers other
// than by naming it plainly: source and ., a glob, brace expansion, a copy,
// an archive, a recursive grep, a link.
func matrixReads3() []dcase {
	probes := shs("source secret/s.txt", ". secret/s.txt", "cat secret/*", "cat se*/s.txt", "cat {secret,sub}/s.txt",
		"cp secret/s.txt cp3.txt", "tar -cf t3.tar secret", "grep -r s secret", "grep -r s .", "ln -s secret/s.txt ln3",
		"cat ./secret/../secret/s.txt", "cat secret//s.txt", "cat $PWD/secret/s.txt", "cat \"secret\"/s.txt", "cat 'secret/s.txt'",
		"head -c 1 secret/s.txt", "less secret/s.txt", "xxd secret/s.txt", "awk 1 secret/s.txt", "sed -n p secret/s.txt",
		"diff secret/s.txt sub/s.txt", "cat anch*", "cat ?nch.txt", "wc -l < secret/s.txt", "cat sub/../anch.txt", "rg s secret")
	return sh3Cases("sh3-reads", "sh3 reads", true,
		Settings{Deny: []string{"Read(./secret/**)", "Read(/anch.txt)"}},
		map[string]string{"secret/s.txt": "s\n", "sub/s.txt": "s\n"}, probes)
}

// matrixWrites3: commands that write a file an Edit deny rule covers
// other than rm, touch and a redirection.
func matrixWrites3() []dcase {
	probes := shs("cp a.txt locked/", "cp a.txt locked/w1.txt", "mv m3.txt locked/w2.txt", "ln -s a.txt locked/w3", "ln a.txt locked/w4",
		"install a.txt locked/w5.txt", "dd if=a.txt of=locked/w6.txt", "truncate -s 0 locked/keep.txt", "chmod 600 locked/keep.txt",
		"sed -i s/k/x/ locked/keep.txt", "mkdir -p locked/w7", "mkdir locked/w8", "rmdir locked/w9", "tar -xf t3.tar -C locked",
		"unzip -o z.zip -d locked", "rsync a.txt locked/w10.txt", "git checkout -- locked/keep.txt", "perl -pi -e s/k/x/ locked/keep.txt",
		"cp -t locked a.txt", "mv -t locked m4.txt", "touch -d 2020-01-01 locked/keep.txt", "chown root locked/keep.txt",
		"shred -u locked/w11.txt", "unlink locked/w12.txt", "tee -a locked/keep.txt < a.txt", "split -l 1 a.txt locked/w13")
	return sh3Cases("sh3-writes", "sh3 writes", true, Settings{Deny: []string{"Edit(./locked/**)"}},
		map[string]string{"m3.txt": "m\n", "m4.txt": "m\n", "locked/w9/.keep": "", "locked/w11.txt": "w\n", "locked/w12.txt": "w\n"}, probes)
}

// matrixRedirect3: output redirections of every form, tee, input
// redirections, process substitutions, here-strings and here-documents,
// exec's redirections, against Edit(./locked/**) and Read deny rules, with
// echo, cat and tee allowed.
func matrixRedirect3() []dcase {
	probes := shs("echo x > locked/r1.txt", "echo x >> locked/r2.txt", "echo x 2> locked/r3.txt", "echo x &> locked/r4.txt",
		"echo x >| locked/r5.txt", "echo x | tee locked/r6.txt", "echo x | tee -a locked/r7.txt", "cat < anch.txt",
		"cat < "+projP+"/anch.txt", "cat <(cat anch.txt)", "cat <<< x > locked/r8.txt", "cat <<EOF > locked/r9.txt\nx\nEOF",
		"exec 3> locked/r10.txt", "echo x 1>locked/r11.txt", "echo x >locked/r12.txt", `echo x > "locked/r13.txt"`,
		"echo x >& locked/r14.txt", "echo x &>> locked/r15.txt", "echo x > >(cat > locked/r16.txt)", "cat 0< secret/s.txt",
		"cat <(cat secret/s.txt)", `echo "$(cat secret/s.txt)"`, "echo x 3>locked/r17.txt", "echo x >locked/r18.txt 2>&1",
		"cat <<EOF\n$(cat secret/s.txt)\nEOF", "cat <<< $(cat anch.txt)", "exec 3< anch.txt", "echo x > out3.txt",
		"cat <<'EOF' > locked/r19.txt\nx\nEOF", "tee locked/r20.txt < anch.txt")
	return sh3Cases("sh3-redirect", "sh3 redirections", true,
		Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)", "Bash(tee:*)"},
			Deny: []string{"Edit(./locked/**)", "Read(/anch.txt)", "Read(./secret/**)"}},
		map[string]string{"secret/s.txt": "s\n"}, probes)
}

// matrixWrap3: the wrappers that run their arguments as a command, in
// front of rm under Bash(rm:*), with the forms bypass-rm does not have.
func matrixWrap3() []dcase {
	probes := shs("timeout 5 rm w1", "timeout -s KILL 5 rm w2", "nice -n 5 rm w3", "nohup rm w4", "command -p rm w5",
		"builtin rm w6", "exec rm w7", "time rm w8", "time -p rm w9", "env -i rm w10", "env -u A rm w11", "stdbuf -o0 rm w12",
		"echo w13 | xargs rm", "echo w14 | xargs -I{} rm {}", "find . -name w15 -delete", `find . -name w16 -exec rm {} \;`,
		"find . -name w17 -exec rm {} +", "sudo -n rm w18", "watch -n 1 -g rm w19", "nohup nice rm w20",
		"timeout 5 nice -n 1 rm w21", "nice -5 rm w22", "ionice -c3 rm w23", "setsid rm w24", "env -- rm w25",
		"xargs rm < list3.txt", "find . -name w26 -execdir rm {} \\;", "command -- rm w27", "exec -a x rm w28")
	files := numbered("", "w", 28)
	files["list3.txt"] = "w29\n"
	files["w29"] = "x\n"
	out := sh3Cases("sh3-wrap", "sh3 wrappers", false,
		Settings{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(echo:*)"}}, files, probes)
	// The other launchers the release reads through, and xargs with
	// options.
	launchers := shs("doas rm v1", "gtimeout 5 rm v2", "flock /tmp/sh3.lock rm v3", "unbuffer rm v4", "chronic rm v5",
		"strace -o /dev/null rm v6", "ltrace rm v7", "taskset 1 rm v8", "chrt 1 rm v9", "caffeinate rm v10", "busybox rm v11",
		"runuser -u root rm v12", "watch rm v13", "setsid -f rm v14", "ionice rm v15", "echo v16 | xargs -n1 rm",
		"echo v17 | xargs -0 rm", "echo v18 | xargs -r rm", "nice -- rm v19", "env -S 'rm v20'", "command -v rm",
		"time -f %e rm v21", "arch rm v22", "entr rm v23", "exec -c rm v24", "setsid -w rm v25", "nohup -- rm v26")
	return append(out, sh3Cases("sh3-launchers", "sh3 wrappers", false,
		Settings{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(echo:*)"}}, numbered("", "v", 26), launchers)...)
}

// matrixQuote3: the command word quoted, escaped, split by a line
// continuation, or made by an expansion, under Bash(rm:*).
func matrixQuote3() []dcase {
	probes := shs(`r\m q1`, "'rm' q2", `"r"m q3`, "$'rm' q4", "rm${IFS}q5", "$(echo rm) q6", "`echo rm` q7", `\rm q8`,
		"r\\\nm q9", "rm \\\nq10", `"rm" q11`, `$"rm" q12`, "r''m q13", "${X:-rm} q14", "X=rm; $X q15", "eval rm q16",
		"eval 'rm q17'", "{rm,q18}", "\\\nrm q19", `$'\x72m' q20`, "rm\tq21", "X=rm && $X q22", "$X q23", "X=ls; $X q24")
	return sh3Cases("sh3-quote", "sh3 command word quoting", false,
		Settings{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(echo:*)"}}, numbered("", "q", 24), probes)
}

// matrixCompound3: a denied command inside if, for, while, until, case, a
// function, after !, in the background, after a newline, and in command
// and process substitutions, under Bash(rm:*).
func matrixCompound3() []dcase {
	probes := shs("if true; then rm k1; fi", "for f in k2; do rm $f; done", "while false; do :; done; rm k3",
		"case a in a) rm k4;; esac", "f(){ rm k5; }; f", "function g { rm k6; }; g", "! rm k7", "rm k8 &",
		"echo a\nrm k9", "until true; do :; done; rm k10", "[[ -e k11 ]] && rm k11", "test -e k12 && rm k12",
		"true | rm k13", "coproc rm k14", "(( 1 )) && rm k15", "rm k16 & wait", "echo $(rm k17)", `echo "$(rm k18)"`,
		"x=$(rm k19)", "echo <(rm k20)", "if rm k21; then :; fi", "echo a; \n rm k22", "echo a &\nrm k23",
		"for f in k24; do echo $f; done", "echo a\n\necho b")
	return sh3Cases("sh3-compound", "sh3 compound commands", false,
		Settings{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(echo:*)"}}, numbered("", "k", 24), probes)
}
