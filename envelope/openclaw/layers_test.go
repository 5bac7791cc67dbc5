package openclaw

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// layerCase runs one root (or a child of it) through the pipeline.
type layerCase struct {
	name    string
	doc     string
	cat     []string
	start   events.StartedData
	sender  string // a turn sender (external turn)
	child   string // when set, spawn a child of this agent and decide for it
	childSB *bool
	want    map[string]string // tool -> "allow" or reason code
}

func runLayerCases(t *testing.T, cases []layerCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.doc, tt.cat...)
			if tt.start.Agent == "" {
				tt.start.Agent = "main"
			}
			key := "agent:" + tt.start.Agent + ":root"
			w.start(key, tt.start)
			w.turn(key, tt.sender, false)
			if tt.child != "" {
				var mods []func(*events.SpawnedData)
				if tt.childSB != nil {
					mods = append(mods, withSandboxed(*tt.childSB))
				}
				ck := "agent:" + tt.child + ":subagent:c"
				w.spawn(ck, key, tt.child, mods...)
				key = ck
				w.turn(key, "", false)
			}
			got := codes(w.tools(key))
			for tool, want := range tt.want {
				if want != codeCatalogueUnknown && got[tool] != want {
					t.Errorf("%s: got %q, want %q (all: %v)", tool, got[tool], want, got)
				}
				v := w.d.Decide(w, w.sessions[events.SessionKey(key)], tool, nil)
				dec := string(v.Decision)
				if v.Decision == envelope.Deny {
					dec = v.Reason.Code
				}
				if dec != want {
					t.Errorf("Decide(%s) = %q, want %q", tool, dec, want)
				}
			}
		})
	}
}

