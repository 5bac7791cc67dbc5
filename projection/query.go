package projection

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Position names a point of the log for a query (SPEC section 7): at most
// one of Seq, Turn (of the queried session) and Time; none means the head.
type Position struct {
	Seq  uint64 `json:"seq,omitempty"`
	Turn int    `json:"turn,omitempty"`
	Time string `json:"time,omitempty"`
}

// Resolve turns a position into a sequence of this state's log (which must
// reach at least as far as the position).
func (s *State) Resolve(key events.SessionKey, p Position) (_ uint64, err error) {
	defer s.leave(s.enter(), &err)
	n := 0
	if p.Seq != 0 {
		n++
	}
	if p.Turn != 0 {
		n++
	}
	if p.Time != "" {
		n++
	}
	switch {
	case n > 1:
		return 0, events.Errorf(events.CodeInvalidEvent, "name at most one of seq, turn and time")
	case p.Seq != 0:
		if p.Seq > s.seq {
			return 0, events.Errorf(events.CodeNotCaughtUp, "sequence %d is beyond the head (%d)", p.Seq, s.seq)
		}
		return p.Seq, nil
	case p.Turn != 0:
		if !s.exists(key) {
			return 0, unknownSession(key)
		}
		t, ok := s.turnAt(key, p.Turn)
		if !ok {
			return 0, events.Errorf(events.CodeBadTurn, "session %q has no turn %d (turns: %d)", key, p.Turn, s.turnCount(key))
		}
		return t.Seq, nil
	case p.Time != "":
		n, err := s.atTime(p.Time)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, events.Errorf(events.CodeInvalidEvent, "no record is at or before %s", p.Time)
		}
		return n, nil
	}
	return s.seq, nil
}

// Tools resolves a session's tool set at this state. The result is shared
// with the state's cache: do not modify it.
func (s *State) Tools(key events.SessionKey) (_ envelope.ToolSet, err error) {
	defer s.leave(s.enter(), &err)
	c, err := s.cached(key)
	if err != nil {
		return envelope.ToolSet{}, err
	}
	return c.set, nil
}

// cachedSet is a session's resolved tool set with an index by tool name.
type cachedSet struct {
	policyVersion uint64
	context       envelope.RecordRef
	set           envelope.ToolSet
	index         map[string]envelope.Verdict
}

// cached returns the session's tool set, resolving it when the policy,
// grants or the session's context changed since it was last resolved.
func (s *State) cached(key events.SessionKey) (*cachedSet, error) {
	sess, err := s.queried(key)
	if err != nil {
		return nil, err
	}
	return s.cachedIn(key, sess, s.scopeOf(sess)), nil
}

// cachedIn is cached for a session already queried, of scope sc.
func (s *State) cachedIn(key events.SessionKey, sess *envelope.Session, sc *scope) *cachedSet {
	if c := s.cache[key]; c != nil && c.policyVersion == sc.version && c.context == sess.Context.SetBy {
		return c
	}
	ts := toolsIn(&sc.world, sc.dialect, sc.policy, sess)
	c := &cachedSet{policyVersion: sc.version, context: sess.Context.SetBy, set: ts,
		index: make(map[string]envelope.Verdict, len(ts.Allowed)+len(ts.Denied))}
	for _, t := range ts.Allowed {
		c.index[t] = envelope.Verdict{Tool: t, Decision: envelope.Allow}
	}
	for _, d := range ts.Denied {
		c.index[d.Tool] = envelope.Verdict{Tool: d.Tool, Decision: envelope.Deny, Reason: d.Reason}
	}
	if len(s.cache) >= maxCached {
		// Bounded, so a replica that answers checks for every session does
		// not keep every session's tool set.
		clear(s.cache)
	}
	s.cache[key] = c
	return c
}

// maxCached bounds the tool-set cache.
const maxCached = 1 << 14

