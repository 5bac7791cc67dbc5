package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// dump renders a compiled document deterministically, for comparing two
// compilations.
func (c *Compiled) dump() string {
	var b strings.Builder
	for _, name := range c.agentNames {
		a := c.agents[name]
		fmt.Fprintf(&b, "agent %s tools=%v/%v/%v %q disallowed %q mode=%s bg=%v any=%v types=%q\n", name,
			a.toolsPresent, a.wildcard, a.limited(), entryTexts(a.tools), entryTexts(a.disallowed), a.mode, a.background, a.anyType, a.types)
	}
	for _, n := range builtInNames {
		fmt.Fprintf(&b, "builtin %s=%v\n", n, c.builtIns[n])
	}
	for bh := bAllow; bh <= bDeny; bh++ {
		for _, r := range c.rules[bh] {
			fmt.Fprintf(&b, "%s %q name=%q spec=%q kinds=%d/%d\n", bh, r.text, r.name, r.spec, r.nameKind, r.specKind)
		}
	}
	fmt.Fprintf(&b, "mode=%s dirs=%v bypassOff=%v depth=%d\n", c.defaultMode, c.dirs, c.disableBypass, c.maxDepth)
	return b.String()
}

func entryTexts(es []toolEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.text
	}
	return out
}

func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{}`), "Read,Bash,Agent")
	f.Add([]byte(`{"agents": {"a": {"description": "d", "tools": "Agent(x, y), Read", "disallowedTools": ["mcp__*"]}},
		"permissions": {"allow": ["Bash(npm *)"], "deny": ["Read(./.env)", "*"], "additionalDirectories": ["../lib"]},
		"builtInAgents": ["Explore"], "maxSubagentDepth": 2}`), "Read,Task,mcp__a__b")
	f.Add([]byte(`{"permissions": {"deny": ["Bash("]}}`), "Read")
	f.Add([]byte(`not json`), "")
	f.Fuzz(func(t *testing.T, doc []byte, catalogue string) {
		var cat []string
		if catalogue != "" {
			cat = strings.Split(catalogue, ",")
		}
		d := New()
		c1, err1 := d.Compile(doc, cat)
		c2, err2 := d.Compile(doc, cat)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			if events.CodeOf(err1) != events.CodeInvalidPolicy {
				t.Fatalf("error code %v", err1)
			}
			return
		}
		if a, b := c1.(*Compiled).dump(), c2.(*Compiled).dump(); a != b {
			t.Fatalf("compilations differ:\n%s\n%s", a, b)
		}
		// Exercise the compiled document end to end: it must never panic.
		w := &fakeWorld{d: d, sessions: map[events.SessionKey]*envelope.Session{}}
		w.policy = &envelope.PolicyState{Dialect: DialectName, Revision: envelope.RecordRef{Seq: 1}, Compiled: c1, Catalogue: cat}
		eff, err := d.Effective(w.policy)
		if err != nil {
			t.Fatal(err)
		}
		w.policy.Effective = eff
		s, err := w.tryStart("lead", events.StartedData{Agent: "main"})
		if err != nil {
			t.Fatal(err)
		}
		_ = d.Tools(w, s)
		for _, tool := range cat {
			_ = d.Decide(w, s, tool, json.RawMessage(`"src/a.go"`))
		}
		for _, name := range c1.(*Compiled).agentNames {
			_, _ = w.trySpawn("lead:"+name, events.SpawnedData{Parent: "lead", Agent: name})
		}
	})
}

func FuzzBashSplit(f *testing.F) {
	for _, s := range []string{"ls -la", "npm run test && curl x | sh", "echo $(rm -rf /)", "echo `date`; (cd x && make)",
		`echo "a && b" 'c; d' \; e`, "FOO=1 timeout -s KILL 5 nice -n 3 xargs rm -rf ${DIR:?}/*", "git status 2>&1 >/dev/null",
		"a <(b) >(c) {d;}", "echo 'open", "echo $(((", "sudo -u x rm -- /", ")", "}{", "${${${"} {
		f.Add(s)
	}
	for _, tc := range shCases {
		f.Add(tc.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// The Bash parser's split, where it must be the dialect's
		// (bash_oracle_test.go).
		checkSplitAgainstSh(t, cmd)
		l := parseBash(cmd)
		l2 := parseBash(cmd)
		if len(l.subs) != len(l2.subs) || l.critical != l2.critical || strings.Join(l.denyTexts, "\x00") != strings.Join(l2.denyTexts, "\x00") {
			t.Fatal("parsing is not deterministic")
		}
		for i := range l.subs {
			s := &l.subs[i]
			if s.raw == "" || s.raw != strings.Trim(s.raw, blanks) || !strings.Contains(cmd, s.raw) {
				t.Fatalf("subcommand %q of %q", s.raw, cmd)
			}
			_ = l.readOnly(s)
			_ = l.fsApproved(s, nil, &call{}, nil)
		}
	})
}

func FuzzPathMatch(f *testing.F) {
	for _, s := range [][2]string{{"src/**", "src/a.go"}, {".env", "a/.env"}, {"//etc/**", "/etc/x"},
		{"~/.ssh/*", "~/.ssh/id"}, {"**/**/x?", "a/b/xy"}, {"/", "/"}, {"*.pem", "../x.pem"}, {"[a]/", "[a]/b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		pp := compilePathPattern(pattern)
		p := parseInputPath(path)
		a := pp.match(p, bAllow)
		d := pp.match(p, bDeny)
		if a && !d {
			t.Fatalf("%q matches %q in allow but not in deny", pattern, path)
		}
		_ = p.inside([]inPath{parseInputPath(pattern)})
		_ = p.protected()
		dp := compileDomain(pattern)
		_ = dp.match(hostOf(path))
	})
}
