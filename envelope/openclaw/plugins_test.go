package openclaw

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestRevocationOfPluginTools: a revocation of group:plugins or of a plugin
// id reaches the tools the policy marks as that plugin's (pluginTools), as
// the same entry in tools.deny does; without marks, only the MCP tools.
func TestRevocationOfPluginTools(t *testing.T) {
	d := New()
	marked, err := d.Compile([]byte(`{"pluginTools": {"voice-call": ["voice_call"], "lobster": ["lobster"]}}`), []string{"read", "voice_call", "lobster"})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := d.Compile([]byte(`{}`), []string{"read", "voice_call", "lobster"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		compiled   any
		rule, tool string
		want       bool
	}{
		{marked, "group:plugins", "voice_call", true},
		{marked, "group:plugins", "gh__issue", true},
		{marked, "group:plugins", "read", false},
		{marked, "Voice-Call", "voice_call", true},
		{marked, "voice-call", "lobster", false},
		{marked, "lobster", "lobster", true},
		{bare, "group:plugins", "voice_call", false},
		{bare, "group:plugins", "gh__issue", true},
		{bare, "voice-call", "voice_call", false},
	}
	for _, tt := range tests {
		p := &envelope.PolicyState{Compiled: tt.compiled}
		if got := d.MatchRule(p, tt.rule, tt.tool, nil, false); got != tt.want {
			t.Errorf("revoking %q (marks %v) denies %s: %v, want %v", tt.rule, tt.compiled == marked, tt.tool, got, tt.want)
		}
	}
}

// TestReportedPluginTools: a root whose start carries the gateway's report
// of its plugins' tools (plugin_tools) is decided as OpenClaw decides with
// it, and so is its sub-agent; where the report makes a tool a plugin tool
// that pluginTools does not list, a deny the document alone would miss is
// made, with a reason that says what to add; where pluginTools marks a tool
// the gateway reports as core, the document's deny stands (fail closed),
// and an allow it alone gives is refused with a reason that says what to
// remove. Without a report, the document alone decides, as before.
func TestReportedPluginTools(t *testing.T) {
	cat := []string{"read", "exec", "memory_search", "memory_get", "browser", "voice_call", "sessions_spawn"}
	report := json.RawMessage(`{"memory-core": ["memory_get", "memory_search"], "browser": ["browser"]}`)
	type want struct {
		tool, decision, code string
		rule                 []string // substrings of the rule
	}
	for _, tc := range []struct {
		name   string
		doc    string
		report json.RawMessage
		child  bool
		wants  []want
	}{
		{"group:plugins without pluginTools, no report: the bundled tools are core (as before)",
			`{"tools": {"deny": ["group:plugins"]}}`, nil, false, []want{
				{"memory_search", "allow", "default:allow", nil},
				{"browser", "allow", "default:allow", nil}}},
		{"group:plugins without pluginTools, reported: denied, saying what to add",
			`{"tools": {"deny": ["group:plugins"]}}`, report, false, []want{
				{"memory_search", "deny", "global:plugin_unlisted", []string{`tools.deny: "group:plugins"`, "plugin memory-core", `add "memory_search" to pluginTools.memory-core`}},
				{"browser", "deny", "global:plugin_unlisted", []string{`add "browser" to pluginTools.browser`}},
				{"read", "allow", "default:allow", nil}}},
		{"a sub-agent under a reported root is decided by its root's report",
			`{"tools": {"deny": ["group:plugins"]}}`, report, true, []want{
				{"memory_get", "deny", "global:plugin_unlisted", []string{"plugin memory-core"}},
				{"read", "allow", "", nil}}},
		{"a plugin id stands for the tools the gateway reports",
			`{"tools": {"deny": ["memory-core"]}}`, report, false, []want{
				{"memory_get", "deny", "global:plugin_unlisted", []string{`tools.deny: "memory-core"`}},
				{"browser", "allow", "default:allow", nil}}},
		{"pluginTools listing what the gateway reports: the document's reason",
			`{"pluginTools": {"memory-core": ["memory_get", "memory_search"], "browser": ["browser"]}, "tools": {"deny": ["group:plugins"]}}`, report, false, []want{
				{"memory_search", "deny", "global:deny", []string{`tools.deny: "group:plugins"`}}}},
		{"pluginTools marking a tool the gateway reports as core: the document's deny stands",
			`{"pluginTools": {"voice-call": ["voice_call", "read"]}, "tools": {"deny": ["group:plugins"]}}`, report, false, []want{
				{"read", "deny", "global:deny", nil},
				{"voice_call", "deny", "global:deny", nil}}},
		{"an allow only pluginTools gives is refused, saying what to remove",
			`{"pluginTools": {"voice-call": ["voice_call", "read"]}, "tools": {"allow": ["group:plugins"]}}`, report, false, []want{
				{"read", "deny", "global:plugin_mislisted", []string{"no plugin's tool", "lists it under voice-call: remove it there"}},
				{"voice_call", "deny", "global:plugin_mislisted", nil},
				// The gateway makes memory_get a plugin tool, which the
				// document's allow list does not admit: the document's deny
				// stands (stricter than OpenClaw).
				{"memory_get", "deny", "global:allow", nil},
				{"exec", "deny", "global:allow", nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorldRelease(t, NewestRelease(), tc.doc, cat...)
			w.start("agent:main:main", events.StartedData{Agent: "main", PluginTools: tc.report})
			key := "agent:main:main"
			if tc.child {
				w.spawn("agent:main:subagent:c1", key, "main")
				key = "agent:main:subagent:c1"
			}
			s := w.sessions[events.SessionKey(key)]
			ts := w.d.Tools(w, s)
			for _, wt := range tc.wants {
				v := w.d.Decide(w, s, wt.tool, nil)
				if string(v.Decision) != wt.decision || wt.code != "" && v.Reason.Code != wt.code {
					t.Errorf("%s: %s %s (%s), want %s %s", wt.tool, v.Decision, v.Reason.Code, v.Reason.Rule, wt.decision, wt.code)
				}
				for _, r := range wt.rule {
					if !strings.Contains(v.Reason.Rule, r) {
						t.Errorf("%s: the rule %q does not say %q", wt.tool, v.Reason.Rule, r)
					}
				}
				if v.Decision == envelope.Deny && v.Reason.Record == nil {
					t.Errorf("%s: denied with no record", wt.tool)
				}
				// The tool set of the turn says the same.
				if slices.Contains(cat, wt.tool) {
					allowed := slices.Contains(ts.Allowed, wt.tool)
					if allowed != (v.Decision == envelope.Allow) {
						t.Errorf("%s: decided %s, but the tool set allows it: %v", wt.tool, v.Decision, allowed)
					}
					for _, d := range ts.Denied {
						if d.Tool == wt.tool && d.Reason != v.Reason {
							t.Errorf("%s: the tool set's reason %+v, the decision's %+v", wt.tool, d.Reason, v.Reason)
						}
					}
				}
			}
			// Denied tools stay in catalogue order.
			var order []int
			for _, d := range ts.Denied {
				order = append(order, slices.Index(cat, d.Tool))
			}
			if !slices.IsSorted(order) {
				t.Errorf("denied tools out of catalogue order: %+v", ts.Denied)
			}
		})
	}
}

// TestReportedPluginToolsCheckEvent: a report that is not an object of
// plugin ids to tool names is refused on append.
func TestReportedPluginToolsCheckEvent(t *testing.T) {
	d := New()
	ev := &events.Event{Type: events.SessionStarted, Session: "agent:main:main"}
	for _, tc := range []struct {
		raw string
		ok  bool
	}{
		{`{"memory-core": ["memory_get"]}`, true},
		{`{"xai": []}`, true},
		{`["memory_get"]`, false},
		{`{"memory-core": "memory_get"}`, false},
		{`{"": ["x"]}`, false},
		{`{"memory-core": ["memory\u0000get"]}`, false},
	} {
		err := d.CheckEvent(ev, &events.StartedData{Agent: "main", PluginTools: json.RawMessage(tc.raw)})
		if (err == nil) != tc.ok {
			t.Errorf("plugin_tools %s: %v, want ok %v", tc.raw, err, tc.ok)
		}
	}
}

// TestRevocationOfReportedPluginTools: a revocation of group:plugins or of
// a plugin id also reaches the tools the session's root reported as that
// plugin's, when pluginTools omits them; a root without a report, only
// what pluginTools marks.
func TestRevocationOfReportedPluginTools(t *testing.T) {
	cat := []string{"read", "memory_get", "browser"}
	w := newWorldRelease(t, NewestRelease(), `{}`, cat...)
	w.start("agent:main:main", events.StartedData{Agent: "main", PluginTools: json.RawMessage(`{"memory-core": ["memory_get"], "browser": ["browser"]}`)})
	w.spawn("agent:main:subagent:c1", "agent:main:main", "main")
	w.start("agent:main:old", events.StartedData{Agent: "main"})
	for _, tt := range []struct {
		session, rule, tool string
		want                bool
	}{
		{"agent:main:main", "group:plugins", "memory_get", true},
		{"agent:main:main", "group:plugins", "read", false},
		{"agent:main:main", "memory-core", "memory_get", true},
		{"agent:main:main", "memory-core", "browser", false},
		{"agent:main:subagent:c1", "group:plugins", "browser", true},
		{"agent:main:main", "group:plugins", "gh__issue", true},
		{"agent:main:old", "group:plugins", "memory_get", false},
		{"agent:main:old", "group:plugins", "gh__issue", true},
	} {
		s := w.sessions[events.SessionKey(tt.session)]
		if got := w.d.MatchRuleFor(w, s, w.policy, tt.rule, tt.tool, nil, false); got != tt.want {
			t.Errorf("%s: revoking %q denies %s: %v, want %v", tt.session, tt.rule, tt.tool, got, tt.want)
		}
	}
}

// TestCallReportsPluginTool: a call whose input reports the tool's plugins
// (CallPluginKey: a plugin enabled after the root started, so in no start
// report) is decided with them as the tool's owners for that call: under
// group:plugins or the plugin's id it is denied, saying what to add, and a
// revocation of group:plugins reaches it; a call without the key decides as
// before; a malformed value is refused on append.
func TestCallReportsPluginTool(t *testing.T) {
	cat := []string{"read", "browser", "canvas"}
	startReport := json.RawMessage(`{"canvas": ["canvas"]}`)
	call := json.RawMessage(`{"` + CallPluginKey + `": ["browser"], "url": "https://example.com"}`)
	for _, tc := range []struct {
		name     string
		doc      string
		report   json.RawMessage
		input    json.RawMessage
		tool     string
		decision string
		code     string
		ruleSays string
	}{
		{"no start report, the call reports browser's plugin: denied", `{"tools": {"deny": ["group:plugins"]}}`, nil, call, "browser", "deny", "global:plugin_unlisted", "the call's own report"},
		{"a start report without it, the call reports it: denied", `{"tools": {"deny": ["group:plugins"]}}`, startReport, call, "browser", "deny", "global:plugin_unlisted", `add "browser" to pluginTools.browser`},
		{"the plugin's id denies it", `{"tools": {"deny": ["browser"]}}`, nil, call, "browser", "deny", "global:deny", ""},
		{"without the call's report, as before: allowed", `{"tools": {"deny": ["group:plugins"]}}`, startReport, nil, "browser", "allow", "default:allow", ""},
		{"a call of a core tool reports no plugin: allowed", `{"tools": {"deny": ["group:plugins"]}}`, nil, json.RawMessage(`{"path": "a"}`), "read", "allow", "default:allow", ""},
		{"listed in pluginTools: the document's reason", `{"pluginTools": {"browser": ["browser"]}, "tools": {"deny": ["group:plugins"]}}`, nil, call, "browser", "deny", "global:deny", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorldRelease(t, NewestRelease(), tc.doc, cat...)
			w.start("agent:main:main", events.StartedData{Agent: "main", PluginTools: tc.report})
			s := w.sessions["agent:main:main"]
			v := w.d.Decide(w, s, tc.tool, tc.input)
			if string(v.Decision) != tc.decision || v.Reason.Code != tc.code {
				t.Errorf("%s: %s %s (%s), want %s %s", tc.tool, v.Decision, v.Reason.Code, v.Reason.Rule, tc.decision, tc.code)
			}
			if tc.ruleSays != "" && !strings.Contains(v.Reason.Rule, tc.ruleSays) {
				t.Errorf("the rule %q does not say %q", v.Reason.Rule, tc.ruleSays)
			}
		})
	}
	// A revocation of group:plugins reaches the call's reported tool.
	w := newWorldRelease(t, NewestRelease(), `{}`, cat...)
	w.start("agent:main:main", events.StartedData{Agent: "main"})
	s := w.sessions["agent:main:main"]
	p := w.Policy()
	if New().MatchRuleFor(w, s, p, "group:plugins", "browser", nil, false) {
		t.Errorf("group:plugins reaches browser with no report at all")
	}
	if !New().MatchRuleFor(w, s, p, "group:plugins", "browser", call, false) {
		t.Errorf("group:plugins does not reach browser, which the call reports as a plugin's")
	}
	// A malformed report is refused on append.
	d := New()
	for _, bad := range []string{`{"ledger:plugin": "browser"}`, `{"ledger:plugin": []}`, `{"ledger:plugin": [""]}`, `{"ledger:plugin": [1]}`} {
		ev := &events.Event{Type: events.ToolChecked, Session: "agent:main:main"}
		if err := d.CheckEvent(ev, &events.CheckedData{Turn: 1, Tool: "browser", Input: json.RawMessage(bad)}); events.CodeOf(err) != events.CodeInvalidEvent {
			t.Errorf("%s: %v, want invalid_event", bad, err)
		}
	}
	ev := &events.Event{Type: events.ToolChecked, Session: "agent:main:main"}
	if err := d.CheckEvent(ev, &events.CheckedData{Turn: 1, Tool: "browser", Input: call}); err != nil {
		t.Errorf("a well-formed report: %v", err)
	}
}

// TestMalformedCallReportDenies: a call whose input's report of its
// tool's plugins (CallPluginKey) is not a list of plugin ids, which an
// append refuses, is denied when a query that records nothing decides it
// (input:plugin_report_malformed, naming the key), whatever the document
// says, not decided as if the call reported no plugin.
func TestMalformedCallReportDenies(t *testing.T) {
	d := New()
	for _, doc := range []string{`{}`, `{"tools": {"deny": ["group:plugins"]}}`, `{"tools": {"deny": ["browser"]}}`} {
		w := newWorldRelease(t, NewestRelease(), doc, "read", "browser")
		w.start("agent:main:main", events.StartedData{Agent: "main", PluginTools: json.RawMessage(`{}`)})
		s := w.sessions["agent:main:main"]
		for _, bad := range []string{`{"ledger:plugin": "browser"}`, `{"ledger:plugin": []}`, `{"ledger:plugin": [""]}`, `{"ledger:plugin": [1]}`, `{"ledger:plugin": null}`} {
			for _, tool := range []string{"browser", "read", "Browser"} {
				v := d.Decide(w, s, tool, json.RawMessage(bad))
				if v.Decision != envelope.Deny || v.Reason.Code != "input:plugin_report_malformed" || !strings.Contains(v.Reason.Rule, `"ledger:plugin"`) {
					t.Errorf("%s, %s %s: %s %s (%s), want deny input:plugin_report_malformed naming the key", doc, tool, bad, v.Decision, v.Reason.Code, v.Reason.Rule)
				}
				if len(v.Trace) != nLayers+2 || v.Trace[0].Layer != "input" || v.Trace[0].Outcome != envelope.Removed || v.Trace[1].Outcome != envelope.Skipped {
					t.Errorf("%s %s: trace %+v", tool, bad, v.Trace)
				}
				if v.Tool != normalize(tool) {
					t.Errorf("%s: verdict's tool %q", tool, v.Tool)
				}
			}
			if !d.InputDecides(json.RawMessage(bad)) {
				t.Errorf("%s: InputDecides false", bad)
			}
		}
		// An input without the key, or with a well-formed report, decides
		// as before.
		if v := d.Decide(w, s, "read", json.RawMessage(`{"path": "ledger:plugin"}`)); v.Reason.Code == "input:plugin_report_malformed" {
			t.Errorf("%s: the key's name in a value denied read", doc)
		}
		if v := d.Decide(w, s, "read", json.RawMessage(`{"ledger:plugin": ["memory-core"]}`)); v.Reason.Code == "input:plugin_report_malformed" {
			t.Errorf("%s: a well-formed report denied as malformed", doc)
		}
	}
	if d.InputDecides(nil) || d.InputDecides(json.RawMessage(`{"path": "a"}`)) {
		t.Errorf("InputDecides true for an input without the key")
	}
}
