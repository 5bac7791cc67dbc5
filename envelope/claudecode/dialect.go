package claudecode

import (
	"encoding/json"
	"slices"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Dialect is the claude-code dialect. It holds no state: every method is a
// pure function of its arguments, safe for concurrent use.
type Dialect struct{}

// New returns the claude-code dialect.
func New() *Dialect { return &Dialect{} }

// Name is "claude-code".
func (*Dialect) Name() string { return DialectName }

// Normalize applies the only alias: Task is Agent. Names are otherwise
// case-sensitive and kept as written.
func (*Dialect) Normalize(tool string) string { return normalizeTool(tool) }

// Compile validates a policy document (and the catalogue when one is given)
// per section 3.2 and compiles it. Errors are invalid_policy and name the
// path to fix.
func (*Dialect) Compile(doc json.RawMessage, catalogue []string) (any, error) {
	c, err := compileDocument(doc)
	if err != nil {
		return nil, err
	}
	if catalogue != nil {
		if err := checkCatalogue(catalogue, "catalogue"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// CheckEvent runs the dialect's shape checks: agent names, MCP-only session
// tools, modes, fork/teammate consistency and the grant shape
// (invalid_event), then a spawn's parent key (bad_session_key).
func (*Dialect) CheckEvent(ev *events.Event, payload any) error { return checkEvent(ev, payload) }

// GrantIdentity is (behavior, rule) with the rule as the exact string.
func (*Dialect) GrantIdentity(g *events.GrantData) string {
	return string(g.Kind) + ":" + g.Behavior + ":" + g.Rule
}

// Effective applies the grants in force to the compiled document: each
// grant's rule is appended to its list unless that exact string is there.
func (*Dialect) Effective(p *envelope.PolicyState) (any, error) { return buildEffective(p) }

// Start admits a root session: agent_not_configured unless the agent is
// main, configured or an enabled built-in; the mode follows section 8.2.
func (*Dialect) Start(w envelope.World, key events.SessionKey, d *events.StartedData) (envelope.Facts, error) {
	return start(effectiveOf(w.Policy()), d)
}

// Spawn runs checks 7 to 13 of section 10 and returns the unsealed
// envelope and the child's facts.
func (dl *Dialect) Spawn(w envelope.World, key events.SessionKey, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	return dl.spawn(w, key, d)
}

// Decide decides one call (section 9.3) with the trace of every pool layer
// and every decision step.
func (*Dialect) Decide(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	if s == nil {
		return envelope.Verdict{Tool: normalizeTool(tool), Decision: envelope.Deny, Reason: envelope.Reason{Code: codeCatalogueUnknown}}
	}
	p := w.Policy()
	return newView(effectiveOf(p), p, s, false).decideTool(tool, input)
}

// DecideBrief is Decide without the trace (projection.BriefDecider): the
// same tool, decision and reason, with no trace and none of its details
// made. The ledger records what a check or an effect decided this way; why
// and the queries answer with Decide. TestDecideBriefIsDecide holds the two
// to the same verdict.
func (*Dialect) DecideBrief(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	if s == nil {
		return envelope.Verdict{Tool: normalizeTool(tool), Decision: envelope.Deny, Reason: envelope.Reason{Code: codeCatalogueUnknown}}
	}
	p := w.Policy()
	v := newView(effectiveOf(p), p, s, false)
	v.brief = true
	return v.decideTool(tool, input)
}

// Tools resolves the session's pool over its catalogue (section 7.2).
func (*Dialect) Tools(w envelope.World, s *envelope.Session) envelope.ToolSet {
	if s == nil {
		return envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}
	}
	p := w.Policy()
	return newView(effectiveOf(p), p, s, false).resolve()
}

// SamePolicy compares the captured pools: two children carry the same
// captured requester policy when their inherited_allow lists are equal.
func (*Dialect) SamePolicy(a, b *envelope.Envelope) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.InheritedAllow, b.InheritedAllow)
}

// DefaultChildSource is current_request: a child's ordinary resolution
// always includes its envelope, so persisted_child is never reported.
func (*Dialect) DefaultChildSource() string { return envelope.SourceCurrentRequest }
