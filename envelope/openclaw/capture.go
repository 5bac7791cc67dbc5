package openclaw

import (
	"slices"
	"sort"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// denyEntries is the sorted, de-duplicated union of the deny entries (as
// entries, not expanded) of every present layer but the inherited one,
// leaving out the agent layer when skipAgent, plus extra (what the
// inherited layer contributes).
func (p *pipeline) denyEntries(skipAgent bool, extra []string) []string {
	out := []string{}
	for li := 0; li < lInherited; li++ {
		c := p.layers[li]
		if c == nil || (skipAgent && li == lAgent) {
			continue
		}
		for g := 0; g < c.nDeny; g++ {
			out = append(out, c.deny[g].list.names...)
		}
	}
	for _, x := range extra {
		if n := p.rel.normalize(x); n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// capture computes the envelope of a child of parent running as target
// (section 9), with its delegation facts (section 11.2). It fails only with
// delegation_unavailable.
func (e *effective) capture(w envelope.World, parent *envelope.Session, target string, depth int) (*envelope.Envelope, error) {
	p := pipeline{rel: e.rel}
	e.resolve(w, parent, &p, false)
	applied := p.applied
	var appliedDeny []string
	if applied != nil {
		appliedDeny = applied.InheritedDeny
	}
	env := &envelope.Envelope{
		Requester:     parent.Key,
		Agent:         target,
		Depth:         depth,
		Role:          role(depth, e.maxDepth),
		InheritedDeny: p.denyEntries(false, appliedDeny),
		Source:        "config",
		Revision:      e.rev.Seq,
	}
	restrictive := p.restrictive()
	if restrictive {
		ts := e.toolSet(&p, parent)
		env.InheritedAllow = slices.Clone(ts.Allowed)
		sort.Strings(env.InheritedAllow)
	}
	if p.senderSource || (applied != nil && applied.Source == "sender") {
		env.Source = "sender"
	}

	a := parent.Agent
	switch {
	case e.rel.agentID(target) != e.rel.agentID(a):
		// Fresh delegation.
		if !e.granted(a, target) || !e.agent(a).ownDeny || env.Source == "sender" {
			break
		}
		if restrictive {
			return nil, events.Errorf(events.CodeDelegationUnavail,
				"agent %q delegates its tools.deny to %q, but requester %s has a restrictive allow list (%s), so the child's floor cannot be projected; "+
					"remove %q from %s.subagents.delegateToolsTo (or revoke the delegate_tools grant) to spawn an ordinary capped helper, or drop the allow list",
				a, target, parent.Key, p.restrictiveLayer(), target, e.agentPath(a))
		}
		env.Delegated = &envelope.Delegation{Requester: parent.Key, Target: target, Deny: p.denyEntries(true, appliedDeny)}
	case applied != nil && applied.Delegated != nil && e.floorApplies(w, parent, applied):
		// Propagation to a same-agent helper: it keeps the original
		// requester's exception, under its own added restrictions.
		d := applied.Delegated
		env.Delegated = &envelope.Delegation{Requester: d.Requester, Target: target, Deny: p.denyEntries(false, d.Deny)}
	}
	return env, nil
}

// restrictiveLayer names the first layer with a restrictive allow list.
func (p *pipeline) restrictiveLayer() string {
	for li, c := range p.layers {
		if c != nil && c.restrictive {
			if c.allowRule != "" && c.ceil == nil {
				return layerNames[li] + " layer, " + c.allowRule
			}
			return layerNames[li] + " layer"
		}
	}
	return "none"
}

func (e *effective) agentPath(id string) string {
	if ap, ok := e.agents[id]; ok && ap.path != "" {
		return ap.path
	}
	return "agents.list[id=" + id + "]"
}
