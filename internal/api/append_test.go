package api

import (
	"testing"

	"github.com/sessionledger/ledger/events"
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
