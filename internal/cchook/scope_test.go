package cchook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

func TestParseHEAD(t *testing.T) {
	for in, want := range map[string]string{
		"ref: refs/heads/main\n":                     "main",
		"ref: refs/heads/feature/x-1":                "feature/x-1",
		"ref:refs/heads/main":                        "main",
		"6f1c0a3b9e0d7c55aa1b2c3d4e5f60718293a4b5\n": "", // detached
		"ref: refs/remotes/origin/main":              "",
		"":                                           "",
	} {
		if got := ParseHEAD([]byte(in)); got != want {
			t.Errorf("ParseHEAD(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseOrigin(t *testing.T) {
	for _, tt := range []struct{ name, cfg, want string }{
		{"plain", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", "https://github.com/acme/api.git"},
		{"another remote first", "[remote \"upstream\"]\n\turl = git@github.com:up/api.git\n[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n", "git@github.com:acme/api.git"},
		{"none", "[remote \"upstream\"]\n\turl = x\n", ""},
		{"names case insensitive, subsection not", "[REMOTE \"origin\"]\n\tURL = a\n[remote \"Origin\"]\n\turl = b\n", "a"},
		{"old syntax", "[remote.origin]\nurl = c\n", "c"},
		{"quoted, escaped, comment", "[remote \"origin\"]\n\turl = \"/srv/my repo\\\\x.git\" ; the mirror\n", "/srv/my repo\\x.git"},
		{"comment line and key on the header line", "[remote \"origin\"] url = d # note\n# url = e\n", "d"},
		{"first url wins", "[remote \"origin\"]\nurl = f\nurl = g\n", "f"},
		{"section ends", "[remote \"origin\"]\n[branch \"main\"]\nurl = h\n", ""},
	} {
		if got := ParseOrigin([]byte(tt.cfg)); got != tt.want {
			t.Errorf("%s: ParseOrigin = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRedactRemote(t *testing.T) {
	for in, want := range map[string]string{
		"https://dev:s3cret@github.com/acme/api.git": "https://github.com/acme/api.git",
		"https://ghp_TOKEN@github.com/acme/api":      "https://github.com/acme/api",
		"http://x-access-token:t@gitlab.example/a/b": "http://gitlab.example/a/b",
		"https://github.com/acme/api.git":            "https://github.com/acme/api.git",
		"ssh://git@github.com:22/acme/api.git":       "ssh://git@github.com:22/acme/api.git",
		"ssh://git:pw@host/acme/api.git":             "ssh://git@host/acme/api.git",
		"git@github.com:acme/api.git":                "git@github.com:acme/api.git",
		"git:pw@github.com:acme/api.git":             "git@github.com:acme/api.git",
		"/srv/git/api.git":                           "/srv/git/api.git",
		"../api":                                     "../api",
		"https://u:p@host%zz/x":                      "https://host%zz/x", // unparseable, still redacted
	} {
		if got := RedactRemote(in); got != want {
			t.Errorf("RedactRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRemoteIdentity(t *testing.T) {
	same := []string{"https://github.com/acme/api.git", "https://dev:pw@GitHub.com/acme/api", "git@github.com:acme/api.git",
		"ssh://git@github.com:22/acme/api.git", "ssh://git@github.com/acme/api/", "git://github.com/acme/api.git"}
	for _, r := range same {
		if id, local := RemoteIdentity(r); id != "github.com/acme/api" || local {
			t.Errorf("RemoteIdentity(%q) = %q, %v; want github.com/acme/api", r, id, local)
		}
	}
	for _, r := range []string{"/srv/git/api.git", "file:///srv/git/api.git", "../api", "api"} {
		if id, local := RemoteIdentity(r); !local || id != "" {
			t.Errorf("RemoteIdentity(%q) = %q, %v; want local", r, id, local)
		}
	}
	if a, _ := RemoteIdentity("https://github.com/Acme/API"); a != "github.com/Acme/API" {
		t.Errorf("path case: %q", a)
	}
}

func TestScopeOf(t *testing.T) {
	repo := func(root, origin string) Location {
		return Location{Dir: root, Repo: &Repo{Root: root, Origin: origin, Branch: "main"}}
	}
	for _, tt := range []struct {
		name string
		loc  Location
		host string
		want string
	}{
		{"repository", repo("/home/dev/project", "https://dev:s3cret@github.com/acme/api.git"), "devbox", "claude-code:github-com-acme-api-5355d101"},
		{"every clone of it, anywhere", repo("/srv/ci/api", "git@github.com:acme/api.git"), "ci", "claude-code:github-com-acme-api-5355d101"},
		{"another repository", repo("/home/dev/web", "git@github.com:acme/web.git"), "devbox", "claude-code:github-com-acme-web-ae36dad1"},
		{"no repository", Location{Dir: "/home/dev/project"}, "devbox", "claude-code:project-55fd84cd"},
	} {
		if got := ScopeOf(tt.loc, tt.host); got != tt.want {
			t.Errorf("%s: ScopeOf = %s, want %s", tt.name, got, tt.want)
		}
	}

	// Every scope is a valid name, the same each time, and no two of
	// these projects share one.
	long := "/home/dev/" + strings.Repeat("very-long-directory-name/", 12) + "proj"
	locs := []Location{
		repo("/home/dev/project", "https://github.com/acme/api.git"),
		repo("/home/dev/project", "https://github.com/acme/api-x.git"),
		repo("/home/dev/project", "https://github.com/acme-api/x.git"), // readable part as acme/api-x's
		repo("/home/dev/project", "https://gitlab.com/acme/api.git"),
		repo("/home/dev/project", "https://github.com/Acme/api.git"),
		repo("/home/dev/p1", ""),                 // no origin: the path
		repo("/home/dev/other/p1", ""),           // same base name
		repo("/home/dev/p2", "/srv/git/api.git"), // a local origin: the path
		{Dir: "/home/dev/project/svc", Repo: &Repo{Root: "/home/dev/project", Origin: "https://github.com/acme/api.git"}, Sub: "svc"},
		{Dir: "/home/dev/project"},
		{Dir: "/home/dev/other/project"},
		{Dir: long},
		repo(long, "https://example.com/"+strings.Repeat("group/", 30)+"repo.git"),
		{Dir: "/home/dev/ünïcode dir"},
		{Dir: "/"},
	}
	seen := map[string]int{}
	for i, loc := range locs {
		s := ScopeOf(loc, "devbox")
		if !events.ValidScope(s) || !strings.HasPrefix(s, ScopePrefix) {
			t.Errorf("%+v: scope %q is not a valid scope name", loc, s)
		}
		if s != ScopeOf(loc, "devbox") {
			t.Errorf("%+v: scope not deterministic", loc)
		}
		if j, ok := seen[s]; ok {
			t.Errorf("projects %d and %d share scope %s", j, i, s)
		}
		seen[s] = i
	}
	// A path names a project on one machine only.
	if ScopeOf(Location{Dir: "/home/dev/project"}, "a") == ScopeOf(Location{Dir: "/home/dev/project"}, "b") {
		t.Error("the same path on two hosts shares a scope")
	}
	if got := ScopeOf(locs[8], "devbox"); !strings.HasPrefix(got, "claude-code:github-com-acme-api-svc-") {
		t.Errorf("sub-project scope %s", got)
	}
	if got := ScopeOf(locs[12], "devbox"); len(got) > 128 || len(got) < 120 || !strings.HasSuffix(got[:len(got)-9], "-group-group-repo") {
		t.Errorf("long scope %s (%d): want at most 128 characters ending with the repository's name", got, len(got))
	}
	// A directory that becomes a repository without an origin keeps its
	// scope: the path names it either way.
	if ScopeOf(repo("/home/dev/p1", ""), "devbox") != ScopeOf(Location{Dir: "/home/dev/p1"}, "devbox") {
		t.Error("git init changed the scope")
	}
}

// TestFindRepo reads real repository layouts: a work tree, a directory
// below it, a linked worktree (.git file and commondir), a submodule (.git
// file, its own config), a detached HEAD, and no repository.
func TestFindRepo(t *testing.T) {
	base := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(rel string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(base, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("api/.git/HEAD", "ref: refs/heads/main\n")
	write("api/.git/config", "[remote \"origin\"]\n\turl = https://tok@github.com/acme/api.git\n")
	mkdir("api/src/deep")
	mkdir("api/svc/.claude")
	// A linked worktree of api, as 'git worktree add ../api-wt' makes it.
	write("api/.git/worktrees/api-wt/HEAD", "ref: refs/heads/scope-hook\n")
	write("api/.git/worktrees/api-wt/commondir", "../..\n")
	write("api-wt/.git", "gitdir: "+filepath.Join(base, "api/.git/worktrees/api-wt")+"\n")
	// A submodule: a relative gitdir, its own config.
	write("api/.git/modules/lib/HEAD", "0123456789abcdef0123456789abcdef01234567\n")
	write("api/.git/modules/lib/config", "[remote \"origin\"]\n\turl = git@github.com:acme/lib.git\n")
	write("api/lib/.git", "gitdir: ../.git/modules/lib\n")
	mkdir("plain/dir")
	for _, tt := range []struct {
		dir  string
		want *Repo
		sub  string
	}{
		{"api", &Repo{Root: "api", Origin: "https://tok@github.com/acme/api.git", Branch: "main"}, ""},
		{"api/src/deep", &Repo{Root: "api", Origin: "https://tok@github.com/acme/api.git", Branch: "main"}, ""},
		{"api/svc", &Repo{Root: "api", Origin: "https://tok@github.com/acme/api.git", Branch: "main"}, "svc"},
		{"api-wt", &Repo{Root: "api-wt", Origin: "https://tok@github.com/acme/api.git", Branch: "scope-hook"}, ""},
		{"api/lib", &Repo{Root: "api/lib", Origin: "git@github.com:acme/lib.git"}, ""},
		{"plain/dir", nil, ""},
	} {
		loc := LocateProject(filepath.Join(base, tt.dir), nil)
		if tt.want != nil {
			tt.want.Root = filepath.Join(base, tt.want.Root)
		}
		switch {
		case (loc.Repo == nil) != (tt.want == nil):
			t.Errorf("%s: repo %+v, want %+v", tt.dir, loc.Repo, tt.want)
		case loc.Repo != nil && *loc.Repo != *tt.want:
			t.Errorf("%s: repo %+v, want %+v", tt.dir, *loc.Repo, *tt.want)
		case loc.Sub != tt.sub || loc.Dir != filepath.Join(base, tt.dir):
			t.Errorf("%s: dir %s sub %q, want sub %q", tt.dir, loc.Dir, loc.Sub, tt.sub)
		}
	}
	// The linked worktree and its main work tree are one repository.
	a, b := LocateProject(filepath.Join(base, "api"), nil), LocateProject(filepath.Join(base, "api-wt"), nil)
	if ScopeOf(a, "h") != ScopeOf(b, "h") {
		t.Errorf("worktree scope %s, main %s", ScopeOf(b, "h"), ScopeOf(a, "h"))
	}
	// This repository's own checkout, whatever its layout.
	if wd, err := os.Getwd(); err == nil {
		if loc := LocateProject(wd, nil); loc.Repo == nil || !strings.HasSuffix(wd, filepath.Join(filepath.Base(loc.Repo.Root), "internal", "cchook")) {
			t.Errorf("this checkout: %+v", loc.Repo)
		}
	}
}

func TestRuntimeVersionOf(t *testing.T) {
	for in, want := range map[string]string{
		"claude-code_2-1-328_harness": "2.1.328",
		"claude-code_2-1-328_agent":   "2.1.328",
		"claude-code_2-1-328":         "2.1.328",
		"claude-code_2-1-328-beta_x":  "", // a prerelease cannot be told apart
		"claude-code_latest_harness":  "",
		"cursor_1-2-3_agent":          "",
		"":                            "",
	} {
		if got := RuntimeVersionOf(in); got != want {
			t.Errorf("RuntimeVersionOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStartData(t *testing.T) {
	d := StartData("plan", testScope, &testLoc, testWho, "")
	want := []string{MainAgent, "plan", testScope, Runtime, "2.1.328", "/home/dev/project", "https://github.com/acme/api.git", "main", "dev", "devbox", ""}
	got := []string{d.Agent, d.Mode, d.Scope, d.Runtime, d.RuntimeVersion, d.Project, d.Repository, d.Branch, d.User, d.Host, d.Model}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("StartData = %q, want %q", got, want)
	}
	sub := Location{Dir: "/r/svc", Repo: &Repo{Root: "/r", Branch: ""}, Sub: "svc"}
	if d := StartData("", "s", &sub, Who{}, ""); d.Project != "/r/svc" || d.Branch != "" || d.Repository != "" {
		t.Errorf("sub-project: %+v", d)
	}
	if d := StartData("", "s", nil, Who{}, ""); d.Project != "" || d.Runtime != Runtime {
		t.Errorf("no location: %+v", d)
	}
	long := "/" + strings.Repeat("é", events.MaxIdentityLen)
	if d := StartData("", "s", &Location{Dir: long}, Who{}, ""); len(d.Project) > events.MaxIdentityLen || !strings.HasPrefix(long, d.Project) || !strings.HasSuffix(d.Project, "é") {
		t.Errorf("a long project is cut to %d bytes at a character: %d", events.MaxIdentityLen, len(d.Project))
	}
}
