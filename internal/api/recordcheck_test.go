package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// TestRecordedCheckBytes: the tool.checked a recorded check makes, at
// turn 1 and after atTurn at a later turn, has the bytes the map-based
// encoding it replaced made (its data's keys in order, the actor added as
// parseAs added it), and parses to the event parseAs made.
func TestRecordedCheckBytes(t *testing.T) {
	// old is the encoding before: a map marshalled, then parseAs adding
	// the actor to the map of the event and marshalling it again.
	old := func(q wire.Query, owner string, turn int) []byte {
		data := map[string]any{"turn": max(turn, 1), "tool": q.Tool}
		if q.Call != "" {
			data["call"] = q.Call
		}
		if len(q.Input) > 0 {
			data["input"] = q.Input
		}
		if q.Effect {
			data["effect"] = true
		}
		raw, _ := json.Marshal(map[string]any{"type": events.ToolChecked, "v": 1, "session": q.Session, "data": data})
		var m map[string]json.RawMessage
		_ = json.Unmarshal(raw, &m)
		m["actor"], _ = json.Marshal(owner)
		b, _ := json.Marshal(m)
		return b
	}
	for _, q := range []wire.Query{
		{Session: "agent:main:main", Tool: "read"},
		{Session: "agent:main:main", Tool: "exec", Call: "c1"},
		{Session: "agent:main:main", Tool: "exec", Call: "c<&>\u2028", Effect: true, Input: json.RawMessage(` {"command": "ls -l", "n": [1, 2.5e3, null]} `)},
		{Session: "agent:x:y", Tool: "mcp__echo__echo", Call: "toolu_01", Effect: true, Input: json.RawMessage(`"free text"`)},
	} {
		c, raw, made, err := newRecordedCheck(q, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if want := old(q, "acme", 1); string(raw) != string(want) {
			t.Errorf("%+v:\n got %s\nwant %s", q, raw, want)
		}
		ev, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(made, ev) {
			t.Errorf("%+v: made %+v, Parse makes %+v", q, made, ev)
		}
		before, err := parseAs(old(q, "acme", 1), "acme")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ev, before) {
			t.Errorf("%+v: parsed %+v, parseAs made %+v", q, ev, before)
		}
		for _, turn := range []int{1, 7, 12345} {
			var m struct {
				Data json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(old(q, "acme", turn), &m)
			if got := c.at(turn); string(got) != string(m.Data) {
				t.Errorf("%+v at turn %d: %s, want %s", q, turn, got, m.Data)
			}
		}
	}
}

// marshalledCheck is the tool.checked of a recorded check as
// encoding/json wrote it (the reference for newRecordedCheck's bytes):
// its data's fields in sorted order, turn 1, then the event's.
func marshalledCheck(q wire.Query, owner string) ([]byte, error) {
	d, err := json.Marshal(struct {
		Call   string          `json:"call,omitempty"`
		Effect bool            `json:"effect,omitempty"`
		Input  json.RawMessage `json:"input,omitempty"`
		Tool   string          `json:"tool"`
		Turn   int             `json:"turn"`
	}{q.Call, q.Effect, q.Input, q.Tool, 1})
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Actor   string            `json:"actor"`
		Data    json.RawMessage   `json:"data"`
		ID      string            `json:"id,omitempty"`
		Session events.SessionKey `json:"session"`
		Type    events.Type       `json:"type"`
		V       int               `json:"v"`
	}{owner, d, q.ID, q.Session, events.ToolChecked, 1})
}

// FuzzRecordedCheckEvent: a recorded check's event is encoding/json's
// bytes, and what events.Parse makes of them, with Parse's error when it
// refuses them (checkedEvent builds it without parsing when it can).
func FuzzRecordedCheckEvent(f *testing.F) {
	f.Add("agent:main:main", "acme", "Bash", "toolu_01", `{"command":"echo hi","description":"Say hi"}`, true)
	f.Add("s", "acme", "exec", "", ` {"a": [1, 2.5e3, null], "b": "<\u2028>"} `, false)
	f.Add("s", "acme", "exec", "c<&>", `"free text"`, true)
	f.Add("", "acme", "exec", "c", `[1]`, false)
	f.Add("s\xff", "acme", "e\xfe", "c", `null`, true)
	f.Add("s", "acme", "exec", "c", `{"a":"\ud800","a":1}`, true)
	f.Fuzz(func(t *testing.T, session, owner, tool, call, input string, effect bool) {
		q := wire.Query{Session: events.SessionKey(session), Tool: tool, Call: call, Effect: effect}
		if input != "" {
			q.Input = json.RawMessage(input)
		}
		if len(call)%2 == 1 {
			q.ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV" // an id the client sent (recordCheck takes ULIDs only)
		}
		want, werr := marshalledCheck(q, owner)
		_, raw, ev, err := newRecordedCheck(q, owner)
		if werr != nil {
			if err == nil {
				t.Fatalf("%+v: made %s, encoding/json fails: %v", q, raw, werr)
			}
			return
		}
		pev, perr := events.Parse(want)
		if perr != nil {
			if err == nil || err.Error() != perr.Error() {
				t.Fatalf("%+v: %v, Parse refuses %s: %v", q, err, want, perr)
			}
			return
		}
		if err != nil || string(raw) != string(want) || !reflect.DeepEqual(ev, pev) {
			t.Fatalf("%+v:\n made %s %+v (%v)\n want %s %+v", q, raw, ev, err, want, pev)
		}
	})
}

// TestCheckAnswerIsCheckResult: a recorded check's answer has the fields
// of wire.CheckResult, with the same names in the same order, and decodes
// to the CheckResult of the record's decision.
func TestCheckAnswerIsCheckResult(t *testing.T) {
	a, w := reflect.TypeFor[checkAnswer](), reflect.TypeFor[wire.CheckResult]()
	if a.NumField() != w.NumField() {
		t.Fatalf("%d fields, wire.CheckResult has %d", a.NumField(), w.NumField())
	}
	for i := range a.NumField() {
		if a.Field(i).Name != w.Field(i).Name || a.Field(i).Tag != w.Field(i).Tag {
			t.Errorf("field %d: %s %q, wire.CheckResult's %s %q", i, a.Field(i).Name, a.Field(i).Tag, w.Field(i).Name, w.Field(i).Tag)
		}
	}
	decided := projection.CheckDecided{Decision: "deny", Revision: 3, EnvelopeHash: "h"}
	decided.Reason.Code, decided.Reason.Rule = "policy:deny", "tools.deny[0]"
	raw, _ := json.Marshal(decided)
	var dec struct {
		Decision json.RawMessage `json:"decision"`
		Reason   json.RawMessage `json:"reason"`
	}
	if err := json.Unmarshal(raw, &dec); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(checkAnswer{Session: "s", Seq: 9, Tool: "exec", Decision: dec.Decision, Reason: dec.Reason, Recorded: 9})
	want, _ := json.Marshal(wire.CheckResult{Session: "s", Seq: 9, Tool: "exec", Decision: decided.Decision, Reason: decided.Reason, Recorded: 9})
	if string(b) != string(want) {
		t.Errorf("answer %s, want %s", b, want)
	}
}
