package claudecodetest

// A round on symbolic links under Read and Edit path rules
// (matrixSymlinks): a file path that is a link into a directory a deny
// rule names (by a relative and an absolute target, through a linked
// directory, a chain of links, a link into HOME), a link whose target does
// not exist yet, and the reverse: a rule naming a link's own path against
// a call naming its target.

// symlinkFiles are the files the links of matrixSymlinks point at.
var symlinkFiles = map[string]string{
	"secret/s.txt": "s\n", "free/f2.txt": "f\n", "free/f3.txt": "f\n", "free/e.txt": "old\n", ".vscode/s.json": "{}\n", "../home/hsecret/h.txt": "h\n",
}

// symlinks are matrixSymlinks' links: path -> target.
var symlinks = map[string]string{
	"ls1.txt":            "secret/s.txt",
	"ls2.txt":            BaseToken + "/project/secret/s.txt",
	"ldir":               "secret",
	"lchain.txt":         "ls1.txt",
	"lh.txt":             BaseToken + "/home/hsecret/h.txt",
	"ll.txt":             "locked/keep.txt",
	"lldir":              "locked",
	"lnew.txt":           "locked/new.txt",
	"lout.txt":           "../outside/o.txt",
	"rlink.txt":          "free/f2.txt",
	"rl2.txt":            "free/f3.txt",
	"../outside/lin.txt": BaseToken + "/project/secret/s.txt",
	"la.txt":             "asked/keep.txt",
	"lvs.json":           ".vscode/s.json",
	"free/lo.txt":        "../../outside/o.txt",
	"free/lo2.txt":       "../../outside/o2.txt",
	"lfree.txt":          "free/f2.txt",
	"lfd":                "free",
	"led.txt":            "free/e.txt",
	"lvd":                ".vscode",
	"lad":                "asked",
}

func matrixSymlinks() []dcase {
	edits := []probe{ed("led.txt"), ed("lfd/e.txt")}
	probes := []probe{rd("led.txt"), rd("lfd/e.txt"), wr("lfd/n1.txt"), wr("lvd/n.json"), wr("lad/n.txt"), rd("ls1.txt"), rd("ls2.txt"), rd("ldir/s.txt"), rd("lchain.txt"), rd("lh.txt"), rd("lout.txt"),
		rd("free/f2.txt"), rd("rlink.txt"), rd(BaseToken + "/outside/lin.txt"),
		wr("ll.txt"), wr("lldir/w1.txt"), wr("lnew.txt"), wr("free/f3.txt"), wr("rl2.txt"), wr("ls1.txt"),
		rd("la.txt"), wr("lvs.json"), rd("free/lo.txt"), wr("free/lo2.txt"), wr("lfree.txt"), rd("lfree.txt")}
	var out []dcase
	for _, m := range []string{"default", "acceptEdits", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "files-symlinks-" + m, group: "files symlinks", paths: true, mode: mode,
			settings: Settings{Deny: []string{"Read(./secret/**)", "Read(~/hsecret/**)", "Edit(./locked/**)", "Read(./rlink.txt)",
				"Edit(./rl2.txt)"}, Ask: []string{"Read(./asked/**)", "Edit(./asked/**)"},
				Allow: []string{"Read(./free/**)", "Edit(./free/**)"}},
			files: symlinkFiles, links: symlinks,
			sessions: []session{root([][]probe{probes, edits})}})
	}
	// Grep and Glob (in the pool when --tools names them) through a
	// linked directory.
	search := []probe{{"Grep", map[string]any{"pattern": "s", "path": "ldir"}}, {"Glob", map[string]any{"pattern": "*", "path": "ldir"}},
		{"Glob", map[string]any{"pattern": projP + "/ldir/*"}}, {"Grep", map[string]any{"pattern": "f", "path": "lfd"}}}
	out = append(out, dcase{name: "files-symlinks-search", group: "files symlinks", paths: true, tools: "Read,Grep,Glob,Write,Edit,Bash",
		settings: Settings{Deny: []string{"Read(./secret/**)"}}, files: symlinkFiles, links: symlinks,
		sessions: []session{root([][]probe{search})}})
	return out
}

