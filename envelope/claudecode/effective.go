package claudecode

import (
	"slices"
	"strings"

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
	// cmdDenyCaveat is the warning the deny step of a Bash call shows when
	// command deny rules exist and none stopped it ("" without such rules).
	cmdDenyCaveat string
	rev           envelope.RecordRef

	rawCat  []string        // PolicyState.Catalogue the cache below was made from
	cat     []string        // normalized (Task -> Agent), de-duplicated, in order
	catSet  map[string]bool // membership in cat
	catDeny []int           // per cat entry: index in bareDeny of the rule removing it, or -1
	// catProps holds each cat entry's fixed properties (props bits), and
	// defs each agent definition's verdicts over cat, so that a pool
	// resolution over the policy catalogue only tests bits.
	catProps []props
	catOrder []int // indices of cat in byte order of the names
	defs     map[*agentDef]*defCache
}

// props are the fixed properties of a tool name that pool layers test.
type props uint16

const (
	propCoordinator props = 1 << iota
	propFirstFiltered
	propBackgroundKept
	propTeamKept
	propMCP
	propAgent
	propExitPlanMode
	propTeammateAddition
)

func propsOf(t string) props {
	var p props
	set := func(b props, ok bool) {
		if ok {
			p |= b
		}
	}
	set(propCoordinator, isCoordinatorTool(t))
	set(propFirstFiltered, isFirstFiltered(t))
	set(propBackgroundKept, isBackgroundKept(t))
	set(propTeamKept, isTeamKept(t))
	set(propMCP, isMCP(t))
	set(propAgent, t == toolAgent)
	set(propExitPlanMode, t == toolExitPlanMode)
	set(propTeammateAddition, slices.Contains(teammateAdditions, t))
	return p
}

// defCache is one agent definition's verdicts over the policy catalogue.
type defCache struct {
	disallowed []int  // per cat entry: index of the first disallowedTools entry matching it, or -1
	listed     []bool // per cat entry: some tools entry matches it
}

func newDefCache(a *agentDef, cat []string) *defCache {
	dc := &defCache{disallowed: make([]int, len(cat)), listed: make([]bool, len(cat))}
	for i, t := range cat {
		dc.disallowed[i] = a.disallowedIndex(t)
		dc.listed[i] = slices.ContainsFunc(a.tools, func(e toolEntry) bool { return e.match(t, false) })
	}
	return dc
}

// disallowedIndex is the index of the first disallowedTools entry that
// removes t, or -1: an entry matching t, or for Monitor one matching Bash
// (Claude Code 2.1.328 drops Monitor with an agent's Bash, as with a bare
// Bash deny rule: TestDifferential/agents-disallowed-bash, b-with-monitor).
func (a *agentDef) disallowedIndex(t string) int {
	i := slices.IndexFunc(a.disallowed, func(e toolEntry) bool { return e.match(t, true) })
	if i < 0 && t == toolMonitor {
		i = slices.IndexFunc(a.disallowed, func(e toolEntry) bool { return e.match(toolBash, true) })
	}
	return i
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
		// A deny Read(*) or Edit(*) still removes the tool, as the bare
		// rule it was read as before (only allow rules are narrowed).
		if rr.r.spec == "" || rr.r.specKind == specPath && rr.r.path.star {
			e.bareDeny = append(e.bareDeny, rr)
		}
	}
	e.cmdDenyCaveat = commandDenyCaveat(e.rules[bDeny])
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
			e.catDeny = append(e.catDeny, slices.IndexFunc(e.bareDeny, func(rr ruleRef) bool { return bareDenies(rr.r, t) }))
			e.catProps = append(e.catProps, propsOf(t))
		}
	}
	e.catOrder = make([]int, len(e.cat))
	for i := range e.catOrder {
		e.catOrder[i] = i
	}
	slices.SortFunc(e.catOrder, func(a, b int) int { return strings.Compare(e.cat[a], e.cat[b]) })
	e.defs = map[*agentDef]*defCache{}
	for _, name := range e.c.agentNames {
		a := e.c.agents[name]
		e.defs[a] = newDefCache(a, e.cat)
	}
	for _, name := range e.c.builtInOrder() {
		if a := e.c.agent(name); a != nil && a.builtIn {
			e.defs[a] = newDefCache(a, e.cat)
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
		if sameSlice(e.rawCat, p.Catalogue) || slices.Equal(e.rawCat, p.Catalogue) {
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
		if bareDenies(e.bareDeny[i].r, t) {
			return &e.bareDeny[i]
		}
	}
	return nil
}

// bareDenies reports whether bare deny rule r removes tool t: its name
// matches t, or t is Monitor and it removes Bash (Claude Code 2.1.328 drops
// Monitor with Bash: TestDifferential/i25-monitor-bash-denied).
func bareDenies(r *rule, t string) bool {
	return r.nameMatches(t, bDeny) || t == toolMonitor && r.nameMatches(toolBash, bDeny)
}

// sameSlice reports whether a and b are the same slice (same backing array
// and length): the usual case, checked before comparing the strings.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
