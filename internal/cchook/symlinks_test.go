package cchook

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLinkedPaths: the spellings of a path through symbolic links, as
// Claude Code 2.1.328 checks path rules on them (dialect section 9.5).
func TestLinkedPaths(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The project is reached through a link (as under macOS's /tmp): its
	// resolved form is written as the project.
	real := filepath.Join(base, "real")
	proj := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(real, "secret"), filepath.Join(real, "free"), filepath.Join(home, "hs"), filepath.Join(base, "out")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(real, "secret", "s.txt"), filepath.Join(real, "a.txt"), filepath.Join(home, "hs", "h.txt")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		proj:                            real,
		filepath.Join(real, "ls1.txt"):  "secret/s.txt",
		filepath.Join(real, "ls2.txt"):  filepath.Join(real, "secret", "s.txt"),
		filepath.Join(real, "ldir"):     "secret",
		filepath.Join(real, "chain"):    "ls1.txt",
		filepath.Join(real, "lh.txt"):   filepath.Join(home, "hs", "h.txt"),
		filepath.Join(real, "lout.txt"): "../out/o.txt",
		filepath.Join(real, "lnew.txt"): "secret/new.txt",
		filepath.Join(real, "loop"):     "loop",
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	P := func(rel string) string { return filepath.Join(proj, rel) }
	for _, c := range []struct {
		path string
		want []string
		link bool
	}{
		{P("a.txt"), nil, false},
		{P("none.txt"), nil, false},
		{P("ls1.txt"), []string{P("secret/s.txt")}, true},
		{P("ls2.txt"), []string{P("secret/s.txt")}, true},
		{P("ldir/s.txt"), []string{P("secret/s.txt")}, false},
		{P("ldir/new.txt"), []string{P("secret/new.txt")}, false},
		{P("chain"), []string{P("ls1.txt"), P("secret/s.txt")}, true},
		{P("lh.txt"), []string{filepath.Join(home, "hs", "h.txt")}, true},
		{P("lout.txt"), []string{filepath.Join(base, "out", "o.txt")}, true},
		{P("lnew.txt"), []string{P("secret/new.txt")}, true},
		{P("loop"), nil, true},
		{"relative/x", nil, false},
		{"/proc/self/cwd/x", nil, false},
	} {
		got, link := LinkedPaths(c.path, proj, home)
		if !slices.Equal(got, c.want) || link != c.link {
			t.Errorf("LinkedPaths(%s) = %q %v, want %q %v", c.path, got, link, c.want, c.link)
		}
	}
	// Without the project as a root, its resolved form is a spelling.
	if got, _ := LinkedPaths(P("a.txt")); !slices.Equal(got, []string{filepath.Join(real, "a.txt")}) {
		t.Errorf("LinkedPaths without roots = %q", got)
	}

	// What a call records.
	where := func(tool string, in map[string]any) map[string]any {
		raw, _ := json.Marshal(in)
		var got struct {
			Where map[string]any `json:"ledger:paths"`
		}
		if err := json.Unmarshal(CallInputLinked(tool, raw, proj, home, ""), &got); err != nil {
			t.Fatal(err)
		}
		return got.Where
	}
	if w := where("Read", map[string]any{"file_path": P("ldir/s.txt")}); !slices.Equal(w["resolved"].([]any), []any{P("secret/s.txt")}) || w["link"] != nil {
		t.Errorf("CallInputLinked(Read ldir/s.txt) = %v", w)
	}
	if w := where("Write", map[string]any{"file_path": P("ls1.txt"), "content": "x"}); w["link"] != true {
		t.Errorf("CallInputLinked(Write ls1.txt) = %v", w)
	}
	// A relative path is read where the call runs.
	if w := where("Read", map[string]any{"file_path": "ldir/s.txt"}); !slices.Equal(w["resolved"].([]any), []any{P("secret/s.txt")}) {
		t.Errorf("CallInputLinked(Read relative ldir/s.txt) = %v", w)
	}
	// Nothing is added where no link is met, nor for a tool without a
	// path, and CallInput never looks. (A Bash command's paths are
	// resolved since Claude Code 2.1.328 was seen checking them through
	// links: TestDifferential/files-symlinks-bash-*; TestCommandLinks.)
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{{"Read", map[string]any{"file_path": P("a.txt")}}, {"Bash", map[string]any{"command": "cat a.txt"}}, {"WebFetch", map[string]any{"url": "https://x/ls1.txt"}}} {
		raw, _ := json.Marshal(c.in)
		if a, b := CallInputLinked(c.tool, raw, proj, home, ""), CallInputAt(c.tool, raw, proj, home, ""); string(a) != string(b) {
			t.Errorf("%s %s: %s, want %s", c.tool, raw, a, b)
		}
	}
	in, _ := json.Marshal(map[string]any{"file_path": P("ls1.txt")})
	if got := string(CallInput("Read", in, proj, home)); got != `{"file_path":"`+P("ls1.txt")+`","ledger:paths":{"home":"`+home+`","project":"`+proj+`"}}` {
		t.Errorf("CallInput = %s", got)
	}
}

// TestCommandLinks: the paths of a Bash command through symbolic links,
// as Claude Code 2.1.328 checks them (dialect section 9.5; section 0.2 row
// 41): each path the dialect reads from the command's words that meets a
// link, with its other spellings, recorded under "linked".
func TestCommandLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(proj, "secret"), filepath.Join(proj, "locked"), filepath.Join(proj, "sub"), filepath.Join(home, "hs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(proj, "secret", "s.txt"), filepath.Join(proj, "a.txt"), filepath.Join(home, "hs", "h.txt")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for l, target := range map[string]string{
		filepath.Join(proj, "ls1.txt"):   "secret/s.txt",
		filepath.Join(proj, "ldir"):      "secret",
		filepath.Join(proj, "lldir"):     "locked",
		filepath.Join(proj, "lh.txt"):    filepath.Join(home, "hs", "h.txt"),
		filepath.Join(proj, "sub", "up"): "..",
	} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	P := func(rel string) string { return filepath.ToSlash(filepath.Join(proj, rel)) }
	linked := func(cmd, cwd string) map[string][]string {
		where := map[string]any{"project": proj, "home": home}
		if cwd != "" {
			where["cwd"] = cwd
		}
		raw, _ := json.Marshal(map[string]any{"command": cmd, "ledger:paths": where})
		return CommandLinks("Bash", raw, proj, home)
	}
	for _, c := range []struct {
		cmd, cwd string
		want     map[string][]string
	}{
		{"cat ls1.txt a.txt", "", map[string][]string{P("ls1.txt"): {P("secret/s.txt")}}},
		{"wc -l < ldir/s.txt", "", map[string][]string{P("ldir/s.txt"): {P("secret/s.txt")}}},
		{"echo x > lldir/new.txt", "", map[string][]string{P("lldir/new.txt"): {P("locked/new.txt")}}},
		{"cd ldir && cat s.txt", "", map[string][]string{P("ldir"): {P("secret")}, P("ldir/s.txt"): {P("secret/s.txt")}}},
		{"cat lh.txt", "", map[string][]string{P("lh.txt"): {filepath.ToSlash(filepath.Join(home, "hs", "h.txt"))}}},
		{"cat up/ls1.txt", filepath.Join(proj, "sub"), map[string][]string{P("sub/up/ls1.txt"): {P("sub/up/secret/s.txt"), P("secret/s.txt")}}},
		{"bash -c 'rm lldir/x'", "", map[string][]string{P("lldir/x"): {P("locked/x")}}},
		{"cat a.txt /proc/self/cwd/ls1.txt", "", nil},
		{"make ls1.txt", "", nil},
	} {
		if got := linked(c.cmd, c.cwd); !maps.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("CommandLinks(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}

	// What a call records; CallInput never looks.
	raw, _ := json.Marshal(map[string]any{"command": "cat ls1.txt"})
	want := `{"command":"cat ls1.txt","ledger:paths":{"home":"` + home + `","linked":{"` + P("ls1.txt") + `":["` + P("secret/s.txt") + `"]},"project":"` + proj + `"}}`
	if got := string(CallInputLinked("Bash", raw, proj, home, "")); got != want {
		t.Errorf("CallInputLinked(Bash cat ls1.txt) = %s, want %s", got, want)
	}
	if got, want := string(CallInput("Bash", raw, proj, home)), `{"command":"cat ls1.txt","ledger:paths":{"home":"`+home+`","project":"`+proj+`"}}`; got != want {
		t.Errorf("CallInput = %s, want %s", got, want)
	}
}
