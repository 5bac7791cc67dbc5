package claudecodetest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// genUserRuleCases draws cases of about n calls in all: each case has
// random Read and Edit allow, ask and deny rules (genPathRule, and rules
// anchored at HOME and at the user's Claude Code directory), each written
// either in the user's settings or in the project's, and reads, writes,
// globs and Bash reads of files in the project and under HOME, in
// default mode and acceptEdits. A rule of the user's settings that the
// dialect anchors elsewhere than the release does shows as a call that
// runs on one side only: an allow anchored too widely is a fail-open.
func genUserRuleCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x05e7))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	files := maps.Clone(genPathFiles)
	for _, f := range []string{"gp/a.txt", "gp/x/a.txt", "gp/b.md", "gp/.env"} {
		files["../home/"+f] = "h\n"
		files["../home/.claude/"+f] = "c\n"
	}
	project := slices.Sorted(maps.Keys(genPathFiles))
	homeRule := func() string {
		return pick([]string{"~/gp/", "~/", "~/.claude/gp/", "~/**/", "/", "./", ""}) + pick([]string{"**", "*.txt", "a.txt", "x/**", ".env", "*"})
	}
	var out []dcase
	for c := 0; n > 0; c++ {
		var user, proj Settings
		add := func(list func(*Settings) *[]string, rule string) {
			s := &proj
			if r.IntN(3) > 0 {
				s = &user
			}
			*list(s) = append(*list(s), rule)
		}
		allow := func(s *Settings) *[]string { return &s.Allow }
		ask := func(s *Settings) *[]string { return &s.Ask }
		deny := func(s *Settings) *[]string { return &s.Deny }
		rule := func() string {
			if r.IntN(3) == 0 {
				return homeRule()
			}
			return genPathRule(r)
		}
		for range 1 + r.IntN(3) {
			add(allow, pick([]string{"Read(", "Edit(", "Edit("})+rule()+")")
		}
		if r.IntN(2) == 0 {
			add(ask, pick([]string{"Read(", "Edit("})+rule()+")")
		}
		for range r.IntN(3) {
			add(deny, pick([]string{"Read(", "Edit("})+rule()+")")
		}
		var probes []probe
		for range 36 {
			var f string
			switch k := r.IntN(6); {
			case k < 3:
				f = respell(r, pick(project), 5, func(f string) string { return "gp/x/../" + strings.TrimPrefix(f, "gp/") })
			case k < 5:
				f = homeP + "/" + pick([]string{"gp/a.txt", "gp/x/a.txt", "gp/b.md", "gp/.env"})
			default:
				f = homeP + "/.claude/" + pick([]string{"gp/a.txt", "gp/x/a.txt", "gp/b.md", "gp/.env"})
			}
			switch k := r.IntN(10); {
			case k < 4:
				probes = append(probes, rd(f))
			case k < 8:
				// Writes of new files: an Edit of a file the session
				// could not read, or edited already, is refused before
				// anything is asked, which tells nothing.
				probes = append(probes, wr(newName(f)))
			case k == 8:
				probes = append(probes, globAt("*", path.Dir(f)))
			default:
				// Claude Code's PermissionRequest gives a file tool's
				// "~/" path expanded, which the harness cannot pair with
				// its call: HOME is spelled "~" in Bash only.
				probes = append(probes, sh("cat "+strings.Replace(f, homeP, "~", 1)))
			}
		}
		n -= 2 * len(probes)
		out = append(out, filesCases(fmt.Sprintf("gen-user%d", c), "generated user rules", []string{"default", "acceptEdits"}, "",
			user, proj, files, [][]probe{probes})...)
	}
	return out
}

// genUserHomeFiles are files under HOME, protected ones among them, that
// the cases below read.
var genUserHomeFiles = map[string]string{"../home/.git/config": "g\n", "../home/.bashrc": "b\n", "../home/.vscode/s.json": "{}\n",
	"../home/.config/git/config": "g\n", "../home/.claude/worktrees/w.txt": "w\n", "../home/.gitconfig": "g\n",
	"../home/.Claude/a.txt": "c\n", "../home/sub/.mcp.json": "{}\n", "../home/.config/other/a.txt": "o\n",
	"../home/gp/a.txt": "h\n", "../home/.claude/gp/a.txt": "c\n"}

// matrixGenUserEditRead: reads, globs and greps under HOME, protected
// paths among them, under an Edit allow rule over HOME or the whole disk,
// and under a Read one (gen-user seed 1).
func matrixGenUserEditRead() []dcase {
	var probes []probe
	for _, f := range slices.Sorted(maps.Keys(genUserHomeFiles)) {
		probes = append(probes, rd(homeP+"/"+strings.TrimPrefix(f, "../home/")))
	}
	probes = append(probes, globAt("*", homeP+"/.claude/worktrees"), globAt("*", homeP+"/.git"), grepAt("g", homeP+"/.git", ""),
		grepAt("g", homeP+"/.gitconfig", ""), grepAt("o", homeP+"/.config/other", ""))
	var out []dcase
	for _, c := range []struct{ name, rule string }{{"home", "Edit(~/**)"}, {"root", "Edit(//**)"}, {"read", "Read(~/**)"}} {
		out = append(out, filesCases("genuser-edit-protected-read-"+c.name, "generated user rules", []string{"default"}, "", Settings{},
			Settings{Allow: []string{c.rule}}, genUserHomeFiles, [][]probe{probes})...)
	}
	return out
}

// matrixGenUserBashRead: cat of files under HOME, outside the working
// directories, under Edit and Read allow rules, in the project's settings
// and the user's (gen-user seed 1).
func matrixGenUserBashRead() []dcase {
	probes := []probe{sh("cat ~/gp/a.txt"), sh("cat ~/.claude/gp/a.txt"), sh("cat ~/.gitconfig"), sh("cat ~/.config/other/a.txt"),
		sh("head -1 " + homeP + "/gp/a.txt"), sh("wc -l < ~/gp/a.txt"), rd(homeP + "/gp/a.txt")}
	var out []dcase
	for _, c := range []struct {
		name       string
		user, proj Settings
	}{
		{"edit", Settings{}, Settings{Allow: []string{"Edit(~/gp/**)", "Edit(~/.gitconfig)"}}},
		{"edit-user", Settings{Allow: []string{"Edit(~/**)"}}, Settings{}},
		{"read", Settings{}, Settings{Allow: []string{"Read(~/gp/**)", "Read(~/.gitconfig)"}}},
		{"read-user", Settings{Allow: []string{"Read(~/**)"}}, Settings{}},
	} {
		out = append(out, filesCases("genuser-bash-read-"+c.name, "generated user rules", []string{"default", "acceptEdits"}, "",
			c.user, c.proj, genUserHomeFiles, [][]probe{probes})...)
	}
	return out
}

// genScopeCases draws cases of about n calls in all: each case spreads
// random Bash, Read, Edit and WebFetch allow, ask and deny rules, a
// defaultMode now and then and additional directories over the three
// settings files (the user's, the project's and the local one), runs
// without --permission-mode in most cases, and makes reads, writes, Bash
// commands and fetches in the project, an added directory and HOME. The
// dialect's permissions are what 'ledger policy import' makes of the three
// files (dcase.scopes): a call that runs on one side only is the import
// merging the scopes otherwise than the release does.
func genScopeCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x5c0e))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	rules := []string{"Bash(ls *)", "Bash(touch *)", "Bash(cat *)", "Bash(rm *)", "Bash", "Bash(git status)", "Read(./gp/**)",
		"Read(~/gp/**)", "Read(../extra/**)", "Edit(./gp/**)", "Edit(../extra/**)", "Edit(~/gp/**)", "Edit(/gp/**)", "Read(/gp/a.txt)",
		"Edit", "Read", "Write", "WebFetch(domain:example.com)", "WebFetch", "Edit(*.txt)", "Read(**/.env)", "Edit(gp/x/**)",
		"Read(e.txt)", "Edit(e_new.txt)", "Read(*.txt)", "Read(./sub/**)", "Edit(r*.txt)", "Bash(cp *)", "Bash(sed *)"}
	modes := []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "manual"}
	dirs := []string{"../extra", "~/gp", "gp", "../extra/", "~/../home/gp"}
	files := map[string]string{"gp/a.txt": "a\n", "gp/x/b.txt": "b\n", "gp/.env": "e\n", "../extra/e.txt": "e\n", "../home/gp/h.txt": "h\n",
		"../extra/sub/s.txt": "s\n", "gp/e.txt": "e\n", "gp/sub/s.txt": "s\n", "../home/gp/e.txt": "e\n"}
	var out []dcase
	for c := 0; n > 0; c++ {
		var scopes [3]Settings // user, project, local
		for range 2 + r.IntN(4) {
			s := &scopes[r.IntN(3)]
			switch k := r.IntN(6); {
			case k < 3:
				s.Allow = append(s.Allow, pick(rules))
			case k < 4:
				s.Ask = append(s.Ask, pick(rules))
			default:
				s.Deny = append(s.Deny, pick(rules))
			}
		}
		for i := range scopes {
			if r.IntN(4) == 0 {
				scopes[i].DefaultMode = pick(modes)
			}
			if r.IntN(5) == 0 {
				scopes[i].AdditionalDirectories = append(scopes[i].AdditionalDirectories, pick(dirs))
			}
		}
		var probes []probe
		for range 30 {
			f := pick([]string{"gp/a.txt", "gp/x/b.txt", "gp/.env", "../extra/e.txt", homeP + "/gp/h.txt", projP + "/gp/a.txt"})
			switch k := r.IntN(8); {
			case k < 3:
				probes = append(probes, rd(f))
			case k < 5:
				probes = append(probes, wr(newName(f)))
			case k < 6:
				probes = append(probes, sh(pick([]string{"ls ", "cat ", "touch ", "rm "})+strings.Replace(f, homeP, "~", 1)))
			case k < 7:
				d := pick([]string{"../extra", "gp", "~/gp", "../extra/sub"})
				probes = append(probes, sh(pick([]string{"cd " + d + " && cat e.txt", "echo x > " + d + "/r1.txt", "cat < " + d + "/e.txt",
					"cp gp/a.txt " + d + "/c1.txt", "sed -n p " + d + "/e.txt", "cat " + d + "/sub/s.txt", "touch " + d + "/sub/t2.txt"})))
			default:
				probes = append(probes, probe{"WebFetch", map[string]any{"url": pick([]string{"https://example.com/x", "https://other.org/y"}), "prompt": "p"}})
			}
		}
		mode := ""
		if r.IntN(4) == 0 {
			mode = pick([]string{"acceptEdits", "plan"})
		}
		out = append(out, dcase{name: fmt.Sprintf("gen-scopes%d", c), group: "generated scopes", paths: true, mode: mode,
			user: scopes[0], settings: scopes[1], local: scopes[2], scopes: true, files: withIssue25Files(files),
			sessions: []session{root([][]probe{probes})}})
		n -= len(probes)
	}
	return out
}

// matrixGenScopesDirs: deny, ask and allow path rules without a root of
// their own ("*.txt", "e.txt", "./sub/**"), rooted at the project
// ("/sub/**"), against reads, writes and Bash commands in an added
// directory of the settings and one of --add-dir, in default mode and
// bypassPermissions (gen-scopes seed 1).
func matrixGenScopesDirs() []dcase {
	files := map[string]string{"../extra/e.txt": "e\n", "../extra/sub/s.txt": "s\n", "../outside/o.txt": "o\n", "../extra2/f.txt": "f\n",
		"sub/p.txt": "p\n", "gp/a.txt": "a\n"}
	probes := []probe{wr("../extra/n1.txt"), wr("../extra/sub/n2.txt"), wr("gp/n3.txt"), wr("../outside/n4.txt"), wr("../extra2/n5.txt"),
		wr("../extra/sub/n6.md"), wr("sub/n7.md"), rd("../extra/e.txt"), rd("../extra/sub/s.txt"), rd("../outside/o.txt"), rd("../extra2/f.txt"),
		rd("sub/p.txt"), sh("rm ../extra/e.txt"), sh("cat ../extra/sub/s.txt"), sh("cat ../extra2/f.txt"), sh("touch ../extra/sub/t1.txt")}
	var out []dcase
	for _, c := range []struct {
		name string
		s    Settings
	}{
		{"deny-star", Settings{Deny: []string{"Edit(*.txt)"}}},
		{"deny-name", Settings{Deny: []string{"Read(e.txt)", "Read(f.txt)"}}},
		{"deny-dot", Settings{Deny: []string{"Edit(./sub/**)", "Read(./sub/**)"}}},
		{"deny-rooted", Settings{Deny: []string{"Edit(/sub/**)", "Read(/sub/**)"}}},
		{"ask", Settings{Ask: []string{"Edit(*.txt)", "Read(s.txt)"}}},
		{"allow", Settings{Allow: []string{"Edit(*.txt)", "Read(*.txt)"}}},
	} {
		c.s.AdditionalDirectories = []string{"../extra"}
		for _, m := range []string{"default", "bypassPermissions"} {
			out = append(out, dcase{name: "genscopes-dirs-" + c.name + "-" + m, group: "generated scopes", paths: true, mode: cliMode(m),
				settings: c.s, files: withIssue25Files(files), addDirs: []string{"../extra2"}, sessions: []session{root([][]probe{probes})}})
		}
	}
	return out
}

// matrixGenScopesBypass: defaultMode bypassPermissions in the user's,
// the project's or the local settings, beside another mode in another
// scope, with no --permission-mode; the dialect's permissions are what
// the import makes of the three files (gen-scopes seed 2).
func matrixGenScopesBypass() []dcase {
	files := map[string]string{"../outside/o.txt": "o\n", "gp/a.txt": "a\n"}
	probes := []probe{sh("touch gp/t1.txt"), wr("gp/n1.txt"), wr("../outside/n2.txt"), rd("../outside/o.txt"), sh("rm gp/a.txt")}
	var out []dcase
	for _, c := range []struct{ name, user, proj, local string }{
		{"project", "", "bypassPermissions", ""}, {"project-over-user", "acceptEdits", "bypassPermissions", ""},
		{"user", "bypassPermissions", "", ""}, {"user-under-project", "bypassPermissions", "acceptEdits", ""},
		{"local-over-user", "plan", "", "bypassPermissions"}, {"user-under-default", "bypassPermissions", "default", ""},
		{"local-over-accept", "acceptEdits", "", "bypassPermissions"}, {"local-over-project", "", "plan", "bypassPermissions"},
		// The user's own bypassPermissions grants the project's (gen-scopes
		// seed 10).
		{"project-and-user", "bypassPermissions", "bypassPermissions", ""}, {"local-and-user", "bypassPermissions", "plan", "bypassPermissions"},
		{"user-under-project-plan", "bypassPermissions", "plan", ""},
	} {
		out = append(out, dcase{name: "genscopes-bypass-" + c.name, group: "generated scopes", paths: true, scopes: true,
			user: Settings{DefaultMode: c.user}, settings: Settings{DefaultMode: c.proj}, local: Settings{DefaultMode: c.local},
			files: withIssue25Files(files), sessions: []session{root([][]probe{probes})}})
	}
	return out
}

// matrixGenScopesAcceptEdit: filesystem commands on paths outside the
// working directories that Edit (or Read) allow rules name, under HOME and
// relative to the project, protected ones among them, in acceptEdits and
// default mode (gen-scopes seed 5).
func matrixGenScopesAcceptEdit() []dcase {
	files := map[string]string{"../outside/o.txt": "o\n", "../outside/o2.txt": "o\n", "../home/gp/h.txt": "h\n", "../other/x.txt": "x\n",
		"gp/a.txt": "a\n"}
	probes := []probe{sh("touch ~/gp/t1.txt"), sh("touch ../outside/t2.txt"), sh("rm ../outside/o.txt"), sh("mkdir ../outside/d1"),
		sh("touch ../other/t3.txt"), sh("touch " + homeP + "/gp/t4.txt"), sh("touch gp/t5.txt ../outside/t6.txt"),
		sh("touch gp/t7.txt ../other/t8.txt"), sh("cp gp/a.txt ../outside/c1.txt"), sh("mv ../outside/o2.txt ../outside/m1.txt"),
		sh("touch ~/gp/.git/t9"), sh("touch ../outside/.bashrc"), sh("rm ~/gp/h.txt"), sh("touch ~/gp/t10.txt ~/other.txt")}
	var out []dcase
	for _, c := range []struct {
		name  string
		allow []string
	}{{"edit", []string{"Edit(~/gp/**)", "Edit(../outside/**)"}}, {"read", []string{"Read(~/gp/**)", "Read(../outside/**)"}}} {
		for _, m := range []string{"acceptEdits", "default"} {
			out = append(out, dcase{name: "genscopes-accept-" + c.name + "-" + m, group: "generated scopes", paths: true, mode: cliMode(m),
				settings: Settings{Allow: c.allow}, files: withIssue25Files(files), sessions: []session{root([][]probe{probes})}})
		}
	}
	return out
}

