package ledgerpolicy

import "github.com/sessionledger/ledger/envelope"

// resolve is the session's tool set over its catalogue, tool by tool and
// in catalogue order: a tool is in the set when some call of it can be
// allowed or asked. It is out when the ceiling leaves it out, a bare deny
// rule (or "*") of the global layer or of an agent layer of the chain
// names it, the default is deny and no allow or ask rule of the global
// layer names it, or an agent layer of the chain has an allow list that
// names it nowhere. A tool in the set may still have calls denied by a
// pattern (TestToolSetIsAnUpperBound).
func (v *view) resolve() envelope.ToolSet {
	ts := envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}
	for _, t := range v.cat {
		if r, denied := v.toolDenied(t); denied {
			ts.Denied = append(ts.Denied, envelope.Denial{Tool: t, Reason: r})
		} else {
			ts.Allowed = append(ts.Allowed, t)
		}
	}
	return ts
}

func (v *view) toolDenied(t string) (envelope.Reason, bool) {
	if step, ok := v.ceiling(t); !ok {
		return *step.Reason, true
	}
	bare := func(r *rule) bool { return !r.hasPat && r.names(t) }
	named := func(r *rule) bool { return r.names(t) }
	g := v.e.global
	if r := first(g, bDeny, bare); r != nil {
		return v.reason(codePermissionDeny, r), true
	}
	if v.e.c.def == bDeny && first(g, bAsk, named) == nil && first(g, bAllow, named) == nil {
		return envelope.Reason{Code: codeDefaultDeny, Rule: v.e.c.defWhere, Record: v.revision()}, true
	}
	for _, a := range v.chain {
		l := v.e.agent(a)
		if l == nil {
			continue
		}
		if r := first(l, bDeny, bare); r != nil {
			return v.reason(codeAgentDeny, r), true
		}
		if l.hasAllow && first(l, bAllow, named) == nil {
			return envelope.Reason{Code: codeAgentNotAllowed, Rule: l.list + ".allow: no rule names the tool", Record: v.revision()}, true
		}
	}
	return envelope.Reason{}, false
}
