package ledgerpolicy

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

var _ envelope.SpawnCaller = (*Dialect)(nil)

// SpawnCall is the call spawn admission decides for the parent: its
// runtime's spawn tool (spawn_agent for Codex), with no input; none for a
// runtime without one, or a policy that cannot be read (whose spawn the
// dialect refuses). The ledger's revocation layer decides it too when the
// spawn is appended, so a revocation of the spawn tool refuses the spawn
// as a deny of it in the document does (projection's
// TestRevocationOfSpawnToolRefusesSpawn).
func (*Dialect) SpawnCall(p *envelope.PolicyState, _ *events.SpawnedData) (string, json.RawMessage, bool) {
	e := effectiveOf(p)
	if e == nil || e.c.table.spawn == "" {
		return "", nil, false
	}
	return e.c.table.spawn, nil, true
}
