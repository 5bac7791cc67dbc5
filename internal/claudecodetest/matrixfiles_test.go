package claudecodetest

// The round on the tools other than Bash and on rule precedence: the file
// tools' paths in every spelling (matrixFilePaths), Glob and Grep reaching
// a denied directory (matrixSearch), the forms a path rule takes and which
// tools each covers (matrixRuleForms, matrixBareRules), allow, ask and deny
// rules on the same call from one settings file or two
// (matrixPrecedence), WebFetch domain rules and WebSearch (matrixDomains),
// MCP server rules (matrixMCPRules), and Agent rules, the Task alias,
// TodoWrite and ExitPlanMode (matrixAgentRules).

// filesTools is the --tools list of the cases that call Glob and Grep,
// which the release's pool holds only when named.
const filesTools = "Agent,Bash,Read,Edit,Write,NotebookEdit,Glob,Grep,WebFetch,WebSearch"

// nbFile is a notebook with one code cell "c1".
const nbFile = `{"cells":[{"cell_type":"code","execution_count":null,"id":"c1","metadata":{},"outputs":[],"source":"x"}],` +
	`"metadata":{},"nbformat":4,"nbformat_minor":5}` + "\n"

func nb(path string) probe {
	return probe{"NotebookEdit", map[string]any{"notebook_path": path, "cell_id": "c1", "new_source": "y", "edit_mode": "replace"}}
}
func globAt(pattern, path string) probe {
	in := map[string]any{"pattern": pattern}
	if path != "" {
		in["path"] = path
	}
	return probe{"Glob", in}
}
func grepAt(pattern, path, glob string) probe {
	in := map[string]any{"pattern": pattern}
	if path != "" {
		in["path"] = path
	}
	if glob != "" {
		in["glob"] = glob
	}
	return probe{"Grep", in}
}

// filesCases is one paths case per mode of the turns, with the issue 25
// files beside the case's own.
// cliMode is a case's --permission-mode for a mode's name: none for
// default.
func cliMode(m string) string {
	if m == "default" {
		return ""
	}
	return m
}

func filesCases(name, group string, modes []string, tools string, user, settings Settings, files map[string]string,
	turns [][]probe) []dcase {
	var out []dcase
	for _, m := range modes {
		mode := cliMode(m)
		merged := withIssue25Files(files)
		out = append(out, dcase{name: name + "-" + m, group: group, paths: true, mode: mode, tools: tools, user: user,
			settings: settings, files: merged, sessions: []session{root(turns)}})
	}
	return out
}

var filesModes = []string{"default", "acceptEdits", "bypassPermissions"}

