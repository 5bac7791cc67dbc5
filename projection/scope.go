package projection

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// A scope is one named policy of the ledger: its dialect, fixed by its
// first policy.set, the policy in force (document, grants, revocations)
// and every policy state it had. Sessions are bound to one scope when
// their root starts (docs/records.md, "Scopes"); a policy, grant or
// revocation record changes its own scope only, so the cost of a change
// does not grow with the number of scopes (TestScopeChangeTouchesOneScope).
type scope struct {
	name    string // events.ScopeName: "default" for the default scope
	dialect envelope.Dialect
	policy  *envelope.PolicyState
	// history is the scope's policy states in sequence order.
	history []PolicyAt
	// version counts the scope's policy changes; with a session's
	// context it keys the tool-set cache.
	version uint64
	// world is the state as the scope's dialect reads it.
	world scopeWorld
}

// scopeWorld is the state as a dialect reads it for a session of one
// scope: the scope's policy, every session, the state's position.
type scopeWorld struct {
	s  *State
	sc *scope
}

var _ envelope.World = (*scopeWorld)(nil)

func (w *scopeWorld) Policy() *envelope.PolicyState                 { return w.sc.policy }
func (w *scopeWorld) Session(k events.SessionKey) *envelope.Session { return w.s.Session(k) }
func (w *scopeWorld) Position() uint64                              { return w.s.seq }

// scopeNamed returns the scope of a record's scope field, nil when no
// policy.set has made it.
func (s *State) scopeNamed(name string) *scope { return s.scopes[events.ScopeName(name)] }

// scopeOf returns the scope a session is bound to, nil when it has no
// policy (only a log the ledger did not write has such a session).
func (s *State) scopeOf(sess *envelope.Session) *scope { return s.scopes[events.ScopeName(sess.Scope)] }

// makeScope returns the scope of name, making it (with dialect dl) when
// it does not exist yet.
func (s *State) makeScope(name string, dl envelope.Dialect) *scope {
	name = events.ScopeName(name)
	if sc := s.scopes[name]; sc != nil {
		return sc
	}
	sc := &scope{name: name, dialect: dl}
	sc.world = scopeWorld{s: s, sc: sc}
	s.scopes[name] = sc
	return sc
}

// storedScope is a scope's name as records and stored policies hold it:
// "" for the default scope.
func storedScope(name string) string {
	if name == events.DefaultScope {
		return ""
	}
	return name
}

// policyAt returns the scope's policy state in force at seq.
func (sc *scope) policyAt(seq uint64) *envelope.PolicyState {
	i := sort.Search(len(sc.history), func(i int) bool { return sc.history[i].Seq > seq })
	if i == 0 {
		return nil
	}
	return sc.history[i-1].Policy
}

// normalize returns a tool name's canonical form under the scope's policy
// (the dialect's, for the release the policy decides with).
func (sc *scope) normalize(tool string) string { return normalizeUnder(sc.dialect, sc.policy, tool) }

func normalizeUnder(dl envelope.Dialect, p *envelope.PolicyState, tool string) string {
	if dl == nil {
		return tool
	}
	if r, ok := dl.(Releaser); ok {
		return r.NormalizeUnder(p, tool)
	}
	return dl.Normalize(tool)
}

// decideIn decides one call of session sess under policy p of scope sc
// as w sees the state: the ledger's revocation layer first, then the
// dialect. A revocation denies; its trace step comes first, and the
// dialect's steps follow as they would have decided.
func decideIn(w envelope.World, dl envelope.Dialect, p *envelope.PolicyState, sess *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	return decideWith(w, dl, p, sess, tool, input, true)
}

// BriefDecider is implemented by a dialect that decides a call without
// building its trace (openclaw: most of a decision's allocations are its
// steps' details): DecideBrief's tool, decision and reason are Decide's,
// its trace nil.
type BriefDecider interface {
	DecideBrief(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) envelope.Verdict
}

// decideBrief is decideIn without the trace, for what a record decides
// (a check's, an effect's): the same tool, decision and reason
// (FuzzApplyPrepared compares them, and openclaw's
// TestDecideBriefIsDecide).
func decideBrief(w envelope.World, dl envelope.Dialect, p *envelope.PolicyState, sess *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	return decideWith(w, dl, p, sess, tool, input, false)
}

