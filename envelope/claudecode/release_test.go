package claudecode

import (
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

func without(l []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(l), func(s string) bool { return slices.Contains(drop, s) })
}

// TestReleasePools: a document naming release 2.1.328 gets that release's
// pools, as its CLI gave them (internal/claudecodetest TestPools, recorded
// in testdata/claude-code-cli/pools-2.1.328.json; DeferredToolPlaceholder,
// an internal placeholder, is not a tool).
func TestReleasePools(t *testing.T) {
	cat, ok := Catalogue(LatestRelease)
	if !ok {
		t.Fatal("no catalogue for the latest release")
	}
	doc := `{"release": "2.1.328", "agents": {
		"reader": {"description": "r", "tools": ["Read", "Grep"]},
		"searcher": {"description": "s", "tools": ["Grep", "Glob"]},
		"both": {"description": "b", "tools": ["Read", "Grep", "Glob", "Bash"]},
		"nobash": {"description": "n", "disallowedTools": ["Bash"]},
		"starnobash": {"description": "s", "tools": ["*"], "disallowedTools": ["Bash(git:*)"]},
		"namednobash": {"description": "n", "tools": ["Read", "Grep", "Glob", "Bash"], "disallowedTools": ["Bash"]},
		"monnobash": {"description": "m", "tools": ["Read", "Bash", "Monitor", "Grep"], "disallowedTools": ["Bash"]}}}`
	main := list("Agent", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree", "ExitWorktree",
		"ListAgents", "Monitor", "NotebookEdit", "Read", "ReportFindings", "ScheduleWakeup", "SendMessage", "Skill",
		"TaskStop", "ToolSearch", "WebFetch", "WebSearch", "Workflow", "Write")
	sub := slices.DeleteFunc(slices.Clone(main), func(s string) bool { return s == "ScheduleWakeup" || s == "Workflow" })
	explore := slices.DeleteFunc(slices.Clone(sub), func(s string) bool {
		return s == "Agent" || s == "Edit" || s == "Write" || s == "NotebookEdit"
	})
	for _, c := range []struct {
		name  string
		agent string
		want  []string
		why   map[string]string
	}{
		{"main thread", "", main, map[string]string{"Grep": codeSearchViaBash, "Glob": codeSearchViaBash}},
		{"general-purpose", "general-purpose", sub, nil},
		{"claude", "claude", sub, nil},
		{"Explore", "Explore", explore, map[string]string{"Grep": codeSearchViaBash, "Edit": codeDisallowed}},
		{"Plan", "Plan", explore, nil},
		{"statusline-setup", "statusline-setup", list("Edit", "Read"), nil},
		{"tools: Read, Grep", "reader", list("Grep", "Read"), nil},
		{"tools: Grep, Glob", "searcher", list("Glob", "Grep"), nil},
		{"tools: Read, Grep, Glob, Bash", "both", list("Bash", "Read"), map[string]string{"Grep": codeSearchViaBash}},
		// An agent without a tools list has no Grep and Glob when its parent's
		// pool had Bash, though its disallowedTools removes Bash; Monitor goes
		// with Bash (TestDifferential/agents-disallowed-bash, b-alone, b-star;
		// agents-disallowed, d-spec, d-list).
		{"disallowedTools: Bash", "nobash", without(sub, "Bash", "Monitor"),
			map[string]string{"Grep": codeSearchViaBash, "Glob": codeSearchViaBash, "Monitor": codeDisallowed}},
		{"tools: *, disallowedTools: Bash(git:*)", "starnobash", without(sub, "Bash", "Monitor"),
			map[string]string{"Grep": codeSearchViaBash, "Monitor": codeDisallowed}},
		// One whose tools name Grep and Glob keeps them when its
		// disallowedTools removes Bash (b-named), and loses a listed
		// Monitor (b-with-monitor).
		{"tools: Read, Grep, Glob, Bash, disallowedTools: Bash", "namednobash", list("Glob", "Grep", "Read"), nil},
		{"tools: Read, Bash, Monitor, Grep, disallowedTools: Bash", "monnobash", list("Grep", "Read"),
			map[string]string{"Monitor": codeDisallowed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, doc, cat...)
			w.start(t, "lead", events.StartedData{Agent: "main"})
			key := "lead"
			if c.agent != "" {
				key = "lead:child"
				w.spawn(t, key, events.SpawnedData{Parent: "lead", Agent: c.agent})
			}
			ts := w.tools(key)
			got := slices.Sorted(slices.Values(ts.Allowed))
			if !slices.Equal(got, c.want) {
				t.Errorf("pool\n got %s\nwant %s", strings.Join(got, " "), strings.Join(c.want, " "))
			}
			r := reasons(ts)
			for tool, code := range c.why {
				if r[tool] != code {
					t.Errorf("%s: reason %q, want %q", tool, r[tool], code)
				}
			}
		})
	}
	// A session whose Bash is denied gets Grep and Glob (claude -p
	// --disallowedTools Bash: the request's tools held Glob and Grep).
	w := newWorld(t, `{"release": "2.1.328", "permissions": {"deny": ["Bash"]}}`, cat...)
	w.start(t, "lead", events.StartedData{Agent: "main"})
	if ts := w.tools("lead"); !slices.Contains(ts.Allowed, "Grep") || !slices.Contains(ts.Allowed, "Glob") {
		t.Errorf("Bash denied: Grep and Glob should be in the pool: %v", ts.Allowed)
	}
	v := w.decide("lead", "Grep", map[string]any{"pattern": "x"})
	if v.Decision != allow {
		t.Errorf("Grep without Bash: %s (%s)", v.Decision, v.Reason.Code)
	}
	// document.tools is the --tools flag: the search tools it names stay
	// beside Bash, in the main thread and its children
	// (TestDifferential/grep-glob-tools-flag).
	w = newWorld(t, `{"release": "2.1.328", "tools": ["Agent", "Bash", "Read", "Grep", "Glob"]}`, "Agent", "Bash", "Read", "Grep", "Glob")
	w.start(t, "lead", events.StartedData{Agent: "main"})
	w.spawn(t, "lead:x", events.SpawnedData{Parent: "lead", Agent: "Explore"})
	for _, k := range []string{"lead", "lead:x"} {
		if ts := w.tools(k); !slices.Contains(ts.Allowed, "Grep") || !slices.Contains(ts.Allowed, "Glob") {
			t.Errorf("%s with --tools naming Grep and Glob: %v", k, ts.Allowed)
		}
	}
	// ExitPlanMode: never on the main thread (plan mode included) or a
	// fork; a sub-agent in plan mode has it (TestPools).
	w = newWorld(t, `{"release": "2.1.328", "agents": {"planner": {"description": "p", "permissionMode": "plan"}}}`, cat...)
	w.start(t, "lead", events.StartedData{Agent: "main", Mode: "plan"})
	w.spawn(t, "lead:p", events.SpawnedData{Parent: "lead", Agent: "planner"})
	w.spawn(t, "lead:f", events.SpawnedData{Parent: "lead", Agent: "fork", Fork: true})
	if r := reasons(w.tools("lead")); r["ExitPlanMode"] != codeNotMainThread {
		t.Errorf("main thread in plan mode: ExitPlanMode %q", r["ExitPlanMode"])
	}
	if r := reasons(w.tools("lead:f")); r["ExitPlanMode"] != codeNotMainThread {
		t.Errorf("fork: ExitPlanMode %q", r["ExitPlanMode"])
	}
	if ts := w.tools("lead:p"); !slices.Contains(ts.Allowed, "ExitPlanMode") {
		t.Errorf("plan-mode sub-agent: no ExitPlanMode in %v", ts.Allowed)
	}
	// One whose definition says plan keeps it under a bypassPermissions or
	// acceptEdits parent, whose mode it runs in
	// (TestDifferential/agents-modes-acceptEdits, main:pm-plan).
	for _, pm := range []string{"acceptEdits", "bypassPermissions"} {
		w := newWorld(t, `{"release": "2.1.328", "agents": {"planner": {"description": "p", "permissionMode": "plan"}}}`, cat...)
		w.start(t, "lead", events.StartedData{Agent: "main", Mode: pm})
		w.spawn(t, "lead:p", events.SpawnedData{Parent: "lead", Agent: "planner"})
		if ts := w.tools("lead:p"); !slices.Contains(ts.Allowed, "ExitPlanMode") {
			t.Errorf("plan-mode definition under a %s parent: no ExitPlanMode in %v", pm, ts.Allowed)
		}
	}
	// A sub-agent in plan mode only because its parent is does not get it.
	w.spawn(t, "lead:g", events.SpawnedData{Parent: "lead", Agent: "general-purpose"})
	if r := reasons(w.tools("lead:g")); r["ExitPlanMode"] != codeNotMainThread {
		t.Errorf("general-purpose under a plan-mode parent: ExitPlanMode %q", r["ExitPlanMode"])
	}
	// Without a release the written spec's pools hold: Grep stays.
	w = newWorld(t, `{}`, cat...)
	w.start(t, "lead", events.StartedData{Agent: "main"})
	if ts := w.tools("lead"); !slices.Contains(ts.Allowed, "Grep") {
		t.Errorf("no release: Grep should stay: %v", ts.Allowed)
	}
}

func TestReleaseValidation(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"release": "9.9.9"}`, `document.release: "9.9.9" is not a Claude Code release this ledger knows (known: 2.1.328)`},
		{`{"release": 2}`, `document.release: must be a string`},
		{`{"release": "2.1.328", "builtInAgents": ["claude"]}`, ""},
		{`{"builtInAgents": ["claude"]}`, `"claude" is not a built-in agent`},
	} {
		_, err := New().Compile([]byte(c.doc), nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.doc, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.doc, err, c.want)
		}
	}
}
