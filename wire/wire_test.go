package wire_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/fields.golden")

// messages are every request and answer of the protocol, each filled by
// fill. TestEveryTypeRoundTrips checks that every type the package
// declares is among them.
func messages() map[string]any {
	return map[string]any{
		"Query":         fill[wire.Query](),
		"WatchQuery":    fill[wire.WatchQuery](),
		"ErrorBody":     fill[wire.ErrorBody](),
		"AppendResult":  fill[wire.AppendResult](),
		"AppendOutcome": fill[wire.AppendOutcome](),
		"ToolsResult":   fill[wire.ToolsResult](),
		"CheckResult":   fill[wire.CheckResult](),
		"WhyResult":     fill[wire.WhyResult](),
		"SessionView":   fill[wire.SessionView](),
		"TurnView":      fill[wire.TurnView](),
		"TreeNode":      fill[wire.TreeNode](),
		"Change":        fill[wire.Change](),
		"WatchResult":   fill[wire.WatchResult](),
		"Filter":        fill[wire.Filter](),
		"Identity":      fill[wire.Identity](),
		"DenialsQuery":  fill[wire.DenialsQuery](),
		"DenialsResult": fill[wire.DenialsResult](),
		"Denial":        fill[wire.Denial](),
		"CallRecord":    fill[wire.CallRecord](),
		"CallAnswer":    fill[wire.CallAnswer](),
		"Cause":         fill[wire.Cause](),
		"TurnCalls":     fill[wire.TurnCalls](),
	}
}

// fill returns a T with every field the JSON carries set to a value that
// is not its zero, so that omitempty leaves nothing out.
func fill[T any]() *T {
	v := new(T)
	fillValue(reflect.ValueOf(v).Elem(), 0, "")
	return v
}

// rawKey is the key of the object fill puts in a json.RawMessage.
const rawKey = "raw-message-content"

func fillValue(v reflect.Value, depth int, name string) {
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes([]byte(`{"` + rawKey + `":[1,"two"]}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.ToLower(name) + "-x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(7 + depth))
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint(uint64(11 + depth))
	case reflect.Pointer:
		if depth > 2 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillValue(p.Elem(), depth+1, name)
		v.Set(p)
	case reflect.Slice:
		if depth > 2 {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fillValue(s.Index(i), depth+1, fmt.Sprintf("%s%d", name, i))
		}
		v.Set(s)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			fillValue(v.Field(i), depth, f.Name)
		}
	case reflect.Interface:
		// Only fields the JSON leaves out (json:"-") are interfaces.
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

// TestRoundTrip: every request and answer, every field set, decodes from
// its JSON into what it was, and its JSON decodes with no field unknown.
func TestRoundTrip(t *testing.T) {
	for name, m := range messages() {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back := reflect.New(reflect.TypeOf(m).Elem())
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(back.Interface()); err != nil {
			t.Errorf("%s: %v\n%s", name, err, b)
			continue
		}
		if !reflect.DeepEqual(back.Interface(), m) {
			t.Errorf("%s does not round-trip:\n got %+v\nwant %+v\n%s", name, back.Elem().Interface(), reflect.ValueOf(m).Elem().Interface(), b)
		}
		again, _ := json.Marshal(back.Interface())
		if !bytes.Equal(again, b) {
			t.Errorf("%s encodes differently after a round trip:\n%s\n%s", name, again, b)
		}
	}
}

// TestWireFieldNames holds the JSON names of every field of every message
// (testdata/fields.golden; -update rewrites it): a renamed or removed
// field fails it, as it would fail every client in the field.
func TestWireFieldNames(t *testing.T) {
	var lines []string
	for name, m := range messages() {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths(v, "") {
			lines = append(lines, name+" "+p)
		}
	}
	sort.Strings(lines)
	got := strings.Join(slices.Compact(lines), "\n") + "\n"
	golden := filepath.Join("testdata", "fields.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the wire's field names changed (go test -update to accept an added field):\n%s", diff(string(want), got))
	}
}

// paths lists the JSON paths of v's object keys: a.b, a[].b.
func paths(v any, prefix string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			if k == rawKey {
				continue // the content of a json.RawMessage, not a field
			}
			out = append(out, p)
			out = append(out, paths(x, p)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, paths(x, prefix+"[]")...)
		}
	}
	return out
}

func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// TestEveryTypeRoundTrips: every struct type the package declares is one
// of the messages the tests above cover.
func TestEveryTypeRoundTrips(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	have := messages()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			if _, ok := have[ts.Name.Name]; !ok {
				t.Errorf("%s: type %s is not in messages(): add it, so its JSON is held", f, ts.Name.Name)
			}
			return true
		})
	}
}

func TestSubject(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{wire.Subject(wire.EndpointAppend, "acme"), "ledger.v1.append.acme"},
		{wire.Subject(wire.EndpointPolicy, ""), "ledger.v1.policy"},
		{wire.Subject(wire.EndpointTree, wire.ScopeAll), "ledger.v1.tree.all"},
		{wire.SubjectUnder("x.v9", wire.EndpointWatch, "acme"), "x.v9.watch.acme"},
		{wire.InboxPrefix("acme"), "_INBOX_acme"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	for s, want := range map[string]bool{"acme": true, "a-b_C9": true, "all": false, "": false, "a.b": false, "a*": false, strings.Repeat("a", 65): false} {
		if wire.ValidOwner(s) != want {
			t.Errorf("ValidOwner(%q) = %v", s, !want)
		}
	}
}
