package claudecode

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

var _ envelope.SpawnCaller = (*Dialect)(nil)

// SpawnCall is the call spawn admission decides for the parent (section
// 10, row 12): Agent with {"subagent_type": agent}. The ledger's
// revocation layer decides it too when the spawn is appended, so a
// revocation of Agent, Agent(type) or a subtree's refuses the spawn as a
// permissions.deny of it does (projection's
// TestRevocationOfSpawnToolRefusesSpawn).
func (*Dialect) SpawnCall(_ *envelope.PolicyState, d *events.SpawnedData) (string, json.RawMessage, bool) {
	input, err := json.Marshal(struct {
		Type string `json:"subagent_type"`
	}{d.Agent})
	if err != nil {
		return "", nil, false
	}
	return toolAgent, input, true
}
