package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// github.com/gowebpki/jcs, an RFC 8785 implementation written apart from
// this package (its own parser, UTF-16 key sort and string escaping; numbers
// through strconv as ours), is the second oracle of CanonicalJSON, beside
// the encoding/json-era implementation in oracle_test.go.
//
// CanonicalJSON is RFC 8785 on I-JSON (RFC 7493) input, and accepts more,
// as encoding/json's Decoder did; jcs refuses those inputs. So the two must
// agree, in outcome and bytes, exactly on the inputs jcsComparable admits:
//
//   - one JSON value with only white space around it, by RFC 8259's grammar
//     (json.Valid), which also keeps nesting within encoding/json's 10000
//     levels, the limit of both; CanonicalJSON also accepts a closing
//     bracket after the value (as Decoder.More did), and jcs refuses it;
//   - valid UTF-8 (CanonicalJSON reads a byte that is not as U+FFFD);
//   - no \u escape of a lone surrogate (CanonicalJSON reads U+FFFD);
//   - no key twice in an object, compared after unescaping (CanonicalJSON
//     keeps the last, as decoding into a map did).
//
// Numbers are inside the domain: on a number a double cannot hold (1e400)
// both refuse the input.

// jcsComparable reports whether b is in the domain where CanonicalJSON and
// jcs.Transform must agree.
func jcsComparable(b []byte) bool {
	if !json.Valid(b) || !utf8.Valid(b) || hasLoneSurrogate(b) {
		return false
	}
	return !hasDuplicateKey(b)
}

// hasLoneSurrogate reports a \u escape of a surrogate that is not a high
// one directly followed by a \u escape of a low one, in valid JSON b.
func hasLoneSurrogate(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			inString = !inString
		case inString && c == '\\':
			i++
			if b[i] != 'u' {
				continue
			}
			u := codeUnit(b[i+1 : i+5])
			i += 4
			switch {
			case u >= 0xDC00 && u <= 0xDFFF:
				return true
			case u >= 0xD800 && u <= 0xDBFF:
				if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
					return true
				}
				if lo := codeUnit(b[i+3 : i+7]); lo < 0xDC00 || lo > 0xDFFF {
					return true
				}
				i += 6
			}
		}
	}
	return false
}

// codeUnit is the value of the four hex digits of a \u escape.
func codeUnit(h []byte) uint64 {
	u, _ := strconv.ParseUint(string(h), 16, 16)
	return u
}

// hasDuplicateKey reports an object with a key twice in valid JSON b
// without lone surrogates, where decoding a string is exact.
func hasDuplicateKey(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		keys      map[string]bool // nil for an array
		expectKey bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			return false // json.Valid said it is valid; a Decoder limit is not a duplicate
		}
		top := len(stack) - 1
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if top >= 0 && stack[top].keys != nil {
				stack[top].expectKey = true // this value ends a member
			}
			f := frame{}
			if tok == json.Delim('{') {
				f = frame{keys: map[string]bool{}, expectKey: true}
			}
			stack = append(stack, f)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
			continue
		}
		if top < 0 || stack[top].keys == nil {
			continue
		}
		if stack[top].expectKey {
			k := tok.(string)
			if stack[top].keys[k] {
				return true
			}
			stack[top].keys[k] = true
			stack[top].expectKey = false
		} else {
			stack[top].expectKey = true
		}
	}
}

// checkJCS compares CanonicalJSON's result on b with jcs.Transform's where
// they must agree.
func checkJCS(t *testing.T, b, got []byte, err error) {
	t.Helper()
	if !jcsComparable(b) {
		return
	}
	want, werr := jcs.Transform(b)
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("CanonicalJSON(%q)\n got  %s, %v\n jcs  %s, %v", b, got, err, want, werr)
	}
}