func TestLayerPipeline(t *testing.T) {
	runLayerCases(t, []layerCase{
		{name: "no policy allows everything", doc: `{}`, cat: []string{"read", "exec"},
			want: map[string]string{"read": "allow", "exec": "allow"}},
		{name: "profile then global", doc: `{"tools":{"profile":"coding","deny":["read"]}}`, cat: []string{"read", "browser", "exec"},
			want: map[string]string{"read": "global:deny", "browser": "profile:allow", "exec": "allow"}},
		{name: "full profile is no step", doc: `{"tools":{"profile":"full"}}`, cat: []string{"browser"},
			want: map[string]string{"browser": "allow"}},
		{name: "profile alsoAllow star", doc: `{"tools":{"profile":"minimal","alsoAllow":["*"]}}`, cat: []string{"browser"},
			want: map[string]string{"browser": "allow"}},
		{name: "agent profile replaces global", doc: `{"tools":{"profile":"minimal"},"agents":{"list":[{"id":"main","tools":{"profile":"full"}}]}}`,
			cat: []string{"browser"}, want: map[string]string{"browser": "allow"}},
		{name: "agent alsoAllow replaces global", doc: `{"tools":{"profile":"minimal","alsoAllow":["read"]},"agents":{"list":[{"id":"main","tools":{"alsoAllow":["exec"]}}]}}`,
			cat:  []string{"read", "exec", "session_status"},
			want: map[string]string{"read": "profile:allow", "exec": "allow", "session_status": "allow"}},
		{name: "agent alsoAllow empty replaces global", doc: `{"tools":{"profile":"minimal","alsoAllow":["read"]},"agents":{"list":[{"id":"main","tools":{"alsoAllow":[]}}]}}`,
			cat: []string{"read"}, want: map[string]string{"read": "profile:allow"}},
		{name: "alsoAllow without allow adds nothing at the scope", doc: `{"tools":{"alsoAllow":["read"]}}`, cat: []string{"read", "exec"},
			want: map[string]string{"read": "allow", "exec": "allow"}},
		{name: "allow with alsoAllow at non-validated scope", doc: `{"tools":{"subagents":{"tools":{"allow":["read"],"alsoAllow":["exec"]}}}}`,
			cat: []string{"read", "exec", "write"}, child: "main",
			want: map[string]string{"read": "allow", "exec": "allow", "write": "subagent:allow"}},
		{name: "provider profile", doc: `{"tools":{"byProvider":{"OpenAI":{"profile":"minimal","alsoAllow":["read"]}}}}`,
			cat: []string{"read", "exec", "session_status"}, start: events.StartedData{Provider: "openai"},
			want: map[string]string{"read": "allow", "exec": "provider_profile:allow", "session_status": "allow"}},
		{name: "agent provider profile id with global provider alsoAllow",
			doc: `{"tools":{"byProvider":{"openai":{"alsoAllow":["read"]}}},"agents":{"list":[{"id":"main","tools":{"byProvider":{"openai/gpt":{"profile":"minimal"}}}}]}}`,
			cat: []string{"read", "exec"}, start: events.StartedData{Provider: "OpenAI", Model: "GPT"},
			want: map[string]string{"read": "allow", "exec": "provider_profile:allow"}},
		{name: "provider model key first", doc: `{"tools":{"byProvider":{"openai/gpt":{"deny":["read"]},"openai":{"deny":["exec"]}}}}`,
			cat: []string{"read", "exec"}, start: events.StartedData{Provider: "openai", Model: "gpt"},
			want: map[string]string{"read": "provider:deny", "exec": "allow"}},
		{name: "provider without model", doc: `{"tools":{"byProvider":{"openai/gpt":{"deny":["read"]},"openai":{"deny":["exec"]}}}}`,
			cat: []string{"read", "exec"}, start: events.StartedData{Provider: "openai"},
			want: map[string]string{"read": "allow", "exec": "provider:deny"}},
		{name: "no provider matches nothing", doc: `{"tools":{"byProvider":{"openai":{"deny":["exec"]}}}}`,
			cat: []string{"exec"}, want: map[string]string{"exec": "allow"}},
		{name: "agent and agent provider", doc: `{"agents":{"list":[{"id":"main","tools":{"deny":["read"],"byProvider":{"x":{"allow":["exec","read"]}}}}]}}`,
			cat: []string{"read", "exec", "write"}, start: events.StartedData{Provider: "x"},
			want: map[string]string{"read": "agent:deny", "exec": "allow", "write": "agent_provider:allow"}},
		{name: "group with sender entry first", doc: `{"channels":{"slack":{"groups":{"g":{"tools":{"deny":["read"]},"toolsBySender":{"id:bob":{"deny":["exec"]}}}}}}}`,
			cat: []string{"read", "exec"}, start: events.StartedData{Channel: "slack", Group: "g"}, sender: "bob",
			want: map[string]string{"read": "allow", "exec": "group:deny"}},
		{name: "group tools when no sender entry", doc: `{"channels":{"slack":{"groups":{"g":{"tools":{"deny":["read"]},"toolsBySender":{"id:bob":{"deny":["exec"]}}}}}}}`,
			cat: []string{"read", "exec"}, start: events.StartedData{Channel: "slack", Group: "g"}, sender: "eve",
			want: map[string]string{"read": "group:deny", "exec": "allow"}},
		{name: "channel-scoped sender key wins", doc: `{"tools":{"toolsBySender":{"channel:slack:bob":{"deny":["read"]},"id:bob":{"deny":["exec"]},"*":{"deny":["write"]}}}}`,
			cat: []string{"read", "exec", "write"}, start: events.StartedData{Channel: "slack"}, sender: "bob",
			want: map[string]string{"read": "sender:deny", "exec": "allow", "write": "allow"}},
		{name: "empty sender entry still wins", doc: `{"tools":{"toolsBySender":{"id:bob":{},"*":{"deny":["write"]}}}}`,
			cat: []string{"write"}, sender: "bob", want: map[string]string{"write": "allow"}},
		{name: "wildcard for senderless turn", doc: `{"tools":{"toolsBySender":{"*":{"deny":["write"]}}}}`,
			cat: []string{"write"}, want: map[string]string{"write": "sender:deny"}},
		{name: "agent sender map first", doc: `{"tools":{"toolsBySender":{"*":{"deny":["write"]}}},"agents":{"list":[{"id":"main","tools":{"toolsBySender":{"id:bob":{"deny":["read"]}}}}]}}`,
			cat: []string{"read", "write"}, sender: "bob", want: map[string]string{"read": "sender:deny", "write": "allow"}},
		{name: "agent sender map without match falls back", doc: `{"tools":{"toolsBySender":{"*":{"deny":["write"]}}},"agents":{"list":[{"id":"main","tools":{"toolsBySender":{"id:bob":{"deny":["read"]}}}}]}}`,
			cat: []string{"read", "write"}, sender: "eve", want: map[string]string{"read": "allow", "write": "sender:deny"}},
		{name: "start sender is the default sender", doc: `{"tools":{"toolsBySender":{"id:alice":{"deny":["read"]}}}}`,
			cat: []string{"read"}, start: events.StartedData{Sender: "alice"}, want: map[string]string{"read": "sender:deny"}},
		{name: "deny wins in a layer", doc: `{"tools":{"allow":["*"],"deny":["web_*"]}}`, cat: []string{"web_fetch", "read"},
			want: map[string]string{"web_fetch": "global:deny", "read": "allow"}},
		{name: "allow write admits apply_patch", doc: `{"tools":{"allow":["write"]}}`, cat: []string{"apply_patch", "read"},
			want: map[string]string{"apply_patch": "allow", "read": "global:allow"}},
		{name: "deny write keeps apply_patch", doc: `{"tools":{"deny":["write"]}}`, cat: []string{"apply_patch"},
			want: map[string]string{"apply_patch": "allow"}},
		{name: "allow read admits skills_read", doc: `{"tools":{"allow":["read"]}}`, cat: []string{"skills_read"},
			want: map[string]string{"skills_read": "allow"}},
		{name: "skills_read not when read denied in the layer", doc: `{"tools":{"allow":["group:fs"],"deny":["read"]}}`, cat: []string{"skills_read"},
			want: map[string]string{"skills_read": "global:allow"}},
		{name: "exec does not admit apply_patch", doc: `{"tools":{"allow":["exec"]}}`, cat: []string{"apply_patch"},
			want: map[string]string{"apply_patch": "global:allow"}},
		{name: "legacy tool_call allow", doc: `{"tools":{"allow":["tool_*"]}}`, cat: []string{"tool_call", "toolbox"},
			want: map[string]string{"dispatch_action": "allow", "toolbox": "global:allow"}},
		{name: "legacy tool_call deny", doc: `{"tools":{"deny":["Tool_Call"]}}`, cat: []string{"dispatch_action"},
			want: map[string]string{"dispatch_action": "global:deny"}},
		{name: "exec section does not widen", doc: `{"tools":{"profile":"messaging","exec":{"host":"sandbox"}}}`, cat: []string{"exec"},
			want: map[string]string{"exec": "profile:allow"}},
		{name: "first layer decides", doc: `{"tools":{"profile":"minimal","deny":["read"]},"agents":{"list":[{"id":"main","tools":{"deny":["read"]}}]}}`,
			cat: []string{"read"}, want: map[string]string{"read": "profile:allow"}},
		{name: "unknown tool", doc: `{}`, cat: []string{"read"}, want: map[string]string{"nope": "catalogue:unknown"}},
	})
}

