package openclaw

import (
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
)

// benchWorld is a depth-2 sub-agent with every layer of the pipeline
// present: profile, provider profile, global, provider, agent, agent
// provider, group, sender (an external turn), sandbox, sub-agent and an
// inherited envelope with a ceiling.
func benchWorld(tb testing.TB) (*world, string) {
	tb.Helper()
	// The same policy and catalogue as the engine benchmarks and `ledger bench`.
	w := newWorld(tb, workload.BenchDoc, workload.BenchCatalogue()...)
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