// matrixGenPathsDirSlash: path patterns that end in a slash (gitignore's
// directory patterns), in allow and deny rules, against files and
// directories of that name and what is under them (gen-paths seed 15).
func matrixGenPathsDirSlash() []dcase {
	files := map[string]string{"rx": "r\n", "gp/f.txt": "f\n", "dd.txt/in.md": "i\n", "rdir/a.md": "a\n", "dx/keep.txt": "k\n",
		"wx": "w\n", "wdir/b.txt": "b\n"}
	allow := []probe{wr("fx"), wr("sub/n.md"), wr("dx/n1.txt"), sh("touch fx2"), sh("touch dx/t1.txt"), wr("m1.md/n2.txt")}
	deny := []probe{rd("rx"), rd("gp/f.txt"), rd("dd.txt/in.md"), rd("rdir/a.md"), sh("cat rx"), sh("ls rdir"), globAt("*", "rdir"),
		grepAt("a", "rdir", ""), rd("wx"), wr("wx"), sh("touch wx"), wr("wdir/n3.txt"), sh("rm wdir/b.txt")}
	var out []dcase
	out = append(out, filesCases("genpaths-slash-allow", "generated path rules", []string{"default"}, "", Settings{},
		Settings{Allow: []string{"Edit(./fx/)", "Edit(**/*.md/)", "Edit(./dx/)", "Edit(fx2/)", "Bash(touch *)"}}, files, [][]probe{allow})...)
	out = append(out, filesCases("genpaths-slash-deny", "generated path rules", []string{"default", "acceptEdits"}, "", Settings{},
		Settings{Deny: []string{"Read(./rx/)", "Read(**/*.txt/)", "Read(./rdir/)", "Edit(./wx/)", "Edit(wdir/)"}}, files, [][]probe{deny})...)
	return out
}

// matrixRedirTargets: a word after a redirection's target, which Claude
// Code 2.1.328's parser may read as a second target of the redirection
// ("Redirect has multiple targets"), at the top level and inside
// substitutions, groups and compound commands (gen-allow seed 16).
func matrixRedirTargets() []dcase {
	// A Bash command runs first: until one has, the release asks for any
	// redirection inside an assignment's substitution (x=$(ls 2>/dev/null),
	// x=$(head -1 a.txt 2>/dev/null) ask as a session's first calls and
	// run after pwd has run), which the dialect does not model (section
	// 14 of the dialect document, "the CLI's shell before its first
	// command").
	probes := shs("pwd", "echo hi > /dev/null -x", "x=$(echo hi > /dev/null -x)", "echo $(echo hi > /dev/null -x)",
		"echo hi > /dev/null x y", "ls > /dev/null -la", "echo hi 2>/dev/null -n", "(echo hi > /dev/null -x)",
		"{ echo hi > /dev/null -x; }", "echo hi | cat > /dev/null -x", "echo hi > /dev/null -x && ls", "x=$(ls > /dev/null a.txt)",
		"echo \"$(cat a.txt > /dev/null b)\"", "if true; then echo hi > /dev/null -x; fi", "for i in 1; do echo hi > /dev/null -x; done",
		"echo hi >/dev/null -x", "echo hi > /dev/null 2>&1 -x", "cat < a.txt -n", "x=$(cat < a.txt -n)", "echo `echo hi > /dev/null -x`",
		"x=$(echo hi > /dev/null)", "x=$(echo hi 2>&1 -x)", "echo $(cat a.txt 2>/dev/null)", "x=$(ls > /dev/null)",
		"x=$(echo hi 2>/dev/null)", "x=$(ls 1>/dev/null)", "x=$(ls >/dev/null 2>&1)", "x=$(cat a.txt 2>/dev/null)",
		"x=$(echo hi >> /dev/null)", "x=$(ls 2> /dev/null -la)", "x=$(ls &> /dev/null)", "echo hi > /dev/null", "x=$(ls -la 2>/dev/null)",
		"x=$(ls 2>&1)", "x=$(ls 2>/dev/null a.txt)", "x=$(cat < a.txt)", "x=$(ls > o7.txt)", "x=$(ls 2> o8.txt)",
		"x=$(pwd 2>/dev/null)", "x=$(cat 2>/dev/null)", "x=$(echo 2>/dev/null)", "x=$(git status 2>/dev/null)", "x=$(ls a.txt 2>/dev/null)",
		"x=$(wc -l 2>/dev/null)", "x=$(echo -n 2>/dev/null)", "x=$(date 2>/dev/null)", "x=$(whoami 2>/dev/null)",
		"x=$(head -1 a.txt 2>/dev/null)", "x=$(ls -la 2>&1)", "x=$(cat a.txt 2>&1)", "x=$(echo hi 2>&1)", "x=$(cat a.txt < a.txt)",
		"x=$(wc -l < a.txt)", "x=$(ls 2>/dev/null && pwd)")
	return sh4Cases("redirtargets", "redirection targets", []string{"default"}, Settings{}, genFiles, probes)
}

// matrixGenCwdAnchors: path rules without a root of their own after a cd
// has moved the shell into a subdirectory: allow rules are read from the
// shell's directory, deny rules from it and from the project, rules
// rooted with / from the project (gen-scopes seed 17).
func matrixGenCwdAnchors() []dcase {
	files := map[string]string{"gp/a.txt": "a\n", "sub/s.txt": "s\n", "sub/x/k.txt": "k\n", "gp/sub/x/k.txt": "k\n", "gp/x/k.txt": "k\n",
		"gp/gp/k.txt": "k\n"}
	// The PreToolUse payloads of the first few calls after a cd still name
	// the old directory, and a call the CLI's tool refuses before its
	// PreToolUse takes the cwd of the call before it (run.go); so the
	// probes start after pwd, and the deny case makes its file calls,
	// which the tool may refuse, after Bash calls whose payloads name gp.
	allow := []probe{sh("cd gp && ls"), sh("pwd"), wr("../sub/n5.txt"), wr("n8.txt"), wr("x/n9.txt"), wr("../sub/x/n6.txt"), wr("sub/x/n10.txt"),
		wr("gp/n11.txt"), wr("../n12.md"), wr("n13.md"), wr(projP + "/gp/x/n14.txt")}
	deny := []probe{sh("cd gp"), sh("pwd"), rd("x/k.txt"), sh("cat sub/x/k.txt"), sh("cat ../sub/x/k.txt"), sh("touch sub/x/t1.txt"),
		rd("x/k.txt"), wr("n15.txt"), wr("../sub/x/n6.txt"), wr("sub/x/n10.txt"), rd("sub/x/k.txt"), rd("../sub/x/k.txt")}
	var out []dcase
	out = append(out, filesCases("gencwd-allow", "generated scopes", []string{"default"}, "", Settings{},
		Settings{Allow: []string{"Edit(/sub/**)", "Edit(gp/**)", "Edit(./x/**)", "Edit(*.md)"}}, files, [][]probe{allow})...)
	out = append(out, filesCases("gencwd-deny", "generated scopes", []string{"default", "acceptEdits"}, "", Settings{},
		Settings{Deny: []string{"Edit(sub/x/**)", "Read(sub/x/**)"}}, files, [][]probe{deny})...)
	return out
}

// matrixRuleSpaces: Bash rules written with a run of spaces inside, against
// commands written with the same run and with one space (gen-rules seed 23).
func matrixRuleSpaces() []dcase {
	probes := shs("echo  hi", "echo hi", "ls  -la", "ls -la", "touch  a1.txt", "touch a2.txt", "echo  hi there", "echo hi there",
		"wc  -l a.txt", "wc -l a.txt", "cat  a.txt", "head  -1 a.txt", "echo   hi", "echo\thi")
	s := Settings{Ask: []string{"Bash(echo  hi)", "Bash(wc  *)"}, Deny: []string{"Bash(ls  -la)", "Bash(head  -1:*)"},
		Allow: []string{"Bash(touch  a1.txt)", "Bash(touch  a2.txt)", "Bash(echo  hi:*)", "Bash(cat  *)"}}
	return sh4Cases("rulespaces", "generated Bash rules", []string{"default", "bypassPermissions"}, s, genFiles, probes)
}

// matrixTildeRedirects: redirections whose target or source starts with
// ~/, under Edit and Read allow rules over that part of HOME and with it
// added as a working directory, in acceptEdits, default mode and
// bypassPermissions (gen-scopes seed 19).
func matrixTildeRedirects() []dcase {
	files := map[string]string{"../home/gp/h.txt": "h\n"}
	probes := shs("echo x > ~/gp/r1.txt", "echo x >> ~/gp/r2.txt", "echo x 2> ~/gp/r3.txt", "cat < ~/gp/h.txt",
		"echo x > "+homeP+"/gp/r4.txt", "echo x > $HOME/gp/r5.txt", "cat ~/gp/h.txt", "echo x > ~/gp/r6.txt && ls", "ls > ~/gp/r7.txt")
	var out []dcase
	for _, c := range []struct {
		name string
		s    Settings
	}{
		{"rules", Settings{Allow: []string{"Edit(~/gp/**)", "Read(~/gp/**)"}}},
		{"dirs", Settings{AdditionalDirectories: []string{"~/gp"}}},
	} {
		out = append(out, sh4Cases("tilderedir-"+c.name, "generated scopes", []string{"acceptEdits", "default", "bypassPermissions"}, c.s,
			files, probes)...)
	}
	return out
}

// matrixEditDenySources: an Edit deny rule against the paths of cp, mv and
// sed that are only read (cp's sources, the files of sed -n p), those
// written (cp's destination, mv's source, sed -i's files), in default mode,
// acceptEdits and bypassPermissions (gen-scopes seeds 7, 18, 21).
func matrixEditDenySources() []dcase {
	files := map[string]string{"gp/a.txt": "a\n", "gp/b.txt": "b\n", "gp/m.txt": "m\n", "n0.txt": "n\n", "../home/gp/h.txt": "h\n"}
	probes := shs("cp gp/a.txt n1.txt", "sed -n p gp/a.txt", "sed -n 1p gp/b.txt", "cat gp/a.txt", "cp n0.txt gp/c.txt",
		"mv gp/m.txt n3.txt", "sed -i s/a/b/ gp/a.txt", "cp gp/a.txt gp/b.txt n4/", "sed p gp/a.txt",
		// A destination the shell expands keeps the sources Edit's
		// (gen-scopes seed 26).
		"cp gp/a.txt ~/gp/c1.txt", "cp n0.txt ~/gp/c2.txt", "cp gp/a.txt "+homeP+"/gp/c4.txt")
	return sh4Cases("editdenysrc", "generated scopes", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./gp/**)"}}, files, probes)
}

// matrixRedirNotOperand: cp, mv, sed and cat with their output
// redirected, under an Edit and a Read deny rule: a redirection is no
// operand of the command (gen seed 301 found cp a.txt locked/c1.txt 2>&1
// run where the release denies it).
func matrixRedirNotOperand() []dcase {
	files := map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n", "locked/keep.txt": "k\n"}
	probes := shs("cp a.txt locked/c1.txt 2>&1", "true && cp a.txt locked/c2.txt 2>&1", "cp a.txt locked/c3.txt > /dev/null",
		"cp a.txt locked/c4.txt 2>/dev/null", "cp 2>/dev/null a.txt locked/c5.txt", "cp a.txt n1.txt 2>&1",
		"cp a.txt secret/n2.txt 2>/dev/null", "cat a.txt > secret/o1.txt", "cat a.txt 2> secret/o2.txt",
		"cp secret/s.txt n3.txt 2>&1", "mv n9.txt locked/m1.txt 2>&1", "sed -n p a.txt > secret/o3.txt",
		"wc -l a.txt > locked/o4.txt", "cp a.txt secret/n5.txt")
	return sh4Cases("redirnotarg", "redirections", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./locked/**)", "Read(./secret/**)"}}, files, probes)
}

// matrixCommentNotOperand: cp, mv, rm and cat with a trailing comment,
// under an Edit and a Read deny rule: a comment's words are no operands
// (gen seed 305 found NODE_ENV=test timeout 5s nohup cp a.txt
// locked/c1.txt # c run where the release denies it).
func matrixCommentNotOperand() []dcase {
	files := map[string]string{"a.txt": "a\n", "n9.txt": "n\n", "secret/s.txt": "s\n", "locked/keep.txt": "k\n"}
	probes := shs("pwd", "NODE_ENV=test timeout 5s nohup cp a.txt locked/c1.txt # c", "cp a.txt locked/c2.txt # c",
		"cp a.txt locked/c3.txt #c d", "cp locked/keep.txt n1.txt # c", "cp a.txt n2.txt # locked/c4.txt",
		"cp a.txt locked/c5.txt '#' c", `cp a.txt locked/c6.txt \# c`, "mv n9.txt locked/m1.txt # c", "cat secret/s.txt # c",
		"echo hi # > locked/o1.txt", "rm # locked/keep.txt", "cp a.txt locked/c7.txt # -t x", "cp -v a.txt locked/c8.txt # c",
		"ls # c; cp a.txt locked/c9.txt", "cp a.txt locked/d1.txt#c", "timeout 5 cp a.txt locked/d2.txt # c",
		"cp secret/s.txt n3.txt # c", "cat a.txt # secret/s.txt", "cp a.txt n4.txt # c d e")
	return sh4Cases("cmtnotarg", "comments", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./locked/**)", "Read(./secret/**)"}}, files, probes)
}

// matrixCopySourceLiteral: a cp whose source an Edit deny rule covers,
// written with a wrapper, an assignment, an expansion or a path of the
// characters the release's literal-copy check refuses (gen seed 305 found
// NODE_ENV=test timeout 5s nohup cp a.txt locked/c1.txt # c run where the
// release denies it; its cli.js reads a cp's sources as reads only when
// the cp is written plainly).
func matrixCopySourceLiteral() []dcase {
	files := map[string]string{"gp/a.txt": "a\n", "gp/b.txt": "b\n", "gp/c.txt": "c\n", "gp/d.txt": "d\n", "n20/keep": "k\n"}
	probes := shs("pwd", "cp gp/a.txt n1.txt", "timeout 5 cp gp/a.txt n2.txt", "nohup cp gp/a.txt n3.txt", "FOO=1 cp gp/a.txt n4.txt",
		"cp gp/a.txt n=5.txt", "cp gp/a.txt 5", "cp gp/a.txt 'n6#.txt'", "cp gp/a.txt -- n7.txt", "cp -p gp/a.txt n8.txt",
		`cp "gp/a.txt" n9.txt`, "x=1; cp gp/a.txt n11.txt", "command cp gp/a.txt n13.txt", `\cp gp/a.txt n14.txt`,
		"/bin/cp gp/a.txt n15.txt", "cp gp/a.txt n^16.txt", "cp gp/a.txt @n17.txt", "cp gp/a.txt 'n 19.txt'",
		"cp gp/b.txt gp/a.txt n20/", "cp gp/a.txt n21.txt 2>/dev/null", "true && cp gp/a.txt n22.txt", "time cp gp/a.txt n23.txt",
		"cp gp/a.txt ./n24.txt", "cp ./gp/a.txt n25.txt", "cp gp/a.txt n27.txt # c", "cp gp/a.txt n28.txt '#'",
		"cp gp/a.txt n29.txt '#' c", "nice cp gp/a.txt n30.txt", "cp gp/a.txt 'n31.txt'", "cp gp/a.txt n32.txt\\*",
		"cp gp/a.txt n33[1].txt", "cp gp/a.txt -n34.txt", "cp -- gp/a.txt n35.txt", "cp -i gp/a.txt n36.txt", "cp -a gp/a.txt n37.txt",
		"cp gp/a.txt 37", "cp gp/a.txt 3.txt", "cp gp/a.txt _n38.txt", "cp gp/a.txt +n39.txt", "cp gp/a.txt é40.txt", "cp gp/a.txt n41.txt; echo $HOME",
		"LANG=C cp gp/a.txt n42.txt", "cp gp/a.txt $PWD/n43.txt", "cp gp/*.txt n20/", "cp gp/a.txt n44?.txt",
		"cd . && cp gp/a.txt n50.txt", "cd gp && cp a.txt ../n51.txt", "/usr/bin/rm gp/c.txt", "/bin/mv gp/d.txt n52.txt",
		"CP gp/a.txt n53.txt", "cp.exe gp/a.txt n54.txt", "./cp gp/a.txt n55.txt", "/bin/tee gp/t.txt < /dev/null", "cp -v gp/a.txt n56.txt",
		"cp -pv gp/a.txt n57.txt", "cp -f -n gp/a.txt n58.txt", "cp -r gp/a.txt n59.txt", "cp gp/a.txt 'n60.txt'")
	return sh4Cases("cpsrclit", "generated scopes", []string{"acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./gp/**)"}}, files, probes)
}

// matrixLinks: ln and link, which Claude Code 2.1.328 checks apart from
// the other writing commands (cli.js MMn: the paths a link names, with
// the deny rules left out), into and out of a directory an Edit deny rule
// covers, outside the project and onto protected paths.
func matrixLinks() []dcase {
	files := map[string]string{"gp/a.txt": "a\n", "n0.txt": "n\n", ".git/keep": "k\n", ".claude/keep": "k\n"}
	probes := shs("pwd", "ln gp/a.txt n1.txt", "ln -s gp/a.txt n2.txt", "ln n0.txt gp/l1.txt", "ln -s n0.txt gp/l2.txt",
		"ln -s /etc/hosts n4", "ln -s n0.txt ~/n5", "ln -s n0.txt ../outside/n6", "ln -sf n0.txt .claude/n10.json",
		"ln n0.txt .git/hooks-pre", "link n0.txt n7", "link n0.txt gp/l3.txt", "ln -s n0.txt .bashrc", "/bin/ln -s n0.txt gp/l4.txt",
		"ln -t gp n0.txt", "ln n0.txt", "ln -s ../x n8", "timeout 5 ln -s n0.txt gp/l5.txt", "ln -s n0.txt n9 && cat n9")
	return sh4Cases("lnpaths", "generated scopes", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./gp/**)"}}, files, probes)
}

// matrixBelow: rm, rmdir, mv and cp of a directory whose contents an
// Edit deny rule covers (the rule names the files below it, not the
// directory).
func matrixBelow() []dcase {
	files := map[string]string{}
	var deny []string
	for i := 1; i <= 12; i++ {
		files[fmt.Sprintf("g%d/a.txt", i)] = "a\n"
		deny = append(deny, fmt.Sprintf("Edit(./g%d/**)", i))
	}
	probes := shs("pwd", "rm -r g1", "rm -rf g2/", "rmdir g3", "mv g4 n4", "cp -r g5 n5", "rm -r ./g6", "rm -r g7/*", "mv g8/ n8",
		"rm -r g9/.", "cp -r n0 g10", "mv n0 g11", "rm -rf g12/..")
	return sh4Cases("rmbelow", "generated scopes", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: deny}, files, probes)
}

// matrixSedReadsLiteral: a read-only sed on files an Edit deny rule
// covers (row 104: its files are only read), written with a wrapper, an
// assignment, a path-named sed, a glob or a variable, as the cp of
// matrixCopySourceLiteral.
func matrixSedReadsLiteral() []dcase {
	files := map[string]string{"gp/a.txt": "a\n", "gp/b.txt": "b\n", "n0.txt": "n\n"}
	probes := shs("pwd", "sed -n p gp/a.txt", "timeout 5 sed -n p gp/a.txt", "nohup sed -n p gp/a.txt", "FOO=1 sed -n p gp/a.txt",
		"LANG=C sed -n p gp/a.txt", "command sed -n p gp/a.txt", "/bin/sed -n p gp/a.txt", `\sed -n p gp/a.txt`, "sed -n p gp/*.txt",
		"sed -n p 'gp/a.txt'", "sed -n p gp/a.txt 2>/dev/null", "true && sed -n p gp/a.txt", "sed -n 1p gp/a.txt # c",
		"sed -n p gp/a.txt > n1.txt", "sed -n -e p gp/a.txt", "nice sed -n p gp/a.txt", "time sed -n p gp/a.txt",
		"sed -n p gp/a.txt n0.txt", "sed -n '$p' gp/a.txt", "sed -n p $PWD/gp/a.txt", "sed -n p ./gp/a.txt", "sed -n p gp/b.txt | head -1",
		"cat n0.txt | sed -n p gp/a.txt", "sed -n p g?/a.txt", "sed -E -n p gp/a.txt", "sed -n p gp/a=b.txt", "sed -n p gp/{a,b}.txt",
		"nice sed -n p /etc/hostname", "nohup sed -n p n0.txt", "nohup sed -n p gp/a.txt > n2.txt", "nohup sed -n 1p gp/a.txt gp/b.txt",
		"time sed -n '/a/p' n0.txt", "nice sed -n p g*/a.txt", "nohup sed -n p ../outside/o.txt", "nice -n 5 sed -n p n0.txt")
	return sh4Cases("sedsrclit", "generated scopes", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Deny: []string{"Edit(./gp/**)"}}, files, probes)
}

