package client

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// TestQueryBytes and FuzzQueryBytes: a query written by hand
// (marshalQuery) is json.Marshal's, and fails where it fails.
func TestQueryBytes(t *testing.T) {
	for _, q := range []wire.Query{
		{},
		{Session: "cc-session", Tool: "Bash", Input: json.RawMessage(` {"command": "echo <hi>", "n": [1, 2.5e3]} `), MinSeq: 12,
			Record: true, Call: "toolu_01", Effect: true, WithinMS: 4999},
		{Session: "s", Tool: "é\u2028", Seq: 18446744073709551615, Turn: -3, Time: "t", CheckSeq: 7, Root: "r", Brief: true,
			Filter: wire.Filter{Scope: "cc:team", User: "u", Project: `p"\`, Runtime: "\xff"}},
		{Filter: wire.Filter{Runtime: "claude-code"}},
		{Input: json.RawMessage(`{"a":`)},
	} {
		sameQueryBytes(t, q)
	}
}

func sameQueryBytes(t *testing.T, q wire.Query) {
	t.Helper()
	want, werr := json.Marshal(q)
	got, err := marshalQuery(q)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || string(got) != string(want) {
		t.Fatalf("%+v: %s (%v), json.Marshal writes %s (%v)", q, got, err, want, werr)
	}
}

func FuzzQueryBytes(f *testing.F) {
	f.Add("cc-session", "Bash", `{"command":"echo hi"}`, "toolu_01", "", "", uint64(12), uint64(0), 0, int64(4999), true, true, false)
	f.Add("s<&>", `q"\`, ` "x" `, "é", "\xff", "r", uint64(1<<63), uint64(3), -1, int64(-5), false, true, true)
	f.Fuzz(func(t *testing.T, session, tool, input, call, scope, root string, minSeq, seq uint64, turn int, within int64, record, effect, brief bool) {
		sameQueryBytes(t, wire.Query{Session: events.SessionKey(session), Tool: tool, Input: json.RawMessage(input), MinSeq: minSeq, Seq: seq,
			Turn: turn, WithinMS: within, Record: record, Call: call, Effect: effect, Root: events.SessionKey(root), Brief: brief,
			CheckSeq: seq / 3, Time: call, Filter: wire.Filter{Scope: scope, User: tool, Project: root, Runtime: session}})
	})
}

// TestWithInputBytes and FuzzWithInputBytes: WithInput of a
// json.RawMessage gives the input json.Marshal writes of it, and fails
// where it fails.
func TestWithInputBytes(t *testing.T) {
	for _, s := range []string{`{"command":"echo hi","description":"Say hi"}`, ` { "a" : "<&>\u2028" } `, `"x"`, ``, ` `, `{"a":`, `null`} {
		sameInput(t, []byte(s))
	}
	sameInput(t, nil)
}

func sameInput(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := json.Marshal(json.RawMessage(raw))
	var q wire.Query
	err := WithInput(json.RawMessage(raw))(&q)
	if (err == nil) != (werr == nil) || err == nil && string(q.Input) != string(want) {
		t.Fatalf("%q: %s (%v), json.Marshal writes %s (%v)", raw, q.Input, err, want, werr)
	}
}

func FuzzWithInputBytes(f *testing.F) {
	f.Add([]byte(`{"command":"echo hi","description":"Say hi"}`))
	f.Add([]byte(` [ 1 , "<\u2028>" ] `))
	f.Fuzz(func(t *testing.T, raw []byte) { sameInput(t, raw) })
}