// matrixFilePaths: Read, Write, Edit and NotebookEdit with paths in every
// spelling against Read(./secret/**), Edit(./locked/**), a rule on a
// directory with a space and unicode, and a HOME rule: ./, //, trailing /,
// .., absolute, ~/, case differences, and paths that leave the project.
func matrixFilePaths() []dcase {
	reads := []probe{rd("secret/s.txt"), rd("./secret/s.txt"), rd("secret//s.txt"), rd(projP + "//secret/s.txt"),
		rd(projP + "/./secret/s.txt"), rd("sub/../secret/s.txt"), rd(projP + "/sub/../secret/s.txt"), rd("Secret/s.txt"),
		rd("SECRET/s.txt"), rd("secret/s.txt/"), rd(".//secret///s.txt"), rd("../project/secret/s.txt"),
		rd(projP + "/../project/secret/s.txt"), rd("dir é/ü s.txt"), rd("./dir é/ü s.txt"), rd(projP + "/dir é/ü s.txt"),
		rd("dir e\u0301/ü s.txt"), rd("~/hsecret/h.txt"), rd(homeP + "/hsecret/h.txt"), rd("~//hsecret/h.txt"),
		rd(homeP + "//hsecret/./h.txt"), rd("~/x/../hsecret/h.txt"), rd("sub/../../outside/o.txt"), rd("./../outside/o.txt"),
		rd(projP + "/sub/../../outside/o.txt"), rd("locked/keep.txt"), rd(projP + "/nbs/n.ipynb"), rd("locked/n.ipynb")}
	writes := []probe{wr("locked/n1.txt"), wr("./locked/n2.txt"), wr("locked//n3.txt"), wr("sub/../locked/n4.txt"),
		wr(projP + "/locked/./n5.txt"), wr("Locked/n6.txt"), wr("locked/deep/n7.txt"), wr("../project/locked/n8.txt"),
		wr(projP + "//locked/n9.txt"), wr("dir é/n10.txt"), wr("~/hlock/n11.txt"), wr(homeP + "/hlock/n12.txt"),
		wr("~/x/../hlock/n13.txt"), wr("sub/../../outside/n14.txt"), wr("free/n15.txt"), wr("./free//n16.txt"),
		nb("locked/n.ipynb"), nb("./locked//n.ipynb")}
	edits := []probe{ed("locked/keep.txt"), ed("./locked/keep.txt"), ed("locked//keep.txt"), ed("sub/../locked/keep.txt"),
		ed(projP + "/locked/keep.txt"), ed("e1.txt"), nb("nbs/n.ipynb"), nb(projP + "/nbs/n.ipynb")}
	files := map[string]string{"secret/s.txt": "s\n", "dir é/ü s.txt": "u\n", "../home/hsecret/h.txt": "h\n",
		"../home/hlock/keep.txt": "k\n", "locked/keep.txt": "old\n", "e1.txt": "old\n", "nbs/n.ipynb": nbFile,
		"locked/n.ipynb": nbFile, "free/keep.txt": "k\n", "sub/keep.txt": "k\n"}
	return filesCases("files-paths", "files paths", filesModes, "", Settings{},
		Settings{Deny: []string{"Read(./secret/**)", "Edit(./locked/**)", "Read(./dir é/**)", "Edit(./dir é/**)",
			"Read(~/hsecret/**)", "Edit(~/hlock/**)"}},
		files, [][]probe{append(reads, writes...), append([]probe{rd("e1.txt")}, edits...)})
}

// matrixSearch: Glob and Grep whose path or pattern reaches a directory a
// Read deny rule covers, or leaves the project.
func matrixSearch() []dcase {
	probes := []probe{globAt("secret/**", ""), globAt("*", "secret"), globAt("**/*.txt", "."), globAt("s.txt", projP+"/secret"),
		globAt("*", "./secret/"), globAt("../outside/*", ""), globAt("*", "../outside"), globAt(projP+"/secret/*", ""),
		globAt("*", "sub/../secret"), globAt("*", "~/hsecret"), globAt("*", homeP+"/hsecret"), globAt("*.txt", ""),
		globAt("*", "Secret"), globAt("**/s.txt", ""),
		grepAt("s", "secret", ""), grepAt("s", "secret/s.txt", ""), grepAt("s", ".", ""), grepAt("s", "", "secret/**"),
		grepAt("s", "../outside", ""), grepAt("s", "~/hsecret", ""), grepAt("s", projP+"/secret", ""), grepAt("s", "./secret//", ""),
		grepAt("s", "sub/../secret", ""), grepAt("s", "", ""), grepAt("s", "sub", ""), grepAt("h", homeP+"/hsecret/h.txt", "")}
	files := map[string]string{"secret/s.txt": "s\n", "sub/s.txt": "s\n", "../home/hsecret/h.txt": "h\n"}
	return filesCases("files-search", "files Glob and Grep", filesModes, filesTools, Settings{},
		Settings{Deny: []string{"Read(./secret/**)", "Read(~/hsecret/**)"}}, files, [][]probe{probes})
}

