package api

import (
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/projection"
)

func TestParseAs(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		code      events.Code // "" for a parsed event with actor acme
	}{
		{"actor named", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`, ""},
		{"actor left out", `{"type":"turn.started","v":1,"session":"agent:main:main","data":{"turn":2}}`, ""},
		{"actor empty", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"","data":{"turn":2}}`, ""},
		{"actor of another orchestrator", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"globex","data":{"turn":2}}`, events.CodeInvalidEvent},
		{"actor left out of a malformed event", `{"type":"turn.started","v":1,"session":"agent:main:main","data":{"turn":"two"}}`, events.CodeInvalidEvent},
		{"actor left out of an unknown type", `{"type":"turn.begun","v":1,"session":"agent:main:main","data":{}}`, events.CodeUnknownType},
		{"not an object", `[1,2]`, events.CodeInvalidEvent},
		{"repeated actor", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","actor":"acme","data":{"turn":2}}`, events.CodeInvalidEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := parseAs([]byte(tc.raw), "acme")
			if got := events.CodeOf(err); got != tc.code {
				t.Fatalf("code %q (%v), want %q", got, err, tc.code)
			}
			if tc.code == "" && ev.Actor != "acme" {
				t.Fatalf("actor %q, want acme", ev.Actor)
			}
		})
	}
}

// TestForeignWithinOneRound: a session that an event earlier in the same
// round creates belongs to its orchestrator before the state holds it.
func TestForeignWithinOneRound(t *testing.T) {
	st := projection.New(dialects.All())
	pending := func(owner, raw string) *pendingAppend {
		ev, err := parseAs([]byte(raw), owner)
		if err != nil {
			t.Fatal(err)
		}
		return &pendingAppend{ev: ev, owner: owner}
	}
	round := map[events.SessionKey]string{}
	for _, tc := range []struct {
		p    *pendingAppend
		code events.Code
	}{
		{pending("acme", `{"type":"session.started","v":1,"session":"agent:main:s1","data":{"agent":"main"}}`), ""},
		{pending("globex", `{"type":"turn.started","v":1,"session":"agent:main:s1","data":{"turn":1}}`), events.CodeUnknownSession},
		{pending("globex", `{"type":"session.spawned","v":1,"session":"agent:main:subagent:x","data":{"parent":"agent:main:s1","agent":"main"}}`), events.CodeUnknownParent},
		{pending("globex", `{"type":"session.started","v":1,"session":"agent:main:s1","data":{"agent":"main"}}`), events.CodeUnknownSession},
		{pending("acme", `{"type":"turn.started","v":1,"session":"agent:main:s1","data":{"turn":1}}`), ""},
	} {
		if got := events.CodeOf(foreign(st, round, tc.p)); got != tc.code {
			t.Errorf("%s by %s on %s: %q, want %q", tc.p.ev.Type, tc.p.owner, tc.p.ev.Session, got, tc.code)
		}
	}
}
