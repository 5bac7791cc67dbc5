package client

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// sameBody fails unless marshalEvent writes ev as json.Marshal does, byte
// for byte and error for error.
func sameBody(t *testing.T, ev Event) {
	t.Helper()
	want, werr := json.Marshal(struct {
		Event
		V int `json:"v"`
	}{ev, events.Version})
	got, gerr := marshalEvent(ev)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || !bytes.Equal(got, want) {
		t.Fatalf("%+v:\n got  %s, %v\n want %s, %v", ev, got, gerr, want, werr)
	}
}

// TestMarshalEventIsJSON and FuzzMarshalEvent: an append's body written
// by hand is json.Marshal's.
func TestMarshalEventIsJSON(t *testing.T) {
	// marshalEvent writes each of CheckedData's fields: a new one needs
	// writing there too.
	if n := reflect.TypeFor[events.CheckedData]().NumField(); n != 6 {
		t.Fatalf("CheckedData has %d fields; marshalEvent writes 6", n)
	}
	for _, ev := range []Event{
		Checked("agent:main:s", events.CheckedData{Turn: 1, Tool: "read", Call: "t1"}),
		{ID: "01KABCDEF", Type: events.ToolChecked, Session: "s", Actor: "orch", Data: events.CheckedData{Turn: -3, Tool: `q"\<é>`, Input: json.RawMessage(" {\"a\": [1, \"<\u2028>\"]} "), Unreadable: "x", Effect: true}},
		{Type: events.ToolChecked, Data: events.CheckedData{Input: json.RawMessage(`{"a":`)}},
		{Type: events.ToolChecked, Data: events.CheckedData{Input: json.RawMessage(`null`)}},
		{Type: events.ToolChecked, Data: &events.CheckedData{Tool: "ptr"}},
		{Type: events.TurnStarted, Session: "s", Data: events.TurnData{Turn: 2}},
	} {
		sameBody(t, ev)
	}
}

func FuzzMarshalEvent(f *testing.F) {
	f.Add("01KABCDEF", "tool.checked", "agent:main:s", "orch", 1, "read", "t1", []byte(`{"a":1}`), "", false)
	f.Add("", "x\x01", "é", "", -1<<62, `<&>`, "", []byte(" [1, \"\u2029\" ] "), "why", true)
	f.Fuzz(func(t *testing.T, id, typ, session, actor string, turn int, tool, call string, input []byte, unreadable string, effect bool) {
		sameBody(t, Event{ID: id, Type: events.Type(typ), Session: events.SessionKey(session), Actor: actor,
			Data: events.CheckedData{Turn: turn, Tool: tool, Call: call, Input: input, Unreadable: unreadable, Effect: effect}})
	})
}
