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