// matrixWholeBashAllow: an output redirection under a specific Bash
// allow rule beside one that allows every command (Bash(*), bare Bash):
// gen-rules seed 30 found git diff > out1.txt run under Bash(git diff *)
// and Bash(*), where the dialect asked.
func matrixWholeBashAllow() []dcase {
	files := map[string]string{"a.txt": "a\n"}
	probes := shs("pwd", "git diff > o1.txt", "git diff HEAD > o2.txt", "echo hi > o3.txt", "git diff 2> o4.txt", "git diff >> o5.txt",
		"git diff > ../outside/o6.txt", "git diff | tee o7.txt", "git diff && echo x > o8.txt", "git diff > .claude/o9.txt")
	var out []dcase
	for name, allow := range map[string][]string{"wholebash-star": {"Bash(git diff *)", "Bash(*)"}, "wholebash-bare": {"Bash(git diff *)", "Bash"},
		"wholebash-only": {"Bash(git diff *)"}} {
		out = append(out, sh4Cases(name, "generated Bash rules", []string{"default"}, Settings{Allow: allow}, files, probes)...)
	}
	// The protected paths a bare rule does not open.
	files = map[string]string{"a.txt": "a\n", ".claude/keep": "k\n", ".git/keep": "k\n", ".vscode/keep": "k\n"}
	probes = shs("pwd", "echo hi > .claude/p1.txt", "echo hi > .git/p2", "touch .claude/p3", "echo hi > ~/.bashrc", "mkdir .claude/p4",
		"cp a.txt .git/p5", "echo hi > .vscode/p6.json", "echo hi >> .claude/keep", "git diff > .claude/p7.txt", "tee .git/p8 < a.txt",
		"rm .claude/keep", "mv a.txt .vscode/p9", "echo hi > sub/.claude/p10", "echo hi > .claude/../p11.txt", "sed -i s/k/x/ .git/keep",
		"cp .git/keep n12.txt", "cat .git/keep", "touch .mcp.json", "touch .npmrc", "echo x > .idea/w.xml", "touch sub/.husky/h",
		"mkdir -p .claude/worktrees/w1", "touch .gitignore", "cp a.txt n13.txt .git", "touch .claude", "echo x | tee -a .envrc")
	out = append(out, sh4Cases("wholebash-protected", "generated Bash rules", []string{"default", "bypassPermissions", "plan"}, Settings{Allow: []string{"Bash"}}, files, probes)...)
	out = append(out, sh4Cases("wholebash-protspec", "generated Bash rules", []string{"default"}, Settings{Allow: []string{"Bash(touch:*)", "Bash(mkdir:*)",
		"Bash(cp:*)", "Bash(rm:*)", "Bash(sed:*)", "Bash(tee:*)", "Bash(echo:*)", "Bash(git diff:*)", "Bash(mv:*)"}}, files, probes)...)
	out = append(out, sh4Cases("wholebash-protaccept", "generated Bash rules", []string{"acceptEdits"}, Settings{}, files, probes)...)
	slices.SortFunc(out, func(a, b dcase) int { return strings.Compare(a.name, b.name) })
	return out
}

// matrixGitRefOrder: git tag and git branch with a name before and after
// -l/--list, --merged and the options that take a value (gen-flags seed
// 305 found git tag newt --contains HEAD --list src run read-only).
func matrixGitRefOrder() []dcase {
	probes := shs("pwd", "git tag newt --contains HEAD --list src", "git tag --list newt", "git tag newt --list", "git tag -n 3 --list x",
		"git tag --sort=refname x", "git tag -- x", "git tag --list -- x", "git tag -nl x", "git tag --merged HEAD x", "git tag -l --contains HEAD x",
		"git branch --merged main", "git branch --merged main x", "git branch x --merged", "git branch --contains HEAD x", "git branch -l x",
		"git branch x -l", "git branch -- x", "git branch -a x", "git branch --no-merged=main x", "git branch --list -- x", "git branch -vl x",
		"git tag -n3 x", "git tag --format=%(refname) x", "git branch --sort=-committerdate --list x")
	return append(sh4Cases("gitreforder", "generated options", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes),
		sh4Cases("gitremoteshow", "generated options", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"},
			shs("pwd", "git remote show a.txt f1.txt", "git remote show update remove x /etc/hostname", "git remote show -n origin",
				"git remote show origin", "git remote show -n origin upstream", "git remote show -n -- origin", "git remote show -- -n origin",
				"git remote show -n a.txt", "git remote show -n _x-1", "git remote show -n -x", "git remote show -n", "git remote show -n origin -n"))...)
}

// matrixReadOnlyWritesProtected: commands of the read-only list that
// write a file named by an option or a second operand (rowrites), to the
// project, to a protected path and outside it, in every mode that runs
// some.
func matrixReadOnlyWritesProtected() []dcase {
	files := map[string]string{"a.txt": "a\n", ".claude/keep": "k\n", ".git/keep": "k\n"}
	probes := shs("pwd", "sort -o o1.txt a.txt", "sort -o .claude/o2 a.txt", "sort -o ../outside/o3.txt a.txt", "sort --output=o4.txt a.txt",
		"uniq a.txt o5.txt", "uniq a.txt .git/o6", "git diff --output=o7.txt", "git diff --output=.git/o8", "find . -maxdepth 0 -fprint o9.txt",
		"find . -maxdepth 0 -fprint .claude/o10", "sort -mo o11.txt a.txt", "sort a.txt -o o12.txt", "git log -1 --output=o13.txt",
		"date -f a.txt", "tree -o o14.txt", "tree -o .claude/o15")
	return append(sh4Cases("rowrites2", "read-only writes", []string{"default", "acceptEdits", "bypassPermissions"}, Settings{}, files, probes),
		sh4Cases("rowrites2-bare", "read-only writes", []string{"default"}, Settings{Allow: []string{"Bash"}}, files, probes)...)
}

// matrixSedCheck: sed -i s/a/b/ FILES in acceptEdits, with a first file
// BSD sed would read as the script and scripts the release's sed check
// refuses or passes (gen-w seed 301 found timeout 5 sed -i s/a/b/ 'a b.txt'
// approved where the release asks).
func matrixSedCheck() []dcase {
	files := map[string]string{"a.txt": "a\n", "a b.txt": "x\n", "s.txt": "s\n"}
	probes := shs("sed -i s/a/b/ 'a b.txt'", "sed -i s/a/b/ a.txt 'a b.txt'", "timeout 5 sed -i s/a/b/ 'a b.txt' # c",
		"sed -i s/a/b/ a.txt # c", "sed -i s/a/b/ s.txt", "sed -i s/a/b/ 1p.txt", "sed -i s/a/b/ d", "sed -i s/a/b/ r",
		"sed -i s/a/b/ x..y", "sed -i s/a/b/ ':x'", "sed -i s/a/b/ w.txt", "sed -i s/a/b/ y.txt", "sed -i s/a/b/ 'p;x'",
		"sed -i s/a/b/ '1 p'", "sed -i s/a/b/ e1.txt", "sed -i s/a/b/ my_file.txt", "sed -i s/a/b/ key.txt", "sed -i s/a/b/ =x",
		"sed -i s/a/b/ 'a[1]'", "sed -i s/a/b/ '#x'", "sed -i s/a/b/ 2,3p", "sed -i s/a/b/ sub/../a.txt",
		"sed -i s/a/b/ ab", "sed -i s/a/b/ sub/y.txt", "sed -i s/a/b/ test.txt", "sed -i s/a/b/ x=y", "sed -i s/a/b/ 1.txt",
		"sed -i s/a/b/ r.txt", "sed -i s/a/b/ ./e.txt", "sed -i s/a/b/ ./w.txt", "sed -i s/a/b/ 'x!'", "sed -i s/a/b/ yy",
		"sed -i 's/#/x/' a.txt", `sed -i 's/a\/b/c/' a.txt`, "sed -i 's/é/e/' a.txt", "sed -i 's/a{2}/b/' a.txt",
		"sed -i 's/!/x/' a.txt", "sed -i 's/a,-/b/' a.txt", `sed -i 's/as\.x/y/' a.txt`, "sed -i 's/a/b e/' a.txt",
		"sed -i 's/key/val/' a.txt", "sed -i 's/1~2/x/' a.txt", `sed -i 's/a\|b/c/' a.txt`, "sed -i 's/a;b/c/' a.txt",
		"sed -i 's/a/we/' a.txt", "sed -i 's/ee/ww/' a.txt", "sed -i 's/a!/b/' a.txt", "sed -i 's/y/z/' a.txt", "sed -i 's/a b/c/' a.txt")
	return sh4Cases("sedcheck", "sed", []string{"acceptEdits"}, Settings{}, files, probes)
}

// matrixTextCheckedWrappers: the read-only commands the release checks on
// the subcommand's text (git, grep, sed, sort, ...) behind assignments and
// wrappers, plainly written or not, beside the ones it checks on the
// words (ls, cat, head, docker ps) (gen seed 302 found LANG=C timeout 5s
// git log -1 approved where the release asks). pwd runs first (section 14).
func matrixTextCheckedWrappers() []dcase {
	files := map[string]string{"a.txt": "a\n"}
	probes := shs("pwd", "command git log -1", "\\command git log -1", "TZ=UTC command git log -1", "TZ=UTC \\command git log -1",
		"LANG=C timeout 5 git log -1", "LANG=C git log -1", "timeout 5 git log -1", "command timeout 5 git status",
		"timeout 5 command git status", "\\timeout 5 git log -1", "command -p git log -1", "'command' git log -1",
		"NO_COLOR=1 command git log -1", "LANG=C command git status", "for i in 1; do LANG=C timeout 5s git log -1; done",
		"LANG=C command grep x a.txt", "command grep x a.txt", "\\command grep x a.txt", "LANG=C timeout 5 sort a.txt",
		"timeout 5 sort a.txt", "LANG=C command sed -n 1p a.txt", "command sed -n 1p a.txt", "TZ=UTC command date",
		"TZ=UTC date", "LANG=C command tree", "\\command which ls", "command which ls", "LANG=C timeout 5 sha256sum a.txt",
		"LANG=C command file a.txt", "LANG=C command ls", "\\command ls", "LANG=C timeout 5 cat a.txt", "\\timeout 5 head -1 a.txt",
		"TZ=UTC command wc -l a.txt", "LANG=C command docker ps", "noglob git status", "builtin git status", "command -- git status",
		"LANG=C noglob git status")
	return sh4Cases("textwrap", "read-only wrappers", []string{"default"}, Settings{}, files, probes)
}

// matrixQuotedSpecials: the read-only list's commands checked on their
// words (cat, cut, tr, expr, nl, ...) with a quoted or escaped < > ( ) $ `
// | { } & ; in an argument, as real commands write them (cut -d';'), beside
// the same characters unquoted or expanding (gen-flags seeds 310 to 312
// found expr 1 \> 0 asked where the release runs it). pwd runs first.
func matrixQuotedSpecials() []dcase {
	files := map[string]string{"a.txt": "a;b|c\n", "a;b.txt": "x\n", "x(1).txt": "y\n", "d;1/k": "k\n"}
	probes := shs("pwd", `expr 1 \> 0`, "expr 1 '<' 2", "cat 'a;b.txt'", `cat a\;b.txt`, "cat 'x(1).txt'", `cat x\(1\).txt`,
		"cut -d';' -f1 a.txt", "cut -d '|' -f2 a.txt", "tr ';' ',' < a.txt", "tr '{}' '()' < a.txt", "paste -d'&' a.txt a.txt",
		"column -s'|' -t a.txt", "wc -l 'a&b'", "nl '{}'", "nl {} a.txt", "head -1 'a{b}.txt'", "basename 'a;b'",
		"cat 'a$b'", `cat \$HOME`, "cat 'a`b'", `cat a\>b`, `cat "a|b"`, `cat "a>b"`, "id -exec rm {} \\;", "expr 2 '*' 3",
		"cat \"a$b\"", "cat a.txt\\|wc", "stat -c '%n;%s' a.txt", "cut -f1 -d'}' a.txt", "cat '' a.txt", "rev 'a (b)'",
		"ls 'a;b.txt'", "ls x\\(1\\).txt", "ls 'a|b' 'd;1'", "ifconfig 'a;b'", "cat {a,b}.txt", "cat '{a,b}.txt'", "cd 'd;1'")
	return append(sh4Cases("quotedspecials", "read-only words", []string{"default"}, Settings{}, files, probes),
		sh4Cases("sedinplace", "sed", []string{"acceptEdits"}, Settings{}, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "a b.txt": "c\n"},
			shs("pwd", "sed --in-place s/a/b/ a.txt", "sed --in-place=.bak s/a/b/ b.txt", "sed -i s/a/b/ a.txt", "sed --in-place -e s/a/b/ a.txt",
				"sed -E --in-place s/a/b/ a.txt", "sed --in-place -n 1p a.txt", "sed --in-place s/a/b/ a.txt b.txt", "sed -E -i s/a/b/ a.txt",
				"sed -Ei s/a/b/ a.txt", "sed -iE s/a/b/ b.txt", "sed -i -i s/a/b/ a.txt", "sed -i s/a/b/10 a.txt", "sed -i s/a/b/0 a.txt",
				"sed -i s/a/b/m a.txt", "sed -i s/a/b/2g a.txt", "sed -i s/a/b/g2p a.txt", "sed -i ' s/a/b/' a.txt", "sed -r --posix -i s/a/b/ a.txt",
				"sed --in-place s/a/b/ 'a b.txt'", "sed -i -E s/a/b/ 'a b.txt'", "sed -i -- s/a/b/ a.txt", "sed s/a/b/ a.txt", "sed -E s/a/b/ a.txt",
				"sed --in-place s/a/b/ ../outside/o.txt", "sed -i s/a/b/ a.txt -E", "sed --regexp-extended -i s/a/b/ a.txt",
				"sed -i --in-place s/a/b/ a.txt", "sed -i s/a/b/1g2 a.txt", "sed -i 's/a/b/ ' a.txt"))...)
}

