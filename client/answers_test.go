package client

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// checkResults are answers of the check endpoint, each as encoding/json
// writes it (as the API does), for TestDecodeCheckResult and the fuzzer's
// seeds.
func checkResults() [][]byte {
	ref := &envelope.RecordRef{Seq: 3, ID: "01KABCDEF", Type: "grant.added"}
	var out [][]byte
	for _, c := range []wire.CheckResult{
		{},
		{Session: "agent:main:x", Scope: "default", Seq: 5, Tool: "Bash", Decision: envelope.Allow, Reason: envelope.Reason{Code: "permissions:allow", Rule: "Bash(echo *)"}, Recorded: 5},
		{Session: "s", Scope: "cc:team", Seq: 18446744073709551615, Tool: "exec", Decision: envelope.Deny, Reason: envelope.Reason{Code: "policy:deny", Record: ref}},
		{Session: "s", Tool: "Bash", Decision: envelope.Allow, Reason: envelope.Reason{Code: "permission:allow", Rule: `permissions.allow: "Bash(echo *)" \ é`, Record: ref}, Recorded: 4},
		{Session: "s", Tool: "é<&>\u2028", Decision: "ask", Reason: envelope.Reason{Code: `q"\`, Rule: "\x01"}, Recorded: 1},
	} {
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	return append(out, []byte(`{"session":"s","scope":"","seq":01,"tool":"t","decision":"d","reason":{"code":"c"}}`),
		[]byte(`{"session":"s","scope":"","seq":1,"tool":"t","decision":"d","reason":{"code":"c"}} `),
		[]byte(`{"session":"s","scope":"","seq":18446744073709551616,"tool":"t","decision":"d","reason":{"code":"c"}}`),
		[]byte(`{"session":"s","scope":"","seq":1,"tool":"t","decision":"d","reason":{"code":"c","record":null}}`),
		[]byte(`{"session":"s","scope":"","seq":1,"tool":"t","decision":"d","reason":{"code":"\xff"}}`),
		[]byte(`{"Session":"s","scope":"","seq":1,"tool":"t","decision":"d","reason":{"code":"c"},"recorded":2}`),
		[]byte(`{"session":"s","scope":"","seq":1,"tool":"t","decision":"d","reason":{"code":"c"},"not_active":{"code":"session_not_active","message":"m"}}`))
}

// sameDecode fails unless decodeAnswer decodes data into a CheckResult as
// json.Unmarshal does, into a zero one and into one already set.
func sameDecode(t *testing.T, data []byte) {
	t.Helper()
	for _, start := range []wire.CheckResult{{}, {Seq: 7, Reason: envelope.Reason{Record: &envelope.RecordRef{ID: "x"}}}} {
		want, got := start, start
		if start.Reason.Record != nil {
			r := *start.Reason.Record
			got.Reason.Record = &r
		}
		werr := json.Unmarshal(data, &want)
		gerr := decodeAnswer(data, &got)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q from %+v: %+v, %v; json.Unmarshal: %+v, %v", data, start, got, gerr, want, werr)
		}
	}
}

// TestDecodeCheckResult and FuzzDecodeCheckResult: a check's answer read
// by hand (readCheckResult) is what json.Unmarshal decodes, and the
// answers the API writes are read by hand.
func TestDecodeCheckResult(t *testing.T) {
	for i, b := range checkResults() {
		sameDecode(t, b)
		if _, ok := readCheckResult(b); ok != (i < 4) {
			t.Errorf("%s: read by hand %v", b, ok)
		}
	}
}

func FuzzDecodeCheckResult(f *testing.F) {
	for _, b := range checkResults() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameDecode(t, data) })
}

// FuzzDecodeCheckResultFields: an answer of any field values, as
// encoding/json writes it, decodes by hand as json.Unmarshal decodes it.
func FuzzDecodeCheckResultFields(f *testing.F) {
	f.Add("agent:main:x", "default", "Bash", "allow", "permissions:allow", "Bash(echo *)", "01K", uint64(5), uint64(5), uint64(0), false)
	f.Add("s", "", "é<&>", "deny", `q"\`, "", "", uint64(0), uint64(1<<63), uint64(9), true)
	f.Fuzz(func(t *testing.T, session, scope, tool, decision, code, rule, id string, seq, recorded, refSeq uint64, withRef bool) {
		c := wire.CheckResult{Session: events.SessionKey(session), Scope: scope, Seq: seq, Tool: tool, Decision: envelope.Decision(decision),
			Reason: envelope.Reason{Code: code, Rule: rule}, Recorded: recorded}
		if withRef {
			c.Reason.Record = &envelope.RecordRef{Seq: refSeq, ID: id, Type: events.Type(rule)}
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		sameDecode(t, b)
	})
}

// batchAnswers are answers of a batch append, each as encoding/json
// writes it (as the API does), and answers near their form, for
// TestDecodeOutcomes and the fuzzer's seeds.
func batchAnswers() [][]byte {
	var out [][]byte
	for _, outs := range [][]wire.AppendOutcome{
		{{Seq: 1, ID: "01KABCDEF"}},
		{{Seq: 7, ID: "a"}, {Seq: 8, ID: `q"\é`, Duplicate: true}, {Seq: 18446744073709551615, ID: "ü"}},
		{{Seq: 7, ID: "<&>\u2028"}},
		{{Seq: 2, ID: "a"}, {Seq: 3, Error: &wire.ErrorBody{Code: "conflict", Message: "m"}}},
		{{ID: "a"}}, {{Seq: 1}}, {}, nil,
	} {
		b, _ := json.Marshal(outs)
		out = append(out, b)
	}
	return append(out, []byte(`[{"seq":01,"id":"a"}]`), []byte(`[{"seq":1,"id":"a"}] `),
		[]byte(`[{"seq":1,"id":"a","duplicate":false}]`), []byte(`[{"seq":1,"id":"\xff"}]`),
		[]byte(`[{"seq":1,"id":"a"},]`), []byte(`[{"seq":1,"id":"a"}{"seq":2,"id":"b"}]`),
		[]byte(`[{"seq":1,"id":"\u0041"}]`), []byte(`[{"seq":1,"id":"{\"seq\":"}]`))
}

// sameOutcomes fails unless decodeAnswer decodes data into a batch's
// outcomes as json.Unmarshal does.
func sameOutcomes(t *testing.T, data []byte) {
	t.Helper()
	var want, got []wire.AppendOutcome
	werr := json.Unmarshal(data, &want)
	gerr := decodeAnswer(data, &got)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: %+v, %v; json.Unmarshal: %+v, %v", data, got, gerr, want, werr)
	}
}

// TestDecodeOutcomes and FuzzDecodeOutcomes: a batch append's answer
// read by hand (readOutcomes) is what json.Unmarshal decodes, and the
// answers the API writes for appended events are read by hand.
func TestDecodeOutcomes(t *testing.T) {
	for i, b := range batchAnswers() {
		sameOutcomes(t, b)
		if _, ok := readOutcomes(b); ok != (i < 2 || i == len(batchAnswers())-1) {
			t.Errorf("%s: read by hand %v", b, ok)
		}
	}
}

func FuzzDecodeOutcomes(f *testing.F) {
	for _, b := range batchAnswers() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameOutcomes(t, data) })
}

// FuzzDecodeOutcomesFields: a batch answer of any ids and seqs, as
// encoding/json writes it, decodes by hand as json.Unmarshal decodes it.
func FuzzDecodeOutcomesFields(f *testing.F) {
	f.Add("01KABCDEF", "b", uint64(1), uint64(2), false)
	f.Add(`q"\é`, "\x01", uint64(0), uint64(1<<63), true)
	f.Fuzz(func(t *testing.T, id1, id2 string, seq1, seq2 uint64, dup bool) {
		b, _ := json.Marshal([]wire.AppendOutcome{{Seq: seq1, ID: id1}, {Seq: seq2, ID: id2, Duplicate: dup}})
		sameOutcomes(t, b)
	})
}
