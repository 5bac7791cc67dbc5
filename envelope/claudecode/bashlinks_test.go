package claudecode

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestDecideBashThroughSymlinks: a Bash command's paths are also decided
// through the spellings the hook found through symbolic links (PathsKey
// "linked"): deny rules on any, the working directories, protected names
// and allow rules on all, in the deny step, the read-only scope,
// redirections and acceptEdits' filesystem commands (Claude Code 2.1.328:
// TestDifferential/files-symlinks-bash-*). Without "linked" a path is
// decided as given.
func TestDecideBashThroughSymlinks(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(./secret/**)", "Read(~/hs/**)", "Edit(./locked/**)"],
		"allow": ["Bash(sort:*)", "Read(//o/open/**)"]}}`
	links := map[string][]string{
		"/p/ls1.txt":      {"/p/secret/s.txt"},
		"/p/ldir/s.txt":   {"/p/secret/s.txt"},
		"/p/lchain.txt":   {"/p/ls1.txt", "/p/secret/s.txt"},
		"/p/lh.txt":       {"/h/hs/h.txt"},
		"/p/ll.txt":       {"/p/locked/keep.txt"},
		"/p/lldir/t.txt":  {"/p/locked/t.txt"},
		"/p/lldir/m":      {"/p/locked/m"},
		"/p/lout.txt":     {"/o/o.txt"},
		"/p/lod/t.txt":    {"/o/od/t.txt"},
		"/p/lfd/t.txt":    {"/p/free/t.txt"},
		"/p/lvd/p.json":   {"/p/.vscode/p.json"},
		"/p/lopen.txt":    {"/o/open/x.txt"},
		"/p/free/lo2.txt": {"/o/o2.txt", "/o/open/o2.txt"},
	}
	in := func(cmd string, linked bool) map[string]any {
		where := map[string]any{"project": "/p", "home": "/h"}
		if linked {
			where["linked"] = links
		}
		return map[string]any{"command": cmd, PathsKey: where}
	}
	for _, mode := range []string{"default", "acceptEdits", "bypassPermissions"} {
		byMode := func(d, a, b envelope.Decision) envelope.Decision {
			return map[string]envelope.Decision{"default": d, "acceptEdits": a, "bypassPermissions": b}[mode]
		}
		reason := func(d, a, b string) string {
			return map[string]string{"default": d, "acceptEdits": a, "bypassPermissions": b}[mode]
		}
		bypassOr := func(d envelope.Decision, code string) (envelope.Decision, string) {
			if mode == "bypassPermissions" {
				return allow, codeModeBypass
			}
			return d, code
		}
		scopeD, scopeR := bypassOr(ask, codePathScope)
		var calls []call1
		// Deny rules name a spelling: denied in every mode.
		for _, cmd := range []string{"cat ls1.txt", "cat ldir/s.txt", "head -1 lchain.txt", "cat lh.txt", "wc -l < ls1.txt",
			"cp ls1.txt c.txt", "cd ldir && cat s.txt", "touch lldir/t.txt", "echo x > lldir/t.txt", "echo x >> ll.txt",
			"mkdir lldir/m", "rm ll.txt", "sed -i s/k/x/ ll.txt"} {
			calls = append(calls, call1{"Bash", in(cmd, true), deny, codePermissionDeny})
		}
		// Inside a shell -c script a deny rule asks, as before.
		calls = append(calls, call1{"Bash", in("bash -c 'cat ls1.txt'", true), ask, codeDenyInScript})
		calls = append(calls,
			// The read-only scope: every spelling inside, or opened by an
			// allow rule.
			call1{"Bash", in("cat lout.txt", true), scopeD, scopeR},
			call1{"Bash", in("cat lopen.txt", true), byMode(allow, allow, allow), reason(codeDefaultReadOnly, codeDefaultReadOnly, codeModeBypass)},
			call1{"Bash", in("cat free/lo2.txt", true), scopeD, scopeR},
			call1{"Bash", in("sort lout.txt", true), scopeD, scopeR},
			// acceptEdits: a filesystem command, a redirection.
			call1{"Bash", in("touch lod/t.txt", true), byMode(ask, ask, allow), reason(codeDefaultPrompt, codeDefaultPrompt, codeModeBypass)},
			call1{"Bash", in("touch lfd/t.txt", true), byMode(ask, allow, allow), reason(codeDefaultPrompt, codeModeAcceptEdits, codeModeBypass)},
			call1{"Bash", in("touch lvd/p.json", true), byMode(ask, ask, allow), reason(codeDefaultPrompt, codeDefaultPrompt, codeModeBypass)},
			call1{"Bash", in("echo x > lod/t.txt", true), byMode(ask, ask, allow), reason(codeRedirect, codeRedirect, codeModeBypass)},
			call1{"Bash", in("echo x > lvd/p.json", true), byMode(ask, ask, allow), reason(codeRedirect, codeRedirect, codeModeBypass)},
			call1{"Bash", in("echo x > lfd/t.txt", true), byMode(ask, allow, allow), reason(codeRedirect, codeDefaultReadOnly, codeModeBypass)},
		)
		// Without "linked", as given.
		for _, cmd := range []string{"cat ls1.txt", "cat lout.txt", "cat ldir/s.txt"} {
			d, r := bypassOr(allow, codeDefaultReadOnly)
			calls = append(calls, call1{"Bash", in(cmd, false), d, r})
		}
		d, r := bypassOr(ask, codeDefaultPrompt)
		if mode == "acceptEdits" {
			d, r = allow, codeModeAcceptEdits
		}
		calls = append(calls, call1{"Bash", in("touch lldir/t.txt", false), d, r})
		runCalls(t, doc, mode, calls)
	}
}

// TestCommandPathsListed: the paths a Bash call's decision reads from its
// command, which the hook resolves through links.
func TestCommandPathsListed(t *testing.T) {
	in := func(cmd string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"command": cmd, PathsKey: map[string]any{"project": "/p", "home": "/h", "cwd": "/p/sub"}})
		return b
	}
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"cat a.txt ~/b.txt", []string{"/p/sub/a.txt", "/h/b.txt"}},
		{"echo x > o.txt < i.txt", []string{"/p/sub/o.txt", "/p/sub/i.txt"}},
		{"cd ldir && cat s.txt", []string{"/p/sub/ldir", "/p/sub/s.txt", "/p/sub/ldir/s.txt"}},
		{"cp -r a b", []string{"/p/sub/a", "/p/sub/b"}},
		{"bash -c 'rm x'", []string{"/p/sub/x"}},
		{"echo $HOME/x", nil},
		{"make build", nil},
		{"rm -- -f", []string{"/p/sub/-f"}},
	} {
		got := CommandPaths("Bash", in(c.cmd))
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("CommandPaths(%q) = %q, want %q", c.cmd, got, want)
		}
	}
	if got := CommandPaths("Read", json.RawMessage(`{"file_path":"a","ledger:paths":{"project":"/p"}}`)); got != nil {
		t.Errorf("CommandPaths(Read) = %q", got)
	}
	if got := CommandPaths("Bash", json.RawMessage(`{"command":"cat a"}`)); got != nil {
		t.Errorf("CommandPaths without PathsKey = %q", got)
	}
}

// TestCommandPathsCoverDecisions: every path a decision of a Bash call
// reads from its command is one CommandPaths names, whatever the rules and
// the mode, so the hook resolves every path the dialect then decides on.
func TestCommandPathsCoverDecisions(t *testing.T) {
	cmds := []string{"cat a.txt b.txt", "cd sub && rm ../x.txt", "cd locked; cat s.txt > o.txt", "echo x > r.txt 2> e.txt < i.txt",
		"cp a b c", "mv -t d e f", "sed -i s/a/b/ f.txt", "tee -a t.txt < a.txt", "grep -r x src", "rg -f pats.txt x dir",
		"git -C repo diff a b", "find . -newer ref.txt", "bash -c 'cat in.txt; rm gone.txt'", "cd d && bash -c 'rm z'",
		"touch x y; mkdir -p m/n", "rm -rf -- -x", "ls", "awk -f p.awk data.txt", "jq -f f.jq j.json", "sort a | uniq > u.txt",
		"cat <(cat p.txt)", "echo $(cat q.txt) > w.txt", "rmdir d1 d2", "cat ../out.txt ~/h.txt /abs/y.txt", "sed -n p s1.txt s2.txt"}
	docs := []string{`{}`,
		`{"permissions": {"deny": ["Read(./secret/**)", "Edit(./locked/**)"]}}`,
		`{"permissions": {"allow": ["Bash(cat:*)", "Bash(cp:*)", "Bash(echo:*)", "Read(/**)", "Edit(/**)"], "deny": ["Read(./nothing/**)"]}}`}
	read := 0
	for _, doc := range docs {
		for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions"} {
			w := newWorld(t, doc, decideCatalogue...)
			s := w.start(t, "lead", events.StartedData{Agent: "main", Mode: mode})
			for _, cmd := range cmds {
				raw, _ := json.Marshal(map[string]any{"command": cmd, PathsKey: map[string]any{"project": "/p", "home": "/h"}})
				named := CommandPaths("Bash", raw)
				p := w.Policy()
				v := newView(effectiveOf(p), p, s, false)
				c := newCall(toolBash, raw)
				at := *c.at()
				at.collect = func(ip inPath) {
					read++
					if k := pathKey(ip.segs); ip.kind == pathAbs && !slices.Contains(named, k) {
						t.Errorf("%s [%s] %q: the decision reads %s, which CommandPaths (%q) does not name", doc, mode, cmd, k, named)
					}
				}
				c.ctx = &at
				v.decide(c, nil)
			}
		}
	}
	if read < 500 {
		t.Errorf("the decisions read %d paths", read)
	}
}