// matrixGlobTakers: the commands whose words may hold a glob (cli.js
// X4r) with one, and options their own checks refuse, beside the same
// options without a glob (gen-flags seed 312 found grep x --include=*.txt
// -nA2 -d recurse src asked where the release runs it). pwd runs first.
func matrixGlobTakers() []dcase {
	files := map[string]string{"a.txt": "a\nx\n", "b.txt": "b\n", "src/c.txt": "x\n", "s1/k": "k\n"}
	probes := shs("pwd", "grep -nA2 x *.txt", "grep -nA2 x a.txt", "grep x --include=*.txt -nA2 -d recurse src", "grep x -d recurse src",
		"grep -rnA3 x --include=*.txt .", "cat -Q *.txt", "ls -Z *.txt", "wc --files0-from=a.txt *.txt", "du --files0-from=a.txt *.txt",
		"sha256sum --check *.txt", "cat $HOME*.txt", "cat {a,b}*.txt", "grep -f a.txt x *.txt", "cut -c1 [ab].txt", "cat a[.txt",
		"head -c 5 '*.txt'", "stat --printf=%n *.txt", "diff -r a.txt b*.txt", "tr -d a *.txt", "od -w8 ?.txt", "echo -e *",
		"grep -E 'a|b' *.txt", "sort -u *.txt", "grep x --include='*.txt' -nA2 src", "cd s1 s*")
	return sh4Cases("globtakers", "read-only words", []string{"default"}, Settings{}, files, probes)
}

// matrixWrapperAllow: an allow rule that names a wrapper (timeout, nice,
// nohup, stdbuf, time, command) against what the wrapper runs: a write,
// a command no rule names, a path outside and a remove (gen-allow seed 29
// found timeout 5 touch locked/t3.txt asked under Bash(timeout:*) where
// the release runs it). pwd runs first.
func matrixWrapperAllow() []dcase {
	files := map[string]string{"a.txt": "a\n", "f1.txt": "1\n", "f2.txt": "2\n", "f3.txt": "3\n", "f4.txt": "4\n", "f5.txt": "5\n", "f6.txt": "6\n"}
	var out []dcase
	for i, w := range []struct{ name, rule, wrap string }{
		{"timeout", "Bash(timeout:*)", "timeout 5"}, {"nice", "Bash(nice:*)", "nice"}, {"nohup", "Bash(nohup:*)", "nohup"},
		{"stdbuf", "Bash(stdbuf:*)", "stdbuf -o0"}, {"time", "Bash(time:*)", "time"}, {"command", "Bash(command:*)", "command"},
		{"timeout5", "Bash(timeout 5:*)", "timeout 5"}, {"nicen", "Bash(nice -n 5:*)", "nice -n 5"},
	} {
		probes := shs("pwd", w.wrap+" touch t"+w.name+".txt", w.wrap+" npm run test", w.wrap+" rm f"+fmt.Sprint(i%6+1)+".txt",
			w.wrap+" touch ../outside/o"+w.name+".txt", w.wrap+" cat a.txt", w.wrap+" git status", w.wrap+" touch u"+w.name+".txt && ls",
			w.wrap+" npm test | cat", w.wrap+" bash -c 'ls'")
		out = append(out, sh4Cases("wrapallow-"+w.name, "wrapper rules", []string{"default"}, Settings{Allow: []string{w.rule}}, files, probes)...)
	}
	return out
}

// matrixGitReflog: git reflog's words as the release's check reads them
// (gen-flags seeds 313 and 314 found git reflog -n 1 a.txt and git reflog
// show -- a.txt asked where the release runs them). pwd runs first.
func matrixGitReflog() []dcase {
	probes := shs("pwd", "git reflog", "git reflog show HEAD", "git reflog HEAD", "git reflog show -- a.txt", "git reflog -n 1 a.txt",
		"git reflog show expire", "git reflog --all -- a.txt", "git reflog list", "git reflog exists HEAD", "git reflog -n 1 write",
		"git reflog show --format=%H", "git reflog show secret/s.txt", "git reflog drop", "git reflog -- show", "git reflog show main a.txt")
	return sh4Cases("gitreflog", "generated options", []string{"default"}, Settings{Deny: []string{"Read(./secret/**)"}},
		map[string]string{"a.txt": "a\n", "secret/s.txt": "s\n"}, probes)
}

// matrixEverydayReads: the commands an agent runs most to look around a
// project, written as agents write them, in default mode with no rule.
func matrixEverydayReads() []dcase {
	files := map[string]string{"a.txt": "a\nb\na\n", "b.txt": "b\n", "package.json": `{"name":"x","version":"1.0.0"}` + "\n",
		"src/main.go": "package main\n// TODO\n", "README.md": "# x\n"}
	probes := shs("pwd", "git log --oneline -10", "git diff --stat", "ls -la", `find . -name "*.go" -type f`,
		`grep -rn "func main" --include="*.go" .`, "wc -l *.txt", "head -50 README.md", "cat package.json | jq .version",
		"git show HEAD --stat", "git status --porcelain", "git branch -a", "git log --oneline --graph --all -20", "tree -L 2",
		"du -sh *", "ps aux | grep node", "which go", "node --version", "pwd && ls", "echo $PATH", "git rev-parse HEAD",
		"git rev-parse --abbrev-ref HEAD", "git remote -v", "git config --get remote.origin.url", "git ls-files | head",
		"git blame -L 1,2 a.txt", "sort a.txt | uniq -c | sort -rn | head", "awk '{print $1}' a.txt", "sed -n '1,20p' a.txt",
		"date +%Y-%m-%d", "uname -a", "nproc", "df -h .", "stat a.txt", "file a.txt", "md5sum a.txt", "diff a.txt b.txt",
		"jq -r '.name' package.json", "rg -n TODO", "git log -p -1 -- a.txt", "git diff HEAD~1 -- a.txt", "git tag -l",
		"find . -type f | wc -l", "grep -c a a.txt", "git log --format='%h %s' -5", "ls src/ && cat src/main.go",
		"cat a.txt | head -n 2", "grep -rn TODO src/ | head -20", "git diff --name-only", "find . -maxdepth 2 -type d",
		"ls -1 | wc -l", "head -n 5 a.txt b.txt", "tail -n 3 a.txt", "git log --since='2 weeks ago' --oneline", "env | sort | head",
		"printenv HOME", "echo \"done\"", "ls -la src/*.go", "cat -n a.txt", "grep -E '^a' a.txt", "git shortlog -sn | head",
		"go env GOPATH", "npm ls --depth=0", "git describe --tags --always", "basename $(pwd)", "realpath a.txt")
	return sh4Cases("everyday", "everyday reads", []string{"default"}, Settings{}, files, probes)
}

// matrixEverydayWrites: the commands an agent runs most to change a
// project, written as agents write them, in acceptEdits with no rule.
func matrixEverydayWrites() []dcase {
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n", "e.txt": "e\n", "run.sh": "echo hi\n",
		"build/x.o": "o\n", "src/main.go": "package main\n"}
	probes := shs("pwd", "mkdir -p src/pkg", "touch src/pkg/new.go", "rm a.txt", "mv b.txt b2.txt", "cp c.txt c2.txt",
		"sed -i 's/c/x/g' c2.txt", "echo x > out.txt", "echo y >> out.txt", "cat > gen.txt << 'EOF'\nhello\nEOF", "chmod +x run.sh",
		"rm -rf build/", "mkdir out && cd out", "echo z | tee t.txt", "ln -s d.txt d-link.txt", "git add .", `git commit -m "x"`,
		"git checkout -b feature", "git stash", "go build ./...", "go test ./...", "make", "python3 -c 'print(1)'", "npm test",
		"mkdir -p a/b/c && touch a/b/c/f.txt", "rm -f e.txt", "cp -r src src2", "mv src2 src3", "touch .env", "rm -r src3",
		"sed -i.bak 's/a/b/' out.txt", "printf 'x\\n' > p.txt", "rmdir a/b/c 2>/dev/null || true", "git restore a.txt",
		"unzip -l x.zip", "tar -czf o.tgz src", "echo done")
	return sh4Cases("everydaywrites", "everyday writes", []string{"acceptEdits"}, Settings{}, files, probes)
}

// matrixEverydayRules: a project's usual rules (npm scripts, git reads, go
// test, edits under src; .env, rm -rf and curl denied) against the
// commands agents run under them, in default mode and acceptEdits.
func matrixEverydayRules() []dcase {
	files := map[string]string{"a.txt": "a\n", ".env": "KEY=1\n", "src/main.go": "package main\n", "build/x.o": "o\n"}
	s := Settings{Allow: []string{"Bash(npm run *)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(go test:*)", "Edit(src/**)"},
		Deny: []string{"Read(./.env)", "Bash(rm -rf:*)", "Bash(curl:*)"}}
	probes := shs("pwd", "npm run build", "npm run test -- --watch=false", "git diff HEAD", "go test ./... -run X", "rm -rf build",
		"curl https://example.com", "cat .env", "grep KEY .env", "npm run lint && git diff", "FOO=1 npm run build",
		"timeout 60 go test ./...", "cd src && npm run build", "git log -5 | cat", "npm run build 2>&1 | tail -20",
		"source .env", "echo $(cat .env)", "rm -r -f build", "rm -fr build", "command curl -s x", "npm run build; curl x",
		"git diff > d.patch", "go test ./... -v 2>&1 | grep FAIL", "npm  run build", "sed -n 1p .env", "head .env",
		"git log --oneline | head -5", "npm run", "NODE_ENV=test npm run test", "go test -count=1 ./src/...", "touch src/new.go",
		"echo x > src/o.go", "echo x > o.txt")
	return sh4Cases("everydayrules", "everyday rules", []string{"default", "acceptEdits", "plan", "bypassPermissions"}, s, files, probes)
}

// matrixZeroToolsPlan: agents whose tools list disallowedTools empties,
// spawned in default and plan mode, where plan mode adds ExitPlanMode
// (gen-agents seed 25 found g2, tools Bash(git:*) and disallowedTools
// Bash(ls *), refused in plan mode where the dialect spawned it).
func matrixZeroToolsPlan() []dcase {
	files := agentFiles(Agent{Name: "z1", Tools: "Bash(git:*)", DisallowedTools: "Bash(ls *)"}, Agent{Name: "z2", Tools: "Read", DisallowedTools: "Read"},
		Agent{Name: "z3", Tools: "Bash(git:*)"}, Agent{Name: "z4", Tools: "Bash", DisallowedTools: "Bash"},
		Agent{Name: "z5", Tools: "Read, Bash", DisallowedTools: "Read"})
	calls := [][]probe{{rd("a.txt")}}
	var out []dcase
	for _, m := range []string{"default", "plan"} {
		out = append(out, dcase{name: "zerotools-" + m, group: "generated agents", mode: cliMode(m), paths: true, imported: true, files: files,
			sessions: []session{root(nil), child("z1", "z1", "main", calls), child("z2", "z2", "main", calls), child("z3", "z3", "main", calls),
				child("z4", "z4", "main", calls), child("z5", "z5", "main", calls)}})
	}
	return out
}

// matrixHomeArgs: $HOME (bare, quoted, braced, glued) and ~ among the words
// of read-only commands, those whose paths are checked and those whose
// are not, with HOME outside the working directories and added to them
// (gen-ro seeds 308 to 311: `id -r $HOME/notes.txt` runs in the CLI).
func matrixHomeArgs() []dcase {
	probes := shs("pwd", "id -r $HOME/notes.txt", "id $HOME", `id "$HOME"`, `id "$HOME/notes.txt"`, "id ${HOME}", "id '$HOME'",
		"id x$HOME", "id $HOME$HOME", "id $HOMEX", `id "$HOME"x`, "id ~/notes.txt", "id $HOME/*.txt", "basename $HOME",
		`dirname "$HOME/a"`, "basename ~", "realpath -S $HOME/notes.txt", "readlink -f $HOME/notes.txt", "which $HOME",
		"git ls-files $HOME/notes.txt", "git log -1 -- $HOME", "sort $HOME/notes.txt", "cat $HOME/notes.txt",
		`head -1 "$HOME/notes.txt"`, "wc -l $HOME/notes.txt", "ls $HOME", "ls $HOME/*.txt", "stat $HOME", "grep n $HOME/notes.txt",
		"rg n $HOME/notes.txt", "file $HOME/notes.txt", "date -r $HOME/notes.txt", "cd $HOME", "du -s $HOME", "tree $HOME",
		"sha256sum $HOME/notes.txt", "cut -c1 $HOME/notes.txt", "sed -n 1p $HOME/notes.txt", "diff a.txt $HOME/notes.txt",
		"find $HOME -maxdepth 0", "echo $HOME | cat", "cat ~/notes.txt", "cat a.txt $HOME/notes.txt", "uniq $HOME/notes.txt")
	files := map[string]string{"a.txt": "a\n"}
	out := sh4Cases("homeargs", "home in arguments", []string{"default"}, Settings{}, files, probes)
	return append(out, sh4Cases("homeargsadded", "home in arguments", []string{"default"}, Settings{AdditionalDirectories: []string{"../home"}}, files, probes)...)
}