// matrixSearchMore: absolute Glob patterns outside the project, through
// HOME and with a wildcard before the denied directory, Grep's glob
// parameter, Bash paths in another case, $HOME in a Read, and MultiEdit,
// which the release does not have.
func matrixSearchMore() []dcase {
	probes := []probe{globAt("/etc/host*", ""), globAt("~/hsecret/*", ""), globAt(homeP+"/hsecret/*", ""),
		globAt(projP+"/se*/s.txt", ""), globAt(projP+"/secret/s.txt", ""), globAt(projP+"/SECRET/*", "sub"),
		grepAt("s", "", projP+"/secret/*"), grepAt("s", "/etc", ""), sh("cat SECRET/s.txt"), sh("cat Secret/s.txt"),
		sh("echo x > LOCKED/x.txt"), sh("touch Locked/t.txt"), rd("$HOME/hsecret/h.txt"), rd(homeP + "/HSECRET/h.txt"),
		{"MultiEdit", map[string]any{"file_path": "a.txt", "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}}}
	files := map[string]string{"secret/s.txt": "s\n", "sub/s.txt": "s\n", "../home/hsecret/h.txt": "h\n"}
	return filesCases("files-search-more", "files Glob and Grep", []string{"default", "bypassPermissions"}, filesTools+",Monitor",
		Settings{}, Settings{Deny: []string{"Read(./secret/**)", "Read(~/hsecret/**)", "Edit(./locked/**)"}}, files,
		[][]probe{probes})
}

// matrixProtectedCase: writes to the protected paths spelled in another
// case (acceptEdits approves a write in the project but not to a protected
// path), and letters that fold across ASCII (the long s, the Kelvin sign)
// and outside it, against deny rules and an allow rule (default mode).
func matrixProtectedCase() []dcase {
	probes := []probe{wr(".GIT/x1"), wr(".Git/hooks/x2"), wr(".Claude/settings.json"), wr(".VSCODE/x3.json"), wr("sub/.Bashrc"),
		wr(".gitConfig"), wr(".MCP.json"), wr(".CLAUDE/WORKTREES/x4"), wr(".Envrc"), wr(".Idea/x5"), wr(".Config/Git/x6"),
		sh("echo x > .GIT/x7"), sh("echo x > .Bashrc"), sh("touch .VScode/x8"),
		rd("\u017fecret/x.txt"), wr("\u212ait/n1.txt"), wr("KIT/n2.txt"), rd("\u00c9t\u00e9/x.txt"), wr("\u00c9T\u00c9/n3.txt")}
	files := map[string]string{"\u017fecret/x.txt": "x\n", "\u00c9t\u00e9/x.txt": "x\n", ".git/keep": "k\n"}
	return filesCases("files-protected-case", "files paths", filesModes, "", Settings{},
		Settings{Deny: []string{"Read(./secret/**)", "Read(./\u00e9t\u00e9/**)", "Edit(./\u00e9t\u00e9/**)"},
			Allow: []string{"Edit(./kit/**)"}}, files, [][]probe{probes})
}

// matrixAfterCd: the file tools' relative paths after a Bash cd, which
// the CLI keeps for the next calls, against rules anchored at the project.
func matrixAfterCd() []dcase {
	probes := []probe{rd("secret/s.txt"), rd("../secret/s.txt"), wr("locked/n1.txt"), wr("../locked/n2.txt"), wr("n3.txt"),
		globAt("*", "secret"), grepAt("s", "secret", ""), globAt("*", "../secret"), nb("nbs/n.ipynb"), rd("sub.txt")}
	files := map[string]string{"secret/s.txt": "s\n", "sub/secret/s.txt": "s\n", "sub/sub.txt": "x\n", "sub/nbs/n.ipynb": nbFile,
		"nbs/n.ipynb": nbFile, "sub/locked/keep": "k\n"}
	return filesCases("files-after-cd", "files paths", filesModes, filesTools, Settings{},
		Settings{Deny: []string{"Read(/secret/**)", "Edit(/locked/**)", "Edit(/nbs/**)"}}, files,
		[][]probe{{sh("cd sub")}, {rd("nbs/n.ipynb")}, probes})
}

// matrixReadAllow: Read allow rules outside the project against Glob and
// Grep paths and absolute patterns, and Edit allow rules against reads.
func matrixReadAllow() []dcase {
	probes := []probe{globAt("host*", "/etc"), grepAt("localhost", "/etc/hosts", ""), globAt("/etc/host*", ""), rd("/etc/hostname"),
		globAt("/usr/*", ""), globAt("*", "/usr"), globAt("*", "~"), grepAt("n", "~/notes.txt", ""), rd("~/notes.txt"),
		globAt(homeP+"/*", ""), rd("../outside/o.txt"), globAt("*", "../outside"), grepAt("o", "../outside", ""),
		globAt("/etc/../usr/*", ""), globAt("/etc/*/x", "")}
	return filesCases("files-read-allow", "files Glob and Grep", []string{"default"}, filesTools, Settings{},
		Settings{Allow: []string{"Read(//etc/**)", "Read(~/**)", "Edit(//**/outside/**)"}}, nil, [][]probe{probes})
}

// matrixRuleForms: the forms of a path rule (// absolute, ~/, /
// project-relative, ./, a relative pattern with a directory, **/, braces,
// a character class, Edit(*.md)) and which tools a Write(...) and an
// Edit(...) rule cover.
func matrixRuleForms() []dcase {
	reads := []probe{rd("/etc/hostname"), rd("/etc/hosts"), rd("~/hx/a.txt"), rd(homeP + "/hx/a.txt"), rd("pr/a.txt"),
		rd("sub/pr/a.txt"), rd("dot"), rd("sub/dot"), rd("cfg/a.env"), rd("sub/cfg/a.env"), rd("cfg/deep/a.env"),
		rd(".envrc"), rd("sub/.envrc"), rd("cls/a.txt"), rd("cls/c.txt"), rd("br/x.key"), rd("br/x.crt"), rd("br/x.txt"),
		rd("ronly/keep.txt"), rd("wonly/keep.txt")}
	writes := []probe{wr("n1.md"), wr("sub/n2.md"), wr("n3.txt"), wr("wonly/n4.txt"), wr("sub/wonly/n5.txt"),
		wr("ronly/n6.txt"), wr("ednb/n7.txt"), sh("echo x > wonly/r1.txt"), sh("echo x > n8.md"), sh("touch wonly/t1.txt"),
		wr("cls2/a.txt"), wr("cls2/c.txt"), wr("up/n9.txt"), wr("Up/n10.txt"), rd("ALLOWR/a.txt")}
	edits := []probe{ed("wonly/keep.txt"), ed("ronly/e.txt"), ed("k.md"), nb("wonly/n.ipynb"), nb("ednb/n.ipynb")}
	files := map[string]string{"../home/hx/a.txt": "h\n", "pr/a.txt": "p\n", "sub/pr/a.txt": "p\n", "dot": "d\n", "sub/dot": "d\n",
		"cfg/a.env": "e\n", "sub/cfg/a.env": "e\n", "cfg/deep/a.env": "e\n", ".envrc": "e\n", "sub/.envrc": "e\n",
		"cls/a.txt": "a\n", "cls/c.txt": "c\n", "br/x.key": "k\n", "br/x.crt": "c\n", "br/x.txt": "t\n",
		"ronly/keep.txt": "k\n", "wonly/keep.txt": "old\n", "ronly/e.txt": "old\n", "k.md": "old\n",
		"wonly/n.ipynb": nbFile, "ednb/n.ipynb": nbFile, "ALLOWR/a.txt": "a\n"}
	return filesCases("files-rule-forms", "files rule forms", filesModes, "", Settings{},
		Settings{Deny: []string{"Read(//etc/host{s,name})", "Read(~/hx/**)", "Read(/pr/**)", "Read(./dot)", "Read(cfg/*.env)",
			"Read(**/.envrc)", "Read(./cls/[ab].txt)", "Read(./br/*.{key,crt})", "Edit(*.md)", "Write(./wonly/**)",
			"Edit(./ednb/**)", "Read(./ronly/**)"},
			// Allow rules with a character class and in another case than
			// the paths.
			Allow: []string{"Edit(./cls2/[ab].txt)", "Edit(./Up/**)", "Read(./allowr/**)"}},
		files, [][]probe{append(reads, writes...), append([]probe{rd("wonly/keep.txt"), rd("ronly/e.txt"), rd("k.md"),
			rd("wonly/n.ipynb"), rd("ednb/n.ipynb")}, edits...)})
}

// matrixGlobEdges: the corners of a path pattern: escapes, a negated
// class, ** inside a segment, empty segments, * against a directory, a
// range in another case, ? against a multi-byte letter.
func matrixGlobEdges() []dcase {
	files := map[string]string{"e1/*.txt": "x\n", "e1/a.txt": "x\n", "e2/a?.txt": "x\n", "e2/ab.txt": "x\n", "e3/a.txt": "x\n",
		"e3/b.txt": "x\n", "e4/axxb.txt": "x\n", "e4/ab.txt": "x\n", "e4/q/ab.txt": "x\n", "e5/z.txt": "x\n", "e5/q/r/z.txt": "x\n",
		"e6/z.txt": "x\n", "e7/x.txt": "x\n", "e7/d/y.txt": "x\n", "e9/B1.txt": "x\n", "e10/\u00e9.txt": "x\n", "e11/x.txt": "x\n",
		"e12/a b.txt": "x\n", "e13/x.txt": "x\n"}
	var probes []probe
	for _, f := range []string{"e1/*.txt", "e1/a.txt", "e2/a?.txt", "e2/ab.txt", "e3/a.txt", "e3/b.txt", "e4/axxb.txt", "e4/ab.txt",
		"e4/q/ab.txt", "e5/z.txt", "e5/q/r/z.txt", "e6/z.txt", "e7/x.txt", "e7/d/y.txt", "e9/B1.txt", "e10/\u00e9.txt", "e11/x.txt",
		"e12/a b.txt", "e13/x.txt"} {
		probes = append(probes, rd(f))
	}
	return filesCases("files-glob-edges", "files rule forms", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Deny: []string{"Read(./e1/\\*.txt)", "Read(./e2/a\\?.txt)", "Read(./e3/[!a].txt)", "Read(./e4/a**b.txt)",
			"Read(./e5/**/z.txt)", "Read(./e6//z.txt)", "Read(./e7/*)", "Read(./e9/[a-c]*.txt)", "Read(./e10/?.txt)",
			"Read(./e11/x.TXT)", "Read(./e12/a\\ b.txt)", "Read(./e13/x.txt/)"}},
		files, [][]probe{probes})
}

// matrixBareRules: a bare Read deny rule and a bare Edit ask rule against
// every file tool but NotebookEdit (which must read its notebook first),
// and a bare Write deny rule.
func matrixBareRules() []dcase {
	probes := []probe{rd("a.txt"), globAt("*.txt", ""), grepAt("a", "", ""), sh("cat a.txt"), wr("b1.txt"), ed("e1.txt"),
		sh("ls")}
	out := filesCases("files-bare-read", "files bare rules", filesModes, filesTools, Settings{},
		Settings{Deny: []string{"Read"}, Ask: []string{"Edit"}}, nil, [][]probe{probes})
	wprobes := []probe{rd("e1.txt"), wr("b2.txt"), rd("nbs/n.ipynb"), sh("echo x > b3.txt")}
	return append(out, filesCases("files-bare-write", "files bare rules", filesModes, filesTools, Settings{},
		Settings{Deny: []string{"Write"}}, map[string]string{"nbs/n.ipynb": nbFile, "e1.txt": "old\n"},
		[][]probe{wprobes, {ed("e1.txt"), nb("nbs/n.ipynb")}})...)
}

// matrixPrecedence: one path under allow, ask and deny rules at once,
// ask and allow, a tool-wide rule against a specifier rule, and rules of
// the user's settings against the project's.
func matrixPrecedence() []dcase {
	probes := []probe{rd("p1/a.txt"), rd("p2/a.txt"), rd("p3/a.txt"), rd("p6/a.txt"), wr("p4/n1.txt"), wr("p5/n2.txt"),
		wr("p7/n3.txt"), rd("u1.txt"), wr("u2/n4.txt"), wr("u3/n5.txt"), rd("u4/a.txt"), fetch("https://example.org/"),
		fetch("https://example.net/"), sh("make test"), sh("git push origin main")}
	files := map[string]string{"p1/a.txt": "a\n", "p2/a.txt": "a\n", "p3/a.txt": "a\n", "p6/a.txt": "a\n", "u1.txt": "u\n",
		"u4/a.txt": "a\n"}
	user := Settings{Deny: []string{"Read(**/u1.txt)", "Edit(**/u3/**)", "WebFetch(domain:example.net)", "Bash(git push:*)"},
		Allow: []string{"Edit(**/u2/**)", "Read(**/u4/**)", "WebFetch(domain:example.org)"}}
	settings := Settings{
		Allow: []string{"Read(./p1/**)", "Read(./p2/**)", "Read(./p3/**)", "Edit(./p4/**)", "Edit(./p5/**)", "Read(./u1.txt)",
			"Edit(./u3/**)", "WebFetch(domain:example.net)", "Bash(git push:*)", "Bash(make test)"},
		Ask:  []string{"Read(./p1/**)", "Read(./p2/**)", "Edit(./p5/**)", "Edit(./u2/**)", "WebFetch(domain:example.org)", "Bash"},
		Deny: []string{"Read(./p1/**)", "Edit(./p4/n1.txt)", "Read(./p6/**)", "Read(./u4/**)", "Edit"},
	}
	out := filesCases("files-precedence", "files precedence", append(filesModes, "dontAsk"), "", user, settings, files,
		[][]probe{probes})
	// A tool-wide allow under a specifier deny, a tool-wide deny under a
	// specifier allow, a tool-wide ask under a specifier allow.
	probes2 := []probe{rd("a.txt"), rd("p3/a.txt"), wr("p7/n6.txt"), wr("n7.txt"), fetch("https://example.org/"),
		fetch("https://example.com/")}
	return append(out, filesCases("files-precedence-wide", "files precedence", []string{"default", "bypassPermissions"}, "",
		Settings{}, Settings{Allow: []string{"Read", "Edit(./p7/**)", "WebFetch(domain:example.org)"},
			Deny: []string{"Read(./p3/**)", "Write"}, Ask: []string{"WebFetch"}}, files, [][]probe{probes2})...)
}

// matrixDomains: WebFetch domain rules against subdomains, ports,
// userinfo, IP literals, uppercase and trailing-dot hosts, and WebSearch.
func matrixDomains() []dcase {
	var fetches []probe
	for _, u := range []string{"https://example.com/", "https://sub.example.com/", "https://EXAMPLE.COM/", "https://example.com:8443/",
		"https://user:pw@example.com/", "https://evil.test/", "https://user@evil.test/", "https://evil.test:443/", "https://EVIL.TEST/x",
		"https://a.evil.test/", "https://evil.test./", "http://example.com.evil.test/", "https://evil.test@example.com/",
		"https://example.com@evil.test/", "http://127.0.0.1:9/", "http://2130706433:9/", "http://0x7f.0.0.1:9/", "http://127.1:9/",
		"http://[::1]:9/", "http://[0:0:0:0:0:0:0:1]:9/", "https://wild.test/", "https://x.wild.test/", "https://www.example.com/",
		"HTTPS://Evil.Test/", "https://evil%2etest/", "https://ex\u0430mple.com/"} {
		fetches = append(fetches, fetch(u))
	}
	fetches = append(fetches, probe{"WebSearch", map[string]any{"query": "ledger"}})
	return filesCases("files-domains", "files WebFetch domains", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Allow: []string{"WebFetch(domain:example.com)", "WebFetch(domain:*.wild.test)"},
			Deny: []string{"WebFetch(domain:evil.test)", "WebFetch(domain:127.0.0.1)", "WebFetch(domain:[::1])", "WebFetch(domain:::1)"}},
		nil, [][]probe{fetches})
}

// matrixDomainTricks: URLs whose host the URL parser reads differently from
// its text: a backslash ending the host, a special scheme without //,
// blanks and tabs, full-width letters and ideographic full stops, and
// non-ASCII hosts against rules written in Punycode and in Unicode.
func matrixDomainTricks() []dcase {
	var fetches []probe
	for _, u := range []string{"https://evil.test\\@example.com/", "https:evil.test/", "https:/evil.test/", "https:\\\\evil.test/",
		"HTTPS://evil.test/", " https://evil.test/", "https://evil.te\tst/", "https://\uff45\uff56\uff49\uff4c.test/",
		"https://evil\u3002test/", "https://evil.test\\.example.com/", "http://evil.test:80\\@example.com/", "https://evil.test:/",
		"http://127.0.0.1.:9/", "https://example.com#@evil.test/", "https://example.com?@evil.test/", "https://evil.test%2f@example.com/",
		"https://ex\nample.com/", "https://evil\uff0etest/", "https://EVIL.test\t/"} {
		fetches = append(fetches, fetch(u))
	}
	for _, u := range []string{"https://m\u00fcnchen.test/", "https://M\u00dcNCHEN.test/", "https://xn--mnchen-3ya.test/",
		"https://b\u00fccher.test/", "https://xn--bcher-kva.test/", "https://XN--BCHER-KVA.test/", "https://mu\u0308nchen.test/",
		"https://\u4f8b\u3048.test/"} {
		fetches = append(fetches, fetch(u))
	}
	return filesCases("files-domain-tricks", "files WebFetch domains", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Allow: []string{"WebFetch(domain:example.com)"}, Deny: []string{"WebFetch(domain:evil.test)", "WebFetch(domain:127.0.0.1)",
			"WebFetch(domain:xn--mnchen-3ya.test)", "WebFetch(domain:b\u00fccher.test)", "WebFetch(domain:xn--r8jz45g.test)"}},
		nil, [][]probe{fetches})
}

