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
