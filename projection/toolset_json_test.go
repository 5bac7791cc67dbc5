package projection

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestToolSetJSON keeps appendToolSet's bytes those of encoding/json,
// which the store held before it.
func TestToolSetJSON(t *testing.T) {
	ref := &envelope.RecordRef{Seq: 1 << 40, ID: "01KDVDNA01DBK7GFTFQQMHPVNR", Type: events.PolicySet}
	tests := []struct {
		name string
		ts   envelope.ToolSet
	}{
		{"zero", envelope.ToolSet{}},
		{"empty lists", envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}},
		{"allowed only", envelope.ToolSet{Allowed: []string{"read", "exec"}}},
		{"denied without rule or record", envelope.ToolSet{Denied: []envelope.Denial{{Tool: "write", Reason: envelope.Reason{Code: "agent:deny"}}}}},
		{"full", envelope.ToolSet{Allowed: []string{"read", "sessions_spawn"}, Denied: []envelope.Denial{
			{Tool: "browser", Reason: envelope.Reason{Code: "agent:deny", Rule: `agents.list[1].tools.deny: "browser"`, Record: ref}},
			{Tool: "gateway", Reason: envelope.Reason{Code: "subagent:hard_deny", Record: &envelope.RecordRef{}}}}}},
		{"escapes", envelope.ToolSet{Allowed: []string{"a<b>&c", "tab\there", "back\\slash", "ünïcode", "\u2028", "bad \xff utf-8", "\x00"},
			Denied: []envelope.Denial{{Tool: `"q"`, Reason: envelope.Reason{Code: "<x>", Rule: "&", Record: &envelope.RecordRef{ID: "é", Type: "a\nb"}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.ts)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendToolSet(nil, tt.ts); string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func FuzzToolSetJSON(f *testing.F) {
	f.Add("read", "browser", "agent:deny", "rule", "01KDVDNA01DBK7GFTFQQMHPVNR", uint64(7), true)
	f.Add("<&>", "\xff", "", "", "", uint64(0), false)
	f.Fuzz(func(t *testing.T, allowed, tool, code, rule, id string, seq uint64, record bool) {
		ts := envelope.ToolSet{Allowed: []string{allowed, allowed + tool}, Denied: []envelope.Denial{{Tool: tool, Reason: envelope.Reason{Code: code, Rule: rule}}}}
		if record {
			ts.Denied[0].Reason.Record = &envelope.RecordRef{Seq: seq, ID: id, Type: events.Type(code)}
		}
		want, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendToolSet(nil, ts); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
}

func BenchmarkToolSetJSON(b *testing.B) {
	ref := &envelope.RecordRef{Seq: 1, ID: "01KDVDNA01DBK7GFTFQQMHPVNR", Type: events.PolicySet}
	ts := envelope.ToolSet{Allowed: []string{"read", "write", "edit", "apply_patch", "exec", "process", "web_search", "web_fetch", "sessions_spawn"}}
	for _, tool := range []string{"browser", "session_status", "gateway", "cron"} {
		ts.Denied = append(ts.Denied, envelope.Denial{Tool: tool, Reason: envelope.Reason{Code: "agent:deny", Rule: `agents.list[1].tools.deny: "` + tool + `"`, Record: ref}})
	}
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			json.Marshal(ts)
		}
	})
	b.Run("appendToolSet", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			appendToolSet(nil, ts)
		}
	})
}