// matrixMCPRules: server rules, server wildcards and tool rules in deny,
// ask and allow.
func matrixMCPRules() []dcase {
	call := func(srv, tool string) probe {
		if tool == "ping" {
			return probe{"mcp__" + srv + "__" + tool, map[string]any{}}
		}
		return probe{"mcp__" + srv + "__" + tool, map[string]any{"text": "a"}}
	}
	probes := []probe{call("srv", "echo"), call("srv", "danger"), call("other", "ping"), call("third", "echo"),
		call("third", "danger"), call("fourth", "echo"), call("fourth", "danger"), call("fifth", "echo")}
	mcp := map[string][]string{"srv": {"echo", "danger"}, "other": {"ping"}, "third": {"echo", "danger"},
		"fourth": {"echo", "danger"}, "fifth": {"echo"}}
	var out []dcase
	for _, m := range []string{"default", "bypassPermissions", "dontAsk"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "files-mcp-rules-" + m, group: "files MCP rules", paths: true, mode: mode, mcp: mcp,
			settings: Settings{Deny: []string{"mcp__srv__*", "mcp__third", "mcp__fifth__echo"},
				Ask:   []string{"mcp__other", "mcp__fourth__*"},
				Allow: []string{"mcp__srv__echo", "mcp__third__echo", "mcp__fourth__echo", "mcp__fifth"}},
			sessions: []session{root([][]probe{probes})}})
	}
	return out
}

