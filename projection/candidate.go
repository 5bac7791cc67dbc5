package projection

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Candidate answers like the state it was made from, but with the policy
// document in force in one scope replaced by a candidate document (the
// grants and revocations in force still apply, and sessions keep the
// envelopes recorded at their spawn). Sessions of other scopes answer as
// they do in the state. It implements envelope.World, for what-if
// replays.
type Candidate struct {
	s       *State
	sc      *scope
	doc     json.RawMessage
	version uint64
	policy  *envelope.PolicyState
}

var _ envelope.World = (*Candidate)(nil)

// Candidate makes the what-if view of s with doc as the default scope's
// policy document (CandidateIn names another scope).
func (s *State) Candidate(doc json.RawMessage) (*Candidate, error) { return s.CandidateIn("", doc) }

// CandidateIn makes the what-if view of s with doc as the policy document
// of a scope. The document is validated by the scope's dialect.
func (s *State) CandidateIn(name string, doc json.RawMessage) (*Candidate, error) {
	sc := s.scopeNamed(name)
	if sc == nil {
		if len(s.scopes) == 0 {
			return nil, events.Errorf(events.CodeInvalidPolicy, "the log has no policy yet: nothing to compare a candidate with")
		}
		return nil, events.Errorf(events.CodeInvalidPolicy, "scope %q has no policy (scopes: %v): nothing to compare a candidate with", events.ScopeName(name), s.Scopes())
	}
	if _, err := sc.dialect.Compile(doc, nil); err != nil {
		return nil, err
	}
	return &Candidate{s: s, sc: sc, doc: doc}, nil
}

// Policy implements envelope.World: the candidate document with the grants
// in force at the state's position.
func (c *Candidate) Policy() *envelope.PolicyState {
	sc := c.sc
	if c.policy == nil || c.version != sc.version {
		p := *sc.policy
		p.Document = c.doc
		compiled, err := sc.dialect.Compile(c.doc, p.Catalogue)
		if err != nil {
			return sc.policy // validated once in Candidate; cannot happen
		}
		p.Compiled = compiled
		eff, err := sc.dialect.Effective(&p)
		if err != nil {
			return sc.policy
		}
		p.Effective = eff
		c.policy, c.version = &p, sc.version
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
	if sc := c.s.scopeOf(sess); sc != c.sc {
		if sc == nil {
			return envelope.ToolSet{}, noScope(sess)
		}
		return toolsIn(&sc.world, sc.dialect, sc.policy, sess), nil
	}
	return toolsIn(c, c.sc.dialect, c.Policy(), sess), nil
}
