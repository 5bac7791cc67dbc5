package openclaw

import (
	"github.com/sessionledger/ledger/envelope"
)

// compiledEnv is an envelope's inherited layer compiled against the policy
// catalogue: the ceiling as exact names (section 3.1, A12) and the two deny
// lists it may apply, its inherited_deny and its delegation floor.
type compiledEnv struct {
	hasCeil bool
	ceil    []bool          // per policy-catalogue index
	ceilSet map[string]bool // for tools the session adds
	deny    *plist
	floor   *plist
}

// admits reports whether the ceiling holds tool t (exact name; no patterns).
func (c *compiledEnv) admits(i int, t string) bool {
	if i >= 0 {
		return c.ceil[i]
	}
	return c.ceilSet[t]
}

// envelope compiles env, memoized by its content hash: envelopes never
// change after the spawn, and a session's turns keep asking for the same one.
func (e *effective) envelope(env *envelope.Envelope) *compiledEnv {
	if env.Hash != "" {
		if v, ok := e.envs.Load(env.Hash); ok {
			return v.(*compiledEnv)
		}
	}
	c := &compiledEnv{
		deny: e.list("inherited_deny", env.InheritedDeny, nil),
	}
	if env.Delegated != nil {
		c.floor = e.list("delegated.deny", env.Delegated.Deny, nil)
	}
	if env.InheritedAllow != nil {
		c.hasCeil = true
		c.ceilSet = make(map[string]bool, len(env.InheritedAllow))
		for _, t := range env.InheritedAllow {
			c.ceilSet[t] = true
		}
		c.ceil = make([]bool, len(e.cat.names))
		for i, t := range e.cat.names {
			c.ceil[i] = c.ceilSet[t]
		}
	}
	if env.Hash != "" {
		v, _ := e.envs.LoadOrStore(env.Hash, c)
		return v.(*compiledEnv)
	}
	return c
}

// floorApplies is section 11.5: the delegation floor replaces the
// envelope's inherited_deny for a session running as the target agent, on
// a turn that is not external, while the grant still holds.
func (e *effective) floorApplies(w envelope.World, s *envelope.Session, env *envelope.Envelope) bool {
	d := env.Delegated
	if d == nil || s.Context.External || s.Agent != d.Target {
		return false
	}
	req := w.Session(d.Requester)
	return req != nil && e.granted(req.Agent, d.Target)
}
