package claudecode

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

var fullCatalogue = []string{"Read", "Grep", "Glob", "Bash", "Edit", "Write", "NotebookEdit", "WebFetch",
	"WebSearch", "LSP", "Skill", "TodoWrite", "Agent", "AskUserQuestion", "EndConversation", "EnterPlanMode",
	"ExitPlanMode", "ScheduleWakeup", "TaskOutput", "WaitForMcpServers", "Workflow", "TaskStop", "SendMessage",
	"SyntheticOutput", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "CronCreate",
	"mcp__github__get_issue", "mcp__github__create_pr", "mcp__slack__post_message"}

func TestPoolLayers(t *testing.T) {
	type sess struct {
		key     string
		start   *events.StartedData
		spawn   *events.SpawnedData
		allowed []string          // exact
		denied  map[string]string // subset
	}
	for _, c := range []struct {
		name     string
		doc      string
		sessions []sess
	}{
		{
			name:     "root keeps everything",
			doc:      `{}`,
			sessions: []sess{{key: "lead", start: &events.StartedData{Agent: "main"}, allowed: fullCatalogue}},
		},
		{
			name: "bare deny, glob deny and the server form",
			doc:  `{"permissions": {"deny": ["Bash", "Web*", "mcp__github", "Read(x)", "Stop Task"], "ask": ["Grep"]}}`,
			sessions: []sess{{key: "lead", start: &events.StartedData{Agent: "main"},
				denied: map[string]string{"Bash": "permission:deny", "WebFetch": "permission:deny", "WebSearch": "permission:deny",
					"mcp__github__get_issue": "permission:deny", "mcp__github__create_pr": "permission:deny"}}},
		},
		{
			name: "coordinator",
			doc:  `{}`,
			sessions: []sess{{key: "lead", start: &events.StartedData{Agent: "main", Coordinator: true},
				allowed: list("Agent", "TaskStop", "SendMessage", "SyntheticOutput"),
				denied:  map[string]string{"Read": "coordinator:not_dispatch", "mcp__slack__post_message": "coordinator:not_dispatch"}}},
		},
		{
			name: "sub-agent: first filter, plan mode, MCP kept",
			doc:  `{"agents": {"helper": {"description": "h"}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:h", spawn: &events.SpawnedData{Parent: "lead", Agent: "helper"},
					denied: map[string]string{"AskUserQuestion": "first_filter:subagent", "EndConversation": "first_filter:subagent",
						"ExitPlanMode": "first_filter:not_plan_mode", "Workflow": "first_filter:subagent"}},
			},
		},
		{
			name: "plan-mode sub-agent keeps ExitPlanMode",
			doc:  `{"agents": {"helper": {"description": "h", "tools": ["ExitPlanMode", "Read"]}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main", Mode: "plan"}},
				{key: "lead:h", spawn: &events.SpawnedData{Parent: "lead", Agent: "helper"}, allowed: list("Read", "ExitPlanMode")},
			},
		},
		{
			// TestDifferential/genagents-nested-plan-*: the parent's mode
			// does not matter, nor whether it is a sub-agent.
			name: "plan-mode sub-agent of a sub-agent keeps ExitPlanMode",
			doc: `{"agents": {"outer": {"description": "o", "tools": ["Agent", "ExitPlanMode", "Read"]},
			                  "p": {"description": "p", "permissionMode": "plan", "tools": ["ExitPlanMode", "Read"]},
			                  "n": {"description": "n", "tools": ["ExitPlanMode", "Read"]}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:o", spawn: &events.SpawnedData{Parent: "lead", Agent: "outer"}, allowed: list("Agent", "Read"),
					denied: map[string]string{"ExitPlanMode": "first_filter:not_plan_mode"}},
				{key: "lead:o:p", spawn: &events.SpawnedData{Parent: "lead:o", Agent: "p"}, allowed: list("Read", "ExitPlanMode")},
				{key: "lead:o:n", spawn: &events.SpawnedData{Parent: "lead:o", Agent: "n"}, allowed: list("Read"),
					denied: map[string]string{"ExitPlanMode": "first_filter:not_plan_mode"}},
			},
		},
		{
			// TestDifferential/genagents-nested-search: a parent whose
			// disallowedTools removed Bash gives its child neither Bash
			// (the envelope caps it) nor Grep and Glob (the release
			// resolves the child from the parent's given tools, which
			// held Bash).
			name: "sub-agent of a sub-agent without Bash gets no Grep or Glob",
			doc: `{"release": "2.1.328", "agents": {"outer": {"description": "o", "disallowedTools": ["Bash"]},
			                                          "inner": {"description": "i"}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:o", spawn: &events.SpawnedData{Parent: "lead", Agent: "outer"},
					denied: map[string]string{"Bash": "agent_disallowed:listed", "Grep": "release:search_via_bash", "Glob": "release:search_via_bash"}},
				{key: "lead:o:i", spawn: &events.SpawnedData{Parent: "lead:o", Agent: "inner"},
					denied: map[string]string{"Bash": "inherited:parent_pool", "Grep": "release:search_via_bash", "Glob": "release:search_via_bash"}},
			},
		},
		{
			name: "background sub-agent and teammate keep-lists",
			doc:  `{"agents": {"bg": {"description": "b", "background": true}, "mate": {"description": "m"}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:bg", spawn: &events.SpawnedData{Parent: "lead", Agent: "bg"},
					allowed: list("Read", "Grep", "Glob", "Bash", "Edit", "Write", "NotebookEdit", "WebFetch", "WebSearch",
						"Skill", "TodoWrite", "Agent", "TaskStop", "SendMessage",
						"mcp__github__get_issue", "mcp__github__create_pr", "mcp__slack__post_message"),
					denied: map[string]string{"LSP": "background_filter:not_kept", "TaskCreate": "background_filter:not_kept",
						"ExitPlanMode": "first_filter:not_plan_mode", "SyntheticOutput": "background_filter:not_kept"}},
				{key: "lead:mate", spawn: &events.SpawnedData{Parent: "lead", Agent: "mate", Teammate: true, Background: ptr(true)},
					denied: map[string]string{"LSP": "background_filter:not_kept"}},
			},
		},
		{
			name: "fork skips the filters",
			doc:  `{"permissions": {"deny": ["WebSearch"]}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:f", spawn: &events.SpawnedData{Parent: "lead", Agent: "fork", Fork: true, Background: ptr(true)},
					denied: map[string]string{"WebSearch": "permission:deny"}},
			},
		},
		{
			name: "agent lists: blocklist before allowlist, teammate additions",
			doc: `{"agents": {"a": {"description": "a", "tools": ["Read", "Bash", "mcp__github"], "disallowedTools": ["Bash", "mcp__github__create_pr"]},
			                  "mate": {"description": "m", "tools": ["Read"], "disallowedTools": ["TaskGet"]}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:a", spawn: &events.SpawnedData{Parent: "lead", Agent: "a"}, allowed: list("Read", "mcp__github__get_issue"),
					denied: map[string]string{"Bash": "agent_disallowed:listed", "mcp__github__create_pr": "agent_disallowed:listed",
						"Edit": "agent_tools:not_listed", "AskUserQuestion": "first_filter:subagent"}},
				{key: "lead:mate", spawn: &events.SpawnedData{Parent: "lead", Agent: "mate", Teammate: true},
					allowed: list("Read", "SendMessage", "TaskCreate", "TaskList", "TaskUpdate"),
					denied:  map[string]string{"TaskGet": "agent_disallowed:listed", "CronCreate": "agent_tools:not_listed"}},
			},
		},
		{
			name: "main-thread agent definition bounds the root and its children",
			doc:  `{"agents": {"d": {"description": "d", "tools": ["Agent(x)", "Read"]}, "x": {"description": "x"}}}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "d"}, allowed: list("Read", "Agent")},
				{key: "lead:x", spawn: &events.SpawnedData{Parent: "lead", Agent: "x"}, allowed: list("Read", "Agent"),
					denied: map[string]string{"Bash": "inherited:parent_pool", "AskUserQuestion": "first_filter:subagent"}},
			},
		},
		{
			name: "depth limit",
			doc:  `{"maxSubagentDepth": 2}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main"}},
				{key: "lead:a", spawn: &events.SpawnedData{Parent: "lead", Agent: "general-purpose"}},
				{key: "lead:a:b", spawn: &events.SpawnedData{Parent: "lead:a", Agent: "Plan"},
					denied: map[string]string{"Agent": "depth_limit:max_depth", "Edit": "agent_disallowed:listed"}},
			},
		},
		{
			name: "session MCP additions stay with the session and its children",
			doc:  `{}`,
			sessions: []sess{
				{key: "lead", start: &events.StartedData{Agent: "main", Tools: list("mcp__db__query")}},
				{key: "lead:a", spawn: &events.SpawnedData{Parent: "lead", Agent: "general-purpose", Tools: list("mcp__fs__read")},
					denied: map[string]string{"AskUserQuestion": "first_filter:subagent"}},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, c.doc, fullCatalogue...)
			for _, s := range c.sessions {
				if s.start != nil {
					w.start(t, s.key, *s.start)
				} else {
					w.spawn(t, s.key, *s.spawn)
				}
				ts := w.tools(s.key)
				if s.allowed != nil && !sameSet(ts.Allowed, s.allowed) {
					t.Errorf("%s allowed %q, want %q", s.key, ts.Allowed, s.allowed)
				}
				got := reasons(ts)
				for tool, code := range s.denied {
					if got[tool] != code {
						t.Errorf("%s %s: %q, want %q", s.key, tool, got[tool], code)
					}
				}
				if len(ts.Allowed)+len(ts.Denied) < len(fullCatalogue) {
					t.Errorf("%s: the set misses catalogue tools", s.key)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestPoolCatalogueOrderAndAdditions(t *testing.T) {
	w := newWorld(t, `{}`, "Read", "Task", "mcp__a__x")
	w.start(t, "lead", events.StartedData{Agent: "main", Tools: list("mcp__a__x", "mcp__b__y")})
	ts := w.tools("lead")
	if want := list("Read", "Agent", "mcp__a__x", "mcp__b__y"); !slices.Equal(ts.Allowed, want) {
		t.Errorf("allowed %q, want %q (Task is Agent, de-duplicated, in order)", ts.Allowed, want)
	}
	if ts.Denied == nil {
		t.Error("denied is an empty list, not nil")
	}
	w.spawn(t, "lead:a", events.SpawnedData{Parent: "lead", Agent: "general-purpose", Tools: list("mcp__c__z")})
	if !slices.Contains(w.tools("lead:a").Allowed, "mcp__c__z") || slices.Contains(w.tools("lead").Allowed, "mcp__c__z") {
		t.Error("a child's own MCP addition is visible to it only")
	}
}

func TestEndConversationExemption(t *testing.T) {
	w := newWorld(t, `{"permissions": {"deny": ["EndConversation", "Bash"]}}`, "Bash", "EndConversation", "Read")
	w.start(t, "lead", events.StartedData{Agent: "main"})
	if r := reasons(w.tools("lead")); r["EndConversation"] != "" || r["Bash"] != "permission:deny" {
		t.Errorf("EndConversation survives while Read remains: %v", r)
	}
	w.setPolicy(t, `{"permissions": {"deny": ["*"]}}`, nil)
	if r := reasons(w.tools("lead")); r["EndConversation"] != "permission:deny" {
		t.Errorf("deny * removes EndConversation too: %v", r)
	}
	if v := w.decide("lead", "EndConversation", nil); v.Decision != envelope.Deny {
		t.Errorf("decide: %+v", v)
	}
}

func TestPoolReasonsNameRulesAndRecords(t *testing.T) {
	w := newWorld(t, `{"agents": {"a": {"description": "a", "tools": ["Read", "Bash"], "disallowedTools": ["mcp__github"]}},
		"permissions": {"deny": ["WebFetch"]}}`,
		"Read", "Bash", "Edit", "WebFetch", "mcp__github__get_issue", "ExitPlanMode", "Agent")
	rev := w.policy.Revision
	w.start(t, "lead", events.StartedData{Agent: "main"})
	g := w.grant(t, "deny", "Edit")
	child := w.spawn(t, "lead:a", events.SpawnedData{Parent: "lead", Agent: "a"})
	w.revoke(t, "deny", "Edit") // the child keeps Edit out through its envelope
	byTool := map[string]envelope.Reason{}
	for _, d := range w.tools("lead:a").Denied {
		byTool[d.Tool] = d.Reason
	}
	want := map[string]envelope.Reason{
		"WebFetch":               {Code: "permission:deny", Rule: `permissions.deny: "WebFetch"`, Record: &rev},
		"mcp__github__get_issue": {Code: "agent_disallowed:listed", Rule: `disallowedTools: "mcp__github"`, Record: &rev},
		"ExitPlanMode":           {Code: "first_filter:not_plan_mode", Rule: `mode: "default"`, Record: &child.Origin},
		"Agent":                  {Code: "agent_tools:not_listed", Rule: `tools: ["Read", "Bash"]`, Record: &rev},
		"Edit":                   {Code: "agent_tools:not_listed", Rule: `tools: ["Read", "Bash"]`, Record: &rev},
	}
	if !reflect.DeepEqual(byTool, want) {
		t.Errorf("reasons:\n got %+v\nwant %+v", byTool, want)
	}
	// A revoked deny grant no longer applies, but the envelope keeps Edit out
	// of a child without a tools list.
	w.setPolicy(t, `{"agents": {"a": {"description": "a"}}}`, nil)
	for _, d := range w.tools("lead:a").Denied {
		if d.Tool == "Edit" && (d.Reason.Code != codeParentPool || *d.Reason.Record != child.Origin) {
			t.Errorf("Edit: %+v", d.Reason)
		}
	}
	_ = g
}

func TestVanishedDefinitionFailsClosed(t *testing.T) {
	w := newWorld(t, `{"agents": {"coder": {"description": "c"}}}`, "Read", "Bash", "Agent")
	w.start(t, "lead", events.StartedData{Agent: "coder"})
	w.start(t, "other", events.StartedData{Agent: "main"})
	w.spawn(t, "other:c", events.SpawnedData{Parent: "other", Agent: "coder"})
	w.setPolicy(t, `{}`, nil)
	for _, key := range []string{"lead", "other:c"} {
		ts := w.tools(key)
		if len(ts.Allowed) != 0 || reasons(ts)["Read"] != codeNotConfigured {
			t.Errorf("%s: %+v", key, ts)
		}
	}
	if len(w.tools("other").Allowed) != 3 {
		t.Error("main has no definition to lose")
	}
	w.setPolicy(t, `{"builtInAgents": false}`, nil)
	w.setPolicy(t, `{"agents": {"coder": {"description": "c"}}}`, nil)
	if len(w.tools("lead").Allowed) != 3 {
		t.Error("a definition that comes back applies again")
	}
}

func TestContinuationCap(t *testing.T) {
	w := newWorld(t, `{}`, "Read", "Bash", "WebFetch", "Agent")
	w.start(t, "lead", events.StartedData{Agent: "main"})
	w.grant(t, "deny", "WebFetch")
	a := w.spawn(t, "lead:a", events.SpawnedData{Parent: "lead", Agent: "general-purpose"})
	w.revoke(t, "deny", "WebFetch")
	ref := w.resume("lead", a.Envelope)
	ts := w.tools("lead")
	if !sameSet(ts.Allowed, list("Read", "Bash", "Agent")) {
		t.Errorf("allowed %q", ts.Allowed)
	}
	if d := ts.Denied[0]; d.Tool != "WebFetch" || d.Reason.Code != codeNotCaptured || *d.Reason.Record != ref {
		t.Errorf("denied %+v", ts.Denied)
	}
	// Live denies still bite under the cap.
	w.grant(t, "deny", "Bash")
	if reasons(w.tools("lead"))["Bash"] != "permission:deny" {
		t.Error("a live deny bites under a continuation")
	}
	// A spawn under the cap captures the capped pool.
	b := w.spawn(t, "lead:b", events.SpawnedData{Parent: "lead", Agent: "general-purpose"})
	if !slices.Equal(b.Envelope.InheritedAllow, list("Agent", "Read")) || !slices.Equal(b.Envelope.InheritedDeny, list("Bash", "WebFetch")) {
		t.Errorf("envelope %q / %q", b.Envelope.InheritedAllow, b.Envelope.InheritedDeny)
	}
}

func TestDecideTracePoolLayers(t *testing.T) {
	w := newWorld(t, `{"agents": {"a": {"description": "a", "tools": ["Read"]}}}`, "Read", "Bash", "Agent")
	w.start(t, "lead", events.StartedData{Agent: "main"})
	w.spawn(t, "lead:a", events.SpawnedData{Parent: "lead", Agent: "a"})
	v := w.decide("lead:a", "Bash", "ls")
	if v.Decision != envelope.Deny || v.Reason.Code != codeNotListed {
		t.Fatalf("%+v", v)
	}
	var layers []string
	for _, st := range v.Trace {
		layers = append(layers, st.Layer+"="+string(st.Outcome))
	}
	want := "catalogue=kept session_deny=kept coordinator=absent first_filter=kept first_filter_plan_mode=kept " +
		"depth_limit=kept background_filter=absent agent_disallowed=kept agent_tools=removed inherited=skipped " +
		"continuation=skipped release=skipped agent_type=skipped end_conversation=skipped deny_rules=skipped ask_rules=skipped " +
		"user_interaction=skipped critical_path=skipped protected_path=skipped mode=skipped allow_rules=skipped " +
		"defaults=skipped dont_ask=skipped"
	if got := strings.Join(layers, " "); got != want {
		t.Errorf("trace\n got %s\nwant %s", got, want)
	}
	if r := v.Trace[8].Reason; r == nil || r.Code != codeNotListed {
		t.Errorf("the removing layer names its reason: %+v", v.Trace[8])
	}
	if v := w.decide("lead:a", "get_weather", nil); v.Reason.Code != codeCatalogueUnknown || v.Trace[0].Outcome != envelope.Removed {
		t.Errorf("%+v", v)
	}
}

func TestEffectiveOfFallbacks(t *testing.T) {
	w := newWorld(t, `{"permissions": {"deny": ["Bash"]}}`, "Read", "Bash")
	s := w.start(t, "lead", events.StartedData{Agent: "main"})
	// No stored effective document: it is computed from the compiled one.
	w.policy.Effective = nil
	if r := reasons(w.tools("lead")); r["Bash"] != codePermissionDeny {
		t.Errorf("computed effective: %v", r)
	}
	// A catalogue changed after the effective document was made.
	w.refresh(t)
	w.policy.Catalogue = list("Read", "Bash", "Edit")
	if ts := w.tools("lead"); !slices.Equal(ts.Allowed, list("Read", "Edit")) {
		t.Errorf("new catalogue: %q", ts.Allowed)
	}
	// Another dialect's compiled document fails closed.
	w.policy.Effective, w.policy.Compiled = nil, "foreign"
	if ts := w.tools("lead"); len(ts.Allowed) != 0 {
		t.Errorf("foreign: %q", ts.Allowed)
	}
	// No policy at all: nothing exists.
	w.policy = nil
	if ts := w.d.Tools(w, s); len(ts.Allowed) != 0 || ts.Denied == nil {
		t.Errorf("no policy: %+v", ts)
	}
	if ts := w.d.Tools(w, nil); ts.Allowed == nil || ts.Denied == nil {
		t.Error("no session: empty lists")
	}
}
