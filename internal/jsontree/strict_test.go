package jsontree

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLineIndex: columns counted on from the last place asked are the
// columns counted from the start of the line, in any order of asking.
func TestLineIndex(t *testing.T) {
	src := []byte("{\"é\": [\"ab\", \"\xff\", \"日本\"],\n  \"x\": 1, \"\xe2\x82\": 2}\n")
	naive := func(o int) Pos {
		line, start := 1, 0
		for i := 0; i < o; i++ {
			if src[i] == '\n' {
				line, start = line+1, i+1
			}
		}
		return Pos{Line: line, Col: utf8.RuneCount(src[start:o]) + 1}
	}
	x := newLineIndex(src)
	var order []int
	for o := 0; o <= len(src); o++ {
		order = append(order, o)
	}
	for o := len(src); o >= 0; o -= 3 {
		order = append(order, o)
	}
	for _, o := range order {
		if got, want := x.pos(o), naive(o); got != want {
			t.Fatalf("offset %d: got %v, want %v", o, got, want)
		}
	}
}

// TestSpans: both readers give every value the bytes it was written as, and
// every key the offset of its first byte; ParseStrict with no callback keeps
// a repeated key.
func TestSpans(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) (*Value, error)
		src   string
		texts []string // the values in document order
		keys  []string // the text from each key to the end of the line
	}{
		{"strict", func(b []byte) (*Value, error) { return ParseStrict("f", b, nil) },
			"\ufeff{\"a\": [1, \"x\\\"\"],\n \"a\": {\"é\": null}}",
			[]string{"{\"a\": [1, \"x\\\"\"],\n \"a\": {\"é\": null}}", `[1, "x\""]`, `1`, `"x\""`, `{"é": null}`, `null`},
			[]string{`"a": [1, "x\""],`, `"a": {"é": null}}`, `"é": null}}`}},
		{"json5", func(b []byte) (*Value, error) { return ParseJSON5("f", b) },
			"{a: [0x10, 'y',], // c\n 'b': {c: -Infinity}}",
			[]string{"{a: [0x10, 'y',], // c\n 'b': {c: -Infinity}}", `[0x10, 'y',]`, `0x10`, `'y'`, `{c: -Infinity}`, `-Infinity`},
			[]string{`a: [0x10, 'y',], // c`, `'b': {c: -Infinity}}`, `c: -Infinity}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			v, err := tt.parse(src)
			if err != nil {
				t.Fatal(err)
			}
			var texts, keys []string
			var walk func(v *Value)
			walk = func(v *Value) {
				texts = append(texts, string(src[v.Start:v.End]))
				for _, e := range v.Elems {
					walk(e)
				}
				for _, m := range v.Members {
					rest := string(src[m.KeyStart:])
					if i := strings.IndexByte(rest, '\n'); i >= 0 {
						rest = rest[:i]
					}
					keys = append(keys, rest)
					walk(m.Value)
				}
			}
			walk(v)
			if !reflect.DeepEqual(texts, tt.texts) || !reflect.DeepEqual(keys, tt.keys) {
				t.Errorf("got values %q keys %q\nwant values %q keys %q", texts, keys, tt.texts, tt.keys)
			}
		})
	}
}

// FuzzSpans: what either reader accepts, each value's span read alone
// gives the same value, and each key's offset starts the key.
func FuzzSpans(f *testing.F) {
	for _, s := range []string{`{}`, "\ufeff{\"a\": [1, \"x\"], \"a\": null}", `{a: [0x10, 'y',], /* c */ b: -Infinity}`, `[1e5, {"é": {}}]`, `"s"`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, json5 bool) {
		parse := func(b []byte) (*Value, error) { return ParseStrict("f", b, nil) }
		if json5 {
			parse = func(b []byte) (*Value, error) { return ParseJSON5("f", b) }
		}
		root, err := parse(src)
		if err != nil {
			return
		}
		var text func(v *Value) string
		text = func(v *Value) string { // AppendJSON, with Infinity and NaN by name
			switch {
			case v.Kind == Number && v.NonFinite != "":
				return v.NonFinite
			case v.Kind == Array:
				var parts []string
				for _, e := range v.Elems {
					parts = append(parts, text(e))
				}
				return "[" + strings.Join(parts, ",") + "]"
			case v.Kind == Object:
				var parts []string
				for _, m := range v.Members {
					k, _ := (&Value{Kind: String, Str: m.Key}).AppendJSON(nil, "f")
					parts = append(parts, string(k)+":"+text(m.Value))
				}
				return "{" + strings.Join(parts, ",") + "}"
			}
			b, err := v.AppendJSON(nil, "f")
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		var walk func(v *Value)
		walk = func(v *Value) {
			alone, err := parse(src[v.Start:v.End])
			if err != nil {
				t.Fatalf("the span %q of a value does not read alone: %v", src[v.Start:v.End], err)
			}
			if got, want := text(alone), text(v); got != want {
				t.Fatalf("the span %q reads as %s, want %s", src[v.Start:v.End], got, want)
			}
			for _, e := range v.Elems {
				walk(e)
			}
			for _, m := range v.Members {
				if m.KeyStart < v.Start || m.KeyStart >= m.Value.Start {
					t.Fatalf("key %q at offset %d, outside its object or after its value", m.Key, m.KeyStart)
				}
				walk(m.Value)
			}
		}
		walk(root)
	})
}
