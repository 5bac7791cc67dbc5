package claudecode

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// newCallDecoded is newCall as a decoder reads the input: the object
// decoded into a map, each value decoded.
func newCallDecoded(tool string, input json.RawMessage) (*call, map[string]json.RawMessage) {
	c := &call{tool: tool}
	var obj map[string]json.RawMessage
	field := primaryField(tool)
	switch jsonKind(input) {
	case '"':
		var s string
		if json.Unmarshal(input, &s) == nil && field != "" && s != "" {
			c.primary, c.hasPrimary = s, true
		}
	case '{':
		if json.Unmarshal(input, &obj) != nil {
			obj = nil
		}
		if raw, ok := obj[PathsKey]; ok {
			c.ctx = decodePathCtx(raw)
		}
		if raw, ok := obj[CutKey]; ok {
			_ = json.Unmarshal(raw, &c.cut)
		}
		if raw, ok := obj[field]; ok && field != "" && jsonKind(raw) == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				c.primary, c.hasPrimary = s, true
			}
		}
	}
	return c, obj
}

// randomObject writes a JSON object (valid or not) from parts that make
// the member scan work: escaped and repeated keys, blanks, nested values,
// strings with escapes, quotes and non-ASCII text.
func randomObject(r *rand.Rand) string {
	keys := []string{`"command"`, `"comm\u0061nd"`, `"file_path"`, `"path"`, `"url"`, `"timeout"`, `"text"`, `"description"`,
		`"` + PathsKey + `"`, `"` + CutKey + `"`, `"ledger:p\u0061ths"`, `"\u00e9"`, `"é"`, `"a\"b"`, `"\\"`, `""`, `"Command"`}
	vals := []string{`"echo hi"`, `"rm -rf /"`, `"a\"b"`, `"\\\\x"`, `"\u0041"`, `"é ü"`, `"\ud800"`, `""`, `60`, `-1.5e3`, `true`,
		`null`, `[]`, `["a",{"b":"}"}]`, `{"x":{"y":[1,"]"]}}`, `{"project":"/work/p","home":"/home/u"}`,
		`{"project":"/w/p","dirs":["/o"]}`, `{"Project":"/w"}`, `{"project":"/w","project":"/v"}`, `{"home":"~"}`,
		`["description"]`, `["a",7]`, `"ls > /dev/null"`, `"cat ../x"`, `"/etc/hosts"`}
	blank := func() string { return []string{"", " ", "\n\t", "\r\n "}[r.IntN(4)] }
	var b strings.Builder
	b.WriteString(blank() + "{")
	n := r.IntN(5)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(blank() + ",")
		}
		b.WriteString(blank() + pick(r, keys) + blank() + ":" + blank() + pick(r, vals))
	}
	b.WriteString(blank() + "}" + blank())
	s := b.String()
	if r.IntN(10) == 0 {
		s = s[:r.IntN(len(s)+1)] // most cuts are invalid
	}
	return s
}

// TestNewCallIsMapDecode: newCall (members looked up as written, plain
// strings taken as they are) reads every input as decoding it into a map
// does: the same primary, place, cut parameters and parameter values.
func TestNewCallIsMapDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	inputs := briefInputs(t)
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, json.RawMessage(randomObject(r)))
	}
	params := []string{"command", "file_path", "path", "url", "timeout", "text", "description", PathsKey, CutKey, "é", `a"b`, `\`, "", "Command", "nope"}
	for _, in := range inputs {
		for _, tool := range []string{"Bash", "Read", "WebFetch", "mcp__s__t", "TodoWrite"} {
			sameCall(t, tool, in, params)
		}
	}
}

// sameCall fails t unless newCall of tool and in is what decoding in
// into a map gives: the primary parameter, where the call runs, the cut
// parameters, and each of params as a member and as a parameter.
func sameCall(t *testing.T, tool string, in json.RawMessage, params []string) {
	t.Helper()
	got := newCall(tool, in)
	want, obj := newCallDecoded(tool, in)
	if got.primary != want.primary || got.hasPrimary != want.hasPrimary || !reflect.DeepEqual(got.at(), want.ctx) ||
		!reflect.DeepEqual(got.cut, want.cut) || (got.obj == nil) != (obj == nil) {
		t.Fatalf("%s %s: newCall %+v, decoded %+v", tool, in, got, want)
	}
	for _, p := range params {
		raw, ok := obj[p]
		if m, mok := member(got.obj, p); mok != ok || string(m) != string(raw) {
			t.Fatalf("%s member %q: %s %v, decoded %s %v", in, p, m, mok, raw, ok)
		}
		v, vok := got.param(p)
		wv, wok := paramOf(raw, ok)
		if v != wv || vok != wok {
			t.Fatalf("%s param %q: %q %v, decoded %q %v", in, p, v, vok, wv, wok)
		}
	}
}

// FuzzNewCallIsMapDecode is TestNewCallIsMapDecode over fuzzed inputs.
func FuzzNewCallIsMapDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(28, 4))
	f.Add(hookBashInput)
	for range 50 {
		f.Add(randomObject(r))
	}
	params := []string{"command", "file_path", "timeout", PathsKey, CutKey, "é", ""}
	f.Fuzz(func(t *testing.T, in string) {
		for _, tool := range []string{"Bash", "Read", "mcp__s__t"} {
			sameCall(t, tool, json.RawMessage(in), params)
		}
	})
}

// paramOf is call.param over a decoded member.
func paramOf(raw json.RawMessage, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	c := &call{obj: json.RawMessage(`{"p":` + string(raw) + `}`)}
	return c.param("p")
}
