package claudecodetest

import "maps"

// The cases of issue 25: Bash and path handling as Claude Code 2.1.328
// decides them. Each is a paths case: the dialect is given the project,
// HOME and added directories beside each call, as the ledger's hook gives
// them, and calls may name the absolute paths the CLI's tools send
// (BaseToken/project is the project, BaseToken/home is HOME).

const (
	projP = BaseToken + "/project"
	homeP = BaseToken + "/home"
)

func fetch(url string) probe {
	return probe{"WebFetch", map[string]any{"url": url, "prompt": "summarise"}}
}

func shs(cmds ...string) []probe {
	var out []probe
	for _, c := range cmds {
		out = append(out, sh(c))
	}
	return out
}

// issue25Files are the files the issue 25 cases add: keys, an env file,
// JSON, files outside the project, in an added directory and in HOME.
var issue25Files = map[string]string{
	"k.pem": "k\n", "sub/k.pem": "k\n", "sub/.env": "S=2\n", "x.json": "{\"a\":1}\n", "anch.txt": "a\n", "sub/anch.txt": "a\n",
	"../outside/o.txt": "o\n", "../extra/e.txt": "e\n", "../extra2/f.txt": "f\n",
	"../home/.aws/credentials": "[default]\n", "../home/notes.txt": "n\n", "../home/.claude/x.txt": "x\n",
	"locked/keep.txt": "k\n", "asked/keep.txt": "k\n",
}

// withIssue25Files is files over the issue 25 files: a case's own file
// wins over one of the same name.
func withIssue25Files(files map[string]string) map[string]string {
	merged := maps.Clone(issue25Files)
	maps.Copy(merged, files)
	return merged
}

// roProbes are read-only commands, inside and outside the working
// directories, and the commands the CLI's read-only list holds beyond the
// dialect's old one, with variants that are not read-only.
func roProbes() []probe {
	return shs(
		"cat /etc/hostname", "ls ..", "grep root /etc/passwd", "find / -maxdepth 0", "cat a.txt", "cat "+projP+"/a.txt",
		"ls "+projP, "ls "+projP+"/src", "cat ../outside/o.txt", "cat ../extra/e.txt", "cat "+BaseToken+"/extra/e.txt",
		"head -1 /etc/hostname", "tail -1 ../outside/o.txt", "wc -l /etc/passwd", "stat /etc", "du -s ..",
		"diff a.txt /etc/hostname", "ls /", "ls ~", "cat ~/notes.txt", "cd ..", "cd /tmp", "grep -r x ..",
		"find .. -maxdepth 0", "find . -name a.txt", "ls src", "cat src/main.go", "grep -n package src/main.go",
		"date", "date -u", "sort a.txt", "sort /etc/passwd", "jq . x.json", "jq . ../outside/o.txt", "sed -n 1p a.txt",
		"sed -n 1p /etc/hostname", "git branch", "node --version", "node -v", "python3 --version", "rg a", "rg root /etc",
		"uniq a.txt", "basename /a/b", "dirname a/b", "realpath a.txt", "true", "seq 3", "whoami", "pwd", "uname -a",
		"id", "which ls", "file a.txt", "base64 a.txt", "sha256sum a.txt", "md5sum /etc/hostname", "cut -c1 a.txt",
		"nl a.txt", "rev a.txt", "tac a.txt", "readlink -f a.txt", "cmp a.txt docs/x.md", "echo hi", "printf x",
		"hostname", "git log -1", "git status", "ls -la ../extra", "head -c 10 "+homeP+"/notes.txt",
	)
}

// redirProbes are output redirections of commands an allow rule or the
// read-only list approves; tag keeps the files of each mode apart.
func redirProbes(tag string) []probe {
	f := func(n string) string { return n + "-" + tag }
	return shs(
		"echo hi > "+f("r1")+".md", "echo hi >> "+f("r2")+".md", "echo hi > /dev/null", "echo hi 2>&1", "echo hi >&2",
		"cat a.txt > "+f("r3")+".txt", "echo hi > locked/"+f("r4")+".txt", "echo hi > asked/"+f("r5")+".txt",
		"echo hi > ../outside/"+f("r6")+".txt", "echo hi > "+BaseToken+"/outside/"+f("r7")+".txt", "ls > "+f("r8")+".txt",
		"ls 2> "+f("r9")+".txt", "echo hi > sub/"+f("r10")+".md", "cd sub && echo hi > "+f("r11")+".md",
		"date > "+f("r12")+".txt", "echo hi &> "+f("r13")+".txt", "echo hi > "+projP+"/"+f("r14")+".md",
		"cat a.txt 2>/dev/null", "echo hi > .vscode/"+f("r15")+".json",
	)
}