func decideWith(w envelope.World, dl envelope.Dialect, p *envelope.PolicyState, sess *envelope.Session, tool string, input json.RawMessage, full bool) envelope.Verdict {
	var v envelope.Verdict
	if bd, ok := dl.(BriefDecider); ok && !full {
		v = bd.DecideBrief(w, sess, tool, input)
	} else {
		v = dl.Decide(w, sess, tool, input)
	}
	if p == nil || len(p.Revocations) == 0 {
		return v
	}
	norm := func(t string) string { return normalizeUnder(dl, p, t) }
	r := envelope.Revoked(w, dl, norm, p, sess, norm(tool), input, false)
	if v.Trace == nil {
		if r != nil {
			return envelope.Verdict{Tool: v.Tool, Decision: envelope.Deny, Reason: r.Reason()}
		}
		return v
	}
	trace := make([]envelope.Step, 0, len(v.Trace)+1)
	trace = append(trace, envelope.RevocationStep(p, r))
	if r != nil {
		for _, st := range v.Trace {
			if st.Outcome == envelope.Decided || st.Outcome == envelope.Removed {
				st.Outcome, st.Reason = envelope.Skipped, nil
			}
			trace = append(trace, st)
		}
		if v.Trace == nil {
			trace = nil
		}
		return envelope.Verdict{Tool: v.Tool, Decision: envelope.Deny, Reason: r.Reason(), Trace: trace}
	}
	if v.Trace != nil {
		v.Trace = append(trace, v.Trace...)
	}
	return v
}

// toolsIn resolves a session's tool set under policy p: the dialect's,
// with every tool a revocation denies whatever its input moved to the
// denied tools with the revocation's reason.
func toolsIn(w envelope.World, dl envelope.Dialect, p *envelope.PolicyState, sess *envelope.Session) envelope.ToolSet {
	ts := dl.Tools(w, sess)
	if p == nil || len(p.Revocations) == 0 {
		return ts
	}
	norm := func(t string) string { return normalizeUnder(dl, p, t) }
	revoked := map[string]*envelope.Revocation{}
	for _, t := range ts.Allowed {
		if r := envelope.Revoked(w, dl, norm, p, sess, t, nil, true); r != nil {
			revoked[t] = r
		}
	}
	for i := range ts.Denied {
		if r := envelope.Revoked(w, dl, norm, p, sess, ts.Denied[i].Tool, nil, true); r != nil {
			revoked[ts.Denied[i].Tool] = r
		}
	}
	if len(revoked) == 0 {
		return ts
	}
	// The set keeps catalogue order: a revoked tool takes its place
	// among the denied ones by its place in the catalogue.
	order := map[string]int{}
	for i, t := range slices.Concat(p.Catalogue, sess.Tools) {
		if _, ok := order[norm(t)]; !ok {
			order[norm(t)] = i
		}
	}
	out := envelope.ToolSet{Allowed: make([]string, 0, len(ts.Allowed)), Denied: make([]envelope.Denial, 0, len(ts.Denied)+len(revoked))}
	for _, t := range ts.Allowed {
		if r := revoked[t]; r != nil {
			out.Denied = append(out.Denied, envelope.Denial{Tool: t, Reason: r.Reason()})
		} else {
			out.Allowed = append(out.Allowed, t)
		}
	}
	for _, d := range ts.Denied {
		if r := revoked[d.Tool]; r != nil {
			d.Reason = r.Reason()
		}
		out.Denied = append(out.Denied, d)
	}
	slices.SortStableFunc(out.Denied, func(a, b envelope.Denial) int {
		oa, oka := order[a.Tool]
		ob, okb := order[b.Tool]
		switch {
		case oka && okb:
			return oa - ob
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return out
}

// Scopes lists the names of the scopes that have a policy, sorted.
func (s *State) Scopes() []string {
	names := make([]string, 0, len(s.scopes))
	for n := range s.scopes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// PolicyOf is the policy in force in a scope ("" or "default" for the
// default scope), nil when it has none.
func (s *State) PolicyOf(name string) *envelope.PolicyState {
	if sc := s.scopeNamed(name); sc != nil {
		return sc.policy
	}
	return nil
}

// DialectOf is a scope's dialect, nil when it has no policy.
func (s *State) DialectOf(name string) envelope.Dialect {
	if sc := s.scopeNamed(name); sc != nil {
		return sc.dialect
	}
	return nil
}

// SessionPolicy is the policy in force for a session, of its scope; nil
// when the session does not exist.
func (s *State) SessionPolicy(key events.SessionKey) *envelope.PolicyState {
	if sess := s.Session(key); sess != nil {
		if sc := s.scopeOf(sess); sc != nil {
			return sc.policy
		}
	}
	return nil
}

// ScopeOf is the name of the scope a session is bound to ("default" for
// the default scope), "" when the session does not exist.
func (s *State) ScopeOf(key events.SessionKey) string {
	if sess := s.Session(key); sess != nil {
		return events.ScopeName(sess.Scope)
	}
	return ""
}
