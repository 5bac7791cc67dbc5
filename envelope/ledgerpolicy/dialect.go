package ledgerpolicy

import (
	"encoding/json"
	"slices"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Dialect is the ledger dialect. It holds no state: every method is a pure
// function of its arguments, safe for concurrent use.
type Dialect struct{}

// New returns the ledger dialect.
func New() *Dialect { return &Dialect{} }

// Name is "ledger".
func (*Dialect) Name() string { return DialectName }

// Normalize keeps names as written: the runtimes' hooks name tools
// exactly, case-sensitively, and the dialect has no aliases.
func (*Dialect) Normalize(tool string) string { return tool }

// Compile validates a document (and the catalogue when one is given).
// Errors are invalid_policy and name the key path.
func (*Dialect) Compile(doc json.RawMessage, catalogue []string) (any, error) {
	c, err := compileDocument(doc)
	if err != nil {
		return nil, err
	}
	if catalogue != nil {
		if err := checkCatalogue(catalogue); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// CheckEvent runs the dialect's shape checks (checkEvent).
func (*Dialect) CheckEvent(_ *events.Event, payload any) error { return checkEvent(payload) }

// GrantIdentity is (kind, agent, behavior, rule), the rule as the exact
// string: the same rule granted to two layers is two grants.
func (*Dialect) GrantIdentity(g *events.GrantData) string {
	return string(g.Kind) + ":" + g.Agent + ":" + g.Behavior + ":" + g.Rule
}

// Effective applies the grants in force (buildEffective).
func (*Dialect) Effective(p *envelope.PolicyState) (any, error) { return buildEffective(p) }

// Start admits a root session (start).
func (*Dialect) Start(w envelope.World, _ events.SessionKey, d *events.StartedData) (envelope.Facts, error) {
	return start(effectiveOf(w.Policy()), d)
}

// Spawn admits a child and captures its envelope, unsealed (spawn).
func (*Dialect) Spawn(w envelope.World, _ events.SessionKey, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	return spawn(w, d)
}

// Decide decides one call with the trace of every layer (view.decide).
func (*Dialect) Decide(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	if s == nil {
		return envelope.Verdict{Tool: tool, Decision: envelope.Deny, Reason: envelope.Reason{Code: codeCatalogueUnknown}}
	}
	return newView(w, s).decide(tool, input)
}

// Tools resolves the session's tool set over its catalogue (view.resolve).
func (*Dialect) Tools(w envelope.World, s *envelope.Session) envelope.ToolSet {
	if s == nil {
		return envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}
	}
	v := newView(w, s)
	if v.e == nil {
		return envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}
	}
	return v.resolve()
}

// SamePolicy compares the captured ceilings.
func (*Dialect) SamePolicy(a, b *envelope.Envelope) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.InheritedAllow, b.InheritedAllow)
}

// DefaultChildSource is current_request: a child's decisions always read
// its envelope.
func (*Dialect) DefaultChildSource() string { return envelope.SourceCurrentRequest }
