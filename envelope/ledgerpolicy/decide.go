package ledgerpolicy

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// view is one session as the dialect decides for it: the effective
// document, the session's catalogue (the policy's, then the MCP tools its
// root and ancestors added), its root's project, the agent types of its
// chain root-first, and the envelope it runs under.
type view struct {
	e       *Effective
	p       *envelope.PolicyState
	s       *envelope.Session
	cat     []string
	project string
	chain   []string
	env     *envelope.Envelope
}

func newView(w envelope.World, s *envelope.Session) *view {
	p := w.Policy()
	v := &view{e: effectiveOf(p), p: p, s: s, env: s.Applied()}
	if v.e != nil {
		v.cat = slices.Clone(v.e.cat)
		for _, t := range s.Tools {
			if !slices.Contains(v.cat, t) {
				v.cat = append(v.cat, t)
			}
		}
	}
	// The chain, root first: at most events.MaxSpawnDepth+1 links are
	// read, and a missing link ends it (the projection always has them).
	var chain []*envelope.Session
	for a, h := s, 0; a != nil && h < 128; h++ {
		chain = append(chain, a)
		if a.Parent == "" {
			break
		}
		a = w.Session(a.Parent)
	}
	slices.Reverse(chain)
	if root := chain[0]; root.Parent == "" && root.Start != nil {
		v.project = root.Start.Project
	}
	for _, a := range chain {
		if !slices.Contains(v.chain, a.Agent) {
			v.chain = append(v.chain, a.Agent)
		}
	}
	return v
}

// outcome is what one layer made of a call.
type outcome struct {
	decision envelope.Decision
	reason   envelope.Reason
	detail   string
	passed   bool // the layer let the call through (no deny, no ask)
}

func (v *view) reason(code string, r *ruleRef) envelope.Reason {
	return envelope.Reason{Code: code, Rule: r.where, Record: v.e.record(r)}
}

func (v *view) revision() *envelope.RecordRef {
	ref := v.e.rev
	return &ref
}

// matches reports whether a deny or ask rule matches the call: a bare
// rule naming the tool always; a pattern when any unit or extra text of
// the call matches it. A path unit is matched as what it is, absolute or
// relative, whatever the call's other units are
// (TestPatchRelativePathKeepsAbsoluteDeny); a domain pattern also matches
// a call holding a URL whose host cannot be read for sure
// (TestURLHostUnreadableMatchesDomainDeny).
func (v *view) matches(r *rule, c *call) bool {
	if !r.names(c.tool) {
		return false
	}
	if !r.hasPat {
		return true
	}
	switch r.kind {
	case kindCommand:
		return slices.ContainsFunc(c.units, r.cmd.match) || slices.ContainsFunc(c.extra, r.cmd.match)
	case kindPath, kindPatch:
		return slices.ContainsFunc(c.units, func(u string) bool { return r.path.match(u, strings.HasPrefix(u, "/"), v.project) })
	case kindURL:
		return c.unsure || slices.ContainsFunc(c.units, func(u string) bool { return domainMatch(r.domain, u) })
	}
	return false
}

// allowUnit reports whether an allow pattern matches one unit of a known
// call.
func (v *view) allowUnit(r *rule, c *call, u string) bool {
	if !r.hasPat || r.name != c.tool {
		return false
	}
	switch r.kind {
	case kindCommand:
		return r.cmd.match(u)
	case kindPath, kindPatch:
		return c.abs && r.path.match(u, true, v.project)
	case kindURL:
		return domainMatch(r.domain, u)
	}
	return false
}