func TestSandbox(t *testing.T) {
	yes, no := true, false
	runLayerCases(t, []layerCase{
		{name: "defaults", doc: `{}`, cat: []string{"read", "browser", "web_fetch", "view_image", "a__b"}, start: events.StartedData{Sandboxed: &yes},
			want: map[string]string{"read": "allow", "browser": "sandbox:deny", "web_fetch": "sandbox:allow", "view_image": "allow", "a__b": "sandbox:allow"}},
		{name: "explicit false", doc: `{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`, cat: []string{"browser"}, start: events.StartedData{Sandboxed: &no},
			want: map[string]string{"browser": "allow"}},
		{name: "mode all", doc: `{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`, cat: []string{"browser"},
			want: map[string]string{"browser": "sandbox:deny"}},
		{name: "agent mode replaces default", doc: `{"agents":{"defaults":{"sandbox":{"mode":"all"}},"list":[{"id":"main","sandbox":{"mode":"off"}}]}}`,
			cat: []string{"browser"}, want: map[string]string{"browser": "allow"}},
		{name: "auto view_image", doc: `{"tools":{"sandbox":{"tools":{"allow":["read"]}}}}`, cat: []string{"read", "view_image", "exec"},
			start: events.StartedData{Sandboxed: &yes}, want: map[string]string{"read": "allow", "view_image": "allow", "exec": "sandbox:allow"}},
		{name: "view_image denied stays denied", doc: `{"tools":{"sandbox":{"tools":{"allow":["read"],"deny":["view_image"]}}}}`, cat: []string{"view_image"},
			start: events.StartedData{Sandboxed: &yes}, want: map[string]string{"view_image": "sandbox:deny"}},
		{name: "alsoAllow adds to the default allow", doc: `{"tools":{"sandbox":{"tools":{"alsoAllow":["bundle-mcp"]}}}}`, cat: []string{"a__b", "web_fetch"},
			start: events.StartedData{Sandboxed: &yes}, want: map[string]string{"a__b": "allow", "web_fetch": "sandbox:allow"}},
		{name: "agent lists per key", doc: `{"tools":{"sandbox":{"tools":{"allow":["read"],"deny":["exec"]}}},"agents":{"list":[{"id":"main","tools":{"sandbox":{"tools":{"deny":["write"]}}}}]}}`,
			cat: []string{"read", "exec", "write", "browser"}, start: events.StartedData{Sandboxed: &yes},
			want: map[string]string{"read": "allow", "exec": "sandbox:allow", "write": "sandbox:deny", "browser": "sandbox:allow"}},
		{name: "empty allow and deny", doc: `{"tools":{"sandbox":{"tools":{"allow":[],"deny":[]}}}}`, cat: []string{"browser"},
			start: events.StartedData{Sandboxed: &yes}, want: map[string]string{"browser": "allow"}},
		{name: "child inherits sandbox", doc: `{"agents":{"defaults":{"sandbox":{"mode":"non-main"}}}}`, cat: []string{"browser"},
			start: events.StartedData{Sandboxed: &yes}, child: "main", want: map[string]string{"browser": "sandbox:deny"}},
		{name: "child explicit true", doc: `{}`, cat: []string{"browser"}, child: "main", childSB: &yes,
			want: map[string]string{"browser": "sandbox:deny"}},
		{name: "non-main child target", doc: `{"agents":{"list":[{"id":"main","subagents":{"allowAgents":["w"]}},{"id":"w","sandbox":{"mode":"non-main"}}]}}`,
			cat: []string{"browser"}, child: "w", want: map[string]string{"browser": "sandbox:deny"}},
	})
}

