package projection

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
)

// TestMarshalDecided and FuzzMarshalDecided: what a check and an effect
// decided is written by hand (marshalDecided), byte for byte as
// encoding/json writes it: records hold these bytes.
func TestMarshalDecided(t *testing.T) {
	ref := &envelope.RecordRef{Seq: 7, ID: "01K", Type: "grant.added"}
	for _, d := range []any{
		CheckDecided{}, EffectDecided{},
		CheckDecided{Decision: envelope.Allow, Reason: envelope.Reason{Code: "tools:allow"}, Revision: 3},
		CheckDecided{Decision: envelope.Deny, Reason: envelope.Reason{Code: ReasonAuthorizationChanged, Rule: "x", Record: ref},
			Revision: 1 << 63, EnvelopeHash: "sha256:ab", PreparedAt: 9, Scope: "claude-code"},
		EffectDecided{PreparedAt: 4, Decision: envelope.Ask, Reason: envelope.Reason{Code: "c", Record: ref}, Scope: "s<&>"},
		TurnDecided{PolicySource: "x", ToolSetHash: "y"},
	} {
		want, _ := json.Marshal(d)
		got, err := marshalDecided(d)
		if err != nil || string(got) != string(want) {
			t.Errorf("%+v: %s (%v), encoding/json writes %s", d, got, err, want)
		}
	}
}

func FuzzMarshalDecided(f *testing.F) {
	f.Add("allow", "tools:allow", "", "", uint64(0), uint64(3), "", "")
	f.Add("deny", "c\"d", "r\\", "01K", uint64(5), uint64(0), "sha256:\u2028", "é")
	f.Fuzz(func(t *testing.T, dec, code, rule, id string, seq, rev uint64, hash, scope string) {
		r := envelope.Reason{Code: code, Rule: rule}
		if id != "" {
			r.Record = &envelope.RecordRef{Seq: seq, ID: id, Type: "turn.started"}
		}
		for _, d := range []any{
			CheckDecided{Decision: envelope.Decision(dec), Reason: r, Revision: rev, EnvelopeHash: hash, PreparedAt: seq, Scope: scope},
			EffectDecided{PreparedAt: rev, Decision: envelope.Decision(dec), Reason: r, Scope: scope},
		} {
			want, _ := json.Marshal(d)
			if got, _ := marshalDecided(d); string(got) != string(want) {
				t.Fatalf("%+v: %s, encoding/json writes %s", d, got, want)
			}
		}
	})
}
