package projection

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestCheckValueBytes and FuzzCheckValueBytes: the check value a commit
// stores is written by hand (appendCheck), byte for byte as encoding/json
// writes it.
func TestCheckValueBytes(t *testing.T) {
	for _, c := range []check{{}, {Session: "agent:main:x", Tool: "read", Call: "c1", Input: json.RawMessage(`{"path":"/tmp/<a>"}`), Decision: envelope.Allow},
		{Tool: "exec", Input: json.RawMessage(`"x"`), Decision: envelope.Deny, Refusal: true},
		{Input: json.RawMessage("{ \"a\" : [1, 2],\n\"b\":\"\u2028\"}")}} {
		want, err := json.Marshal(&c)
		if got := appendCheck(nil, &c); err != nil || string(got) != string(want) {
			t.Errorf("%+v: %s, encoding/json writes %s (%v)", c, got, want, err)
		}
	}
}

func FuzzCheckValueBytes(f *testing.F) {
	f.Add("agent:main:x", "read", "c1", `{"path":"/"}`, "allow", false)
	f.Add("é", "<&>", `"q\`, "[1, \"\u2028\"]", "deny", true)
	f.Fuzz(func(t *testing.T, session, tool, call, input, decision string, refusal bool) {
		c := check{Session: events.SessionKey(session), Tool: tool, Call: call, Decision: envelope.Decision(decision), Refusal: refusal}
		if json.Valid([]byte(input)) {
			c.Input = json.RawMessage(input)
		}
		want, err := json.Marshal(&c)
		if err != nil {
			t.Skip()
		}
		if got := appendCheck(nil, &c); string(got) != string(want) {
			t.Fatalf("%+v: %s, encoding/json writes %s", c, got, want)
		}
	})
}

// TestLogEntryCarriesItsCheck: a log entry (SchemaVersion 6) reads back as
// the record's id, type and time, and for a check's record as the check
// appendCheck wrote after them, whatever the lengths; an entry cut short
// or with a length past its end is refused.
func TestLogEntryCarriesItsCheck(t *testing.T) {
	long := string(make([]byte, 300))
	c := &check{Session: "agent:main:x", Tool: "read", Call: "c1", Input: json.RawMessage(`{"path":"/tmp/<a>"}`), Decision: envelope.Allow}
	for _, tc := range []struct {
		ref  envelope.RecordRef
		time string
		c    *check
	}{
		{envelope.RecordRef{ID: "01J0", Type: "tool.checked"}, "2026-12-04T16:00:00.000Z", c},
		{envelope.RecordRef{ID: "01J1", Type: "session.started"}, "2026-12-04T16:00:00.001Z", nil},
		{envelope.RecordRef{ID: long, Type: "tool.checked"}, long, &check{}},
		{envelope.RecordRef{}, "", nil},
	} {
		v := appendLogValue([]byte("prefix"), tc.ref, tc.time, tc.c)[len("prefix"):]
		e, raw, err := parseLogValue(v)
		if err != nil || e.ID != tc.ref.ID || string(e.Type) != string(tc.ref.Type) || e.Time != tc.time {
			t.Fatalf("%+v read back as %+v, %v", tc.ref, e, err)
		}
		if tc.c == nil {
			if len(raw) != 0 {
				t.Fatalf("an entry without a check reads back with %q", raw)
			}
			continue
		}
		if want := appendCheck(nil, tc.c); string(raw) != string(want) {
			t.Fatalf("the check read back as %s, want %s", raw, want)
		}
		for cut := 1; cut < len(v)-len(raw); cut++ {
			if _, _, err := parseLogValue(v[:cut]); err == nil {
				t.Fatalf("an entry cut to %d of its %d bytes before its check was read", cut, len(v))
			}
		}
	}
}
