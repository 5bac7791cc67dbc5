package envelope_test

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

func FuzzReasonAppendJSON(f *testing.F) {
	for _, s := range []string{"", "plain", `q"b\`, "<&>", "\x00\n\t", "é", "\u2028", "\xff", "a\x7fb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := events.AppendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: %s, encoding/json writes %s", s, got, want)
		}
		r := envelope.Reason{Code: s, Rule: s}
		if len(s) > 2 {
			r.Record = &envelope.RecordRef{Seq: uint64(len(s)) << 40, ID: s[1:], Type: "t"}
		}
		want, _ = json.Marshal(r)
		if got := r.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("%+v: %s, encoding/json writes %s", r, got, want)
		}
	})
}

func TestReasonAppendJSONMatchesEncodingJSON(t *testing.T) {
	for _, r := range []envelope.Reason{{}, {Code: "a:b"}, {Code: "a", Rule: "r"}, {Code: "c", Record: &envelope.RecordRef{}},
		{Code: "c", Rule: "x<y", Record: &envelope.RecordRef{Seq: 1<<64 - 1, ID: "01K", Type: "policy.set"}}} {
		want, _ := json.Marshal(r)
		if got := r.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%+v: %s, encoding/json writes %s", r, got, want)
		}
	}
}
