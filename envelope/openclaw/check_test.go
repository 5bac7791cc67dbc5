package openclaw

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestCheckEventNames: issue 15's hostile names, refused on new events.
func TestCheckEventNames(t *testing.T) {
	d := New()
	doc := func(s string) *events.PolicySetData {
		return &events.PolicySetData{Dialect: Name, Document: json.RawMessage(s), Catalogue: []string{"read"}}
	}
	for _, c := range []struct {
		name    string
		session events.SessionKey
		payload any
		code    events.Code
		msg     string
	}{
		{"grant", "", &events.GrantData{Kind: events.GrantAllowAgent, Agent: "main", Target: "coder"}, "", ""},
		{"grant to any agent", "", &events.GrantData{Kind: events.GrantAllowAgent, Agent: "main", Target: "*"}, "", ""},
		{"grant agent with NUL", "", &events.GrantData{Kind: events.GrantAllowAgent, Agent: "ma\x00in", Target: "coder"}, events.CodeInvalidEvent, "control character"},
		{"grant agent ma.in>", "", &events.GrantData{Kind: events.GrantAllowAgent, Agent: "ma.in>", Target: "coder"}, events.CodeInvalidEvent, "may not hold"},
		{"grant agent with a dot", "", &events.GrantData{Kind: events.GrantAllowAgent, Agent: "ma.in", Target: "coder"}, events.CodeInvalidEvent, "'.'"},
		{"grant agent of 64 KiB", "", &events.GrantData{Kind: events.GrantDelegateTools, Agent: strings.Repeat("a", 64<<10), Target: "coder"}, events.CodeInvalidEvent, "limit"},
		{"also_allow tool with NUL", "", &events.GrantData{Kind: events.GrantAlsoAllow, Agent: "main", Target: "main", Tools: []string{"ex\x00ec"}}, events.CodeInvalidEvent, "control character"},
		{"root", "agent:main:main", &events.StartedData{Agent: "main"}, "", ""},
		{"root agent ma.in>", "agent:main:main", &events.StartedData{Agent: "ma.in>"}, events.CodeInvalidEvent, "may not hold"},
		{"root agent of 64 KiB", "agent:main:main", &events.StartedData{Agent: strings.Repeat("a", 64<<10)}, events.CodeInvalidEvent, "limit"},
		{"check", "agent:main:main", &events.CheckedData{Turn: 1, Tool: " Read "}, "", ""},
		{"check of a tool with NUL", "agent:main:main", &events.CheckedData{Turn: 1, Tool: "read\x00"}, events.CodeInvalidEvent, "control character"},
		{"check of a tool over the bound", "agent:main:main", &events.CheckedData{Turn: 1, Tool: strings.Repeat("r", events.MaxNameLen+1)}, events.CodeInvalidEvent, "limit"},
		{"catalogue entry with NUL", "", &events.PolicySetData{Dialect: Name, Document: json.RawMessage(`{}`), Catalogue: []string{"read\x00"}}, events.CodeInvalidPolicy, "control character"},
		{"document", "", doc(`{"tools":{"allow":[" Read ","web_*"]},"agents":{"list":[{"id":"main"},{"id":"coder"}]}}`), "", ""},
		{"document entry with NUL", "", doc(`{"tools":{"deny":["exec\u0000"]}}`), events.CodeInvalidPolicy, "control character"},
		{"document agent id ma.in>", "", doc(`{"agents":{"list":[{"id":"ma.in>"}]}}`), events.CodeInvalidPolicy, "document.agents.list[0].id"},
		{"document key with NUL", "", doc(`{"tools":{"toolsBySender":{"bob\u0000":{"deny":["exec"]}}}}`), events.CodeInvalidPolicy, "control character"},
	} {
		err := d.CheckEvent(&events.Event{Session: c.session}, c.payload)
		if events.CodeOf(err) != c.code || c.code != "" && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q containing %q", c.name, err, c.code, c.msg)
		}
	}
}
