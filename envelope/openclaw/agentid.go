package openclaw

import "github.com/sessionledger/ledger/envelope"

var _ envelope.AgentIDReader = (*Dialect)(nil)

// AgentID is an agent id as the release of policy p compares it (the
// newest release's reading without a compiled policy): a revocation of an
// agent type (deny.added's agent) reaches every session this dialect
// decides as that agent, "Coder" as "coder" under the packaged releases,
// and compares exactly under the legacy release
// (projection's TestRevocationOfAgentTypeReachesNormalizedAgentIDs).
func (*Dialect) AgentID(p *envelope.PolicyState, id string) string {
	rel := newest()
	if p != nil {
		if pl, ok := p.Compiled.(*Policy); ok {
			rel = pl.rel
		}
	}
	return rel.agentID(id)
}