// SetDecides is implemented by dialects whose decision for a call is exactly
// its tool set's answer (no per-call input rules), so a check can read the
// resolved set instead of running the layers.
type SetDecides interface {
	SetDecides() bool
}

// InputDecides is implemented by a SetDecides dialect some of whose calls'
// inputs take part in their decisions (openclaw's call report of a tool's
// plugins): a check whose input does is decided in full, as Why decides
// it, never read from the tool set, which no input shaped
// (TestCheckDecidesTheCallReport).
type InputDecides interface {
	InputDecides(input json.RawMessage) bool
}

// Why decides one call with its full trace at this state.
func (s *State) Why(key events.SessionKey, tool string, input json.RawMessage) (_ envelope.Verdict, err error) {
	defer s.leave(s.enter(), &err)
	sess, err := s.queried(key)
	if err != nil {
		return envelope.Verdict{}, err
	}
	sc := s.scopeOf(sess)
	return decideIn(&sc.world, sc.dialect, sc.policy, sess, tool, input), nil
}

// Check decides one call at this state, without the trace. For dialects
// whose decisions are their tool sets, a warm session answers from the
// resolved set without allocating.
func (s *State) Check(key events.SessionKey, tool string, input json.RawMessage) (v envelope.Verdict, err error) {
	// Not deferred: the check of a warm session costs tens of nanoseconds.
	saved := s.enter()
	v, err = s.check(key, tool, input)
	s.leave(saved, &err)
	return v, err
}

func (s *State) check(key events.SessionKey, tool string, input json.RawMessage) (envelope.Verdict, error) {
	sess, err := s.queried(key)
	if err != nil {
		return envelope.Verdict{}, err
	}
	sc := s.scopeOf(sess)
	if sd, ok := sc.dialect.(SetDecides); ok && sd.SetDecides() && !inputDecides(sc.dialect, input) {
		c := s.cachedIn(key, sess, sc)
		n := sc.normalize(tool)
		if v, ok := c.index[n]; ok {
			if v.Decision == envelope.Allow && v.Reason.Code == "" {
				// A tool set lists allowed tools without their reasons:
				// the first check of one decides it in full, once, so an
				// allow carries the reason Why gives it (issue 15).
				if w, err := s.Why(key, tool, input); err == nil && w.Decision == envelope.Allow {
					w.Trace = nil
					c.index[n] = w
					return w, nil
				}
			}
			return v, nil
		}
	}
	v, err := s.Why(key, tool, input)
	v.Trace = nil
	return v, err
}

// inputDecides reports whether dl decides a call with input otherwise
// than its tool set does.
func inputDecides(dl envelope.Dialect, input json.RawMessage) bool {
	id, ok := dl.(InputDecides)
	return ok && id.InputDecides(input)
}

func (s *State) queried(key events.SessionKey) (*envelope.Session, error) {
	if len(s.scopes) == 0 {
		return nil, events.Errorf(events.CodeInvalidPolicy, "no policy has been set")
	}
	sess := s.Session(key)
	if sess == nil {
		return nil, unknownSession(key)
	}
	if s.scopeOf(sess) == nil {
		return nil, events.Errorf(events.CodeInvalidPolicy, "%v", noScope(sess))
	}
	s.ask(key)
	return sess, nil
}

// NotActive is why the session takes no recorded check at this position,
// as a recorded check of it is refused (session_not_active: it has ended,
// its root has, or it is yielded or completed), or nil when it is active
// or unknown. Check and why answer the policy's decision all the same
// (tests/org asks it of sessions whose run has ended); this says beside it
// that a call of the session would not be recorded now
// (TestNotActiveBesideTheDecision).
func (s *State) NotActive(key events.SessionKey) (err error) {
	saved := s.enter()
	defer s.leave(saved, &err)
	if s.Session(key) == nil {
		return s.readErr // nil unless the session's read failed
	}
	_, err = s.activeSession(key)
	return err
}