// anchorProbes are paths against //, ~/ and / anchored rules.
func anchorProbes(tag string) []probe {
	return []probe{
		rd("k.pem"), rd(projP + "/k.pem"), rd("sub/k.pem"), rd(projP + "/sub/k.pem"), sh("cat k.pem"), sh("cat " + projP + "/sub/k.pem"),
		wr(".env"), wr(projP + "/.env"), wr("sub/.env"), sh("echo x > .env"), sh("echo x > sub/.env"), sh("touch " + projP + "/.env"),
		rd(homeP + "/.aws/credentials"), rd("~/.aws/credentials"), sh("cat $HOME/.aws/credentials"), sh("cat ~/.aws/credentials"),
		sh("cat " + homeP + "/.aws/credentials"), sh(`cat "$HOME/.aws/credentials"`), sh("cat ${HOME}/.aws/credentials"),
		sh("head -1 " + homeP + "/.aws/credentials"), sh("grep x " + homeP + "/.aws/credentials"),
		rd(projP + "/anch.txt"), rd("anch.txt"), rd("sub/anch.txt"), sh("cat anch.txt"), sh("cat sub/anch.txt"),
		rd(homeP + "/notes.txt"), wr("w-" + tag + ".txt"), rd("a.txt"),
	}
}

func matrix25() []dcase {
	var out []dcase
	out = append(out, dcase{name: "i25-readonly-scope", group: "i25 read-only path scope", paths: true,
		settings: Settings{AdditionalDirectories: []string{"../extra"}},
		sessions: []session{root([][]probe{roProbes()}), child("gp", "general-purpose", "main", [][]probe{roProbes()})}})
	out = append(out, dcase{name: "i25-readonly-allow-rules", group: "i25 read-only path scope", paths: true,
		settings: Settings{Allow: []string{"Bash(cat:*)", "Bash(ls *)", "Bash(sort *)", "Read(//etc/**)"}},
		sessions: []session{root([][]probe{shs("cat /etc/hostname", "ls ..", "sort /etc/passwd", "cat ../outside/o.txt",
			"ls /", "head -1 /etc/hostname", "cat a.txt", "ls src", "sort a.txt", "grep root /etc/passwd", "cat /etc/passwd")})}})

	for _, m := range []string{"default", "acceptEdits", "bypassPermissions", "dontAsk"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "i25-redirect-" + m, group: "i25 output redirections", paths: true, mode: mode,
			settings: Settings{Allow: []string{"Bash(echo:*)", "Bash(cat *)", "Bash(date)"}, Deny: []string{"Edit(./locked/**)"},
				Ask: []string{"Edit(./asked/**)"}},
			sessions: []session{root([][]probe{redirProbes(m[:2])})}})
	}
	out = append(out, dcase{name: "i25-redirect-edit-allow", group: "i25 output redirections", paths: true,
		settings: Settings{Allow: []string{"Bash(echo:*)", "Edit(./out/**)", "Edit"}},
		files:    map[string]string{"out/keep.txt": "k\n"},
		sessions: []session{root([][]probe{shs("echo hi > out/ea1.txt", "echo hi > ea2.txt", "echo hi > ../outside/ea3.txt", "ls > out/ea4.txt")})}})

	for _, m := range []string{"default", "acceptEdits"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "i25-anchors-" + m, group: "i25 absolute and home anchors", paths: true, mode: mode,
			settings: Settings{Deny: []string{"Read(//**/*.pem)", "Edit(//**/.env)", "Read(~/.aws/**)", "Read(/anch.txt)"}},
			agents:   []Agent{{Name: "plain"}},
			sessions: []session{root([][]probe{anchorProbes("m" + m[:2])}), child("plain", "plain", "main", [][]probe{anchorProbes("p" + m[:2])})}})
	}

	star := func(tag string) [][]probe {
		return [][]probe{{rd("/etc/hostname"), rd("a.txt"), rd(projP + "/a.txt"), rd("sub/docs/a.md"), rd(homeP + "/notes.txt"),
			rd("../outside/o.txt"), wr("s1-" + tag + ".txt"), wr(projP + "/s2-" + tag + ".txt"), wr("sub/s3-" + tag + ".txt"),
			wr(BaseToken + "/outside/s4-" + tag + ".txt"), sh("cat /etc/hostname")}}
	}
	out = append(out, dcase{name: "i25-read-edit-star", group: "i25 Read(*) and Edit(*)", paths: true,
		settings: Settings{Allow: []string{"Read(*)", "Edit(*)"}}, agents: []Agent{{Name: "plain"}},
		sessions: []session{root(star("m")), child("plain", "plain", "main", star("p"))}})

	addDir := func(tag string) [][]probe {
		return [][]probe{{rd(BaseToken + "/extra2/f.txt"), rd("../extra2/f.txt"), rd(BaseToken + "/extra/e.txt"), rd("../extra/e.txt"),
			rd(BaseToken + "/outside/o.txt"), sh("cat ../extra2/f.txt"), sh("cat " + BaseToken + "/extra2/f.txt"), sh("ls ../extra2"),
			sh("cat ../extra/e.txt"), sh("ls " + BaseToken + "/outside"), wr(BaseToken + "/extra2/w-" + tag + ".txt"),
			wr(BaseToken + "/extra/w-" + tag + ".txt"), wr(BaseToken + "/outside/w-" + tag + ".txt"), wr("../extra/v-" + tag + ".txt"),
			sh("touch " + BaseToken + "/extra/t-" + tag + ".txt"), sh("touch ../extra2/t-" + tag + ".txt"), sh("touch ../outside/t-" + tag + ".txt")}}
	}
	for _, m := range []string{"default", "acceptEdits"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "i25-added-dirs-" + m, group: "i25 added directories", paths: true, mode: mode,
			settings: Settings{AdditionalDirectories: []string{"../extra"}}, addDirs: []string{"../extra2"},
			sessions: []session{root(addDir(m[:2]))}})
	}

	urls := []string{"https://docs.python.org/3/library/os.html", "https://nodejs.org/api/fs.html", "https://go.dev/doc/effective_go",
		"https://go.dev/blog/x", "https://developer.mozilla.org/en-US/", "https://github.com/anthropics/claude-code",
		"https://github.com/other/repo", "https://example.com/", "https://www.docs.python.org/3/", "https://huggingface.co/docs/x",
		"https://huggingface.co/models", "http://127.0.0.1:9/x"}
	var fetches []probe
	for _, u := range urls {
		fetches = append(fetches, fetch(u))
	}
	out = append(out, dcase{name: "i25-webfetch-preapproved", group: "i25 WebFetch preapproved hosts", paths: true,
		sessions: []session{root([][]probe{fetches})}})
	out = append(out, dcase{name: "i25-webfetch-preapproved-rules", group: "i25 WebFetch preapproved hosts", paths: true,
		settings: Settings{Ask: []string{"WebFetch(domain:nodejs.org)"}, Deny: []string{"WebFetch(domain:go.dev)"}},
		sessions: []session{root([][]probe{{fetch("https://nodejs.org/api/fs.html"), fetch("https://go.dev/doc/effective_go"),
			fetch("https://docs.python.org/3/")}})}})

	mon := func(cmd string) probe {
		return probe{"Monitor", map[string]any{"command": cmd, "description": "probe"}}
	}
	out = append(out, dcase{name: "i25-monitor-bash-denied", group: "i25 Monitor", paths: true,
		settings: Settings{Deny: []string{"Bash"}},
		sessions: []session{root([][]probe{{mon("cat a.txt"), sh("ls")}})}})
	// Monitors that start and Monitor calls the CLI refuses are in two
	// runs: under load, a started monitor's events made the CLI's result
	// leave the refusals out of permission_denials.
	monRules := Settings{Allow: []string{"Bash(make *)"}, Deny: []string{"Bash(rm *)"}}
	out = append(out, dcase{name: "i25-monitor", group: "i25 Monitor", paths: true, settings: monRules,
		sessions: []session{root([][]probe{{mon("cat /etc/hostname"), mon("rm a.txt"), mon("echo hi > m1.txt"), mon("npm test")}})}})
	out = append(out, dcase{name: "i25-monitor-runs", group: "i25 Monitor", paths: true, settings: monRules,
		sessions: []session{root([][]probe{{mon("cat a.txt"), mon("make test"), mon("ls")}})}})

	mcpCalls := [][]probe{{{"mcp__srv__echo", map[string]any{"text": "a"}}, {"mcp__srv__echo", map[string]any{"text": "b"}},
		{"mcp__srv__danger", map[string]any{"text": "a"}}}}
	out = append(out, dcase{name: "i25-mcp-param-rules", group: "i25 MCP parameter rules", paths: true,
		mcp:      map[string][]string{"srv": {"echo", "danger"}},
		settings: Settings{Allow: []string{"mcp__srv__echo(text:a)", "mcp__srv__danger"}, Deny: []string{"mcp__srv__danger(text:a)"}, Ask: []string{"mcp__srv__echo(text:b)"}},
		sessions: []session{root(mcpCalls)}})

	out = append(out, dcase{name: "i25-readonly-more", group: "i25 read-only path scope", paths: true,
		sessions: []session{root([][]probe{shs("uniq", "uniq -c", "uniq -c a.txt", "sed -n 1,2p a.txt", "sed -n '$p' a.txt",
			"sed s/a/b/ a.txt", "sed -i s/a/b/ e1.txt", "git branch -D nope", "git branch -a", "git tag", "git tag v1",
			"sort -o so.txt a.txt", "sort -r a.txt", "jq -r .a x.json", "jq -f x.json x.json", "rg --pre cat a", "rg -n a src",
			"tree", "tree /", "file /etc/hostname", "which -a ls", "ps aux", "ps", "hostname -f", "uname", "echo $HOME",
			"printf '%s' $HOME", "git log --format=%H", "git diff /etc/hostname", "git show HEAD", "cut -d: -f1 /etc/passwd",
			"readlink /etc/hostname", "realpath /etc", "stat a.txt", "df -h", "free", "nproc", "locale", "groups", "cal",
			"uptime", "expr 1 + 1", "sleep 0", "type ls", "false", "docker ps", "tr a b < a.txt", "cat < /etc/hostname",
			"wc -l < a.txt", "ls $HOME", "cat $HOME/notes.txt", "ls -la", "find . -type f", "find /etc -name hostname",
			"grep -rn x src", "egrep a a.txt", "fgrep a /etc/hostname", "head -n 1 a.txt src/main.go", "cat a.txt | wc -l",
			"cat a.txt | sort", "ls | grep a", "cat /etc/hostname | wc -l", "echo hi | cat", "diff a.txt docs/x.md",
			"base64 /etc/hostname", "sha1sum a.txt", "md5sum a.txt", "od -c a.txt", "hexdump -C a.txt", "strings a.txt",
			"column -t a.txt", "paste a.txt a.txt", "comm a.txt a.txt", "fold -w 1 a.txt", "numfmt 1000", "seq 1 2",
			"cd src", "cd src && ls", "cd .. && ls", "pwd && ls ..")})}})
	out = append(out, dcase{name: "i25-readonly-rules-more", group: "i25 read-only path scope", paths: true,
		settings: Settings{Allow: []string{"Bash(cat:*)", "Bash(touch *)", "Bash(head *)"}, Deny: []string{"Read(./secret.txt)"}},
		sessions: []session{root([][]probe{shs("cat /etc/hostname", "touch "+BaseToken+"/outside/t1.txt", "touch t2.txt",
			"touch ../outside/t3.txt", "head -1 /etc/passwd", "cat secret.txt", "head secret.txt", "cat a.txt", "cat ../extra/e.txt")})}})
	out = append(out, dcase{name: "i25-bare-bash-allow", group: "i25 read-only path scope", paths: true,
		settings: Settings{Allow: []string{"Bash"}},
		sessions: []session{root([][]probe{shs("cat /etc/hostname", "echo hi > bb1.txt", "ls ..", "touch ../outside/bb2.txt",
			"cd .. && ls", "make test")})}})
	out = append(out, dcase{name: "i25-edit-allow-patterns", group: "i25 Read(*) and Edit(*)", paths: true,
		settings: Settings{Allow: []string{"Edit(*.txt)", "Edit(sub/*)", "Read(*.md)", "Edit(//tmp/i25-nowhere/**)", "Read(~/notes.txt)"}},
		files:    map[string]string{"../outside/o.md": "o\n", "sub/deep/keep.txt": "k\n"},
		sessions: []session{root([][]probe{{wr("p1.txt"), wr("sub/p2.txt"), wr("sub/p3.md"), wr("sub/deep/p4.txt"), wr("p5.md"),
			rd(BaseToken + "/outside/o.md"), rd(BaseToken + "/outside/o.txt"), rd("../outside/o.md"), rd(homeP + "/notes.txt"),
			rd("~/notes.txt"), sh("cat ~/notes.txt"), sh("cat ../outside/o.md"), sh("echo hi > p6.txt"), sh("echo hi > sub/p7.md")}})}})

	out = append(out, dcase{name: "i25-gitignore-semantics", group: "i25 Read(*) and Edit(*)", paths: true,
		settings: Settings{Allow: []string{"Edit(*.txt)", "Edit(docs2)", "Edit", "Read"}, Deny: []string{"Read(./priv)", "Read(cfg)"}},
		files:    map[string]string{"priv/x.txt": "p\n", "sub/priv/y.txt": "p\n", "cfg/z.txt": "c\n", "sub/cfg/z.txt": "c\n", "docs2/keep.md": "k\n", "other/deep/keep.md": "k\n"},
		sessions: []session{root([][]probe{{wr("other/deep/q.txt"), wr("docs2/n.md"), wr("docs2/sub/n.md"), wr("n.md"),
			rd("priv/x.txt"), rd("sub/priv/y.txt"), rd("cfg/z.txt"), rd("sub/cfg/z.txt"), sh("cat priv/x.txt"), sh("cat sub/cfg/z.txt"),
			rd("/etc/hostname"), rd(BaseToken + "/outside/o.txt"), ed("e1.txt")}})}})

	out = append(out, dcase{name: "i25-allow-floating-dirs", group: "i25 Read(*) and Edit(*)", paths: true,
		settings: Settings{Allow: []string{"Edit(src/**)", "Edit(./lib/**)", "Edit(/top/**)"}},
		files:    map[string]string{"vendor/pkg/src/keep.js": "k\n", "sub/lib/keep.js": "k\n", "sub/top/keep.js": "k\n", "top/keep.js": "k\n"},
		sessions: []session{root([][]probe{{wr("vendor/pkg/src/n1.js"), wr("src/n2.ts"), wr("sub/lib/n3.js"), wr("lib/n4.js"),
			wr("top/n5.js"), wr("sub/top/n6.js"), wr(projP + "/vendor/pkg/src/n7.js"), rd("/etc/hosts"), sh("echo hi > vendor/pkg/src/n8.js")}})}})

	out = append(out, dcase{name: "i25-user-settings-anchor", group: "i25 absolute and home anchors", paths: true,
		user:     Settings{Deny: []string{"Read(/x.txt)", "Edit(/y.txt)"}, Allow: []string{"Read(/notes/**)"}},
		settings: Settings{Deny: []string{"Read(/z.txt)"}},
		files: map[string]string{"x.txt": "x\n", "y.txt": "y\n", "z.txt": "z\n", "notes/n.txt": "n\n", "../home/.claude/y.txt": "y\n",
			"../home/.claude/z.txt": "z\n", "../home/.claude/notes/n.txt": "n\n"},
		sessions: []session{root([][]probe{{rd("x.txt"), rd(homeP + "/.claude/x.txt"), sh("cat ~/.claude/x.txt"), sh("cat x.txt"),
			wr(homeP + "/.claude/y.txt"), wr("y.txt"), rd("z.txt"), rd(homeP + "/.claude/z.txt"), rd(homeP + "/.claude/notes/n.txt"),
			rd("notes/n.txt")}})}})

	for i := range out {
		out[i].files = withIssue25Files(out[i].files)
	}
	return out
}
