package api_test

import (
	"strings"
	"testing"
)

// TestCallQueriesRefuse: a why about a call and a denials request that
// cannot mean anything are refused with a code and a message that says
// what to do, and the denials endpoint answers a page with its next.
func TestCallQueriesRefuse(t *testing.T) {
	nc, _ := queryServer(t)
	for _, tc := range []struct{ subject, body, code, say string }{
		{"ledger.v1.why.all", `{"call":"c1","tool":"read"}`, "invalid_event", "takes no tool, input or position"},
		{"ledger.v1.why.all", `{"check_seq":3,"turn":1}`, "invalid_event", "takes no tool, input or position"},
		{"ledger.v1.why.all", `{"check_seq":3,"call":"c1"}`, "invalid_event", "name one of call and check_seq"},
		{"ledger.v1.why.all", `{"check_seq":3}`, "unknown_call", "record 3 is a turn.started"},
		{"ledger.v1.why.all", `{"call":"c1"}`, "unknown_call", `names call "c1"`},
		{"ledger.v1.why.acme", `{"check_seq":3}`, "unknown_call", "record 3 is not a call of a session of acme's"},
		{"ledger.v1.denials.all", `{"tol":"read"}`, "invalid_event", `unknown field "tol"`},
		{"ledger.v1.denials.all", `{"since":"yesterday"}`, "invalid_event", "not an RFC 3339 time"},
		{"ledger.v1.denials.globex", `{"session":"agent:main:main"}`, "unknown_session", "agent:main:main"},
	} {
		_, code, msg := ask(t, nc, tc.subject, tc.body)
		if code != tc.code || !strings.Contains(msg, tc.say) {
			t.Errorf("%s %s: %s %q, want %s saying %q", tc.subject, tc.body, code, msg, tc.code, tc.say)
		}
	}
	msg, err := nc.Request("ledger.v1.denials.all", []byte(`{"since":"2026-03-01T14:18:18+01:00"}`), 5e9)
	if err != nil || msg.Header.Get("Nats-Service-Error-Code") != "" || string(msg.Data) != `{"denials":[],"next":5}` {
		t.Errorf("a page: %v %q %v", err, msg.Data, msg.Header)
	}
}