// jcsCases are inputs for the jcs comparison: RFC 8785's examples (section
// 3.2.2, numbers, strings and literals; section 3.2.3, key order) and the
// edges of the comparable domain.
var jcsCases = []struct{ in, want string }{
	{`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
		`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
	{`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`,
		"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
	{`[-0, 1e21, 1e-7, 1e-6, 123456789012345678, 9007199254740993, 0.1, 1E+2, -1.5e-300, 5e-324]`,
		`[0,1e+21,1e-7,0.000001,123456789012345680,9007199254740992,0.1,100,-1.5e-300,5e-324]`},
	{` "\u0000\u001f\b\f\n\r\t\u007f<>&\u2028" `, `"\u0000\u001f\b\f\n\r\t` + "\u007f<>&\u2028" + `"`},
	{`{"a":{"c":1,"b":[{},[]]},"":null}`, `{"":null,"a":{"b":[{},[]],"c":1}}`},
	{`{"a":1,"\u0062":2,"\\u0061":3}`, `{"\\u0061":3,"a":1,"b":2}`}, // \\u0061 is a backslash and u0061, not a
	{`[1e400]`, ``},            // out of range: both refuse
	{`{"a":1,"\u0061":2}`, ``}, // a key twice: not comparable
	{`"\ud800"`, ``},           // a lone surrogate: not comparable
	{`{}]`, ``},                // trailing bracket: not comparable
	{"\"\xff\"", ``},           // not UTF-8: not comparable
}

// TestCanonicalJCS checks CanonicalJSON and jcs on RFC 8785's examples and
// on the domain's edges, and that the domain is as documented.
func TestCanonicalJCS(t *testing.T) {
	for _, tc := range jcsCases {
		b := []byte(tc.in)
		got, err := CanonicalJSON(b)
		checkJCS(t, b, got, err)
		switch {
		case tc.want != "" && (err != nil || string(got) != tc.want):
			t.Errorf("CanonicalJSON(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		case tc.want == "" && strings.Contains(tc.in, "1e400") && err == nil:
			t.Errorf("CanonicalJSON(%s) accepted a number out of range", tc.in)
		}
	}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, true},
		{`{"a":1,"b":2,"a":3}`, false},
		{`[{"a":1,"a":2}]`, false},
		{`{"a":{"x":1},"b":{"x":1}}`, true},
		{`{"a":[1,{"b":2}],"b":3}`, true},
		{`{"\ud83d\ude00":1,"😀":2}`, false},
		{`"\\ud800"`, true},
		{`"\ud800\u0041"`, false},
		{`"\ud800\ud800\udc00"`, false},
		{`"\udc00"`, false},
		{`{"a":1} `, true},
		{`{"a":1}}`, false},
		{``, false},
	} {
		if got := jcsComparable([]byte(tc.in)); got != tc.want {
			t.Errorf("jcsComparable(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// Not vacuous: most seeds of the fuzz tests are comparable.
	n, comparable := 0, 0
	for _, s := range seeds(t) {
		n++
		if jcsComparable(s) {
			comparable++
		}
	}
	if comparable < n/2 {
		t.Errorf("only %d of %d seeds are in the jcs domain", comparable, n)
	}
}

// FuzzCanonicalJCS compares CanonicalJSON with jcs on the differential
// tests' seeds and RFC 8785's examples. FuzzCanonicalDiff runs the same
// comparison beside its own.
func FuzzCanonicalJCS(f *testing.F) {
	addSeeds(f)
	for _, tc := range jcsCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := CanonicalJSON(b)
		checkJCS(t, b, got, err)
	})
}

// BenchmarkCanonicalVsJCS measures CanonicalJSON against jcs.Transform on
// the events the append path sees most, as callers send them.
func BenchmarkCanonicalVsJCS(b *testing.B) {
	for _, be := range benchEvents {
		raw := []byte(be.event)
		for _, impl := range []struct {
			name string
			f    func([]byte) ([]byte, error)
		}{{"ledger", CanonicalJSON}, {"jcs", jcs.Transform}} {
			b.Run(be.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					if _, err := impl.f(raw); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