// bashSymlinkFiles are the files matrixBashSymlinks' links point at.
var bashSymlinkFiles = map[string]string{
	"secret/s.txt": "s\n", "locked/keep.txt": "k\n", "locked/k2.txt": "k\n", "free/f2.txt": "f\n", ".vscode/s.json": "{}\n",
	"../home/hsecret/h.txt": "h\n", "../outside/o.txt": "o\n", "../outside/o3.txt": "o\n", "../outside/od/.keep": "", "a.txt": "a\n",
}

// bashSymlinks are matrixBashSymlinks' links: path -> target.
var bashSymlinks = map[string]string{
	"ls1.txt":    "secret/s.txt",
	"ls2.txt":    BaseToken + "/project/secret/s.txt",
	"ldir":       "secret",
	"lchain.txt": "ls1.txt",
	"lh.txt":     BaseToken + "/home/hsecret/h.txt",
	"ll.txt":     "locked/keep.txt",
	"ll2.txt":    "locked/k2.txt",
	"lldir":      "locked",
	"lout.txt":   "../outside/o.txt",
	"lrm.txt":    "../outside/o3.txt",
	"lod":        "../outside/od",
	"lfd":        "free",
	"lfree.txt":  "free/f2.txt",
	"lvd":        ".vscode",
}

// matrixBashSymlinks: the paths of Bash commands through symbolic links
// (dialect section 0.2 row 41): reads (a command's files, an input
// redirection, cp's source, after a cd) through links into a directory a
// Read deny rule names; writes (touch, mkdir, rm, cp, sed -i, tee, output
// redirections) through links into one an Edit deny rule names; and
// links that lead out of the project or to a protected directory, which
// the read-only scope and acceptEdits read.
func matrixBashSymlinks() []dcase {
	probes := shs(
		// Reads under Read(./secret/**), Read(~/hsecret/**).
		"cat ls1.txt", "cat ldir/s.txt", "head -1 lchain.txt", "cat ls2.txt", "cat lh.txt", "wc -l < ls1.txt",
		"grep s ldir/s.txt", "cp ls1.txt cpl.txt", "cd ldir && cat s.txt", "sort ldir/*",
		// Writes under Edit(./locked/**).
		"touch lldir/t1.txt", "echo x > lldir/t2.txt", "echo x >> ll.txt", "mkdir lldir/m1", "cp a.txt lldir/c1.txt",
		"sed -i s/k/x/ ll.txt", "tee lldir/t3.txt < a.txt", "rm ll2.txt",
		// Out of the project, or protected, through a link.
		"cat lout.txt", "touch lod/t5.txt", "echo x > lod/r1.txt", "mkdir lod/m2", "touch lvd/p.json",
		"echo x > lvd/p2.json", "rm lrm.txt",
		// Inside, through a link that stays inside.
		"cat lfree.txt", "touch lfd/t4.txt", "echo x > lfd/r2.txt", "cat lfd/f2.txt",
		// Globs whose matches are links (2.1.328 does not read a glob's
		// matches through links: the dialect, which sees no file system, agrees).
		"cat ls?.txt", "cat ls*", "head -1 lc*.txt", "wc -l ls[12].txt", "cat l{s1,free}.txt", "grep s l*.txt", "cat *.txt", "cat ld*/s.txt")
	var out []dcase
	for _, m := range []string{"default", "acceptEdits", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "files-symlinks-bash-" + m, group: "files symlinks", paths: true, mode: mode,
			settings: Settings{Deny: []string{"Read(./secret/**)", "Read(~/hsecret/**)", "Edit(./locked/**)"}},
			files:    bashSymlinkFiles, links: bashSymlinks,
			sessions: []session{root([][]probe{probes})}})
	}
	return out
}
