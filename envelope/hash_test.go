package envelope

import (
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestEnvelopeHash keeps the canonical bytes appendCanonical writes those
// of events.Canonical over the map MarshalJSON encodes, which define the
// envelope's hash.
func TestEnvelopeHash(t *testing.T) {
	tests := []struct {
		name  string
		e     Envelope
		exact bool // written directly, not through the map
	}{
		{"zero", Envelope{}, true},
		{"openclaw", Envelope{Requester: "agent:main:w0", Agent: "coder", Depth: 1, Role: "orchestrator",
			InheritedDeny: []string{"gateway"}, Source: "config", Revision: 1}, true},
		{"ceiling and delegation", Envelope{Requester: "agent:main:w0", Agent: "reviewer", Depth: 2, Role: "leaf",
			InheritedAllow: []string{}, InheritedDeny: []string{"a", "b"}, Source: "delegated",
			Delegated: &Delegation{Requester: "agent:main:w0", Target: "reviewer"}, Revision: 1<<53 - 1}, true},
		{"claude-code", Envelope{Requester: "agent:main:w0", Agent: "Explore", Mode: "plan", Background: true,
			ExtraTools: []string{"Read"}, InheritedAllow: []string{"Read", "Grep"}}, true},
		{"claude-code without extras", Envelope{Agent: "x", Mode: "default"}, true},
		{"escapes", Envelope{Requester: "a<b>&c", Agent: "tab\there", Role: "\u2028", Source: "ünïcode",
			InheritedDeny: []string{`"q"`, "\x00", "é"}, Delegated: &Delegation{Target: "back\\slash", Deny: []string{"\u00e9"}}}, true},
		{"negative depth", Envelope{Depth: -3}, true},
		{"not UTF-8", Envelope{Source: "bad \xff utf-8"}, false},
		{"revision past 2^53", Envelope{Revision: 1<<53 + 1}, false},
		{"huge revision", Envelope{Revision: 1<<64 - 1}, false},
		{"huge depth", Envelope{Depth: 1 << 60}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := events.Canonical(tt.e.fields(false))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tt.e.appendCanonical(nil)
			if ok != tt.exact {
				t.Fatalf("written directly: %v, want %v", ok, tt.exact)
			}
			if ok && string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if h, w := tt.e.ComputeHash(), tt.e.mapHash(); h != w {
				t.Errorf("hash %s, want %s", h, w)
			}
		})
	}
}

func FuzzEnvelopeHash(f *testing.F) {
	f.Add("agent:main:w0", "coder", "orchestrator", "gateway", "", int64(1), uint64(1), true, false)
	f.Add("<&>", "\xff", "\u2028", "", "plan", int64(-1), uint64(1<<53), false, true)
	f.Fuzz(func(t *testing.T, requester, agent, role, deny, mode string, depth int64, revision uint64, delegated, background bool) {
		e := Envelope{Requester: events.SessionKey(requester), Agent: agent, Depth: int(depth), Role: role,
			InheritedDeny: []string{deny}, Source: role + agent, Revision: revision, Mode: mode, Background: background,
			ExtraTools: []string{agent}}
		if delegated {
			e.Delegated = &Delegation{Requester: e.Requester, Target: agent, Deny: []string{deny, role}}
			e.InheritedAllow = []string{}
		}
		if h, w := e.ComputeHash(), e.mapHash(); h != w {
			t.Errorf("%+v: hash %s, want %s", e, h, w)
		}
	})
}

func BenchmarkEnvelopeHash(b *testing.B) {
	e := Envelope{Requester: "agent:main:w0", Agent: "coder", Depth: 1, Role: "orchestrator",
		InheritedDeny: []string{"gateway"}, Source: "config", Revision: 1}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = e.ComputeHash()
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = e.mapHash()
		}
	})
}

func BenchmarkToolSetHash(b *testing.B) {
	ts := ToolSet{Allowed: []string{"read", "write", "edit", "apply_patch", "exec", "process", "web_search", "web_fetch"},
		Denied: []Denial{{Tool: "gateway", Reason: Reason{Code: "subagent:hard_deny", Rule: `tools.subagents.deny: "gateway"`,
			Record: &RecordRef{Seq: 1, ID: "01KDVDNA01DBK7GFTFQQMHPVNR", Type: events.PolicySet}}}}}
	b.ReportAllocs()
	for b.Loop() {
		_ = ts.Hash()
	}
}