func TestSandboxNonMainExemptsOnlyTheMainKey(t *testing.T) {
	w := newWorld(t, `{"agents":{"defaults":{"sandbox":{"mode":"non-main"}}}}`, "read")
	if w.start("agent:main:main", events.StartedData{Agent: "main"}).Facts.Sandboxed {
		t.Error("agent:main:main is exempt under non-main")
	}
	if !w.start("agent:main:other", events.StartedData{Agent: "main"}).Facts.Sandboxed {
		t.Error("agent:main:other is sandboxed under non-main")
	}
	if !w.start("agent:ops:main", events.StartedData{Agent: "main"}).Facts.Sandboxed {
		t.Error("the exemption needs the key of the session's own agent")
	}
}

func TestSubagentLayer(t *testing.T) {
	cat := []string{"sessions_spawn", "subagents", "sessions_list", "sessions_history", "sessions_search",
		"gateway", "agents_list", "session_status", "progress_card", "cron", "message", "sessions_send",
		"conversations_x", "memory_search", "read"}
	w := newWorld(t, `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":2}}},"tools":{"alsoAllow":["gateway"],"subagents":{"tools":{"deny":["read"],"alsoAllow":["message"]}}}}`, cat...)
	w.start("agent:main:main", events.StartedData{Agent: "main"})
	d1 := w.spawn("agent:main:subagent:d1", "agent:main:main", "main")
	d2 := w.spawn("agent:main:subagent:d2", "agent:main:subagent:d1", "main")
	if d1.Envelope.Role != "orchestrator" || d2.Envelope.Role != "leaf" {
		t.Fatalf("roles %s %s", d1.Envelope.Role, d2.Envelope.Role)
	}
	root := codes(w.tools("agent:main:main"))
	for _, n := range cat {
		if root[normalize(n)] != "allow" {
			t.Errorf("root: %s = %s; roots have no sub-agent layer", n, root[normalize(n)])
		}
	}
	o, l := codes(w.tools("agent:main:subagent:d1")), codes(w.tools("agent:main:subagent:d2"))
	for _, n := range releaseLegacy.HardDeny[:7] {
		if o[n] != codeHardDeny || l[n] != codeHardDeny {
			t.Errorf("%s: %s / %s, want hard deny", n, o[n], l[n])
		}
	}
	if o["conversations_x"] != codeHardDeny {
		t.Error("conversations_* is a glob")
	}
	for _, n := range releaseLegacy.DepthCapDeny {
		if o[n] != "allow" || l[n] != codeDepthCap {
			t.Errorf("%s: orchestrator %s, leaf %s", n, o[n], l[n])
		}
	}
	if o["read"] != "subagent:deny" || o["memory_search"] != "allow" {
		t.Errorf("configured deny %s, memory %s", o["read"], o["memory_search"])
	}
	// Raising the cap turns the leaf into an orchestrator from now on.
	w.setPolicy(`{"agents":{"defaults":{"subagents":{"maxSpawnDepth":3}}}}`, nil)
	if got := codes(w.tools("agent:main:subagent:d2"))["sessions_spawn"]; got != "allow" {
		t.Errorf("after raising the cap: %s", got)
	}
	if d2.Envelope.Role != "leaf" {
		t.Error("the envelope's role is provenance only")
	}
	w.setPolicy(`{"agents":{"defaults":{"subagents":{"maxSpawnDepth":1}}}}`, nil)
	if got := codes(w.tools("agent:main:subagent:d1"))["sessions_spawn"]; got != codeDepthCap {
		t.Errorf("after lowering the cap: %s", got)
	}
}