// matrixNameCase: rule tool names in another case than the tool's, and
// rules with blanks around them or their specifier.
func matrixNameCase() []dcase {
	probes := []probe{rd("secret/s.txt"), sh("rm w1"), fetch("https://evil.test/"), {"mcp__srv__echo", map[string]any{"text": "a"}},
		wr("locked/n1.txt"), wr("free1.txt"), rd("sp1/a.txt"), rd("sp2/a.txt"), rd("sp3/a.txt"), rd("sp4/a.txt"),
		{"mcp__srv__danger", map[string]any{"text": "a"}}}
	files := map[string]string{"secret/s.txt": "s\n", "w1": "w\n", "sp1/a.txt": "a\n", "sp2/a.txt": "a\n", "sp3/a.txt": "a\n",
		"sp4/a.txt": "a\n"}
	var out []dcase
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "files-name-case-" + m, group: "files rule forms", paths: true, mode: mode, files: files,
			mcp: map[string][]string{"srv": {"echo", "danger"}},
			settings: Settings{Deny: []string{"read(./secret/**)", "BASH(rm:*)", "Webfetch(domain:evil.test)", "mcp__SRV__echo",
				"edit(./locked/**)", " Read(./sp1/**)", "Read(./sp2/**) ", "Read( ./sp3/** )", "MCP__srv__danger"}},
			sessions: []session{root([][]probe{probes})}})
	}
	return out
}

