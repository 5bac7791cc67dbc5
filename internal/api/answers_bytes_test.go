package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
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
		wire.CheckResult{Session: "s", Tool: "Bash", Decision: envelope.Allow,
			NotActive: &wire.ErrorBody{Code: events.CodeSessionNotActive, Message: `session "s" has ended <&>`}},
		wire.CheckResult{NotActive: &wire.ErrorBody{Seq: 7}},
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
			wire.CheckResult{Session: events.SessionKey(session), Tool: tool, NotActive: eb},
		} {
			want, _ := json.Marshal(v)
			if got, err := marshalAnswer(nil, v); err != nil || string(got) != string(want) {
				t.Fatalf("%+v: %s (%v), encoding/json writes %s", v, got, err, want)
			}
		}
	})
}

// respondRecorder is a micro.Request that keeps what it is answered.
type respondRecorder struct {
	micro.Request
	body []byte
}

func (r *respondRecorder) Respond(b []byte, opts ...micro.RespondOpt) error {
	r.body = append([]byte(nil), b...)
	return nil
}

// TestRecordedCheckAnswerBytes: a recorded check answered from its
// decision as a value (service.Result.Check) is byte for byte the answer
// written from the record's decided JSON (the answer before, and still
// the one of a result without it), for decisions whose strings need
// escaping.
func TestRecordedCheckAnswerBytes(t *testing.T) {
	ref := &envelope.RecordRef{Seq: 3, ID: "01K<&>", Type: "grant.added"}
	for _, c := range []projection.CheckDecided{
		{Decision: envelope.Allow, Reason: envelope.Reason{Code: "tools:allowed"}, Revision: 1},
		{Decision: envelope.Deny, Reason: envelope.Reason{Code: "policy:deny", Rule: `tools.deny[0]: "exec <rm -rf> & \u2028 é \x01"`, Record: ref}, Revision: 7, EnvelopeHash: "h", PreparedAt: 4, Scope: "team/a"},
		{Decision: envelope.Decision("ask"), Reason: envelope.Reason{Code: "a:b", Rule: "\"quoted\" \\ back"}},
	} {
		decided, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		// The record's decided JSON carries prev and seq after the decision.
		decided = append(decided[:len(decided)-1], `,"prev":"01J","seq":12}`...)
		p := &pendingAppend{ev: &events.Event{Session: "agent:main:x"}, check: &recordedCheck{tool: "exec"}}
		answer := func(res service.Result) string {
			r := &respondRecorder{}
			p.r = r
			answerCheck(p, res, nil)
			return string(r.body)
		}
		cv := c
		got := answer(service.Result{Seq: 12, ID: "01L", Decided: decided, Check: &cv})
		want := answer(service.Result{Seq: 12, ID: "01L", Decided: decided})
		if got != want || !strings.Contains(want, `"recorded":12`) {
			t.Errorf("answer from the value %s, from the decided JSON %s", got, want)
		}
	}
}