func TestDecideTrace(t *testing.T) {
	w := newWorld(t, `{"tools":{"profile":"coding","deny":["group:runtime"]},"agents":{"list":[{"id":"main","tools":{"alsoAllow":["Browser"]}}]}}`,
		"exec", "browser", "read")
	w.start("agent:main:main", events.StartedData{Agent: "main"})
	s := w.sessions["agent:main:main"]
	v := w.d.Decide(w, s, " BASH", nil)
	if v.Tool != "exec" || v.Decision != envelope.Deny || v.Reason.Code != "global:deny" {
		t.Fatalf("verdict %+v", v)
	}
	if v.Reason.Rule != `tools.deny: "group:runtime"` || v.Reason.Record == nil || v.Reason.Record.Type != events.PolicySet {
		t.Errorf("reason %+v", v.Reason)
	}
	want := []envelope.Outcome{envelope.Kept, envelope.Kept, envelope.Absent, envelope.Removed, envelope.Skipped,
		envelope.Skipped, envelope.Skipped, envelope.Skipped, envelope.Skipped, envelope.Skipped, envelope.Skipped, envelope.Skipped}
	if len(v.Trace) != len(want) {
		t.Fatalf("trace has %d steps, want %d", len(v.Trace), len(want))
	}
	for i, st := range v.Trace {
		if st.Outcome != want[i] {
			t.Errorf("step %d (%s) = %s, want %s", i, st.Layer, st.Outcome, want[i])
		}
	}
	w.grant(events.GrantAlsoAllow, "main", "main", "read")
	v = w.d.Decide(w, s, "browser", nil)
	if v.Decision != envelope.Allow || !strings.Contains(v.Trace[1].Detail, `agents.list[0].tools.alsoAllow: "Browser"`) {
		t.Errorf("allow verdict %+v", v.Trace[1])
	}
	w.revoke(events.GrantAlsoAllow, "main", "main", "read")
	w.grant(events.GrantAlsoAllow, "ops", "ops", "browser")
	w.start("agent:ops:main", events.StartedData{Agent: "ops"})
	v = w.d.Decide(w, w.sessions["agent:ops:main"], "browser", nil)
	if v.Decision != envelope.Allow || !strings.Contains(v.Trace[1].Detail, "grant.added at seq") {
		t.Errorf("a granted entry names its grant: %+v", v.Trace[1])
	}
	v = w.d.Decide(w, s, "nope", nil)
	if v.Reason.Code != codeCatalogueUnknown || v.Trace[0].Outcome != envelope.Removed || v.Trace[1].Outcome != envelope.Skipped {
		t.Errorf("unknown tool verdict %+v", v)
	}
}

