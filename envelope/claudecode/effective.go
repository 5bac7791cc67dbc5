package claudecode

import (
	"slices"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Effective is the effective document (section 4.3): the compiled base
// document with every grant in force appended to its rule list, each rule
// carrying the record that introduced it, plus the normalized catalogue.
// It is immutable once made.
type Effective struct {
	c        *Compiled
	rules    [3][]ruleRef // allow, ask, deny: the document's, then the grants'
	bareDeny []ruleRef    // the deny rules without a specifier (pool layer 2)
	rev      envelope.RecordRef

	rawCat  []string        // PolicyState.Catalogue the cache below was made from
	cat     []string        // normalized (Task -> Agent), de-duplicated, in order
	catSet  map[string]bool // membership in cat
	catDeny []int           // per cat entry: index in bareDeny of the rule removing it, or -1
}

// ruleRef is a rule in force with its list and provenance.
type ruleRef struct {
	r     *rule
	b     behavior
	where string // permissions.deny: "Bash"
	rec   envelope.RecordRef
}

// emptyCompiled is the document {}: what a session sees if the policy state
// carries no compiled document (which the fold does not allow).
var emptyCompiled = func() *Compiled {
	c, err := compileDocument([]byte("{}"))
	if err != nil {
		panic("claudecode: the empty document does not compile: " + err.Error())
	}
	return c
}()

// buildEffective applies the grants in force to the compiled document.
func buildEffective(p *envelope.PolicyState) (*Effective, error) {
	c, ok := p.Compiled.(*Compiled)
	if !ok || c == nil {
		if p.Compiled != nil {
			return nil, events.Errorf(events.CodeInvalidPolicy, "the compiled policy is not a claude-code document (%T); set a claude-code policy", p.Compiled)
		}
		c = emptyCompiled
	}
	e := &Effective{c: c, rev: p.Revision}
	for b := bAllow; b <= bDeny; b++ {
		for _, r := range c.rules[b] {
			e.rules[b] = append(e.rules[b], ruleRef{r: r, b: b, where: r.where(b), rec: p.Revision})
		}
	}
	for _, g := range p.Grants {
		if g.Data.Kind != events.GrantPermission {
			continue
		}
		b, ok := parseBehavior(g.Data.Behavior)
		if !ok {
			return nil, events.Errorf(events.CodeInvalidEvent, "grant %s has behavior %q; use allow, ask or deny", g.Record.ID, g.Data.Behavior)
		}
		if slices.ContainsFunc(e.rules[b], func(rr ruleRef) bool { return rr.r.text == g.Data.Rule }) {
			continue // the document (or an earlier grant) already holds that exact rule
		}
		r, err := compileRule(g.Data.Rule)
		if err != nil {
			return nil, events.Errorf(events.CodeInvalidEvent, "grant %s: rule %q does not parse: %v", g.Record.ID, g.Data.Rule, err)
		}
		e.rules[b] = append(e.rules[b], ruleRef{r: r, b: b, where: r.where(b), rec: g.Record})
	}
	for _, rr := range e.rules[bDeny] {
		if rr.r.spec == "" {
			e.bareDeny = append(e.bareDeny, rr)
		}
	}
	e.setCatalogue(p.Catalogue)
	return e, nil
}

func (e *Effective) setCatalogue(raw []string) {
	e.rawCat = raw
	e.cat = make([]string, 0, len(raw))
	e.catSet = make(map[string]bool, len(raw))
	e.catDeny = make([]int, 0, len(raw))
	for _, t := range raw {
		t = normalizeTool(t)
		if !e.catSet[t] {
			e.catSet[t] = true
			e.cat = append(e.cat, t)
			e.catDeny = append(e.catDeny, slices.IndexFunc(e.bareDeny, func(rr ruleRef) bool { return rr.r.nameMatches(t, bDeny) }))
		}
	}
}

// effectiveOf returns the effective document of a policy state, using the
// one the fold stored when it is ours and was made for this catalogue.
func effectiveOf(p *envelope.PolicyState) *Effective {
	if p == nil {
		e, _ := buildEffective(&envelope.PolicyState{})
		return e
	}
	if e, ok := p.Effective.(*Effective); ok && e != nil {
		if slices.Equal(e.rawCat, p.Catalogue) {
			return e
		}
		c := *e
		c.setCatalogue(p.Catalogue)
		return &c
	}
	e, err := buildEffective(p)
	if err != nil {
		// Fail closed: a state we cannot read gives an empty catalogue.
		e, _ = buildEffective(&envelope.PolicyState{Revision: p.Revision})
	}
	return e
}

// bareDenied returns the first bare deny rule whose tool-name position
// matches t, or nil.
func (e *Effective) bareDenied(t string) *ruleRef {
	for i := range e.bareDeny {
		if e.bareDeny[i].r.nameMatches(t, bDeny) {
			return &e.bareDeny[i]
		}
	}
	return nil
}
