package projection

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Candidate answers like the state it was made from, but with the policy
// document in force replaced by a candidate document (the grants in force
// still apply, and sessions keep the envelopes recorded at their spawn).
// It implements envelope.World, for what-if replays.
type Candidate struct {
	s       *State
	doc     json.RawMessage
	version uint64
	policy  *envelope.PolicyState
}

var _ envelope.World = (*Candidate)(nil)

// Candidate makes the what-if view of s with doc as the policy document.
// The document is validated by the log's dialect.
func (s *State) Candidate(doc json.RawMessage) (*Candidate, error) {
	if s.dialect == nil {
		return nil, events.Errorf(events.CodeInvalidPolicy, "the log has no policy yet: nothing to compare a candidate with")
	}
	if _, err := s.dialect.Compile(doc, nil); err != nil {
		return nil, err
	}
	return &Candidate{s: s, doc: doc}, nil
}

// Policy implements envelope.World: the candidate document with the grants
// in force at the state's position.
func (c *Candidate) Policy() *envelope.PolicyState {
	if c.policy == nil || c.version != c.s.policyVersion {
		p := *c.s.policy
		p.Document = c.doc
		compiled, err := c.s.dialect.Compile(c.doc, p.Catalogue)
		if err != nil {
			return c.s.policy // validated once in Candidate; cannot happen
		}
		p.Compiled = compiled
		eff, err := c.s.dialect.Effective(&p)
		if err != nil {
			return c.s.policy
		}
		p.Effective = eff
		c.policy, c.version = &p, c.s.policyVersion
	}
	return c.policy
}

// Session implements envelope.World.
func (c *Candidate) Session(key events.SessionKey) *envelope.Session { return c.s.Session(key) }

// Position implements envelope.World.
func (c *Candidate) Position() uint64 { return c.s.Position() }

// Tools resolves a session's tool set under the candidate.
func (c *Candidate) Tools(key events.SessionKey) (_ envelope.ToolSet, err error) {
	defer c.s.leave(c.s.enter(), &err)
	sess, err := c.s.queried(key)
	if err != nil {
		return envelope.ToolSet{}, err
	}
	return c.s.dialect.Tools(c, sess), nil
}