func TestSessionToolsJoinTheCatalogueOfDescendantsOnly(t *testing.T) {
	w := newWorld(t, `{"tools":{"deny":["github__*"]}}`, "read", "Outlook__Send")
	w.start("agent:main:main", events.StartedData{Agent: "main", Tools: []string{"outlook__send", "Slack__Post"}})
	w.spawn("agent:main:subagent:a", "agent:main:main", "main", withTools("github__issue", "slack__post"))
	if got := w.tools("agent:main:main"); len(got.Allowed) != 3 || got.Allowed[2] != "slack__post" {
		t.Errorf("root tools %+v", got)
	}
	child := codes(w.tools("agent:main:subagent:a"))
	if child["slack__post"] != "allow" || child["github__issue"] != "global:deny" || len(child) != 4 {
		t.Errorf("child tools %v", child)
	}
	if v := w.d.Decide(w, w.sessions["agent:main:main"], "github__issue", nil); v.Reason.Code != codeCatalogueUnknown {
		t.Errorf("an ancestor never sees a child's additions: %+v", v.Reason)
	}
	if v := w.d.Decide(w, w.sessions["agent:main:subagent:a"], "GITHUB__issue", nil); v.Reason.Code != "global:deny" {
		t.Errorf("child decide %+v", v.Reason)
	}
}

func TestStaleOrMissingEffectiveIsRebuilt(t *testing.T) {
	w := newWorld(t, `{"tools":{"deny":["exec"]}}`, "read", "exec")
	w.start("agent:main:main", events.StartedData{Agent: "main"})
	want := codes(w.tools("agent:main:main"))
	w.policy.Effective = nil
	if got := codes(w.tools("agent:main:main")); got["exec"] != want["exec"] || got["read"] != "allow" {
		t.Errorf("without a stored effective value: %v", got)
	}
	w.refresh()
	p := *w.policy
	p.Catalogue = []string{"read", "exec", "write"}
	w.policy = &p // the catalogue changed but Effective was not recomputed
	if got := codes(w.tools("agent:main:main")); got["write"] != "allow" {
		t.Errorf("stale catalogue: %v", got)
	}
}