// matrixAgentRules: Agent(type) rules in deny, ask and allow, the Task
// alias in rules and calls, TodoWrite, and ExitPlanMode in plan mode.
func matrixAgentRules() []dcase {
	spawn := func(tool, typ, script string) probe {
		return probe{tool, map[string]any{"description": "probe " + script, "prompt": "script:" + script, "subagent_type": typ,
			"run_in_background": false}}
	}
	probes := []probe{spawn("Agent", "Explore", "a1"), spawn("Agent", "plain", "a2"), spawn("Agent", "general-purpose", "a3"),
		spawn("Task", "Explore", "a4"), spawn("Agent", "Plan", "a5"), spawn("Agent", "explore", "a6"),
		{"TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "x", "status": "pending", "activeForm": "x"}}}}}
	var out []dcase
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "files-agent-rules-" + m, group: "files Agent rules", paths: true, mode: mode,
			agents:   []Agent{{Name: "plain"}},
			settings: Settings{Deny: []string{"Task(Explore)"}, Ask: []string{"Agent(plain)"}, Allow: []string{"Agent(Plan)"}},
			sessions: []session{root([][]probe{probes})}})
	}
	plan := []probe{{"ExitPlanMode", map[string]any{"plan": "do it"}}, rd("a.txt"), wr("pl1.txt"), spawn("Agent", "Explore", "a7")}
	out = append(out, dcase{name: "files-plan-exit", group: "files Agent rules", paths: true, mode: "plan",
		sessions: []session{root([][]probe{plan})}})
	out = append(out, dcase{name: "files-plan-exit-rules", group: "files Agent rules", paths: true, mode: "plan",
		settings: Settings{Allow: []string{"ExitPlanMode", "Write"}, Deny: []string{"Agent"}},
		sessions: []session{root([][]probe{plan})}})
	return out
}

// matrixFiles is the round's cases.
func matrixFiles() []dcase {
	var out []dcase
	for _, f := range []func() []dcase{matrixFilePaths, matrixSearch, matrixSearchMore, matrixProtectedCase, matrixAfterCd, matrixReadAllow, matrixRuleForms, matrixGlobEdges, matrixBareRules, matrixPrecedence,
		matrixDomains, matrixDomainTricks, matrixMCPRules, matrixNameCase, matrixAgentRules, matrixSymlinks, matrixBashSymlinks} {
		out = append(out, f()...)
	}
	for i := range out {
		out[i].files = withIssue25Files(out[i].files)
	}
	return out
}
