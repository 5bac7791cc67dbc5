package openclaw

import (
	"testing"

	"github.com/sessionledger/ledger/envelope"
)

// TestRevocationOfPluginTools: a revocation of group:plugins or of a plugin
// id reaches the tools the policy marks as that plugin's (pluginTools), as
// the same entry in tools.deny does; without marks, only the MCP tools.
func TestRevocationOfPluginTools(t *testing.T) {
	d := New()
	marked, err := d.Compile([]byte(`{"pluginTools": {"voice-call": ["voice_call"], "lobster": ["lobster"]}}`), []string{"read", "voice_call", "lobster"})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := d.Compile([]byte(`{}`), []string{"read", "voice_call", "lobster"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		compiled   any
		rule, tool string
		want       bool
	}{
		{marked, "group:plugins", "voice_call", true},
		{marked, "group:plugins", "gh__issue", true},
		{marked, "group:plugins", "read", false},
		{marked, "Voice-Call", "voice_call", true},
		{marked, "voice-call", "lobster", false},
		{marked, "lobster", "lobster", true},
		{bare, "group:plugins", "voice_call", false},
		{bare, "group:plugins", "gh__issue", true},
		{bare, "voice-call", "voice_call", false},
	}
	for _, tt := range tests {
		p := &envelope.PolicyState{Compiled: tt.compiled}
		if got := d.MatchRule(p, tt.rule, tt.tool, nil, false); got != tt.want {
			t.Errorf("revoking %q (marks %v) denies %s: %v, want %v", tt.rule, tt.compiled == marked, tt.tool, got, tt.want)
		}
	}
}
