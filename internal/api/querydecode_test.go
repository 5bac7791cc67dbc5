package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// sameQuery fails unless readQuery, where it reads data, reads the query
// encoding/json does (unmarshalQuery), and reports whether it read it.
func sameQuery(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := readQuery(data)
	if !ok {
		return false
	}
	want, err := unmarshalQuery(data)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: read %+v; encoding/json reads %+v, %v", data, got, want, err)
	}
	return true
}

// TestReadQuery and FuzzReadQuery: a query read by hand (readQuery) is
// the one encoding/json reads; every query the client sends is read by
// hand, and readQuery knows every field of wire.Query by its JSON name.
func TestReadQuery(t *testing.T) {
	var names []string
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			if f := typ.Field(i); f.Anonymous {
				walk(f.Type)
			} else {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				names = append(names, name)
			}
		}
	}
	walk(reflect.TypeFor[wire.Query]())
	seen := map[int]bool{}
	for _, n := range names {
		f := queryField([]byte(n))
		if f < 0 || seen[f] {
			t.Errorf("readQuery does not know %q, or knows it as another field's (%d)", n, f)
		}
		seen[f] = true
	}
	if queryField([]byte("Session")) >= 0 || len(seen) != fieldInput+1 {
		t.Errorf("readQuery knows %d fields, wire.Query has %d", fieldInput+1, len(seen))
	}
	for _, q := range queries() {
		b, _ := json.Marshal(q)
		if !sameQuery(t, b) {
			t.Errorf("%s is not read by hand", b)
		}
	}
	for _, s := range []string{``, `{} `, ` {}`, `{"session":"a","session":"b"}`, `{"Session":"a"}`, `{"seq":01}`, `{"seq":-1}`,
		`{"seq":1.5}`, `{"seq":18446744073709551616}`, `{"turn":1e3}`, `{"input":null}`, `{"input": {}}`, `{"input":{} }`,
		`{"input":{"a":1}}}`, `{"input":{"a":}}`, `{"input":"\u00e9"}`, `{"tool":"\u00e9"}`, `{"tool":"\n"}`, `{"tool":"` + "\xff" + `"}`,
		`{"record":tru}`, `{"nope":1}`, `{"session":"a",}`, `{,}`, `{"input":[1,{"b":"}"}],"tool":"x"}`} {
		sameQuery(t, []byte(s))
	}
}

// queries are queries of every field, as the client sends them.
func queries() []wire.Query {
	return []wire.Query{
		{},
		{Session: "cc-session", Tool: "Bash", Input: json.RawMessage(`{"command":"echo hi","description":"Say \"hi\" <&>"}`), MinSeq: 12,
			Record: true, Call: "toolu_01", Effect: true, WithinMS: 4999},
		{Session: "agent:main:main", Tool: "exec", Input: json.RawMessage(`"free text"`), Seq: 18446744073709551615, Turn: 3, Time: "2026-03-01T10:00:00.000Z",
			CheckSeq: 7, Root: "r", Brief: true, Filter: wire.Filter{Scope: "cc:team", User: "é", Project: `p"\`, Runtime: "claude-code"}},
		{Session: "s", Input: json.RawMessage(`[1,2.5e3,true,false,null,{"a":[]}]`)},
	}
}

func FuzzReadQuery(f *testing.F) {
	for _, q := range queries() {
		b, _ := json.Marshal(q)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameQuery(t, data) })
}

// FuzzReadQueryFields: a query of any field values, as the client sends
// it, is read by hand as encoding/json reads it.
func FuzzReadQueryFields(f *testing.F) {
	f.Add("cc-session", "Bash", `{"command":"echo hi"}`, "toolu_01", "", uint64(12), uint64(0), 0, int64(4999), true, true)
	f.Add("s<&>", `q"\`, `"x"`, "é", "\xff", uint64(1<<63), uint64(3), -1, int64(-5), false, true)
	f.Fuzz(func(t *testing.T, session, tool, input, call, scope string, minSeq, seq uint64, turn int, within int64, record, effect bool) {
		q := wire.Query{Session: events.SessionKey(session), Tool: tool, MinSeq: minSeq, Seq: seq, Turn: turn, WithinMS: within,
			Record: record, Call: call, Effect: effect, Filter: wire.Filter{Scope: scope}}
		if json.Valid([]byte(input)) {
			q.Input = json.RawMessage(input)
		}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		sameQuery(t, b)
	})
}