// allowed returns the allow rules of a layer that allow the call: a bare
// rule naming the tool, or, for a known call, for each unit the first
// pattern matching it (every unit must have one). nil when none does.
func (v *view) allowed(l *layer, c *call) []*ruleRef {
	rules := l.rules[bAllow]
	for i := range rules {
		if !rules[i].r.hasPat && rules[i].r.names(c.tool) {
			return []*ruleRef{&rules[i]}
		}
	}
	if !c.known || len(c.units) == 0 {
		return nil
	}
	var out []*ruleRef
	for _, u := range c.units {
		i := slices.IndexFunc(rules, func(r ruleRef) bool { return v.allowUnit(r.r, c, u) })
		if i < 0 {
			return nil
		}
		if !slices.Contains(out, &rules[i]) {
			out = append(out, &rules[i])
		}
	}
	return out
}

// allowReason is the reason of an allow several rules made: their places
// joined, and the newest record among them (the one that made the call
// pass last).
func (v *view) allowReason(code string, refs []*ruleRef) envelope.Reason {
	r := v.reason(code, refs[0])
	var wh []string
	for _, ref := range refs {
		wh = append(wh, ref.where)
		if rec := v.e.record(ref); rec.Seq > r.Record.Seq {
			r.Record = rec
		}
	}
	r.Rule = strings.Join(wh, "; ")
	return r
}

func first(l *layer, b behavior, match func(*rule) bool) *ruleRef {
	for i := range l.rules[b] {
		if match(l.rules[b][i].r) {
			return &l.rules[b][i]
		}
	}
	return nil
}

// global decides the call by the global layer: deny, ask, allow, then the
// default.
func (v *view) global(c *call) outcome {
	l, match := v.e.global, func(r *rule) bool { return v.matches(r, c) }
	if r := first(l, bDeny, match); r != nil {
		return outcome{decision: envelope.Deny, reason: v.reason(codePermissionDeny, r)}
	}
	if r := first(l, bAsk, match); r != nil {
		return outcome{decision: envelope.Ask, reason: v.reason(codePermissionAsk, r)}
	}
	if refs := v.allowed(l, c); refs != nil {
		return outcome{decision: envelope.Allow, reason: v.allowReason(codePermissionAllow, refs), passed: true}
	}
	code := [...]string{codeDefaultAllow, codeDefaultAsk, codeDefaultDeny}[v.e.c.def]
	o := outcome{decision: v.e.c.def.decision(), reason: envelope.Reason{Code: code, Rule: v.e.c.defWhere, Record: v.revision()}, passed: v.e.c.def == bAllow}
	if !c.known && c.why != "" {
		o.detail = "no allow pattern can match: " + c.why
	}
	return o
}

// agentLayer decides the call by one agent type's layer, strictest first:
// a deny denies, a layer with an allow list denies what none of it allows,
// then an ask asks; so an ask rule never lets through what the allow list
// denies, and Decide agrees with toolDenied
// (TestAgentAskDoesNotWidenAllowList).
func (v *view) agentLayer(l *layer, c *call) outcome {
	match := func(r *rule) bool { return v.matches(r, c) }
	if r := first(l, bDeny, match); r != nil {
		return outcome{decision: envelope.Deny, reason: v.reason(codeAgentDeny, r)}
	}
	refs := v.allowed(l, c)
	if l.hasAllow && refs == nil {
		o := outcome{decision: envelope.Deny, reason: envelope.Reason{Code: codeAgentNotAllowed, Rule: l.list + ".allow: no rule allows the call", Record: v.revision()}}
		if !c.known && c.why != "" {
			o.detail = "no allow pattern can match: " + c.why
		}
		return o
	}
	if r := first(l, bAsk, match); r != nil {
		return outcome{decision: envelope.Ask, reason: v.reason(codeAgentAsk, r)}
	}
	o := outcome{decision: envelope.Allow, passed: true}
	if refs != nil {
		o.reason = v.allowReason("agent:allow", refs)
	}
	return o
}

func (v *view) inCatalogue(tool string) bool { return slices.Contains(v.cat, tool) }

