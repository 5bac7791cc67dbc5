package openclaw

import (
	"github.com/sessionledger/ledger/envelope"
)

// ceiling is an envelope's inherited_allow: exact names, no patterns, no
// groups, no compatibility rules (sections 3.1 and A12).
type ceiling struct {
	cat []bool          // per policy-catalogue index
	set map[string]bool // for tools a session adds
}

// admits reports whether the ceiling holds tool t.
func (c *ceiling) admits(i int, t string) bool {
	if i >= 0 {
		return c.cat[i]
	}
	return c.set[t]
}

// compiledEnv is an envelope's inherited layer in its two forms: with the
// envelope's inherited_deny, and with its delegation floor (11.5).
type compiledEnv struct {
	deny, floor *cLayer
}

// envelope compiles env, memoized by its content hash: envelopes never
// change after the spawn, and a session's turns keep asking for the same one.
func (e *effective) envelope(env *envelope.Envelope) *compiledEnv {
	if env.Hash != "" {
		if v, ok := e.envs.Load(env.Hash); ok {
			return v.(*compiledEnv)
		}
	}
	var ceil *ceiling
	if env.InheritedAllow != nil {
		ceil = &ceiling{set: make(map[string]bool, len(env.InheritedAllow)), cat: make([]bool, len(e.cat.names))}
		for _, t := range env.InheritedAllow {
			// A renamed name in a ceiling means the new name, as in any
			// allow list of the packaged releases (OpenClaw renames the
			// entries of an inherited allow list too): a tool that is
			// still called update_plan does not pass a ceiling that names
			// it. Families, groups and globs are not expanded: the ceiling
			// holds names (A12).
			if to, ok := e.rel.Renames[t]; ok && e.rel.Rules == rulesPackage {
				t = to
			}
			ceil.set[t] = true
		}
		for i, t := range e.cat.names {
			ceil.cat[i] = ceil.set[t]
		}
	}
	layer := func(path string, deny []string) *cLayer {
		list := e.list(path, deny, nil)
		return e.newLayer(lInherited, "inherited envelope", func(c *cLayer) {
			c.addDeny(list, denyCodes[lInherited], recInherited)
			c.ceil = ceil
		})
	}
	c := &compiledEnv{deny: layer("inherited_deny", env.InheritedDeny)}
	if env.Delegated != nil {
		c.floor = layer("delegated.deny", env.Delegated.Deny)
	}
	if env.Hash != "" {
		v, loaded := e.envs.LoadOrStore(env.Hash, c)
		if !loaded && e.nenvs.Add(1) > maxEnvs {
			e.envs.Clear()
			e.nenvs.Store(0)
		}
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
