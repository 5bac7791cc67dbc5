package claudecodetest

// The hold-out cases of issue 25: calls in the same areas as matrix25's,
// written after the dialect was changed, to find what the changes missed.

func matrix25h() []dcase {
	var out []dcase
	out = append(out, dcase{name: "i25h-readonly-scope", group: "i25h read-only path scope", paths: true,
		files: map[string]string{"../home/x.json": "{}\n", "../home/.bashrc": "# rc\n"},
		sessions: []session{root([][]probe{shs("head -5 ~/.bashrc", "tail /var/log/nonexistent", "wc -c ../extra/e.txt",
			"grep -l a -r /etc/ssh", "find ~ -maxdepth 1 -name x", "ls -la /tmp", "stat ~/notes.txt", "cat ./a.txt ./src/main.go",
			"cat sub/../a.txt", "cat sub/../../outside/o.txt", `cat "$HOME/notes.txt"`, "cat '/etc/hostname'", "cat /etc/host*",
			"cat *.txt", "ls -d */", "git diff a.txt", "rg x ~", "diff ../outside/o.txt a.txt", "cut -f1 ~/notes.txt",
			"base64 -d ~/notes.txt", "sha256sum /etc/hostname", "strings /bin/ls", "od -c /etc/hostname", "nl ~/notes.txt",
			"file ~", "tree ~", "du -s ~", "realpath ~", "dirname /etc/x", "basename ~", "readlink -f ~", "wc -l a.txt /etc/passwd",
			"cmp a.txt /etc/hostname", "comm a.txt /etc/hostname", "paste a.txt ~/notes.txt", "column -t /etc/hostname",
			"tac ../outside/o.txt", "rev ~/notes.txt", "fold /etc/hostname", "expand /etc/hostname", "fmt ~/notes.txt",
			"numfmt --from=iec 1K", "pr a.txt", "hexdump /etc/hostname", "jq . ~/x.json", "sed -n 1p ~/notes.txt",
			"sort ~/notes.txt", "grep -c a ~/notes.txt", "egrep a ../outside/o.txt", "cat a.txt|head -1",
			"echo a && cat /etc/hostname", "ls; cat ../outside/o.txt", "true || ls /", "ls -R src", "find src -name '*.go'",
			"grep -rn package .", "cd ~ && ls", "cd src; cat main.go", "git log --oneline -3", "git show --stat",
			"sort -u a.txt docs/x.md", "head -c 3 /dev/zero", "cat /dev/null", "ls /dev/null")})}})
	out = append(out, dcase{name: "i25h-redirect-default", group: "i25h output redirections", paths: true,
		settings: Settings{Allow: []string{"Bash(ls:*)", "Bash(printf *)"}},
		sessions: []session{root([][]probe{shs("ls > out/x-de.txt", "ls >> ~/log-de.txt", "ls 2>/dev/null", "ls 1>o1-de.txt",
			"ls >o2-de.txt", "ls>o3-de.txt", "printf x > /dev/stderr", "printf x | tee t-de.txt", "ls &>/dev/null",
			"ls 2>&1 >/dev/null", `ls > "q de.txt"`, "ls > $HOME/h-de.txt", "ls > ~/t-de.txt")})}})
	out = append(out, dcase{name: "i25h-redirect-acceptEdits", group: "i25h output redirections", paths: true, mode: "acceptEdits",
		settings: Settings{Allow: []string{"Bash(ls:*)", "Bash(printf *)"}},
		sessions: []session{root([][]probe{shs("ls > ~/x-ac.txt", "ls > sub/../y-ac.txt", "ls > ../y-ac.txt", "echo hi > .git/x-ac",
			"echo hi > .claude/x-ac", "echo hi > src/../z-ac.txt", "printf x > p-ac.txt", "printf x | tee t-ac.txt",
			"cat a.txt >> a-ac.txt", "echo hi > $HOME/h-ac.txt", "date > /tmp/i25h-nowhere/d.txt", "ls > .env.local")})}})
	anch := func(tag string) [][]probe {
		return [][]probe{{rd("~/notes.txt"), rd(homeP + "/notes.txt"), sh("cat ~/notes.txt"), sh("cat $HOME/notes.txt"),
			rd("/etc/hostname"), sh("cat /etc/hostname"), sh("head /etc/hostname"), rd("src/main.go"), rd(projP + "/src/main.go"),
			sh("cat src/main.go"), rd("sub/src/x.go"), wr(homeP + "/.bashrc"), sh("echo x >> ~/.bashrc"), sh("echo x >> $HOME/.bashrc"),
			wr("w-" + tag + ".txt"), rd(projP + "/../outside/o.txt")}}
	}
	for _, m := range []string{"default", "acceptEdits"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "i25h-anchors-" + m, group: "i25h anchors", paths: true, mode: mode,
			settings: Settings{Deny: []string{"Read(~/notes.txt)", "Edit(~/.bashrc)", "Read(//etc/hostname)", "Read(src/*.go)"}},
			files:    map[string]string{"sub/src/x.go": "package x\n", "../home/.bashrc": "# rc\n"},
			sessions: []session{root(anch(m[:2]))}})
	}
	var fetches []probe
	for _, u := range []string{"https://docs.python.org", "http://docs.python.org/3/", "https://nodejs.org:443/api",
		"https://NODEJS.ORG/api", "https://go.dev/doc", "https://go.dev/docs", "https://raw.githubusercontent.com/anthropics/x/refs/heads/main/a",
		"https://developer.mozilla.org.evil.com/", "https://github.com/anthropic-experimental/r", "https://github.com/anthropic-experimental/r/issues"} {
		fetches = append(fetches, fetch(u))
	}
	out = append(out, dcase{name: "i25h-webfetch", group: "i25h WebFetch", paths: true, sessions: []session{root([][]probe{fetches})}})
	mon := func(cmd string) probe {
		return probe{"Monitor", map[string]any{"command": cmd, "description": "probe"}}
	}
	out = append(out, dcase{name: "i25h-monitor-mcp", group: "i25h Monitor and MCP", paths: true,
		mcp:      map[string][]string{"srv": {"echo"}},
		settings: Settings{Allow: []string{"mcp__srv__echo"}, Ask: []string{"mcp__srv__echo(text:a)"}},
		sessions: []session{root([][]probe{{mon("ls .."), mon("tail -n 1 a.txt"), mon("echo hi > m-h.txt"), mon("git status"),
			{"mcp__srv__echo", map[string]any{"text": "a"}}, {"mcp__srv__echo", map[string]any{"text": "b"}}}})}})
	for i := range out {
		out[i].files = withIssue25Files(out[i].files)
	}
	return out
}