// ceiling reports whether the envelope the session runs under admits the
// tool (a root has none).
func (v *view) ceiling(tool string) (envelope.Step, bool) {
	if v.s.Root() && v.env == nil {
		return envelope.Step{Layer: layerCeiling, Outcome: envelope.Absent, Detail: "a root session has no ceiling"}, true
	}
	if v.env != nil && v.env.InheritedAllow != nil && slices.Contains(v.env.InheritedAllow, tool) {
		return envelope.Step{Layer: layerCeiling, Outcome: envelope.Kept, Detail: "in the parent's tool set at the spawn"}, true
	}
	origin := v.s.Origin
	r := envelope.Reason{Code: codeCeiling, Rule: "inherited_allow: the parent's tool set at the spawn", Record: &origin}
	return envelope.Step{Layer: layerCeiling, Outcome: envelope.Decided, Detail: "not in the parent's tool set at the spawn", Reason: &r}, false
}

func (v *view) layerNames() []string {
	out := []string{layerCatalogue, layerCeiling, layerGlobal}
	for _, a := range v.chain {
		out = append(out, layerAgent+a)
	}
	return out
}

// skipRest appends a Skipped step for every layer after the first n.
func (v *view) skipRest(trace []envelope.Step) []envelope.Step {
	names := v.layerNames()
	for _, n := range names[len(trace):] {
		trace = append(trace, envelope.Step{Layer: n, Outcome: envelope.Skipped})
	}
	return trace
}

// decide decides one call: the catalogue, the ceiling, the global layer,
// then the agent layers root-first; the strictest decision wins and the
// first deny (else the first ask, else the global allow) gives the reason.
func (v *view) decide(tool string, input json.RawMessage) envelope.Verdict {
	vd := envelope.Verdict{Tool: tool, Decision: envelope.Deny}
	if v.e == nil {
		vd.Reason = envelope.Reason{Code: codeCatalogueUnknown}
		vd.Trace = []envelope.Step{{Layer: layerCatalogue, Outcome: envelope.Decided, Detail: "the policy cannot be read: every tool is unknown", Reason: &vd.Reason}}
		return vd
	}
	if !v.inCatalogue(tool) {
		ref := v.p.CatalogueRecord
		vd.Reason = envelope.Reason{Code: codeCatalogueUnknown, Record: &ref}
		r := vd.Reason
		vd.Trace = v.skipRest([]envelope.Step{{Layer: layerCatalogue, Outcome: envelope.Decided, Detail: "not in the policy's catalogue nor a tool the session added", Reason: &r}})
		return vd
	}
	trace := []envelope.Step{{Layer: layerCatalogue, Outcome: envelope.Kept}}
	step, ok := v.ceiling(tool)
	trace = append(trace, step)
	if !ok {
		vd.Reason = *step.Reason
		vd.Trace = v.skipRest(trace)
		return vd
	}
	c := newCall(v.e.c.table.spec(tool), input, v.project)
	g := v.global(c)
	final, at := g, len(trace)
	trace = append(trace, stepOf(layerGlobal, g))
	for _, a := range v.chain {
		name := layerAgent + a
		if final.decision == envelope.Deny {
			trace = append(trace, envelope.Step{Layer: name, Outcome: envelope.Skipped})
			continue
		}
		l := v.e.agent(a)
		if l == nil {
			trace = append(trace, envelope.Step{Layer: name, Outcome: envelope.Absent, Detail: "no layer for agent type " + a})
			continue
		}
		o := v.agentLayer(l, c)
		if o.decision.Stricter(final.decision) {
			final, at = o, len(trace)
		}
		trace = append(trace, stepOf(name, o))
	}
	trace[at].Outcome = envelope.Decided
	vd.Decision, vd.Reason, vd.Trace = final.decision, final.reason, trace
	return vd
}

func stepOf(layer string, o outcome) envelope.Step {
	st := envelope.Step{Layer: layer, Outcome: envelope.Kept, Detail: o.detail}
	if o.reason.Code != "" {
		r := o.reason
		st.Reason = &r
	}
	if !o.passed {
		if st.Detail != "" {
			st.Detail = string(o.decision) + "; " + st.Detail
		} else {
			st.Detail = string(o.decision)
		}
	}
	return st
}