// matrixDollarWords: a `$` the shell does not expand (single-quoted,
// escaped, a lone `$`) among the words of read-only commands whose paths
// are checked and of those whose are not, beside ${HOME}, other variables
// and substitutions.
func matrixDollarWords() []dcase {
	probes := shs("pwd", "id 'a$b'", `id \$HOME`, `id "\$HOME"`, "id 'a`b'", "basename 'a$b'", `basename "a\$b"`, "cat 'a$b'",
		"wc -l 'a$b'", `id "$HOME" "$HOME"`, "id $HOME; id", "stat -c '%n$' a.txt", "cut -d'$' -f1 a.txt", "tr '$' x < a.txt",
		"nl -s'$' a.txt", "echo '$x'", `id "a$"`, "id a$", "id $", "id '$(ls)'", `id "$(ls)"`, "id '${HOME}'", "uname -a '$x'",
		"ls 'a$b'", "ls $HOME/notes.txt", "basename $HOME/*", "cat $HOME/no*.txt", "id $PWD", `id "$PWD"`, "expr '$a' : x",
		"seq '$1'", "head -c1 'a$b'", "date -d '$x'", "sort -t'$' a.txt", "grep '$' a.txt", "grep 'a$' a.txt", "rg 'x$' a.txt",
		"sha256sum 'a$b'", "readlink '$x'", "id \"$HOME\"/x", "dirname ~/a", "id ~root", "id ~+", "du -s '$x'", "which '$x'",
		"git log -1 '$x'", "file 'a$b'", "tree 'a$b'", "echo a$")
	return sh4Cases("dollarwords", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixLoneDollar: a `$` that starts no expansion, unquoted, in double
// quotes and before each kind of character, in echo and in a command of
// the read-only list (dollarwords-default found `echo a$` asked for).
func matrixLoneDollar() []dcase {
	var cmds []string
	for _, w := range []string{"a$", "$", "$ x", "a$ b", "$.", "a$/b", "$%", "$-", "$,", "x$:y", "$/", "'$'", `"$"`, `"a$ b"`,
		"$'a'", `$"a"`, "a$$", "$@x", "a$.b", "$]", "$}", "${", "$~", "$\\x", "a\\$", `"$."`, `"$/x"`, `"x$,"`, "$1x", "a$;", "$#x",
		"a $ b"} {
		cmds = append(cmds, "echo "+w, "basename "+w)
	}
	probes := shs(append([]string{"pwd"}, cmds...)...)
	out := sh4Cases("lonedollar", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
	return append(out, sh4Cases("lonedollarallowed", "home in arguments", []string{"default"},
		Settings{Allow: []string{"Bash(echo:*)", "Bash(basename:*)"}}, map[string]string{"a.txt": "a\n"}, probes)...)
}

// matrixReadStar: Read(*) and Read(**) as deny and ask rules, in the
// project's settings and the user's, against writes of new files, edits,
// notebook edits, reads, globs, greps and cat, in the project and HOME
// (gen-user seed 17: deny Read(*) refuses Write).
func matrixReadStar() []dcase {
	files := map[string]string{"a.txt": "a\n", "e1.txt": "e\n", "sub/e2.txt": "e\n", "n.ipynb": `{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}` + "\n",
		"../home/h.txt": "h\n"}
	// No NotebookEdit, and no Edit where an ask leaves its file unread:
	// the CLI refuses those before any hook, which tells nothing.
	probes := []probe{wr("n1.txt"), wr("sub/n2.txt"), wr(homeP + "/n3.txt"), rd("a.txt"), ed("e1.txt"), ed("sub/e2.txt"),
		rd(homeP + "/h.txt"), globAt("*", projP), grepAt("a", projP, ""), sh("cat a.txt"), sh("touch t1.txt"), sh("echo x > o1.txt")}
	var out []dcase
	for _, c := range []struct {
		name       string
		user, proj Settings
	}{
		{"deny", Settings{}, Settings{Deny: []string{"Read(*)"}}},
		{"denyuser", Settings{Deny: []string{"Read(*)"}}, Settings{}},
		{"denyall", Settings{}, Settings{Deny: []string{"Read(**)"}}},
		{"ask", Settings{}, Settings{Ask: []string{"Read(*)"}}},
	} {
		p := probes
		if c.name == "ask" {
			p = slices.DeleteFunc(slices.Clone(probes), func(x probe) bool { return x.tool == "Edit" })
		}
		out = append(out, filesCases("readstar-"+c.name, "generated user rules", []string{"default", "acceptEdits"}, "", c.user, c.proj,
			files, [][]probe{p})...)
	}
	return out
}

// matrixOddWords: echo and basename with words the shell reads in odd ways
// (a lone '!', '#', '%', '^', '=', brackets and braces alone, a trailing
// backslash, extended globs, history and arithmetic forms), where a lone
// '$' was found too complex (lonedollar-default).
func matrixOddWords() []dcase {
	var cmds []string
	for _, w := range []string{"a!b", "!", "a!", "!x", "#x", "a#b", `\#`, "%", "a%b", "^", "a^b", "a=b=c", "=", "a[", "[", "]", "a]",
		"{a", "a}", "{", "}", "{}", "{a}", "a\\", `\`, `a\ b`, `'a'"b"`, "@(a|b)", "!(a)", "+(a)", "a,b", "a:b", "a@b", "@", "-",
		"--", "a..b", "..", "~+", "~-", "a~", "~a", "\\\\", "a\\\"b", "'", "a'b'", "$((1+2))", "$((1+x))", "a*", "?", "[a]", "a;", ";",
		"a&&b", "a||b", "a>", ">a", "a<b", "(a)", "a)", ")"} {
		cmds = append(cmds, "echo "+w, "basename "+w)
	}
	probes := shs(append([]string{"pwd"}, cmds...)...)
	return sh4Cases("oddwords", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixParseErrors: the words Claude Code's parser refuses (a lone '=',
// a trailing backslash, a redirection without a target: oddwords-default)
// in more places and commands.
func matrixParseErrors() []dcase {
	probes := shs("pwd", "echo =", "echo = x", "echo x = y", "echo ==", "echo =x", "echo x=", "echo '='", `echo \=`, "echo a =b",
		"ls =", "cat a.txt =", "wc -l = a.txt", "git log =", "npm test =", "echo x; echo =", "echo = | cat", "[ a = b ]", "test a = b",
		"[[ a = b ]]", "[[ a == b ]]", "A= echo x", "echo x=1 =", "echo += x", "echo =+",
		`echo a\`, `echo a \`, `ls \`, `cat a.txt \`, `echo a\\`, `echo 'a\'`, `echo "a\\"`,
		"echo a>", "echo a >", "ls >", "echo a 2>", "echo a >>", "echo a <", "cat <", "echo a &>", "echo a >|", "echo a > ;", "echo a >&",
		"echo a 2>&", "echo a > && ls", "echo x | ", "echo x &&", "echo x ||", "echo x;;", "; echo x", "echo x | | cat")
	return sh4Cases("parseerrors", "home in arguments", []string{"default", "bypassPermissions"}, Settings{Allow: []string{"Bash(npm test:*)"}},
		map[string]string{"a.txt": "a\n"}, probes)
}

// matrixShellOdds: reserved words as arguments, array assignments,
// descriptors past 9 and named ones, operators doubled or left at an end,
// and blank lines around a command, in echo, ls and cat (the parser's
// refusals of parseerrors-default, looked for further).
func matrixShellOdds() []dcase {
	probes := shs("pwd", "echo if", "echo then fi", "echo done", "echo case esac", "echo in", "echo function", "echo select", "echo time",
		"echo coproc", "echo [[", "echo ]]", "ls ]]", "ls fi", "cat done", "echo !", "echo a ! b", "echo !!", "echo a=(1 2)", "A=(1 2)",
		"A=(1 2) ls", "echo a 3>&-", "echo a 10>/dev/null", "echo a {fd}>/dev/null", "echo a >/dev/null >/dev/null", "echo a 1>/dev/null",
		"echo a 2>&1 >/dev/null", "echo a |& cat", "echo a & & ls", "echo a &; ls", "echo a && && ls", "echo a ; ; ls", "echo a || || ls",
		"echo a\n\n", "\necho a", "echo a\n\nls", "echo a # b", "echo a;# b", "# c\necho a", "echo a\\\nb", "echo é", "echo a–b",
		"echo ((", "echo ))", "echo a(b", "(echo a)", "( echo a )", "((1))", "echo $((1))x", "echo a >> /dev/null 2>&1", "echo -- -",
		"echo a; }", "{ echo a; }", "{ echo a }", "echo a | { cat; }", "! echo a", "! ls", "echo a | ! cat", "time echo a", "echo a;",
		"echo a &", "ls &", "echo a & ls", "echo 'a' 'b'", "echo a''b", `echo a""b`, "echo ''", `echo ""`, "echo '' x",
		"echo a10>/dev/null", "ls 12<a.txt", "echo a 1&>/dev/null", "echo a 10>>/dev/null", "echo 10 >/dev/null", "echo a 10>&1",
		"cat 0<a.txt", "cat 00<a.txt", "echo a;#b", "echo a && # b", "echo a\n# c", "#!/bin/sh\necho a", "ls # c; rm a.txt")
	return sh4Cases("shellodds", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixMisreadings: the shapes Claude Code 2.1.328's parser lists as
// read otherwise by a shell (cli.js Elr: text after an = or a # inside a
// test, a # in a for list, a bracket word, brace text read again) and the
// other refusals its messages name (declarations behind assignments, two
// directory changes, a cd with two directories), beside forms it reads.
func matrixMisreadings() []dcase {
	probes := shs("pwd", "[[ a =b ]]", "[[ a = b ]]", "[[ a != #x ]]", "[ 1 -eq #1 ]", "[[ -n #x ]]", "[[ a =~ b ]]", "[[ a == #x ]]", "[ a = #x ]", "[[ a = b#c ]]", "[ a = b ] #c",
		"for i in a #b\ndo echo $i; done", "for i in a b; do echo $i; done", "for i in a#b; do echo x; done", "select i in a #b; do break; done",
		"echo a[b]c", "echo [a]", "echo a{b}c", "echo {a,b}", "echo {1..3}", "echo {a..c}", "echo {1..3}x", "echo x{a,b}", "echo {a,b}{c,d}",
		"echo {a,'b'}", "echo {a,$HOME}", `echo {a,"b"}`, "echo {1..a}", "echo {01..03}", "echo {a,b", "echo a,b}", "echo {,a}", "echo {a,}",
		"A=1 export B", "A=1 declare B", "A=1 local B", "A=1 readonly B", "A=1 typeset B", "if true; then A=1 export B; fi",
		"cd a b", "cd . && cd .", "cd .; cd .", "cd . && ls", "cd -", "cd ~", "cd", "pushd .", "popd", "echo a=b[c]", "echo x=[a]",
		"ls -- -a", "ls ./-a", "echo -", "echo --", "echo ~+", "echo x:~/a", "echo a=~", "echo ~/a:~/b", "printf %s ~", "echo $((16#ff))",
		"echo $((1<<2))", "echo $(( 1 > 2 ))", "let x=1", "echo ${#}", "echo $#", "true && false || true")
	files := map[string]string{"a.txt": "a\n", "a/x.txt": "x\n", "b/y.txt": "y\n"}
	return sh4Cases("misreadings", "home in arguments", []string{"default"}, Settings{}, files, probes)
}

// matrixPatternBuiltins: declarations and the builtins that read their
// words as names or numbers (cli.js w3r: export, unset, set, shift, read,
// wait, jobs, printf, ...) given an unquoted glob or a ~ word, with no
// rule, under rules naming them and under a bare Bash rule ("A pattern or
// ~ word here may become an option, a variable name or a number").
func matrixPatternBuiltins() []dcase {
	probes := shs("pwd", "export a*", "export ~x", "export A=1 b*", "unset a*", "unset ~", "declare a*", "readonly a*", "set *",
		"set -- *", "set -- a*", "shift *", "read a* < a.txt", "wait *", "jobs *", "printf %s *", "printf %s ~", "printf '%s\\n' a*",
		"getopts ab a*", "typeset a*", "echo *", "export A", "unset A", "set -- a b", "read x < a.txt", "printf %s a.txt", "wait",
		"export 'a*'", `unset a\*`, "printf %s '*'", "break *", "return *", "printf a* x", "unset -v a?", "unset -f a.b", "export A+",
		`export "A"`, "declare x=a[1]")
	rules := Settings{Allow: []string{"Bash(export:*)", "Bash(unset:*)", "Bash(declare:*)", "Bash(readonly:*)", "Bash(set:*)",
		"Bash(shift:*)", "Bash(read:*)", "Bash(wait:*)", "Bash(jobs:*)", "Bash(printf:*)", "Bash(getopts:*)", "Bash(typeset:*)",
		"Bash(break:*)", "Bash(return:*)"}}
	files := map[string]string{"a.txt": "a\n", "ab.txt": "b\n"}
	out := sh4Cases("patternbuiltins", "home in arguments", []string{"default"}, Settings{}, files, probes)
	out = append(out, sh4Cases("patternbuiltinsallowed", "home in arguments", []string{"default"}, rules, files, probes)...)
	return append(out, sh4Cases("patternbuiltinsbare", "home in arguments", []string{"default"}, Settings{Allow: []string{"Bash"}}, files, probes)...)
}

// matrixCompoundForms: loops, conditionals, case, functions, subshells,
// here-documents and here-strings around read-only commands, each written
// as agents write them, with no rule.
func matrixCompoundForms() []dcase {
	probes := shs("pwd", "for f in a.txt b.txt; do cat \"$f\"; done", "for f in *.txt; do wc -l \"$f\"; done", "for i in 1 2 3; do echo $i; done",
		"for i in $(seq 3); do echo x; done", "while read l; do echo \"$l\"; done < a.txt", "if [ -f a.txt ]; then cat a.txt; fi",
		"if [ -f a.txt ]; then cat a.txt; else echo no; fi", "[ -f a.txt ] && cat a.txt", "test -d sub || echo none",
		"case x in x) echo y;; esac", "case \"$1\" in a) echo a;; *) echo b;; esac", "f() { cat a.txt; }; f", "function f { ls; }",
		"(cd sub && ls)", "{ ls; cat a.txt; }", "cat <<EOF\nhi\nEOF", "cat <<'EOF'\n$HOME\nEOF", "cat <<-EOF\n\thi\n\tEOF",
		"grep a <<< \"abc\"", "wc -l <<< 'x'", "cat <<EOF > /dev/null\nx\nEOF", "until true; do ls; done", "while false; do ls; done",
		"select x in a; do break; done", "for ((i=0;i<2;i++)); do echo $i; done", "if ls; then :; fi", ": > /dev/null", ":",
		"true; false", "ls | while read f; do echo \"$f\"; done", "ls | head -1 | xargs cat", "cat a.txt | sort | uniq -c",
		"diff <(sort a.txt) <(sort b.txt)", "echo $(cat a.txt)", "echo \"$(ls)\"", "x=$(cat a.txt); echo \"$x\"", "ls && echo ok || echo no",
		"[[ -f a.txt ]] && echo y", "[[ $(cat a.txt) == a ]]", "if [[ -n \"$HOME\" ]]; then echo h; fi", "for f in sub/*; do echo \"$f\"; done",
		"find . -name '*.txt' | while read f; do wc -l \"$f\"; done", "cat a.txt 2>/dev/null || true", "ls -la | grep txt | wc -l")
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\n"}
	return sh4Cases("compoundforms", "home in arguments", []string{"default"}, Settings{}, files, probes)
}

// matrixFilePathSpellings: Read and Write with file paths spelled oddly: a
// literal $HOME or ${HOME}, ~user and ~+, doubled slashes, . and ..
// segments, a trailing slash or blank, a leading blank, a file: URL, a
// percent escape, a backslash (gen-paths' spellings, looked for further).
func matrixFilePathSpellings() []dcase {
	// ~/ paths, a path through a file (a.txt/x) and a blank at either
	// end in default mode are refused by the CLI before any hook, which
	// tells nothing: they are left out, the blanks kept in acceptEdits
	// (pathtrim).
	var probes []probe
	for _, f := range []string{"$HOME/h.txt", "${HOME}/h.txt", "~root/x.txt", "~+/a.txt", projP + "//a.txt", projP + "/./a.txt",
		"sub/../a.txt", projP + "/sub/../../outside/o.txt", "file://" + projP + "/a.txt", "%2e%2e/outside/o.txt",
		`sub\a.txt`, "./sub//c.txt", "sub/./c.txt", projP + "/sub/..", ".", "..", homeP + "/../project/a.txt",
		"$PWD/a.txt", "../project/a.txt"} {
		probes = append(probes, rd(f), wr(newName(f)))
	}
	probes = append(probes, rd("a.txt/"), rd(" a.txt"), rd("a.txt "), rd("a.txt\t"), rd("sub/c.txt/."))
	files := map[string]string{"a.txt": "a\n", "sub/c.txt": "c\n", "../home/h.txt": "h\n", "../outside/o.txt": "o\n"}
	out := filesCases("pathspellings", "generated user rules", []string{"default", "acceptEdits"}, "", Settings{}, Settings{}, files, [][]probe{probes})
	return append(out, filesCases("pathtrim", "generated user rules", []string{"acceptEdits"}, "", Settings{}, Settings{}, files,
		[][]probe{{wr(" a_new.txt"), wr("a_new.txt "), wr("a_new.txt\t")}})...)
}

// matrixWindowsPatterns: writes to paths Claude Code 2.1.328 calls a
// suspicious Windows path pattern (a segment ending in a dot or a blank, a
// ~ and a digit, a DOS device suffix, a run of three dots, a device
// prefix), by Write and by Bash, in every mode that approves writes, and
// under an Edit allow rule (pathspellings-acceptEdits: Write _new. asks).
func matrixWindowsPatterns() []dcase {
	var probes []probe
	// "x. " and "//./x.txt" are refused by the CLI before any hook.
	for _, f := range []string{"x.", "sub./y.txt", "PROGRA~1.txt", "a~1/b.txt", "x.nul", "x.CON", "a.com1", ".../x.txt", "x/.../y.txt",
		"nul", "con.txt", "x..", "a /b.txt", "/??/x.txt", "ok.txt", "a~b.txt", "x.nul.txt", "..x.txt", "x...txt"} {
		probes = append(probes, wr(f))
	}
	probes = append(probes, shs("touch t.", "touch t~1.txt", "echo x > r.", "touch t.nul", "mkdir d.", "mkdir -p m/.../n", "touch ok2.txt",
		"cp ok.txt c.", "echo x > o~2.txt")...)
	var out []dcase
	out = append(out, filesCases("winpatterns", "generated user rules", []string{"default", "acceptEdits", "bypassPermissions"}, "", Settings{},
		Settings{}, nil, [][]probe{probes})...)
	return append(out, filesCases("winpatternsrule", "generated user rules", []string{"default"}, "", Settings{},
		Settings{Allow: []string{"Edit(**)", "Bash(touch:*)", "Bash(mkdir:*)"}}, nil, [][]probe{probes})...)
}

// matrixWindowsReads: reads of existing files whose paths name a Windows
// pattern (winpatterns-* asks for writing them), by Read, Grep, Glob and
// cat, in default mode and under a Read allow rule.
func matrixWindowsReads() []dcase {
	files := map[string]string{"x.": "x\n", "PROGRA~1.txt": "p\n", "a~1/b.txt": "b\n", "x.nul": "n\n", "sub./y.txt": "y\n", "ok.txt": "o\n"}
	var probes []probe
	for _, f := range []string{"x.", "PROGRA~1.txt", "a~1/b.txt", "x.nul", "sub./y.txt", "ok.txt"} {
		probes = append(probes, rd(f), sh("cat "+f), grepAt("x", f, ""))
	}
	probes = append(probes, globAt("*", projP+"/sub."), globAt("*", projP+"/a~1"))
	out := filesCases("winreads", "generated user rules", []string{"default", "bypassPermissions"}, "", Settings{}, Settings{}, files, [][]probe{probes})
	return append(out, filesCases("winreadsrule", "generated user rules", []string{"default"}, "", Settings{},
		Settings{Allow: []string{"Read(**)"}}, files, [][]probe{probes})...)
}

// matrixProtectedSpellings: writes to protected names spelled as Claude
// Code 2.1.328 still reads them (cli.js Za: a ':' suffix dropped, the
// invisible format characters removed, a dotless i read as i), by Write
// and by Bash, in acceptEdits.
func matrixProtectedSpellings() []dcase {
	names := []string{".bashrc:x", ".git:x/config", ".g\u0131t/config", ".ba\u200bshrc", ".vs\u200dcode/x.json", ".bashrc\u200f", "x\u200b.txt",
		".npmrc:y", ".\u0131dea/x.xml", ".claude:z/settings.json", "a:b.txt", ".gitconfig\u202e", ".config/g\u0131t/config",
		".config/git:x/config"}
	var probes []probe
	for _, n := range names {
		probes = append(probes, wr(n))
	}
	for i, n := range names[:5] {
		probes = append(probes, sh(fmt.Sprintf("touch '%s'", n)), sh(fmt.Sprintf("echo %d > '%s'", i, n)))
	}
	return filesCases("protspell", "generated user rules", []string{"acceptEdits"}, "", Settings{}, Settings{}, nil, [][]probe{probes})
}

// matrixBackground: the & background operator, under a bare Bash rule, a
// rule naming the command, in acceptEdits and bypassPermissions ("This
// command uses the `&` background operator, which defers execution past
// approval-time safety checks").
func matrixBackground() []dcase {
	probes := shs("pwd", "ls &", "sleep 1 &", "ls & ls", "(ls &)", "{ ls & }", "ls &>/dev/null", "ls && ls", "nohup ls &", "ls & wait",
		"touch b1.txt &", "npm test &", "echo a & echo b", "ls &\nls", "ls 2>&1 &", "ls & disown", "echo '&'", "echo a\\&b")
	out := sh4Cases("background", "background", []string{"default", "acceptEdits", "bypassPermissions"}, Settings{}, nil, probes)
	out = append(out, sh4Cases("backgroundbare", "background", []string{"default"}, Settings{Allow: []string{"Bash"}}, nil, probes)...)
	return append(out, sh4Cases("backgroundrule", "background", []string{"default"},
		Settings{Allow: []string{"Bash(ls:*)", "Bash(sleep:*)", "Bash(npm test:*)", "Bash(touch:*)", "Bash(echo:*)"}}, nil, probes)...)
}

// matrixBlockReads: permissions.blockReadsOutsideWorkingDirectories, with
// reads outside the working directories by every read tool and by Bash,
// under Read allow rules, in default mode, acceptEdits and
// bypassPermissions.
func matrixBlockReads() []dcase {
	probes := []probe{rd("/etc/hostname"), rd("../outside/o.txt"), rd(homeP + "/notes.txt"), rd("a.txt"), sh("cat /etc/hostname"),
		sh("cat ../outside/o.txt"), sh("cat a.txt"), sh("ls /"), sh("cd .. && ls"), sh("pwd"), grepAt("o", "/r/outside", ""),
		globAt("*", "/etc"), sh("head -1 ~/notes.txt"), sh("git log -1"), sh("echo x > ../outside/w.txt"), wr("../outside/n.txt"),
		sh("cat < /etc/hostname"), sh("cat $X"), sh("cd"), sh("cat < /dev/null"), sh("cat a.txt ../outside/o.txt")}
	files := map[string]string{"a.txt": "a\n", "../outside/o.txt": "o\n", "../home/notes.txt": "n\n"}
	var out []dcase
	for _, c := range []struct {
		name string
		s    Settings
	}{{"none", Settings{BlockReads: true}}, {"rules", Settings{BlockReads: true, Allow: []string{"Read(//etc/**)", "Read(../outside/**)", "Bash(cat:*)"}}},
		{"bare", Settings{BlockReads: true, Allow: []string{"Read", "Bash"}}}} {
		out = append(out, filesCases("blockreads-"+c.name, "generated user rules", []string{"default", "acceptEdits", "bypassPermissions"}, "",
			Settings{}, c.s, files, [][]probe{probes})...)
	}
	return out
}

// matrixDangerousFlags: options of read-only commands that run a program
// or write a file (rg --pre, sort --compress-program, git diff --output,
// date -s, ...), spelled every way, with no rule.
func matrixDangerousFlags() []dcase {
	probes := shs("pwd", "rg --pre=cat a a.txt", "rg --pre cat a a.txt", "rg --pre-glob '*' a a.txt", "rg -z a a.txt", "rg --search-zip a a.txt",
		"sort --compress-program=cat a.txt", "sort -o o1.txt a.txt", "sort --output=o2.txt a.txt", "git diff --output=o3.txt",
		"git log --output=o4.txt -1", "git show --output=o5.txt", "date -s 2020-01-01", "date --set=2020-01-01", "date -f a.txt",
		"tree -o o6.txt", "file -C -m x", "grep -f a.txt a.txt", "git blame --contents=a.txt a.txt", "git grep --open-files-in-pager=cat a",
		"git grep -O cat a", "git log --ext-diff -1", "git diff --ext-diff", "git diff --textconv", "git show --textconv HEAD",
		"git log -p --textconv -1", "hostname x", "hostname -F a.txt", "rg --hostname-bin=cat a", "fd -x cat", "fd --exec cat",
		"fd -X cat", "fd --exec-batch cat", "git config --get user.name", "git config user.name", "git config --list",
		"git config --global --list", "git ls-remote --upload-pack=cat origin", "git archive --remote=x HEAD", "diff --to-file=a.txt a.txt",
		"uniq a.txt o7.txt", "tee o8.txt < a.txt", "wc --files0-from=a.txt", "du --files0-from=a.txt", "lsof -F", "pgrep -F a.txt x")
	return sh4Cases("dangerflags", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixFetchHosts: WebFetch URLs whose host is spelled oddly (a trailing
// dot, a port, upper case, user info, a longer or shorter name, IDN, an IP
// form), against the preapproved hosts and a domain rule.
func matrixFetchHosts() []dcase {
	var probes []probe
	for _, u := range []string{"https://docs.python.org./3/", "https://DOCS.PYTHON.ORG/3/", "https://docs.python.org:443/3/",
		"http://docs.python.org/3/", "https://user@docs.python.org/3/", "https://docs.python.org.evil.test/", "https://evil.test/docs.python.org/",
		"https://go.dev./doc/", "https://go.dev:8443/doc/", "https://example.com./x", "https://EXAMPLE.com/x", "https://sub.example.com/x",
		"https://example.com:8080/x", "https://example.com.evil.test/x", "https://xn--exmple-cua.com/x", "https://exämple.com/x",
		"https://example.com%2e/x", "https://example.com\\@evil.test/", "https://developer.mozilla.org./en-US/"} {
		probes = append(probes, fetch(u))
	}
	return sh4Cases("fetchhosts", "home in arguments", []string{"default"}, Settings{Allow: []string{"WebFetch(domain:example.com)"}}, nil, probes)
}

// matrixZshShapes: the shapes Claude Code 2.1.328's parser says a shell
// may read past where it ends a word (cli.js Elr: bracket_word,
// brace_text_read_again, quoted_code_in_subscript, pattern_flag), in echo
// and ls with no rule.
func matrixZshShapes() []dcase {
	probes := shs("pwd", "echo a[b", "ls [ab]*(x)", "echo foo[1](x)", "echo a(b)", "echo *(.)", "ls *(N)", "echo {a,b}'c'", "echo {a,b}\"c\"",
		"echo {a,'b'}", "echo x{a,b}`ls`", "echo {1..3}'x'", "echo 'a'{1..2}", "echo ${a['x']}", "echo \"${a[$(ls)]}\"", "echo $a['x']",
		"echo ${~x}", "echo $~x", "echo a[1]'b'", "echo '['a", "echo [a]'b'", "ls a.txt[1]", "echo a[[b]]", "echo @(a)", "echo !(a)",
		"echo ?(a)", "echo +(a)", "echo a\\[b", "echo {a,b}\\x", "echo x={a,b}")
	return sh4Cases("zshshapes", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixGitReads: git subcommands agents run to look around, with their
// common options, with no rule.
func matrixGitReads() []dcase {
	probes := shs("pwd", "git config --get user.name", "git config --get-regexp user", "git stash list", "git stash show", "git worktree list",
		"git remote -v", "git remote get-url origin", "git rev-parse HEAD", "git rev-parse --show-toplevel", "git rev-parse --abbrev-ref HEAD",
		"git ls-tree HEAD", "git ls-tree -r --name-only HEAD", "git cat-file -p HEAD", "git cat-file -t HEAD", "git for-each-ref",
		"git describe --tags", "git shortlog -sn", "git blame a.txt", "git grep -n a", "git status --porcelain", "git status -sb",
		"git diff --stat", "git diff --cached", "git diff HEAD~1..HEAD", "git log --graph --oneline -5", "git log --all --oneline",
		"git branch -r", "git branch -a", "git branch -vv", "git tag --points-at HEAD", "git symbolic-ref HEAD", "git merge-base HEAD HEAD",
		"git rev-list --count HEAD", "git name-rev HEAD", "git count-objects -v", "git fsck", "git show-ref", "git ls-files -o",
		"git check-ignore a.txt", "git var GIT_EDITOR", "git show HEAD:a.txt", "git show --stat HEAD", "git log -S a --oneline",
		"git diff --name-status", "git reflog -5", "git log --format=%H -1", "git whatchanged -1", "git help log", "git version")
	return sh4Cases("gitreads", "home in arguments", []string{"default"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixBlockWrites: permissions.blockWritesOutsideWorkingDirectories, with
// file-tool writes outside the working directories and to the settings
// files inside them, Bash writes, under Edit allow rules, in default mode,
// acceptEdits and bypassPermissions.
func matrixBlockWrites() []dcase {
	probes := []probe{wr("../outside/n1.txt"), wr(homeP + "/n2.txt"), wr("/tmp/ledger-bw-n3.txt"), wr("n4.txt"), wr(".claude/settings.json"),
		wr(".claude/settings.local.json"), wr(".claude/n5.md"), rd("e.txt"), ed("e.txt"), sh("echo x > ../outside/b1.txt"), sh("touch ../outside/b2.txt"), sh("touch b3.txt"), sh("cat ../outside/o.txt")}
	files := map[string]string{"e.txt": "old\n", "../outside/o.txt": "old\n"}
	var out []dcase
	for _, c := range []struct {
		name string
		s    Settings
	}{{"none", Settings{BlockWrites: true}}, {"rules", Settings{BlockWrites: true, Allow: []string{"Edit(//**)", "Edit", "Write", "Bash"}}}} {
		out = append(out, filesCases("blockwrites-"+c.name, "generated user rules", []string{"default", "acceptEdits", "bypassPermissions"}, "",
			Settings{}, c.s, files, [][]probe{probes})...)
	}
	return out
}

// matrixDenyInstead: permissions.denyInsteadOfPrompting in the user's
// settings and in the project's, against calls that would ask, that run
// and that a rule denies, in default mode, acceptEdits and plan mode. The
// dialect is given no such key (the importer drops it): under it the
// release still takes a call that would prompt to its PermissionRequest
// hooks, and denies it only when none answers ("no approval surface"), so
// the check's answer is the same ask.
func matrixDenyInstead() []dcase {
	probes := []probe{sh("pwd"), sh("npm test"), sh("touch d1.txt"), wr("d2.txt"), rd("a.txt"), rd("../outside/o.txt"), sh("rm a.txt"),
		fetch("https://example.com/"), sh("git status")}
	files := map[string]string{"a.txt": "a\n", "../outside/o.txt": "o\n"}
	var out []dcase
	for _, c := range []struct {
		name       string
		user, proj Settings
	}{{"user", Settings{DenyInstead: true, Deny: []string{"Bash(rm:*)"}}, Settings{}},
		{"project", Settings{Deny: []string{"Bash(rm:*)"}}, Settings{DenyInstead: true}}} {
		out = append(out, filesCases("denyinstead-"+c.name, "generated user rules", []string{"default", "acceptEdits", "plan"}, "", c.user, c.proj,
			files, [][]probe{probes})...)
	}
	return out
}

// matrixTildeWords: ~ forms among the words of read-only commands whose
// paths are checked and of those whose are not, beside $HOME's (row 119).
func matrixTildeWords() []dcase {
	probes := shs("pwd", "id ~", "id ~/notes.txt", "id ~root", "id ~+", "id x~", "id '~'", `id \~`, "git ls-files ~/notes.txt", "which ~",
		"git log -1 -- ~", "tree ~", "du -s ~", "basename ~/a", "realpath ~", "date -r ~/notes.txt", "grep n ~/notes.txt", "sort ~/notes.txt",
		"id ~/*.txt", "echo ~", "echo ~/x", "echo ~root", "id a=~/x", "id --x=~/y", "id :~/z")
	return sh4Cases("tildewords", "home in arguments", []string{"default"}, Settings{AdditionalDirectories: []string{"../home"}},
		map[string]string{"a.txt": "a\n"}, probes)
}

// matrixHomeRedirects: $HOME and ~ in redirections and in the operands of
// commands that write, with HOME a working directory, in acceptEdits
// (row 119 reads $HOME in a read-only command's words).
func matrixHomeRedirects() []dcase {
	probes := shs("pwd", "cat < $HOME/notes.txt", `cat < "$HOME/notes.txt"`, "cat < ~/notes.txt", "wc -l < $HOME/notes.txt",
		"echo x > $HOME/o1.txt", "echo x > ~/o2.txt", "touch $HOME/t1.txt", "touch ~/t2.txt", `touch "$HOME/t3.txt"`, "mkdir $HOME/d1",
		"cp a.txt $HOME/c1.txt", "rm $HOME/notes.txt", "sed -i s/n/m/ $HOME/notes.txt", "echo x | tee $HOME/o3.txt")
	files := map[string]string{"a.txt": "a\n"}
	return sh4Cases("homeredirects", "home in arguments", []string{"acceptEdits"}, Settings{AdditionalDirectories: []string{"../home"}}, files, probes)
}

// matrixInputConcat: input redirections whose source joins an unquoted
// expansion to other text with no blank after the operator, in braces, in
// a [[ ]] comparison and in a here-string, beside the sources the release
// reads as paths, and output targets of the same shapes, with HOME a
// working directory, in acceptEdits (row 127; TestInputConcat).
func matrixInputConcat() []dcase {
	probes := shs("pwd", "cat <$HOME/notes.txt", "wc -l <$HOME/notes.txt", "cat < ${HOME}/notes.txt", "cat <${HOME}/notes.txt",
		`cat <"$HOME"/notes.txt`, "cat < $HOME", "cat 0<$HOME/notes.txt", "cat < a$X", "cat < a.txt$X", "cat <<< $HOME/notes.txt",
		"[[ a < $HOME/x ]]", "cat <a.txt", `cat < "$HOME/notes.txt" a.txt`, `cat < '$a'a.txt`, "cat <&$X", `cat < "$HOME"`,
		`cat < "a"$X`, `cat < \$HOME/notes.txt`, `cat < 'a.txt'`, `cat < "a".txt`, `echo x > "$HOME"/o4.txt`, "echo x > $HOME",
		`echo x >'$a'b.txt`, "echo x >&$X", `echo x > "$HOME/o5.txt"`, "echo a 2>$HOME/e.txt", `echo a > "$HOME"`, "echo a > a$.txt",
		"cat < `echo a.txt`", `cat < "a$"`, "cat < a.t$")
	files := map[string]string{"a.txt": "a\n"}
	return sh4Cases("inputconcat", "home in arguments", []string{"acceptEdits"}, Settings{AdditionalDirectories: []string{"../home"}}, files, probes)
}

// matrixBlockWritesCase: permissions.blockWritesOutsideWorkingDirectories
// against settings files named in another case and below a subdirectory
// (row 126; TestWriteBlock).
func matrixBlockWritesCase() []dcase {
	probes := []probe{wr("sub/.claude/settings.json"), wr("sub/.Claude/Settings.json"), wr(".claude/Settings.json"),
		wr(".CLAUDE/settings.local.json"), wr("sub/.claude/other.json"), wr("n6.txt")}
	return filesCases("blockwritescase", "generated user rules", []string{"default", "acceptEdits", "bypassPermissions"}, "",
		Settings{}, Settings{BlockWrites: true}, map[string]string{"a.txt": "a\n"}, [][]probe{probes})
}

// matrixRedirReader: the redirection targets and shapes the release's
// redirect reader refuses (cli.js: a target starting with ! or =, holding
// a newline, after >& or <& starting with -, a >& target outside
// [A-Za-z0-9./_-], an {fd} variable, text after a here-document's start,
// a second target) beside the plain forms, in acceptEdits, default mode
// and bypassPermissions, and under rules naming the commands and a bare
// Bash rule.
func matrixRedirReader() []dcase {
	probes := shs("pwd", "echo a > '!x1.txt'", "echo a > =x2.txt", "echo a > '=x3.txt'", "cat < '=a.txt'", "cat < '!a.txt'",
		"echo a >&-x", "echo a >&'a b.txt'", "echo a >&a+b.txt", "echo a >&x4.txt", "echo a >& x5.txt", "echo a &> x6.txt",
		"echo a {fd}>x7.txt", "cat {fd}<a.txt a.txt", "echo a >$'x8\\ny.txt'", "echo a > \"x9\ny.txt\"", "cat <<EOF a.txt\nhi\nEOF",
		"cat < a.txt b.txt", "echo a > o1.txt o2.txt", "cat <&- a.txt", "echo a >&2", "echo a 2>&1", "echo a >&- x", "echo a >| x10.txt",
		"echo a <> x11.txt", "echo a >> x12.txt", "echo a 2>>x13.txt", "echo a > x14.txt 2>&1", "echo a >&1 x15", "cat <a.txt >x16.txt",
		"echo a >'x17.txt'", "echo a >\"x18.txt\"", "echo a > ./-x19.txt", "echo a > -x20.txt", "echo a >&~/x21.txt", "echo a > '~x22.txt'",
		"[[ a > '=b' ]]", "[[ a < '!b' ]]")
	files := map[string]string{"a.txt": "a\n"}
	return slices.Concat(sh4Cases("redirreader", "home in arguments", []string{"acceptEdits", "default", "bypassPermissions"}, Settings{}, files, probes),
		sh4Cases("redirreaderrule", "home in arguments", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)", "Bash([[:*)"}}, files, probes),
		sh4Cases("redirreaderbash", "home in arguments", []string{"default"}, Settings{Allow: []string{"Bash"}}, files, probes))
}

// matrixComplexForms: forms from the release's list of lines too complex to
// check (cli.js: escaped blanks, zsh's ~[ ], =cmd and <N-M>, braces with
// quotes, here-document delimiters, an option word with an expansion,
// $[ ] in quotes, zsh's $+ $= $~ flags, a tilde in an assigned value,
// IFS, a test missing its right side, [[ ]] patterns and regexes zsh
// splits) beside plain forms, under rules naming the commands and a bare
// Bash rule, in acceptEdits and in bypassPermissions.
func matrixComplexForms() []dcase {
	probes := shs("pwd", `echo a\ b`, `cat a\ .txt`, "echo ~[x]", "echo =ls", "echo a<1-3>", "ls a<1-2>.txt", "echo {a,'b'}", `echo {"a",b}`,
		"cat <<EOF\nhi\nEOF", "cat <<'EOF'\nhi\nEOF", "cat <<\"EOF\"\nhi\nEOF", "cat <<'E\\F'\nhi\nE\\F", "cat <<-EOF\n\thi\n\tEOF",
		"cat <<'EOF' | wc -l && ls\nhi\nEOF", "ls -$X", `cat -"$X" a.txt`, "echo a{b,c}", "echo {1..3}", `echo "$[1+2]"`, "echo $+x",
		"echo $=x", `echo "$~x"`, "A=~/x echo a", "A=~ ls", "IFS=, read a b < a.txt", "[ a = ]", "[[ a == ]]", "[[ a == a&b ]]",
		"[[ a =~ a||b ]]", "[[ a =~ (a ]]", "[[ a == !(b) ]]", "[[ $a[1] == b ]]", "[[ $a:h == b ]]", `echo {a,\}}`, "echo $((X+1))",
		"echo $((1+2))", "echo 10#$X", "echo ${+x}", "ls -la", "cat a.txt",
		"echo a b", `echo "a b"`, "[[ a == b ]]", "[ a = b ]", "test a =", "[ a -eq ]", "[ = ]", "[ -n = ]", "[[ a =~ a&b ]]",
		"[[ a =~ (a)||b ]]", "[[ a =~ (a||b) ]]", `[[ a =~ a\|\|b ]]`, "[[ a =~ 'a||b' ]]", "[[ a =~ a) ]]", "[[ a == 'a&b' ]]",
		`[[ a == a\&b ]]`, "[[ a == b && c == d ]]", "[[ a&&b ]]")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)", "Bash(ls:*)", "Bash([[:*)", "Bash([:*)", "Bash(read:*)"}}
	return slices.Concat(sh4Cases("complexformsrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("complexforms", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{}, files, probes),
		sh4Cases("complexformsbash", "generated user rules", []string{"default"}, Settings{Allow: []string{"Bash"}}, files, probes))
}

// matrixCatHeredoc: a here-document given to a bare cat in a command
// substitution ("$(cat <<'EOF' ... EOF)", the form Claude Code writes
// commit messages in), inside double quotes and bare, with each delimiter
// quoting, one line and several, a body that starts like an option, and
// the forms the release does not take for it (<<-, cat with an argument,
// a pipeline), under rules naming the commands with a deny rule, in
// acceptEdits and in bypassPermissions.
func matrixCatHeredoc() []dcase {
	probes := shs("pwd", "echo \"$(cat <<'EOF'\nhi\nEOF\n)\"", "echo \"$(cat <<'EOF'\nline1\nline2\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\n-n\nx\nEOF\n)\"", "echo \"a $(cat <<'EOF'\nx\ny\nEOF\n)\"", "echo \"$(cat <<EOF\nhi\nEOF\n)\"",
		"echo \"$(cat <<\"EOF\"\nhi\nEOF\n)\"", "echo \"$(cat <<\\EOF\nhi\nEOF\n)\"", "echo \"$(cat <<-'EOF'\n\thi\n\tEOF\n)\"",
		"echo \"$(cat -n <<'EOF'\nhi\nEOF\n)\"", "echo $(cat <<'EOF'\nhi\nEOF\n)", "echo \"$(cat <<'EOF'\n/proc/1/environ\nEOF\n)\"",
		"git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi $(rm a.txt)\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nhi\nEOF\n)\" > o1.txt", "echo \"$(cat <<'EOF' | tr a b\nhi\nEOF\n)\"", "echo \"$(cat a.txt)\"",
		"echo \"$(cat <<'EOF'\nhi\nEOF\n)$(cat <<'EOF'\nho\nEOF\n)\"", "echo \"$(cat <<'EOF'\n--x\ny\nEOF\n)\"",
		"rm \"$(cat <<'EOF'\nx\nEOF\n)\"", "echo \"$(cat <<'EOF'\nrm a.txt\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\nEOF\n)\" && rm a.txt",
		"echo \"$(cat <<'EOF'\nsystem(\"x\")\nEOF\n)\"", "echo \"$(cat <<'EOF'\n-n\nEOF\n)\"", "echo \"$(  cat <<'EOF'\nhi\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nhi\nEOF\n  )\"", "echo \"$(cat <<'EOF'\nhi\nEOF)\"", "echo \"x$(cat <<'EOF'\n-n\ny\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nit's \"q\" x\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\n\n\nEOF\n)\"", "echo \"$(cat <<'EOF'\nEOF;x\nEOF\n)\"",
		"echo \"$(cat <<'EOF'\nEOF)x\nEOF\n)\"", "echo \"$(cat <<'EOF' 2>/dev/null\nhi\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhi\nEOF\necho x\n)\"",
		"echo \"$(cat <<'EOF' >o2.txt\nhi\nEOF\n)\"")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(git commit:*)"}, Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("catheredocrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("catheredoc", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixParamForms: functions, case patterns, comments glued to a paren,
// zsh's subscripts and modifiers on a name, noglob, nested loops and the
// parameter expansions of echo, under rules naming the commands, in
// acceptEdits and in bypassPermissions.
func matrixParamForms() []dcase {
	probes := shs("pwd", "function f (echo a)", "function f { echo a; }", "f() (echo a)", "case a in (a #x) echo a;; esac",
		"case a in a) echo a;; esac", "(echo a)#x", "echo $(echo a)#b", "echo $a[1]", "echo x$a:h", "echo ${a}[1]", `echo "$a[1]"`,
		`echo "$a:h"`, `echo "${a}[1]"`, "noglob echo a", "command noglob echo a", "A=$(echo x) declare b=1", `echo {a,\}b}`,
		"for i in 1; do for j in 1; do for k in 1; do for l in 1; do echo; done; done; done; done", `echo "a$(echo)"`, "echo $((0x10))",
		"echo $[1+2]", `echo "$@"`, `echo "$#"`, `echo "$?"`, "echo $-", "echo ${#a}", "echo ${a:-b}", "echo ${a/b/c}", "echo ${!a}",
		"echo ${a@Q}", "x=1 echo $x", "echo a#b", "echo a #b", `echo "$1"`, "echo $0", "echo ${a[0]}", `echo "${a[@]}"`, "echo $$",
		"echo $!", "echo ${a^^}", "echo ${a,,}", "echo ${a:1:2}", "echo ${a%.*}", "echo ${a##*/}", `echo "$(( 2 + 3 ))"`, "echo $(( a ))",
		`echo "$((1+2))"`, `echo "a$((1+2))"`, `echo "ab$((1+2))"`, `echo "$((1+2))x"`, `echo "$((1+2)) "`, `echo "é$((1))"`,
		`echo "$X$((1))"`, `echo x"$((1))"y`, `echo '"$((1))"'`, `echo "\$((1))"`, `echo "$((1))$((2))"`, `echo "ab$((1))$X"`,
		"for i in 1; do for j in $(echo 1); do echo; done; done", "if true; then for i in 1; do echo; done; fi",
		"for i in 1; do for j in 1; do rm a.txt; done; done", "for i in 1; do echo; for j in 1; do echo; done; done")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(function:*)", "Bash(f:*)", "Bash(case:*)", "Bash(noglob:*)", "Bash(command:*)",
		"Bash(declare:*)", "Bash(for:*)", "Bash(x=1 echo:*)"}, Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("paramformsrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("paramforms", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{}, files, probes))
}

// matrixQuotedVars: variables and command substitutions inside double
// quotes beside text of no, one and two characters, and unquoted, under a
// rule naming echo, in acceptEdits and in bypassPermissions (row 132's
// reading of quoted text).
func matrixQuotedVars() []dcase {
	probes := shs("pwd", `echo "ab$X"`, `echo "a$X"`, `echo "$X"`, `echo "ab${X}"`, `echo "$X$Y"`, `echo "ab$1"`, `echo "ab$?"`, "echo ab$X",
		`echo "ab$(date)"`, `echo "$HOME"`, `echo "a$HOME"`, `echo "ab$RANDOM"`, `echo "ab$PWD"`, `echo "x y $X"`, `echo "ab$X" a.txt`,
		`cat "a$X.txt"`, `echo "$X" "$Y"`, `echo "ab${X:-c}"`, `echo "ab${#X}"`, `echo "ab$@"`, `echo "ab$*"`, `echo "ab$$"`, `echo "ab$#"`,
		`X=1 && echo "$X"`, `X=1; echo "a$X"`, `echo "$HOME/x"`, `echo "ab$(echo x)"`, `echo ""`, `echo "a"`, `echo "$"`, `echo "a$"`)
	files := map[string]string{"a.txt": "a\n"}
	return slices.Concat(sh4Cases("quotedvarsrule", "generated user rules", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)"}}, files, probes),
		sh4Cases("quotedvars", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{}, files, probes))
}

// matrixHeadForms: assignments in front of a command, command names
// quoted, escaped or decoded, the wrappers and builtins that run a
// command, and declarations, under rules naming the commands, in
// acceptEdits and in bypassPermissions.
func matrixHeadForms() []dcase {
	probes := shs("pwd", "A=$B echo x", "A=$(echo) echo x", `A="$B" echo x`, "$'ls' -la", `$'\x6c\x73'`, `"ls" -la`, "'ls' a.txt", `l\s`,
		`\ls`, "command ls", "builtin echo a", "eval echo a", "time ls", "nohup ls", "A=1 B=2 ls", "declare -i n=1+1", "local x=1",
		"typeset -r x=1", "readonly x=1", "export -n X", "declare -a a=(1 2)", "declare -A m", "let x=1+1", "(( x = 1 ))", "x+=1",
		"a[0]=1", "a=(1 2)", "declare x=$'a'", "echo ${x:=1}", ": ${x:=1}", "true && false", "echo a | tee", "echo a |& cat",
		"A=1 echo $A", "A=a.txt; cat $A", `A=a.txt; cat "$A"`, "A=x; A=y; echo $A", "A=$HOME; ls $A", "unset A; echo $A",
		"export A=1; echo $A", "cd .; ls", "pushd . && popd", "exec 3>&1", "set -e; ls", "shopt -s nullglob; ls", "trap 'rm a.txt' EXIT",
		"ls -- -a", "echo -- a", "ls ./-a")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(ls:*)", "Bash(cat:*)", "Bash(declare:*)", "Bash(local:*)", "Bash(typeset:*)",
		"Bash(readonly:*)", "Bash(export:*)", "Bash(let:*)", "Bash(command:*)", "Bash(builtin:*)", "Bash(eval:*)", "Bash(time:*)",
		"Bash(nohup:*)", "Bash(true:*)", "Bash(set:*)", "Bash(shopt:*)", "Bash(trap:*)", "Bash(exec:*)", "Bash(unset:*)"}, Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("headformsrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("headforms", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixParseEdges: text after a test's closer, a ]] inside a pattern, a
// quote in a brace body, a top-level here-document's body lines that start
// with its delimiter, stray parentheses and operators, groups, and !,
// under rules naming the commands, in acceptEdits and in
// bypassPermissions.
func matrixParseEdges() []dcase {
	probes := shs("pwd", "[[ a ]]x", "[ a = b ]x", "[[ a == x]]y ]]", `echo {a,b"}`, "cat <<'EOF'\nEOF)x\nEOF", "cat <<'EOF'\nEOF}x\nEOF",
		"cat <<'EOF'\nEOF x\nEOF", "cat <<'EOF'\nEOF;x\nEOF", "echo a)", "echo (a)", "echo a((b))", "echo ))", "{ echo a; }", "{ echo a }",
		"{echo a;}", "(echo a)", "( echo a )", "echo a & echo b", "echo a &", "echo a;;", ";echo a", "echo a |", "| echo a", "echo a && ",
		"!echo a", "! echo a", "echo !a", "echo a!", `echo "!a"`, "echo a; ; echo b", "echo a && && echo b", "(echo a; echo b) | cat",
		"{ echo a; } > o1.txt", "(cd . && ls)", "echo a\\\necho b", "echo a \\\n  b", "echo a\n\necho b", "\necho a", "echo a\n")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)", "Bash([[:*)", "Bash([:*)", "Bash(ls:*)", "Bash(cd:*)"}, Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("parseedgesrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("parseedges", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixDoubleParens: (( glued to a word, which Claude Code 2.1.328's
// removal check cannot read in bypassPermissions (echo a((b)):
// parseedges-bypassPermissions), beside its neighbours.
func matrixDoubleParens() []dcase {
	probes := shs("pwd", "echo a((b))", "echo a((b)", "echo a(b)", "echo ((b))", "ls a((b))", "echo x((1))y", "echo a$((1))", "echo 'a((b))'",
		`echo a\((b))`, "x=a((b))", "echo a(( b ))", "echo a((", "((a))", "echo a[(b)]", "echo a((b)) c", "echo a((b)); ls", "echo a)(b",
		"echo a((b))((c))", "echo -a((b))", "echo 1((2))", "echo _((b))", "echo .((b))", "echo /((b))", "echo a=((b))", "echo a,((b))")
	return sh4Cases("doubleparens", "generated user rules", []string{"bypassPermissions"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixBypassSyntax: lines the shell refuses, in bypassPermissions, where
// Claude Code 2.1.328's removal check asks for those its parser cannot
// read (row 135).
func matrixBypassSyntax() []dcase {
	probes := shs("pwd", `echo "a`, "echo 'a", "echo $(", "echo ${", "echo {", "echo }", "echo a; }", "if true; then echo a", "echo a; fi",
		"done", "case a in", "echo <(", "echo >(a", "echo a>(b)", "echo a<(b)", "cat <(", "echo $[", "echo ${a", `echo "$(echo a"`,
		"echo `a", "f() {", "function", "echo a | | b", "(", ")", "echo ;;", ";;", "echo a & &", "&", "echo a &&& b", "echo a ||| b",
		"echo a |||", "echo a && || b", "echo a ((b))", "echo a (b)", "echo a) b", "echo a }", "{ echo a", "echo ((", "echo ))((",
		"then echo a", "do echo a", "esac", "echo a; then", "echo a | then", "fi", "elif", "else echo a", "in", "echo a && then")
	return sh4Cases("bypasssyntax", "generated user rules", []string{"bypassPermissions"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixOptionValues: arguments that read as options and hold a value the
// release does not know, beside those that do not, and quoted text
// counted in characters, under a rule naming the commands, in acceptEdits
// and in bypassPermissions (rows 132, 136).
func matrixOptionValues() []dcase {
	probes := shs("pwd", `echo "-a$PWD"`, `echo "--ab$PWD"`, `ls "-a$PWD"`, `echo "-ab$((1))"`, `echo -"ab$PWD"`, `echo "-_$PWD"`, `echo "é$PWD"`,
		`echo "éa$PWD"`, `echo "$PWD$PWD"`, `echo "a-$PWD"`, "echo -$((1))", "echo -a$((1))", `echo "-1$PWD"`, `echo "-A$PWD"`, `echo "-.$PWD"`,
		`echo "-/$PWD"`, `echo "--$PWD"`, `echo "-$HOME"`, `echo -"$HOME"x`, `echo "-a$HOME"`, `echo x "-a$PWD"`, `FOO=1 echo "-a$PWD"`,
		`echo "-a$?"`, "echo a -$((1))", `echo "-"`, `echo "-a"`, `echo "--x=$PWD"`, `echo "-x $PWD"`)
	files := map[string]string{"a.txt": "a\n"}
	return slices.Concat(sh4Cases("optionvaluesrule", "generated user rules", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)", "Bash(ls:*)", "Bash(FOO=1 echo:*)"}}, files, probes),
		sh4Cases("optionvalues", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{}, files, probes))
}

// matrixDeepLoops: loops nested five and six deep, with and without a
// variable the line assigns (the release follows the variables a loop
// changes five loops deep: row 133).
func matrixDeepLoops() []dcase {
	six := "for a in 1; do for b in 1; do for c in 1; do for d in 1; do for e in 1; do for f in 1; do echo; done; done; done; done; done; done"
	five := "for a in 1; do for b in 1; do for c in 1; do for d in 1; do for e in 1; do echo; done; done; done; done; done"
	probes := shs("pwd", six, five, "x=1; "+six, "x=1; "+five, "x=1; for a in 1; do echo; done", "while false; do "+five+"; done",
		"if true; then "+five+"; fi", "x=1; "+strings.Replace(six, "echo", "echo $x", 1))
	return slices.Concat(sh4Cases("deeploopsrule", "generated user rules", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)"}}, map[string]string{"a.txt": "a\n"}, probes),
		sh4Cases("deeploops", "generated user rules", []string{"acceptEdits"}, Settings{}, map[string]string{"a.txt": "a\n"}, probes))
}

// matrixLongLines: commands of growing length, a plain echo and a
// here-document given to cat in a commit message's form, under rules
// naming them (the release's parser gives up past a length or a time).
func matrixLongLines() []dcase {
	var probes []probe
	for _, n := range []int{1000, 9000, 11000, 20000} {
		probes = append(probes, sh("echo "+strings.Repeat("x", n)), sh("echo \"$(cat <<'EOF'\n"+strings.Repeat("word ", n/5)+"\nline two\nEOF\n)\""),
			sh("echo "+strings.Repeat("a ", n/2)))
	}
	return sh4Cases("longlines", "generated user rules", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)"}}, map[string]string{"a.txt": "a\n"}, probes)
}

// matrixSubstForms: process substitutions and here-strings of every
// quoting, under rules naming the commands, in acceptEdits and in
// bypassPermissions.
func matrixSubstForms() []dcase {
	probes := shs("pwd", "diff <(ls) <(ls)", "cat <(echo a)", "echo >(cat)", "ls <(true)", "tee >(cat) < a.txt", "cat <<< a", `cat <<< "a b"`,
		"cat <<< $HOME", "cat <<< $(ls)", `grep a <<< "abc"`, "wc -l <<< 'x'", "cat <<<a", `cat <<< "$X"`, `read x <<< "a"`, `cat <<< "$PWD"`,
		"cat <<< `ls`", `cat <<< "a$(ls)"`, "cat <<< ~", "cat <<< *.txt", "cat <<< a.txt", `cat <<< "-n"`, "cat <<< -n", `cat <<< "$((1))"`,
		"cat a.txt <<< x", "cat <<< x > o1.txt", "cat <<< x <<< y", "echo a | cat <<< b", "cat 0<<< x", "cat <<<'$HOME'",
		"cat 0<<'EOF'\nx\nEOF", "cat 3<<< x a.txt", "cat 0<<<x", "echo a 2<<< x", "cat 0<<-'EOF'\nx\nEOF", "cat 0< a.txt")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(cat:*)", "Bash(diff:*)", "Bash(ls:*)", "Bash(tee:*)", "Bash(grep:*)", "Bash(wc:*)", "Bash(read:*)"},
		Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("substformsrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("substforms", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixBacktickForms: empty backticks, nested escaped ones and backticks
// in double quotes, under a rule naming echo, in acceptEdits and in
// bypassPermissions.
func matrixBacktickForms() []dcase {
	probes := shs("pwd", "echo ``", "echo a``b", "echo `echo \\`ls\\``", "echo `\"`", "echo \"`echo a`\"", "echo `echo a`", "echo \"a``b\"",
		"echo `echo \\\"a\\\"`", "echo `echo \\$HOME`", "echo ` `", "echo \\`ls\\`", "echo '`ls`'", "echo `# c`", "echo `ls # c`")
	files := map[string]string{"a.txt": "a\n"}
	return slices.Concat(sh4Cases("backticksrule", "generated user rules", []string{"default"}, Settings{Allow: []string{"Bash(echo:*)", "Bash(ls:*)"}}, files, probes),
		sh4Cases("backticks", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{}, files, probes))
}

// matrixAwkPrograms: awk programs that run a program, pipe to or from one,
// load code, open a network file or write, beside ones that only read,
// under rules naming awk, in acceptEdits and in bypassPermissions.
func matrixAwkPrograms() []dcase {
	probes := shs("pwd", "awk '{print}' a.txt", `awk 'BEGIN{system("ls")}'`, `awk '{print | "cat"}' a.txt`, `awk 'BEGIN{"ls" | getline x; print x}'`,
		`awk '@load "x"'`, `awk 'BEGIN{print > "o1.txt"}'`, `awk 'BEGIN { printf "%s", ENVIRON["HOME"] }'`, `awk 'BEGIN{getline < "a.txt"; print}'`,
		`awk 'BEGIN{print |& "cat"}'`, `awk 'BEGIN{ f="/inet/tcp/0/x/80" }'`, `gawk 'BEGIN{extension("x")}'`, "awk -v x=1 '{print x}' a.txt",
		`awk 'BEGIN{ system ("ls") }'`, "awk 'BEGIN{system\n(\"ls\")}'", `awk 'BEGIN{s="system"; print s}'`, `awk '{ getline; print }' a.txt`,
		`awk 'BEGIN{print >> "o2.txt"}'`, `awk '{print $1}' a.txt`, `awk -F: '{print $1}' a.txt`, `awk 'BEGIN{close("x")}'`, `awk 'BEGIN{fflush()}'`,
		`awk 'BEGIN{print "a" > "/dev/stderr"}'`, `awk '{print}' a.txt a.txt`, `awk 'BEGIN{x="ls"; x | getline y}'`, `awk 'BEGIN{@f()}'`,
		`awk 'BEGIN { cmd = "ls"; while ((cmd | getline line) > 0) print line }'`)
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(awk:*)", "Bash(gawk:*)"}, Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("awkprogsrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("awkprogs", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixMisreadEdges: the release's misreading classes at their edges (a
// word glued to = in [[ ]], a # in a for list, quoted text in a subscript,
// bracket words, brace text), under rules naming the commands, in
// acceptEdits and in bypassPermissions.
func matrixMisreadEdges() []dcase {
	probes := shs("pwd", "[[ a =b ]]", "[[ a ==b ]]", "[[ a = =b ]]", "[[ x =~ =y ]]", "[[ a= b ]]", "for i in a #b; do echo x; done",
		"for i in a#b; do echo x; done", "for i in '#b'; do echo x; done", "echo a['x']", `echo a["x"]`, "echo ${a['x']}", "echo $(( a['x'] ))",
		"echo [a", "echo a[", "echo a[b c]", "ls [a b]", "echo [[", "echo ]]", "echo {a,b}c{d", "echo a{b,c", "echo x}", "echo a{b}c",
		"echo {}", "echo { }", "echo a[1]b", "echo 'a[1]'", "echo a\\[1]", "for i in a b; do echo x; done # c", "[[ a == b ]] # c",
		"echo [a]", "echo a]b", "echo [[a", "echo a]]")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(ls:*)", "Bash([[:*)", "Bash(for:*)"}, Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("misreadedgesrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("misreadedges", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixStatementForms: while, until, if and case statements with their
// commands in conditions and bodies, fallthroughs and a deny rule, under
// rules naming the commands, in acceptEdits and in bypassPermissions.
func matrixStatementForms() []dcase {
	probes := shs("pwd", "while false; do rm a.txt; done", "until true; do echo; done", "if ls; then echo; elif cat a.txt; then echo; else echo; fi",
		"case a in a) rm a.txt;; esac", "case a in a) echo;; b) ls;; esac", "case a in *) echo;; esac", "case a in a|b) echo;; esac",
		"case a in (a) echo;; esac", "case a in a) echo;& b) echo;; esac", "case a in a) echo;;& esac", "if true; then :; fi", ": > o1.txt",
		"while :; do break; done", "until false; do break; done", "case a in a) echo; esac", "case a.txt in *.txt) cat a.txt;; esac",
		"if [ -f a.txt ]; then rm a.txt; fi", "while true; do echo; break; done", "if true; then echo; fi > o2.txt", "case a in a) ;; esac",
		"if ! rm a.txt; then echo; fi", "while ! true; do echo; done", "case a in\na) echo;;\nesac", "if true\nthen echo\nfi")
	files := map[string]string{"a.txt": "a\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(ls:*)", "Bash(cat:*)", "Bash(case:*)", "Bash(while:*)", "Bash(until:*)", "Bash(if:*)", "Bash(::*)"},
		Deny: []string{"Bash(rm:*)"}}
	return slices.Concat(sh4Cases("statementsrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("statements", "generated user rules", []string{"acceptEdits", "bypassPermissions"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes))
}

// matrixQuotedSubst: command substitutions inside double quotes beside
// text of no, one and two characters, their commands read-only or not,
// joined, piped, redirected, reading paths inside and outside the project, in
// front of commands that read paths, in assignments, with no rule, under
// rules naming the commands, and in acceptEdits (row 140).
func matrixQuotedSubst() []dcase {
	probes := shs("pwd", `echo "ab$(date)"`, `echo "$(date)"`, `echo "a$(date)"`, `echo "a $(date) b"`, `echo "ab$(date)$(pwd)"`,
		`echo "$(date)$(pwd)"`, `echo "a$(date)b$(pwd)"`, `echo "ab$(ls && pwd)"`, `echo "ab$(ls || pwd)"`, `echo "ab$( date )"`,
		`echo "ab$(date -u)"`, `echo "ab$(cat a.txt)"`, `echo "ab$(rm f1.txt)"`, `echo "ab$(touch t1.txt)"`, `cat "ab$(date)"`,
		`cat "ab$PWD"`, `ls "ab$(pwd)"`, `echo "ab$(cat /etc/hostname)"`, `echo "ab$(cat secret/s.txt)"`, `cd sub && echo "ab$(pwd)"`,
		`echo "ab$(cd sub)"`, `echo "ab$(date)" > o1.txt`, `echo "ab$(date)" && ls`, `ls; echo "ab$(date)"`, `echo "-a$(date)"`,
		`echo -n "ab$(date)"`, `x="ab$(date)"`, `A="ab$(date)" echo x`, `echo "ab$(date)" | cat`, `echo "ab$(date)" "cd$(pwd)"`,
		`echo "ab\$(date)"`, `echo 'ab$(date)'`, `echo "ab$(date 2>/dev/null)"`, `echo "ab$(date > o2.txt)"`, `echo "ab$(ls secret)"`,
		`echo "ab$(git status)"`, `echo "(ab$(date)"`, `echo "ab$(date)" a.txt`, `echo "ab$(touch t2.txt)"`, `echo "ab$(rm f2.txt)"`,
		`git commit --dry-run -m "ab$(date)"`, `echo "ab$(echo x)"`, `echo "ab$(ls | wc -l)"`, `echo "ab$(ls |& wc -l)"`,
		`echo "ab$(ls | sh)"`, `echo "ab$(ls |)"`, `echo "ab$(ls | wc -l && pwd)"`, `echo "ab$(cat a.txt | grep a)"`,
		`echo "ab$(ls | tee o3.txt)"`, `echo "ab$(cat secret/s.txt | wc -c)"`)
	files := map[string]string{"a.txt": "a\n", "f1.txt": "f\n", "f2.txt": "f\n", "secret/s.txt": "s\n", "sub/x.txt": "x\n"}
	rules := Settings{Allow: []string{"Bash(echo:*)", "Bash(git commit:*)", "Bash(touch:*)", "Bash(cat:*)"},
		Deny: []string{"Bash(rm:*)", "Read(./secret/**)"}}
	return slices.Concat(sh4Cases("quotedsubstrule", "generated user rules", []string{"default"}, rules, files, probes),
		sh4Cases("quotedsubst", "generated user rules", []string{"default", "acceptEdits"}, Settings{}, files, probes))
}

// matrixTextPatterns: jq and hostname, which Claude Code 2.1.328 checks
// with a pattern on the subcommand's text, spelled with quotes, a
// backslash, assignments and wrappers before them, and with the options
// and words its patterns take and refuse (row 141; gen-ro seed 5101 found
// \jq . locked/keep.txt run by the dialect).
func matrixTextPatterns() []dcase {
	probes := shs("pwd", `\jq . x.json`, `\jq . locked/keep.txt`, "jq . locked/keep.txt", "'jq' . x.json", `"jq" . x.json`,
		`j\q . x.json`, "''jq . x.json", "command jq . x.json", "timeout 5 jq . x.json", "LANG=C jq . x.json", "nice jq . x.json",
		"TZ=UTC command jq . x.json", `\command jq . x.json`, "LANG=C timeout 5 jq . x.json", "command 'jq' . x.json",
		`command \jq . x.json`, "noglob jq . x.json", "builtin jq . x.json", "timeout 5s jq . x.json", "command -p jq . x.json",
		"ls && LANG=C jq . x.json", "jq . x.json && ls", "FOO=1 jq . x.json", "jq -0 . x.json", "jq -r. x.json", "jq '.a'x x.json",
		"jq -- . x.json", "jq . 'x'.json", `jq . "x".json`, "jq . x'.json'", "jq -R1 . x.json", "jq --a_b . x.json", "jq -n '1'x",
		"jq -n 1", "jq -n", "jq -rj . x.json", "jq --arg a 1 . x.json", "jq --indent 2 . x.json", "jq --raw-output=x . x.json",
		"jq -r '.a' x.json", `jq '.a' "x.json"`, "jq\t. x.json", `jq . x\.json`, "jq . x.json ''", "jq -n a'b'", "jq . x.json -r",
		"jq . x.json 2>&1", "jq . < x.json", "jq . x.json | cat", "jq -f x.json x.json",
		"hostname", `\hostname`, "'hostname'", "LANG=C hostname", `h\ostname`, "command hostname", "timeout 5 hostname",
		"noglob hostname", "hostname -f", "hostname -fs", "hostname -f -s", "hostname --fqdn", "hostname --", "hostname --alias=x",
		"hostname '-f'", "hostname -1", "hostname -I", "hostname\t-f", "hostname -f | cat", `\git status`, `\sort a.txt`, `\date`,
		`\cat a.txt`, `\uniq a.txt`)
	files := map[string]string{"a.txt": "a\n"}
	return sh4Cases("textpatterns", "generated read-only lines", []string{"default", "acceptEdits"}, Settings{Deny: []string{"Bash(rm:*)"}}, files, probes)
}

// matrixTimeoutNoglob: noglob, command and builtin before and after a
// timeout, before read-only commands and one an allow rule names (row 142;
// gen seed 5105 found true && timeout 5s noglob find . -name a.txt | cat
// run by the dialect).
func matrixTimeoutNoglob() []dcase {
	probes := shs("pwd", "timeout 5 noglob ls", "timeout 5s noglob find . -name a.txt", "timeout 5 noglob cat a.txt",
		"timeout 5 noglob echo hi", "timeout 5 noglob wc -l a.txt", "timeout 5 noglob noglob ls", "timeout 5 timeout 5 noglob ls",
		"command timeout 5 noglob ls", "noglob timeout 5 noglob ls", "true && timeout 5s noglob find . -name a.txt | cat",
		"timeout 5s noglob find . -name a.txt | cat", "timeout 5 noglob git status", "timeout 5 noglob date", "timeout 5 noglob npm test",
		"noglob timeout 5 ls", "noglob noglob ls", "noglob command ls", "command noglob ls", "timeout 5 timeout 5 ls", "timeout 5 command ls",
		"timeout 5 builtin ls", "noglob timeout 5 npm test", "nice noglob ls", "timeout 5 nohup ls")
	files := map[string]string{"a.txt": "a\n"}
	return sh4Cases("timeoutnoglob", "sh4 allow and ask rules", []string{"default", "acceptEdits"}, Settings{Allow: []string{"Bash(npm test:*)"}}, files, probes)
}

// matrixExactAsk: an ask rule naming the command exactly beside a prefix
// or wildcard deny rule that also matches it, and an exact allow rule
// beside a wildcard deny rule: Claude Code 2.1.328 checks the exact rules
// first and asks on an exact ask rule before its deny rules with a
// wildcard or a prefix are read (gen-rules seed 5206 found git  status
// asked under ask Bash(git status) and deny Bash(git *), seed 5208 echo  hi
// under ask Bash(echo  hi) and deny Bash(echo hi*)). The dialect denies
// (section 0.3).
func matrixExactAsk() []dcase {
	probes := shs("pwd", "git status", "git  status", "git status && ls", "ls && git status", "git status # c", "git status > /dev/null",
		"git status -s", "git log", "rm f1.txt", "rm f2.txt", "rm  f1.txt", "echo hi", "echo  hi", "echo hi there", "echo ho", "npm test")
	files := map[string]string{"f1.txt": "1\n", "f2.txt": "2\n"}
	return sh4Cases("exactask", "generated Bash rules", []string{"default", "bypassPermissions"},
		Settings{Allow: []string{"Bash(echo ho)", "Bash(npm test)"}, Ask: []string{"Bash(git status)", "Bash(rm f1.txt)", "Bash(echo  hi)"},
			Deny: []string{"Bash(git *)", "Bash(rm:*)", "Bash(echo *)", "Bash(npm:*)"}}, files, probes)
}

// matrixSkillAskSlash: a skill named with a leading "/" under an ask rule
// of the parameter form (skill:<name>) beside an allow rule of the name
// form, in default mode and bypassPermissions: Claude Code 2.1.328 reads
// the leading "/" away for its deny check (row 94) but not for its ask
// rules, and runs /helper (gen-skills seed 5104). The dialect asks
// (section 0.3).
func matrixSkillAskSlash() []dcase {
	files := map[string]string{".claude/skills/helper/SKILL.md": "---\nname: helper\ndescription: Helps\nallowed-tools: Read\n---\nHelp.\n"}
	sk := func(name string) probe { return probe{"Skill", map[string]any{"skill": name}} }
	return filesCases("skillaskslash", "generated skill rules", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Allow: []string{"Skill(helper)"}, Ask: []string{"Skill(skill:helper)"}}, files, [][]probe{{sk("/helper"), sk("helper")}})
}