func TestDialectBasics(t *testing.T) {
	d := New()
	if d.Name() != "openclaw" || d.Normalize(" Cron ") != "automations" || d.DefaultChildSource() != envelope.SourcePersistedChild {
		t.Error("name, normalize or default child source")
	}
	if _, err := d.Effective(&envelope.PolicyState{}); events.CodeOf(err) != events.CodeInvalidPolicy {
		t.Errorf("Effective of a foreign compiled value: %v", err)
	}
	empty := &world{tb: t, d: d, sessions: map[events.SessionKey]*envelope.Session{}}
	if _, err := d.Start(empty, "k", &events.StartedData{Agent: "main"}); events.CodeOf(err) != events.CodeInvalidPolicy {
		t.Errorf("Start without a policy: %v", err)
	}
	if _, _, err := d.Spawn(empty, "k", &events.SpawnedData{Agent: "main"}); events.CodeOf(err) != events.CodeInvalidPolicy {
		t.Errorf("Spawn without a policy: %v", err)
	}
	s := &envelope.Session{Key: "k", Agent: "main"}
	if ts := d.Tools(empty, s); ts.Allowed == nil || ts.Denied == nil || len(ts.Allowed) != 0 {
		t.Errorf("Tools without a policy: %+v", ts)
	}
	if v := d.Decide(empty, s, "read", nil); v.Decision != envelope.Deny {
		t.Errorf("Decide without a policy: %+v", v)
	}
	w := newWorld(t, `{}`, "read")
	if _, _, err := d.Spawn(w, "agent:main:subagent:x", &events.SpawnedData{Parent: "nobody", Agent: "main"}); events.CodeOf(err) != events.CodeUnknownParent {
		t.Errorf("Spawn under a missing parent: %v", err)
	}
}

func TestProviderLookupLowerCasesNonASCII(t *testing.T) {
	w := newWorld(t, `{"tools":{"byProvider":{"ÄPI/Modèl":{"deny":["read"]}," äpi ":{"deny":["exec"]}}}}`, "read", "exec")
	w.start("agent:main:a", events.StartedData{Agent: "main", Provider: "Äpi", Model: "MODÈL"})
	w.start("agent:main:b", events.StartedData{Agent: "main", Provider: "ÄPI"})
	if got := codes(w.tools("agent:main:a")); got["read"] != "provider:deny" || got["exec"] != "allow" {
		t.Errorf("provider/model: %v", got)
	}
	if got := codes(w.tools("agent:main:b")); got["exec"] != "provider:deny" {
		t.Errorf("provider: %v", got)
	}
}

// TestEnvelopeMemoIsBounded: the compiled envelopes an effective policy
// memoizes stay below maxEnvs however many distinct envelopes it sees, and
// an envelope compiled again after the memo started afresh is the same.
func TestEnvelopeMemoIsBounded(t *testing.T) {
	w := newWorld(t, `{}`, "read", "exec")
	e := effectiveOf(w)
	first := e.envelope(&envelope.Envelope{Hash: "h0", InheritedDeny: []string{"exec"}})
	for i := 1; i <= 2*maxEnvs+10; i++ {
		e.envelope(&envelope.Envelope{Hash: fmt.Sprintf("h%d", i), InheritedDeny: []string{"exec"}})
	}
	n := 0
	e.envs.Range(func(any, any) bool { n++; return true })
	if n == 0 || n > maxEnvs {
		t.Fatalf("%d envelopes memoized, want 1..%d", n, maxEnvs)
	}
	again := e.envelope(&envelope.Envelope{Hash: "h0", InheritedDeny: []string{"exec"}})
	if again.deny.nDeny != first.deny.nDeny || again.deny.detail != first.deny.detail {
		t.Fatalf("recompiled envelope differs: %+v vs %+v", again.deny, first.deny)
	}
}
