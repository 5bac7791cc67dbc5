package api

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// TestAnswerBytes and FuzzAnswerBytes: the append path's answers, written
// by hand (marshalAnswer), are byte for byte encoding/json's.
func TestAnswerBytes(t *testing.T) {
	ref := &envelope.RecordRef{Seq: 3, ID: "01K", Type: "grant.added"}
	for _, v := range []any{
		wire.AppendResult{}, wire.AppendResult{Seq: 1, ID: "01K", Duplicate: true},
		[]wire.AppendOutcome(nil), []wire.AppendOutcome{}, []wire.AppendOutcome{{}},
		[]wire.AppendOutcome{{Seq: 4, ID: "a"}, {Duplicate: true}, {Error: &wire.ErrorBody{Code: "bad_turn", Message: `turn "2" <x>`}},
			{Seq: 9, Error: &wire.ErrorBody{Code: "c", Message: "m", Seq: 9}}},
		wire.CheckResult{}, wire.CheckResult{Session: "agent:main:x", Scope: "openclaw", Seq: 5, Tool: "read", Decision: envelope.Allow,
			Reason: envelope.Reason{Code: "a:b", Rule: "r", Record: ref}, Recorded: 6},
		wire.WhyResult{},
	} {
		want, _ := json.Marshal(v)
		got, err := marshalAnswer([]byte("x"), v)
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("%+v: %s (%v), encoding/json writes %s", v, got, err, want)
		}
	}
}

func FuzzAnswerBytes(f *testing.F) {
	f.Add("01K", "agent:main:x", "read", "allow", "tools:allow", "", uint64(1), uint64(0), true)
	f.Add("", "é\n", "<&>", "deny", `q"\`, "\u2028", uint64(0), uint64(1<<63), false)
	f.Fuzz(func(t *testing.T, id, session, tool, decision, code, msg string, seq, rec uint64, dup bool) {
		var eb *wire.ErrorBody
		if msg != "" {
			eb = &wire.ErrorBody{Code: "c" + wire.CodeInternal, Message: msg, Seq: rec}
		}
		for _, v := range []any{
			wire.AppendResult{Seq: seq, ID: id, Duplicate: dup},
			[]wire.AppendOutcome{{Seq: seq, ID: id, Duplicate: dup, Error: eb}, {ID: msg}},
			wire.CheckResult{Session: events.SessionKey(session), Scope: code, Seq: seq, Tool: tool, Decision: envelope.Decision(decision),
				Reason: envelope.Reason{Code: code, Rule: msg}, Recorded: rec},
		} {
			want, _ := json.Marshal(v)
			if got, err := marshalAnswer(nil, v); err != nil || string(got) != string(want) {
				t.Fatalf("%+v: %s (%v), encoding/json writes %s", v, got, err, want)
			}
		}
	})
}
