package events

import (
	"encoding/json"
	"strings"
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

// FuzzEncodeCanonicalData: a record whose data CanonicalJSON returned
// encodes to the same bytes, or fails the same way, with
// EncodeCanonicalData as with Encode.
func FuzzEncodeCanonicalData(f *testing.F) {
	f.Add([]byte(`{"tool":"Bash","input":{"command":"echo <hi>","n":[1,2.50,1e3]},"turn":1}`), []byte(`{"decision":"allow"}`))
	f.Add([]byte(`{"b":"\u00e9\u2028","a":null} `), []byte(`null`))
	f.Add([]byte(strings.Repeat("[", maxDecodeDepth)+strings.Repeat("]", maxDecodeDepth)), []byte(nil))
	f.Add([]byte(strings.Repeat("[", maxDecodeDepth-1)+strings.Repeat("]", maxDecodeDepth-1)), []byte(`{}`))
	f.Fuzz(func(t *testing.T, data, decided []byte) {
		c, err := CanonicalJSON(data)
		if err != nil {
			return
		}
		r := &Record{ID: "01KDVDNA02201QRKBVQC20FMF2", Type: ToolChecked, V: 1, Time: "2026-01-01T00:00:00.002Z", Session: "s", Actor: "a", Data: c, Decided: decided}
		want, werr := r.Encode()
		got, err := r.EncodeCanonicalData()
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || string(got) != string(want) {
			t.Fatalf("%q: %s (%v), Encode: %s (%v)", c, got, err, want, werr)
		}
	})
}
