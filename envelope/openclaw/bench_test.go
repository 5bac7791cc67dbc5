package openclaw

import (
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// benchCatalogue is 60 tools: built-ins of every group and MCP tools.
func benchCatalogue() []string {
	cat := []string{"read", "write", "edit", "apply_patch", "exec", "process", "code_execution",
		"web_search", "x_search", "web_fetch", "sessions", "sessions_list", "sessions_history",
		"sessions_search", "conversations_list", "conversations_send", "sessions_send", "sessions_spawn",
		"sessions_yield", "subagents", "session_status", "memory_search", "memory_get", "browser", "canvas",
		"automations", "gateway", "message", "nodes", "agents_list", "get_goal", "progress_card", "ask_user",
		"view_image", "image_generate", "tts", "skills_read", "dispatch_action", "switch_model", "image"}
	for i := len(cat); i < 60; i++ {
		cat = append(cat, fmt.Sprintf("srv%d__tool_%d", i%4, i))
	}
	return cat
}

// benchWorld is a depth-2 sub-agent with every layer of the pipeline
// present: profile, provider profile, global, provider, agent, agent
// provider, group, sender (an external turn), sandbox, sub-agent and an
// inherited envelope with a ceiling.
func benchWorld(tb testing.TB) (*world, string) {
	tb.Helper()
	doc := `{
	  "tools": {
	    "profile": "coding", "alsoAllow": ["browser", "bundle-mcp", "canvas"],
	    "allow": [], "deny": ["nodes", "srv3__*"],
	    "byProvider": {"anthropic/claude": {"profile": "coding", "alsoAllow": ["group:plugins", "browser"], "deny": ["x_search"]}},
	    "sandbox": {"tools": {"allow": ["group:fs", "group:runtime", "group:sessions", "group:web", "group:memory", "view_image"],
	                          "alsoAllow": ["bundle-mcp", "skills_read", "dispatch_action"], "deny": ["canvas"]}},
	    "subagents": {"tools": {"deny": ["memory_get"]}},
	    "toolsBySender": {"*": {"deny": ["group:automation"]}, "id:alice": {"deny": ["web_search"]}}
	  },
	  "agents": {
	    "defaults": {"subagents": {"maxSpawnDepth": 3}},
	    "list": [{"id": "main", "tools": {"deny": ["process"], "byProvider": {"anthropic": {"allow": ["*"], "deny": ["code_execution"]}}},
	              "subagents": {"allowAgents": ["main"]}}]
	  },
	  "channels": {"slack": {"groups": {"eng": {"tools": {"deny": ["message"]},
	                                             "toolsBySender": {"id:alice": {"allow": ["*"], "deny": ["edit"]}}}}}}
	}`
	w := newWorld(tb, doc, benchCatalogue()...)
	w.start("agent:main:main", events.StartedData{Agent: "main", Provider: "Anthropic", Model: "Claude",
		Channel: "slack", Group: "eng", Sandboxed: ptr(true), Tools: []string{"mail__send"}})
	w.turn("agent:main:main", "alice", false)
	w.spawn("agent:main:subagent:a", "agent:main:main", "main", withTools("gh__issue"))
	w.turn("agent:main:subagent:a", "", false)
	w.spawn("agent:main:subagent:b", "agent:main:subagent:a", "main")
	w.turn("agent:main:subagent:b", "alice", false)
	return w, "agent:main:subagent:b"
}

func TestBenchWorldHasEveryLayer(t *testing.T) {
	w, key := benchWorld(t)
	s := w.sessions[events.SessionKey(key)]
	var p pipeline
	w.policy.Effective.(*effective).resolve(w, s, &p, false)
	for li := range p.layers {
		if p.layers[li] == nil {
			t.Errorf("layer %s is absent", layerNames[li])
		}
	}
	if s.Envelope.InheritedAllow == nil {
		t.Error("no ceiling")
	}
	ts := w.tools(key)
	if len(ts.Allowed)+len(ts.Denied) != 62 {
		t.Errorf("catalogue of %d tools", len(ts.Allowed)+len(ts.Denied))
	}
	if n := testing.AllocsPerRun(50, func() { w.d.Tools(w, s) }); n > 4 {
		t.Errorf("Tools allocates %v times per call", n)
	}
}

func BenchmarkTools(b *testing.B) {
	w, key := benchWorld(b)
	s := w.sessions[events.SessionKey(key)]
	b.ReportAllocs()
	for b.Loop() {
		w.d.Tools(w, s)
	}
}

func BenchmarkDecide(b *testing.B) {
	w, key := benchWorld(b)
	s := w.sessions[events.SessionKey(key)]
	b.ReportAllocs()
	for b.Loop() {
		w.d.Decide(w, s, "exec", nil)
	}
}

func BenchmarkEffective(b *testing.B) {
	w, _ := benchWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.d.Effective(w.policy); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSpawn(b *testing.B) {
	w, _ := benchWorld(b)
	d := &events.SpawnedData{Parent: "agent:main:subagent:a", Agent: "main"}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := w.d.Spawn(w, "agent:main:subagent:x", d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkToolsRoot(b *testing.B) {
	w, _ := benchWorld(b)
	s := w.sessions["agent:main:main"]
	b.ReportAllocs()
	for b.Loop() {
		w.d.Tools(w, s)
	}
}

func TestConcurrentUse(t *testing.T) {
	w, key := benchWorld(t)
	s := w.sessions[events.SessionKey(key)]
	want := mustJSON(t, w.d.Tools(w, s))
	w.refresh() // a fresh effective value: its envelope memo starts empty
	done := make(chan string)
	for range 4 {
		go func() { done <- mustJSON(t, w.d.Tools(w, s)) }()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Errorf("concurrent Tools differs")
		}
	}
}
