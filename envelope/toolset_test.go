package envelope_test

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestToolSetHashIsJCS: the direct writer hashes exactly the RFC 8785
// bytes of the tool set's JSON.
func TestToolSetHashIsJCS(t *testing.T) {
	for _, ts := range []envelope.ToolSet{
		{Allowed: []string{}, Denied: []envelope.Denial{}},
		{},
		{Allowed: []string{"a"}},
		{Allowed: []string{"read", "<é>", "a\"b\\c\n"}, Denied: []envelope.Denial{
			{Tool: "exec", Reason: envelope.Reason{Code: "global:deny", Rule: `tools.deny: "exec"`, Record: &envelope.RecordRef{Seq: 12, ID: "01J", Type: "policy.set"}}},
			{Tool: "x😀", Reason: envelope.Reason{Code: "catalogue:unknown"}},
		}},
	} {
		b, _ := json.Marshal(ts)
		c, _ := events.CanonicalJSON(b)
		if got, want := ts.Hash(), events.HashBytes(c); got != want {
			t.Errorf("%+v: %s, want %s (%s)", ts, got, want, c)
		}
	}
}
