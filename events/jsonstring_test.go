package events

import (
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString: a string quoted by hand is json.Marshal's.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "exec", `q"\`, "<&>", "é\u2028\x01", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: %s, json.Marshal writes %s", s, got, want)
		}
	})
}

// FuzzAppendCompactJSON: valid JSON compacted by hand is json.Marshal's
// json.RawMessage of it.
func FuzzAppendCompactJSON(f *testing.F) {
	for _, s := range []string{`{"command":"echo hi","description":"Say hi"}`, ` { "a" : [ 1 , 2.5e3 , null , true ] ,
	"b" : "x <y> & \" \\ \u2028 \u2029 é" } `, `"free text"`, `"\u2028\"<"`, "\"\u2028\u2029\xe2\x80\"", `[]`, `0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendCompactJSON([]byte("x"), raw); string(got) != "x"+string(want) {
			t.Fatalf("%q: %q, json.Marshal writes %q", raw, got, want)
		}
	})
}
