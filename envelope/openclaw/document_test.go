package openclaw

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

func TestCompileRefusesDocumentsOutsideTheSchema(t *testing.T) {
	// release: "" for every release, else the one release the case holds
	// for.
	tests := []struct {
		name, doc, path string
		release         string
	}{
		{"typo", `{"tools":{"profile":"coding","denny":["exec"]}}`, "tools.denny is not a field of the openclaw policy document", ""},
		{"root key", `{"tool":{}}`, "tool is not a field", ""},
		{"not an object", `[]`, "the document must be an object", ""},
		{"list type", `{"tools":{"deny":"exec"}}`, "tools.deny must be a list of strings", ""},
		{"list element", `{"tools":{"deny":["exec",3]}}`, "tools.deny[1] must be a string", ""},
		{"null list", `{"tools":{"allow":null}}`, "tools.allow must be a list of strings", ""},
		{"allow and alsoAllow", `{"tools":{"allow":["read"],"alsoAllow":["exec"]}}`, "tools: allow and alsoAllow", ""},
		{"agent allow and alsoAllow", `{"agents":{"list":[{"id":"a","tools":{"allow":["read"],"alsoAllow":["exec"]}}]}}`, "agents.list[0].tools: allow and alsoAllow", ""},
		{"provider allow and alsoAllow", `{"agents":{"list":[{"id":"main","tools":{"byProvider":{"openai":{"allow":["read"],"alsoAllow":["exec"]}}}}]}}`, "agents.list[0].tools.byProvider.openai: allow and alsoAllow", ""},
		{"global provider allow and alsoAllow", `{"tools":{"byProvider":{"openai":{"allow":["read"],"alsoAllow":["exec"]}}}}`, "tools.byProvider.openai: allow and alsoAllow", ""},
		{"max depth", `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":9}}}}`, "maxSpawnDepth must be an integer from 1 to 5, got 9", ""},
		{"max depth zero", `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":0}}}}`, "maxSpawnDepth must be an integer from 1 to 5", ""},
		{"max depth float", `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":2.5}}}}`, "maxSpawnDepth must be an integer", ""},
		{"max depth string", `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":"2"}}}}`, "maxSpawnDepth must be an integer", ""},
		{"max children", `{"agents":{"defaults":{"subagents":{"maxChildrenPerAgent":0}}}}`, "maxChildrenPerAgent must be an integer from 1 to 20", ""},
		{"max children high", `{"agents":{"defaults":{"subagents":{"maxChildrenPerAgent":21}}}}`, "maxChildrenPerAgent", ""},
		{"sandbox mode", `{"agents":{"defaults":{"sandbox":{"mode":"sometimes"}}}}`, `agents.defaults.sandbox.mode must be "off", "non-main" or "all"`, ""},
		{"agent sandbox mode", `{"agents":{"list":[{"id":"a","sandbox":{"mode":"ALL"}}]}}`, "agents.list[0].sandbox.mode", ""},
		{"duplicate ids", `{"agents":{"list":[{"id":"a"},{"id":"a"}]}}`, `agents.list[1].id "a" repeats agents.list[0].id`, ""},
		{"missing id", `{"agents":{"list":[{}]}}`, "agents.list[0] needs an id", ""},
		{"empty id", `{"agents":{"list":[{"id":""}]}}`, "agents.list[0].id must not be empty", ""},
		{"agent maxSpawnDepth", `{"agents":{"list":[{"id":"a","subagents":{"maxSpawnDepth":2}}]}}`, "agents.list[0].subagents.maxSpawnDepth is not a field", ""},
		{"agent tools subagents", `{"agents":{"list":[{"id":"a","tools":{"subagents":{}}}]}}`, "agents.list[0].tools.subagents is not a field", ""},
		{"sender key", `{"tools":{"toolsBySender":{"alice":{"deny":["exec"]}}}}`, `"alice" is not a sender key`, LegacyRelease},
		{"sender key empty id", `{"tools":{"toolsBySender":{"id:":{}}}}`, `"id:" is not a sender key`, LegacyRelease},
		{"sender key channel", `{"tools":{"toolsBySender":{"channel:slack":{}}}}`, `"channel:slack" is not a sender key`, LegacyRelease},
		{"sender keys selecting one sender", `{"tools":{"toolsBySender":{"alice":{},"ID:Alice":{}}}}`, `keys "ID:Alice" and "alice" select the same sender`, "2026.9.6"},
		{"unknown profile", `{"tools":{"profile":"nope"}}`, `tools.profile must be one of "coding", "full", "messaging", "minimal", got "nope"`, "2026.9.6"},
		{"unknown provider profile", `{"tools":{"byProvider":{"openai":{"profile":"Coding"}}}}`, `tools.byProvider.openai.profile must be one of`, "2026.9.6"},
		{"sandbox allow and alsoAllow", `{"tools":{"sandbox":{"tools":{"allow":["read"],"alsoAllow":["exec"]}}}}`, "tools.sandbox.tools: allow and alsoAllow", "2026.9.6"},
		{"subagent allow and alsoAllow", `{"tools":{"subagents":{"tools":{"allow":["read"],"alsoAllow":["exec"]}}}}`, "tools.subagents.tools: allow and alsoAllow", "2026.9.6"},
		{"sender allow and alsoAllow", `{"tools":{"toolsBySender":{"*":{"allow":["read"],"alsoAllow":["exec"]}}}}`, `tools.toolsBySender["*"]: allow and alsoAllow`, "2026.9.6"},
		{"blank allow and alsoAllow", `{"tools":{"allow":[" "],"alsoAllow":["exec"]}}`, "tools: allow and alsoAllow", "2026.9.6"},
		{"upper-case agent id", `{"agents":{"list":[{"id":"Coder"}]}}`, `agents.list[0].id "Coder" is not a canonical agent id`, "2026.9.6"},
		{"agent id with a space", `{"agents":{"list":[{"id":"a b"}]}}`, `agents.list[0].id "a b" is not a canonical agent id (lower-case letters, digits, _ and -, starting with a letter or digit, at most 64; write "a-b")`, "2026.9.6"},
		{"unknown release", `{"release":"2099.1.1"}`, `release "2099.1.1" is not an openclaw release this build knows (known: legacy, 2026.9.6)`, ""},
		{"release type", `{"release":2026}`, `release must be a string naming an openclaw release`, ""},
		{"provider keys", `{"tools":{"byProvider":{"OpenAI":{"deny":["exec"]}," openai":{}}}}`, `name the same provider`, ""},
		{"group key", `{"channels":{"telegram":{"groups":{"dev":{"tools":{"allow":["read"]},"requireMention":true}}}}}`, `channels.telegram.groups.dev.requireMention is not a field`, ""},
		{"channel key", `{"channels":{"telegram":{"allowFrom":[]}}}`, `channels.telegram.allowFrom is not a field`, ""},
		{"exec type", `{"tools":{"exec":"sandbox"}}`, "tools.exec must be an object", ""},
		{"plugin tools type", `{"pluginTools":["lobster"]}`, "pluginTools must be an object", ""},
		{"plugin tools list", `{"pluginTools":{"lobster":"lobster"}}`, "pluginTools.lobster must be a list of strings", ""},
		{"plugin id group", `{"pluginTools":{"group:x":["x"]}}`, `pluginTools["group:x"]: "group:x" is not a plugin id`, ""},
		{"plugin id bundle-mcp", `{"pluginTools":{"bundle-mcp":["x"]}}`, `"bundle-mcp" is not a plugin id`, ""},
		{"plugin id blank", `{"pluginTools":{" ":["x"]}}`, `a plugin id must not be blank`, ""},
		{"plugin ids naming one plugin", `{"pluginTools":{"Voice-Call":["a"],"voice-call":["b"]}}`, `pluginTools.Voice-Call and pluginTools.voice-call name the same plugin`, ""},
		{"tool of two plugins", `{"pluginTools":{"a":["x"],"b":[" X "]}}`, `pluginTools.b[0]: tool "x" is also pluginTools.a's`, ""},
		{"blank plugin tool", `{"pluginTools":{"a":[""]}}`, `pluginTools.a[0]: a tool name must not be blank`, ""},
		{"profile type", `{"tools":{"profile":1}}`, "tools.profile must be a string", ""},
		{"boolean", `{"agents":{"defaults":{"subagents":{"requireAgentId":"yes"}}}}`, "requireAgentId must be a boolean", ""},
		{"sandbox tools key", `{"tools":{"sandbox":{"tools":{"allow":[],"block":[]}}}}`, "tools.sandbox.tools.block is not a field", ""},
		{"quoted path", `{"tools":{"toolsBySender":{"*":{"nope":[]}}}}`, `tools.toolsBySender["*"].nope is not a field`, ""},
		{"trailing data", `{} {}`, "trailing data", ""},
	}
	for _, tt := range tests {
		for _, rel := range Releases() {
			if tt.release != "" && rel != tt.release {
				continue
			}
			t.Run(tt.name+"/"+rel, func(t *testing.T) {
				_, err := New().CompileRelease(json.RawMessage(tt.doc), nil, rel)
				if events.CodeOf(err) != events.CodeInvalidPolicy {
					t.Fatalf("err = %v, want invalid_policy", err)
				}
				if !strings.Contains(err.Error(), tt.path) {
					t.Errorf("err = %q, want it to mention %q", err, tt.path)
				}
			})
		}
	}
}

