package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestJSON5ToJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain JSON", `{"a": [1, 2.5, -3e2, true, false, null, "x"]}`, `{"a":[1,2.5,-3e2,true,false,null,"x"]}`},
		{"key order kept", `{b: 1, a: 2, c: 3}`, `{"b":1,"a":2,"c":3}`},
		{"line comment", "{// note\n a: 1 // after\n}", `{"a":1}`},
		{"block comment", "/* head */ {a: /* inline */ 1}", `{"a":1}`},
		{"trailing commas", `{a: [1, 2,], b: {c: 3,},}`, `{"a":[1,2],"b":{"c":3}}`},
		{"identifier keys", `{$id: 1, _x9: 2, ünïcode: 3, a\u0062c: 4}`, `{"$id":1,"_x9":2,"ünïcode":3,"abc":4}`},
		{"reserved words as keys", `{null: 1, true: 2, Infinity: 3}`, `{"null":1,"true":2,"Infinity":3}`},
		{"single quotes", `{'a': 'it\'s "quoted"'}`, `{"a":"it's \"quoted\""}`},
		{"double quotes with single inside", `"don't"`, `"don't"`},
		{"line continuation LF", "'one \\\ntwo'", `"one two"`},
		{"line continuation CRLF", "'one \\\r\ntwo'", `"one two"`},
		{"line continuation U+2028", "'a\\\u2028b'", `"ab"`},
		{"escapes", `"\b\f\n\r\t\v\0\x41\u00e9\/\q"`, `"\u0008\u000c\n\r\t\u000b\u0000Aé/q"`},
		{"surrogate pair", `"\ud83d\ude00"`, `"😀"`},
		{"lone surrogate", `"\ud83dx"`, `"` + "\ufffd" + `x"`},
		{"raw tab in string", "'a\tb'", `"a\tb"`},
		{"hex", `[0x10, 0XfF, -0x1, +0x0, 0xFFFFFFFFFFFFFFFFFFFF]`, `[16,255,-1,0,1208925819614629174706175]`},
		{"decimal points", `[.5, 5., -.5, +1.5, 5.e3, 1E-2]`, `[0.5,5,-0.5,1.5,5e3,1E-2]`},
		{"explicit plus", `+1`, `1`},
		{"negative zero", `-0`, `-0`},
		{"whitespace kinds", "\ufeff\u00a0\v\f{\u2003a:\u20281}\u2029", `{"a":1}`},
		{"html not escaped", `"<&>"`, `"<&>"`},
		{"control characters escaped", "\"\\u0001\\u001f\"", `"\u0001\u001f"`},
		{"empty containers", `{a: {}, b: []}`, `{"a":{},"b":[]}`},
		{"top-level scalar", ` 'x' `, `"x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON5ToJSON("t.json5", []byte(tt.in))
			if err != nil {
				t.Fatalf("JSON5ToJSON(%q): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("JSON5ToJSON(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSON5Errors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing comma", "{\n  a: 1\n  b: 2\n}", "t.json5:3:3: expected ',' or '}' after object member"},
		{"missing comma in list", "[1 2]", "t.json5:1:4: expected ',' or ']' after list element"},
		{"unclosed object", "{\n  a: 1,\n", "t.json5:3:1: unexpected end of input: the object opened at 1:1 is not closed"},
		{"unclosed list", "[1,", "t.json5:1:4: unexpected end of input: the list opened at 1:1 is not closed"},
		{"empty input", "  // nothing\n", "t.json5:2:1: unexpected end of input: expected a value"},
		{"double comma", "[1,,2]", "t.json5:1:4: unexpected ',': expected a value or ']'"},
		{"leading comma", "{,}", "t.json5:1:2: unexpected ',': expected a property name or '}'"},
		{"missing colon", "{a 1}", `t.json5:1:4: expected ':' after property name "a", found '1'`},
		{"unquoted value", "{a: yes}", `t.json5:1:5: unexpected "yes": strings must be quoted`},
		{"duplicate key", "{a: 1,\n 'a': 2}", `t.json5:2:2: duplicate key "a" (first written at 1:2)`},
		{"unterminated string", "{a: 'abc\n}", `t.json5:1:5: unterminated string: line break before the closing ' (end the line with '\' to continue a string)`},
		{"unterminated string at EOF", `"abc`, `t.json5:1:1: unterminated string: end of input before the closing "`},
		{"unterminated comment", "{/* a: 1 }", "t.json5:1:2: unterminated /* comment"},
		{"lone slash", "{a: 1 / 2}", "t.json5:1:7: unexpected '/': comments start with // or /*"},
		{"leading zero", "01", "t.json5:1:1: invalid number: leading zeros are not allowed"},
		{"bad hex", "0x", "t.json5:1:1: invalid number: 0x must be followed by hex digits"},
		{"lone point", "[.]", "t.json5:1:2: invalid number: a decimal point needs a digit before or after it"},
		{"exponent without digits", "1e+", "t.json5:1:1: invalid number: the exponent has no digits"},
		{"junk after number", "12ab", `t.json5:1:3: invalid number: unexpected 'a' after "12"`},
		{"octal escape", `'\01'`, `t.json5:1:2: \0 may not be followed by a digit (octal escapes are not allowed)`},
		{"digit escape", `'\7'`, `t.json5:1:2: \7 is not a valid escape`},
		{"bad \\x", `'\x4'`, `t.json5:1:2: \x must be followed by two hex digits`},
		{"bad \\u", `'\u12'`, `t.json5:1:2: \u must be followed by four hex digits`},
		{"trailing data", "{} {}", "t.json5:1:4: unexpected '{' after the top-level value"},
		{"column counts characters", "{ é: 1, ü 2}", `t.json5:1:11: expected ':' after property name "ü", found '2'`},
		{"CRLF lines", "{\r\n a: 1\r\n b: 2}", "t.json5:3:2: expected ',' or '}' after object member"},
		{"bad identifier escape", `{\u0031a: 1}`, `t.json5:1:2: escape U+0031 is not allowed in an unquoted property name`},
		{"not UTF-8", "{a: \xff}", "t.json5:1:5: unexpected byte 0xff (not UTF-8): expected a value"},
		{"NaN refused in JSON", "{a: [1, NaN]}", "t.json5:1:9: NaN is not allowed: JSON and policy documents hold only finite numbers"},
		{"Infinity refused in JSON", "-Infinity", "t.json5:1:1: -Infinity is not allowed: JSON and policy documents hold only finite numbers"},
		{"misspelt literal", "Infinit", `t.json5:1:1: unexpected "Infinit": strings must be quoted`},
		{"unquoted non-ASCII value", "{a: ünï}", `t.json5:1:5: unexpected "ünï": strings must be quoted`},
		{"unquoted value after sign", "-abc", `t.json5:1:1: unexpected "-": expected a value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON5ToJSON("t.json5", []byte(tt.in))
			if err == nil {
				t.Fatalf("JSON5ToJSON(%q) = %s, want error %q", tt.in, got, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("JSON5ToJSON(%q)\n got error %s\nwant error %s", tt.in, err, tt.want)
			}
		})
	}
}

func TestParseJSON5Positions(t *testing.T) {
	src := "{\n  // c\n  tools: {\n    deny: ['exec',\n      \"read\"],\n  },\n}"
	v, err := ParseJSON5("t", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tools := v.Get("tools")
	if tools == nil || tools.KeyPos != (Pos{3, 3}) || tools.Value.Pos != (Pos{3, 10}) {
		t.Fatalf("tools member = %+v", tools)
	}
	deny := tools.Value.Get("deny").Value
	if got, want := []Pos{deny.Pos, deny.Elems[0].Pos, deny.Elems[1].Pos}, []Pos{{4, 11}, {4, 12}, {5, 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("positions = %v, want %v", got, want)
	}
}

func TestJSON5Depth(t *testing.T) {
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := JSON5ToJSON("t", []byte(ok)); err != nil {
		t.Errorf("depth %d: %v", maxDepth, err)
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, err := JSON5ToJSON("t", []byte(deep)); err == nil || !strings.Contains(err.Error(), "nesting is deeper") {
		t.Errorf("depth %d: error %v, want nesting error", maxDepth+1, err)
	}
}

// decodeJSON decodes with numbers kept as written, so that both sides of a
// comparison see the same number text.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// FuzzJSON5 checks that the converter never panics, always writes valid
// JSON, is idempotent on its own output, and agrees with encoding/json on
// every input that is valid JSON (except repeated keys, which it refuses).
func FuzzJSON5(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, 2.5, -3e2, true, false, null, "x\u00e9"]}`,
		"{// c\n a: 'b', /* d */ c: [0x1F, .5, 5., +1, Infinity, NaN,],}",
		`'it\'s \
continued'`,
		`{"a": 1, "a": 2}`,
		"\"\\ud83d\\ude00 \\ud800\"",
		"[\xff]",
		"\"\xff\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := JSON5ToJSON("fuzz", data)
		if err == nil {
			if !json.Valid(out) {
				t.Fatalf("output is not JSON: %q -> %q", data, out)
			}
			again, err := JSON5ToJSON("fuzz", out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("not idempotent: %q -> %q -> %q (%v)", data, out, again, err)
			}
		} else {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
		}
		if !json.Valid(data) {
			return
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.dup {
				return
			}
			t.Fatalf("valid JSON %q refused: %v", data, err)
		}
		want, werr := decodeJSON(data)
		got, gerr := decodeJSON(out)
		if werr != nil || gerr != nil {
			t.Fatalf("decode: %v / %v", werr, gerr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("disagrees with encoding/json on %q:\n got %#v\nwant %#v", data, got, want)
		}
	})
}
