package claudecodetest

import "fmt"

// The cases of how a shell reads a command line that the dialect must
// read alike: shell -c scripts whose commands touch paths a Read or Edit
// deny rule covers (matrixShell), and assignment words before a command
// word (matrixAssign).

// matrixShell: relative, absolute and home paths inside "bash -c" and "sh
// -c", beside the same commands outside, each a paths case (the dialect
// reads the script's paths where the call runs, as the CLI does).
func matrixShell() []dcase {
	var out []dcase
	probes := func() [][]probe {
		return [][]probe{shs("cat secret/s.txt", "bash -c 'cat secret/s.txt'", "sh -c 'cat secret/s.txt'",
			"cat ../outside/secret/o.txt", "bash -c 'cat ../outside/secret/o.txt'",
			"bash -c 'cat "+projP+"/anch.txt'", "bash -c 'cat "+homeP+"/notes.txt'", "bash -c 'cat ~/notes.txt'",
			"bash -c 'cat /etc/hostname'", "bash -c 'rm locked/l1.txt'", "bash -c 'rm "+projP+"/locked/l2.txt'",
			"rm ../locked/l3.txt", "bash -c 'rm ../locked/l4.txt'", "bash -c 'rm sub/locked/l5.txt'",
			"rm "+projP+"/plock/p1.txt", "bash -c 'rm "+projP+"/plock/p2.txt'", "bash -c 'rm plock/p3.txt'",
			"bash -c 'rm "+homeP+"/hlock/h1.txt'", "bash -c 'rm ~/hlock/h2.txt'",
			`bash -c "sh -c 'rm `+projP+`/plock/p4.txt'"`, `bash -c "sh -c 'rm ../locked/l6.txt'"`)}
	}
	files := map[string]string{"secret/s.txt": "s\n", "../outside/secret/o.txt": "o\n", "locked/l1.txt": "l\n",
		"locked/l2.txt": "l\n", "../locked/l3.txt": "l\n", "../locked/l4.txt": "l\n", "sub/locked/l5.txt": "l\n",
		"plock/p1.txt": "p\n", "plock/p2.txt": "p\n", "plock/p3.txt": "p\n", "../home/hlock/h1.txt": "h\n", "../home/hlock/h2.txt": "h\n",
		"plock/p4.txt": "p\n", "../locked/l6.txt": "l\n"}
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "shell-c-paths-" + m, group: "shell -c script paths", paths: true, mode: mode,
			settings: Settings{Deny: []string{"Read(./secret/**)", "Read(~/notes.txt)", "Read(/anch.txt)", "Read(//etc/hostname)",
				"Edit(./locked/**)", "Edit(/plock/**)", "Edit(~/hlock/**)"}},
			files: files, sessions: []session{root(probes())}})
	}
	cdProbes := shs("cd locked && rm c1.txt", "cd locked && bash -c 'rm c2.txt'", "bash -c 'cd locked && rm c3.txt'",
		"cd sub && rm ../plock/c4.txt", "cd locked; rm c5.txt", "cd secret && cat s.txt", "cd sub && cd ../locked && rm c6.txt",
		"(cd locked && rm c7.txt)", "cd ~/hlock && rm h3.txt", "cd $HOME/hlock && rm h4.txt", "cd locked && echo x > c8.txt",
		"pushd locked && rm c10.txt", "cd locked && cd - && rm keep.txt", "cd sub && rm a.txt")
	cdFiles := map[string]string{"sub/a.txt": "a\n", "../home/hlock/h3.txt": "h\n", "../home/hlock/h4.txt": "h\n"}
	for _, f := range []string{"c1", "c2", "c3", "c5", "c6", "c7", "c8", "c10"} {
		cdFiles["locked/"+f+".txt"] = "c\n"
	}
	cdFiles["plock/c4.txt"] = "c\n"
	for k, v := range files {
		cdFiles[k] = v
	}
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "shell-c-cd-" + m, group: "shell -c script paths", paths: true, mode: mode,
			settings: Settings{Deny: []string{"Read(./secret/**)", "Edit(./locked/**)", "Edit(/plock/**)", "Edit(~/hlock/**)"}},
			files:    cdFiles, sessions: []session{root([][]probe{cdProbes})}})
	}
	for i := range out {
		out[i].files = withIssue25Files(out[i].files)
	}
	return out
}

// matrixAssign are the cases of assignment prefixes before a command word:
// appends (A+=x), an empty append (A+=), array elements (A[0]=x) and arrays
// (A+=(x)), under a command deny rule and a command allow rule.
func matrixAssign() []dcase {
	var out []dcase
	probes := shs("A+=x rm -rf ap1", "A+= rm -rf ap2", "A=x rm -rf ap3", "A[0]=x rm -rf ap4", "A[0]+=x rm -rf ap5",
		"A+=(x) rm -rf ap6", "A+=x touch at1.txt", "LANG+=x touch at2.txt", "LANG=C touch at3.txt", "A+=", "A+=x", "A=x", "A[0]=x",
		"A[ ]=y rm -rf ap7", "A[x;y]=2 rm -rf ap8", "A[$(echo 1)]=2 rm -rf ap9", "LC_ALL+=C touch at4.txt", "LANG[0]=C touch at5.txt",
		"env A[0]=x rm -rf ap10", "env a-b=x rm -rf ap11", "env A+=x rm -rf ap12",
		"A=x; ls", "PATH=/tmp; ls", "A=x && ls", `A="x y"`, "PATH=/tmp", "A=x B+=y")
	files := map[string]string{}
	for i := 1; i <= 12; i++ {
		files[fmt.Sprintf("ap%d", i)] = "x\n"
	}
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "assign-prefix-" + m, group: "assignment prefixes", mode: mode,
			settings: Settings{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(touch:*)"}},
			files:    files, sessions: []session{root([][]probe{probes})}})
	}
	return out
}
