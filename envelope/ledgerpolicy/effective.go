package ledgerpolicy

import (
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Effective is the effective document: the compiled document with every
// grant in force appended to its layer's list, attributed to its
// grant.added, and the policy's catalogue. Immutable once made.
type Effective struct {
	c      *Compiled
	global *layer
	agents []*layer // sorted by agent type
	rev    envelope.RecordRef
	cat    []string // the policy's catalogue, de-duplicated, in order
	rawCat []string // PolicyState.Catalogue cat was made from
}

// buildEffective applies the grants of p in the order they were added: a
// grant of agent "*" to the global layer, any other to its agent type's
// layer (made when the document has none). A grant whose rule is already
// in its list changes nothing. An allow grant to an agent layer widens its
// allow list only when the document gave it one: it never makes a layer
// that narrows.
func buildEffective(p *envelope.PolicyState) (*Effective, error) {
	c, ok := p.Compiled.(*Compiled)
	if !ok || c == nil {
		var err error
		if c, err = compileDocument(p.Document); err != nil {
			return nil, err
		}
	}
	e := &Effective{c: c, rev: p.Revision, global: cloneLayer(c.global)}
	for _, l := range c.agents {
		e.agents = append(e.agents, cloneLayer(l))
	}
	for i := range p.Grants {
		g := &p.Grants[i]
		b, ok := parseBehavior(g.Data.Behavior)
		if !ok || g.Data.Kind != events.GrantPermission {
			continue // CheckEvent refused it at the append
		}
		r, err := compileRule(c.table, g.Data.Rule)
		if err != nil {
			continue // a rule this runtime's table cannot read grants nothing
		}
		l := e.global
		if g.Data.Agent != "*" {
			if l = findLayer(e.agents, g.Data.Agent); l == nil {
				l = &layer{agent: g.Data.Agent, list: "agents." + g.Data.Agent + ".permissions"}
				e.agents = append(e.agents, l)
				slices.SortFunc(e.agents, func(a, b *layer) int { return strings.Compare(a.agent, b.agent) })
			}
		}
		if slices.ContainsFunc(l.rules[b], func(x ruleRef) bool { return x.r.text == r.text }) {
			continue
		}
		rec := g.Record
		l.rules[b] = append(l.rules[b], ruleRef{r: r, b: b, where: where(l.list, b, r.text), rec: &rec})
	}
	e.rawCat, e.cat = p.Catalogue, dedupe(p.Catalogue)
	return e, nil
}

func cloneLayer(l *layer) *layer {
	c := *l
	for b := range c.rules {
		c.rules[b] = slices.Clip(c.rules[b])
	}
	return &c
}

// effectiveOf returns the effective document of p, built when the state
// holds none of this dialect's. Fail closed: a state it cannot read
// decides with no catalogue, so every tool is unknown.
func effectiveOf(p *envelope.PolicyState) *Effective {
	if p == nil {
		return nil
	}
	if e, ok := p.Effective.(*Effective); ok && e != nil && slices.Equal(e.rawCat, p.Catalogue) {
		return e
	}
	e, err := buildEffective(p)
	if err != nil {
		return nil
	}
	return e
}

func dedupe(l []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range l {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// agent returns an agent type's layer, nil when it has none.
func (e *Effective) agent(name string) *layer { return findLayer(e.agents, name) }

// record is the record a rule came from.
func (e *Effective) record(r *ruleRef) *envelope.RecordRef {
	if r.rec != nil {
		ref := *r.rec
		return &ref
	}
	ref := e.rev
	return &ref
}
