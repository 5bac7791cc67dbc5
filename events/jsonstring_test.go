package events

import (
	"encoding/json"
	"math"
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

// FuzzReadPlainString: a string ReadPlainString reads is one json.Unmarshal
// reads to the same text, ending where it says; one it refuses is left to
// the callers' slow paths, so only its acceptances are held to this.
func FuzzReadPlainString(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\"b\\c"`, `"é"`, `"\u00e9"`, "\"\xff\"", `"a\nb"`, `"open`, `"x"tail`, `""`, "\"\x7f\"", `"\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		text, end, ok := ReadPlainString(b, 0, []byte("pre"))
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(b[:end], &want); err != nil {
			t.Fatalf("%q: read %q to %d, json.Unmarshal: %v", b, text, end, err)
		}
		if string(text) != "pre"+want {
			t.Fatalf("%q: read %q, json.Unmarshal %q", b, text[3:], want)
		}
	})
}

// TestReadJSONUint: ReadJSONUint reads what strconv reads of JSON's
// integers, within its limit, and refuses the rest.
func TestReadJSONUint(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit uint64
		n     uint64
		ok    bool
	}{{"0", 10, 0, true}, {"7,", 10, 7, true}, {"10", 10, 10, true}, {"11", 10, 0, false}, {"01", 10, 0, false},
		{"", 10, 0, false}, {"-1", 10, 0, false}, {"18446744073709551615", math.MaxUint64, math.MaxUint64, true},
		{"18446744073709551616", math.MaxUint64, 0, false}} {
		n, _, ok := ReadJSONUint([]byte(c.in), 0, c.limit)
		if ok != c.ok || ok && n != c.n {
			t.Errorf("%q (limit %d): %d %v, want %d %v", c.in, c.limit, n, ok, c.n, c.ok)
		}
	}
}