// TestPackageReleaseAcceptsWhatOpenClawAccepts: documents the legacy
// release refused and 2026.9.6 takes, as OpenClaw's own validator does.
func TestPackageReleaseAcceptsWhatOpenClawAccepts(t *testing.T) {
	for _, doc := range []string{
		`{"tools":{"toolsBySender":{"e164:+15550100":{"deny":["exec"]},"username:@bob":{},"name:Al":{},"carol":{},"id:":{},"channel:slack":{}}}}`,
		`{"tools":{"profile":"full"}}`,
		`{"tools":{"subagents":{"tools":{"allow":[],"alsoAllow":["read"]}}}}`,
		`{"agents":{"list":[{"id":"_a"},{"id":"b-2"}]}}`,
		`{"channels":{"slack":{"groups":{"g":{"tools":{"allow":["read"],"alsoAllow":["exec"]}}}}}}`,
		`{"agents":{"defaults":{"subagents":{"maxSpawnDepth":2.0}}}}`,
		`{"release":"2026.9.6"}`,
	} {
		if _, err := New().CompileRelease(json.RawMessage(doc), nil, "2026.9.6"); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func TestCompileReportsEveryProblemInPathOrder(t *testing.T) {
	_, err := New().Compile(json.RawMessage(`{"tools":{"zeta":1,"alpha":2}}`), nil)
	want := "tools.alpha is not a field of the openclaw policy document; tools.zeta is not a field of the openclaw policy document"
	if err == nil || err.(*events.Error).Msg != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestCompileAcceptsTheWholeSchema(t *testing.T) {
	doc := `{
	  "release": "legacy",
	  "tools": {
	    "profile": "coding", "allow": [], "alsoAllow": ["canvas"], "deny": ["browser", ""],
	    "byProvider": {"openai": {"profile": "minimal", "allow": ["read"], "deny": []}, "openai/gpt-5": {"alsoAllow": ["x"]}},
	    "sandbox": {"tools": {"allow": ["read"], "alsoAllow": ["bundle-mcp"], "deny": []}},
	    "subagents": {"tools": {"allow": ["read"], "alsoAllow": ["exec"], "deny": ["write"]}},
	    "toolsBySender": {"*": {}, "id:alice": {"deny": ["exec"]}, "channel:slack:bob": {"allow": ["read"]}},
	    "exec": {"host": "sandbox", "nested": {"deep": [1, 2, 1e400]}}, "fs": {}
	  },
	  "agents": {
	    "defaults": {"subagents": {"maxSpawnDepth": 3, "maxChildrenPerAgent": 20, "allowAgents": ["*"], "requireAgentId": false},
	                 "sandbox": {"mode": "non-main"}},
	    "list": [
	      {"id": "coder",
	       "tools": {"profile": "messaging", "allow": ["read"], "alsoAllow": [], "deny": ["exec"],
	                 "byProvider": {"anthropic": {"deny": ["x"]}}, "sandbox": {"tools": {"deny": ["y"]}},
	                 "toolsBySender": {"*": {"deny": ["z"]}}, "exec": {}, "fs": {"root": "/"}},
	       "subagents": {"allowAgents": [], "delegateToolsTo": ["main"], "requireAgentId": true},
	       "sandbox": {"mode": "all"}}
	    ]
	  },
	  "channels": {"telegram": {"groups": {"dev": {"tools": {"deny": ["read"]}, "toolsBySender": {"id:alice": {}}}}}},
	  "pluginTools": {"voice-call": ["voice_call"], "memory-lancedb": ["memory_recall", "memory_store"], "idle": []}
	}`
	c, err := New().Compile(json.RawMessage(doc), []string{"read"})
	if err != nil {
		t.Fatal(err)
	}
	d := c.(*Policy).Doc
	if d.Tools.Scope.Allow.Set != true || len(d.Tools.Scope.Allow.Items) != 0 {
		t.Errorf("allow: [] must be present and empty, got %+v", d.Tools.Scope.Allow)
	}
	if d.Agents.List[0].Tools.AlsoAllow.Set != true {
		t.Error("alsoAllow: [] must be present")
	}
	if !c.(*Policy).configured["coder"] || !c.(*Policy).configured["main"] {
		t.Error("configured agents are main and the list ids")
	}
	roundTrip(t, json.RawMessage(doc))
}

// roundTrip checks that a document that compiles re-encodes to one that
// compiles to an equal document.
func roundTrip(t testing.TB, doc json.RawMessage) {
	t.Helper()
	d1, err := ParseDocument(doc)
	if err != nil {
		return
	}
	b, err := json.Marshal(d1)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	d2, err := ParseDocument(b)
	if err != nil {
		t.Fatalf("re-encoded document %s does not compile: %v", b, err)
	}
	if !reflect.DeepEqual(d1, d2) {
		t.Fatalf("round trip differs:\n%#v\n%#v", d1, d2)
	}
	d3, _ := ParseDocument(doc)
	if !reflect.DeepEqual(d1, d3) {
		t.Fatal("compiling twice gives different documents")
	}
}

func TestGrantsAreEditsOfTheDocument(t *testing.T) {
	w := newWorld(t, `{"tools":{"alsoAllow":["canvas"]},"agents":{"defaults":{"subagents":{"allowAgents":["planner"]}},"list":[{"id":"planner"}]}}`, "read")
	w.grant(events.GrantAlsoAllow, "main", "main", "Browser", "read", "")
	w.grant(events.GrantAllowAgent, "main", "coder")
	w.grant(events.GrantDelegateTools, "main", "planner")
	w.grant(events.GrantAllowAgent, "ghost", "planner")
	e := w.policy.Effective.(*effective)
	main := e.doc.Agents.List[1]
	if main.ID != "main" || len(e.doc.Agents.List) != 3 {
		t.Fatalf("grants append an entry for an agent without one: %+v", e.doc.Agents.List)
	}
	if got := main.Tools.AlsoAllow.Items; !reflect.DeepEqual(got, []string{"canvas", "browser", "read"}) {
		t.Errorf("alsoAllow = %q: the global list is copied first, then granted names appended", got)
	}
	if got := main.Subagents.AllowAgents.Items; !reflect.DeepEqual(got, []string{"planner", "coder"}) {
		t.Errorf("allowAgents = %q: the default list is copied first", got)
	}
	if got := main.Subagents.DelegateToolsTo.Items; !reflect.DeepEqual(got, []string{"planner"}) {
		t.Errorf("delegateToolsTo = %q", got)
	}
	if e.configured("ghost") || e.configured("coder") {
		t.Error("grants never add a configured agent")
	}
	if w.policy.Compiled.(*Policy).Doc.Agents.List[0].Subagents != nil || len(w.policy.Compiled.(*Policy).Doc.Agents.List) != 1 {
		t.Error("the stored revision was rewritten")
	}
	// Provenance: a granted entry names its grant.
	p := e.agents["main"].profile
	if p != nil {
		t.Error("no profile, so no profile layer")
	}
	l := compileList("x", main.Tools.AlsoAllow.Items, e.rev, main.Tools.AlsoAllow.From, e.cat)
	if l.recs[1].Type != events.GrantAdded || l.recs[0] != e.rev {
		t.Errorf("records: %+v", l.recs)
	}
}

func TestAllowAgentGrantWithoutDefaultsImpliesTheRequester(t *testing.T) {
	w := newWorld(t, `{"agents":{"list":[{"id":"coder"}]}}`, "read")
	w.grant(events.GrantAllowAgent, "main", "coder")
	e := w.policy.Effective.(*effective)
	if got := e.allowedTargets("main"); !reflect.DeepEqual(got, []string{"coder", "main"}) {
		t.Errorf("allowed = %q, want [coder main]", got)
	}
}

func TestGrantIdentity(t *testing.T) {
	d := New()
	a := d.GrantIdentity(&events.GrantData{Kind: events.GrantAlsoAllow, Agent: "a", Target: "a", Tools: []string{"Bash", "read", "exec"}, Behavior: "x"})
	b := d.GrantIdentity(&events.GrantData{Kind: events.GrantAlsoAllow, Agent: "a", Target: "a", Tools: []string{"read", "exec"}})
	if a != b {
		t.Errorf("identities differ: %s vs %s", a, b)
	}
	c := d.GrantIdentity(&events.GrantData{Kind: events.GrantAlsoAllow, Agent: "a", Target: "a", Tools: []string{"read"}})
	if a == c {
		t.Error("different tool sets share an identity")
	}
	if d.GrantIdentity(&events.GrantData{Kind: events.GrantDelegateTools, Agent: "a:b", Target: "c"}) ==
		d.GrantIdentity(&events.GrantData{Kind: events.GrantDelegateTools, Agent: "a", Target: "b:c"}) {
		t.Error("identity is ambiguous")
	}
}

func TestCheckEvent(t *testing.T) {
	d := New()
	tests := []struct {
		name    string
		typ     events.Type
		key     string
		payload any
		want    events.Code
	}{
		{"delegate", events.GrantAdded, "", &events.GrantData{Kind: "delegate_tools", Agent: "a", Target: "b"}, ""},
		{"permission", events.GrantAdded, "", &events.GrantData{Kind: "permission", Agent: "*", Target: "*"}, events.CodeInvalidEvent},
		{"unknown kind", events.GrantRevoked, "", &events.GrantData{Kind: "nope", Agent: "a", Target: "b"}, events.CodeInvalidEvent},
		{"empty agent", events.GrantAdded, "", &events.GrantData{Kind: "allow_agent", Target: "b"}, events.CodeInvalidEvent},
		{"empty target", events.GrantAdded, "", &events.GrantData{Kind: "allow_agent", Agent: "a"}, events.CodeInvalidEvent},
		{"tools on delegate", events.GrantAdded, "", &events.GrantData{Kind: "delegate_tools", Agent: "a", Target: "b", Tools: []string{}}, events.CodeInvalidEvent},
		{"behavior ignored", events.GrantAdded, "", &events.GrantData{Kind: "allow_agent", Agent: "a", Target: "b", Behavior: "allow", Rule: "Bash(ls)"}, ""},
		{"also_allow", events.GrantAdded, "", &events.GrantData{Kind: "also_allow", Agent: "a", Target: "a", Tools: []string{"x"}}, ""},
		{"also_allow blank", events.GrantAdded, "", &events.GrantData{Kind: "also_allow", Agent: "a", Target: "a", Tools: []string{" ", ""}}, events.CodeInvalidEvent},
		{"also_allow none", events.GrantAdded, "", &events.GrantData{Kind: "also_allow", Agent: "a", Target: "a"}, events.CodeInvalidEvent},
		{"also_allow target", events.GrantAdded, "", &events.GrantData{Kind: "also_allow", Agent: "a", Target: "b", Tools: []string{"x"}}, events.CodeInvalidEvent},
		{"root", events.SessionStarted, "agent:main:main", &events.StartedData{Agent: "main"}, ""},
		{"root subagent", events.SessionStarted, "agent:main:subagent:x", &events.StartedData{Agent: "main"}, events.CodeBadSessionKey},
		{"root SubAgent", events.SessionStarted, "x:SUBAGENT", &events.StartedData{Agent: "main"}, events.CodeBadSessionKey},
		{"root subagents", events.SessionStarted, "agent:main:subagents", &events.StartedData{Agent: "main"}, ""},
		{"root tools", events.SessionStarted, "agent:main:main", &events.StartedData{Agent: "main", Tools: []string{"Outlook__Send"}}, ""},
		{"root bad tools first", events.SessionStarted, "agent:main:subagent:x", &events.StartedData{Agent: "main", Tools: []string{"read"}}, events.CodeInvalidEvent},
		{"child", events.SessionSpawned, "agent:coder:subagent:a-1_B", &events.SpawnedData{Parent: "p", Agent: "coder"}, ""},
		{"child other agent", events.SessionSpawned, "agent:main:subagent:a", &events.SpawnedData{Parent: "p", Agent: "coder"}, events.CodeBadSessionKey},
		{"child no id", events.SessionSpawned, "agent:coder:subagent:", &events.SpawnedData{Parent: "p", Agent: "coder"}, events.CodeBadSessionKey},
		{"child colon id", events.SessionSpawned, "agent:coder:subagent:a:b", &events.SpawnedData{Parent: "p", Agent: "coder"}, events.CodeBadSessionKey},
		{"child acp", events.SessionSpawned, "agent:coder:acp:a", &events.SpawnedData{Parent: "p", Agent: "coder"}, events.CodeBadSessionKey},
		{"child bad tools first", events.SessionSpawned, "agent:main:subagent:a", &events.SpawnedData{Parent: "p", Agent: "coder", Tools: []string{"bash"}}, events.CodeInvalidEvent},
		{"turn", events.TurnStarted, "x", &events.TurnData{Turn: 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &events.Event{Type: tt.typ, Session: events.SessionKey(tt.key)}
			if got := events.CodeOf(d.CheckEvent(ev, tt.payload)); got != tt.want {
				t.Errorf("code = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSamePolicy(t *testing.T) {
	base := func() *envelope.Envelope {
		return &envelope.Envelope{Requester: "r", Agent: "a", Depth: 1, InheritedAllow: []string{"read"},
			InheritedDeny: []string{"exec"}, Source: "config"}
	}
	d := New()
	tests := []struct {
		name string
		mod  func(*envelope.Envelope)
		want bool
	}{
		{"same", func(*envelope.Envelope) {}, true},
		{"other agent and depth", func(e *envelope.Envelope) { e.Agent, e.Depth, e.Role = "b", 2, "leaf" }, true},
		{"null ceiling", func(e *envelope.Envelope) { e.InheritedAllow = nil }, false},
		{"empty ceiling", func(e *envelope.Envelope) { e.InheritedAllow = []string{} }, false},
		{"deny", func(e *envelope.Envelope) { e.InheritedDeny = nil }, false},
		{"source", func(e *envelope.Envelope) { e.Source = "sender" }, false},
		{"delegated", func(e *envelope.Envelope) { e.Delegated = &envelope.Delegation{Requester: "r", Target: "a"} }, false},
	}
	for _, tt := range tests {
		b := base()
		tt.mod(b)
		if got := d.SamePolicy(base(), b); got != tt.want {
			t.Errorf("%s: SamePolicy = %v, want %v", tt.name, got, tt.want)
		}
	}
	x, y := base(), base()
	x.InheritedAllow, y.InheritedAllow = []string{}, []string{}
	if !d.SamePolicy(x, y) {
		t.Error("two empty ceilings are the same")
	}
}
