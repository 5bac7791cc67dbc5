package openclaw

import (
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// kind classifies a normalized policy entry by the first rule of section 2.3
// that applies to it.
type kind uint8

const (
	kLiteral kind = iota // rule 5: the identical name only
	kStar                // rule 1: every tool
	kMCP                 // rule 2: group:plugins, bundle-mcp: every MCP tool
	kGroup               // rule 3: a built-in group's members
	kGlob                // rule 4: '*' matches any run of characters
)

// pattern is one classified entry.
type pattern struct {
	kind    kind
	text    string
	members map[string]bool // kGroup only
}

func classify(e string) pattern {
	switch {
	case e == "*":
		return pattern{kind: kStar, text: e}
	case e == "group:plugins" || e == "bundle-mcp":
		return pattern{kind: kMCP, text: e}
	}
	if m, ok := groupSets[e]; ok {
		return pattern{kind: kGroup, text: e, members: m}
	}
	if strings.IndexByte(e, '*') >= 0 {
		return pattern{kind: kGlob, text: e}
	}
	return pattern{kind: kLiteral, text: e}
}

// matches reports whether the entry matches the normalized tool name t,
// including the legacy name rule: dispatch_action is also matched by what
// would match tool_call.
func (p *pattern) matches(t string) bool {
	if p.match1(t) {
		return true
	}
	return t == "dispatch_action" && p.match1("tool_call")
}

func (p *pattern) match1(t string) bool {
	switch p.kind {
	case kStar:
		return true
	case kMCP:
		return isMCP(t)
	case kGroup:
		return p.members[t]
	case kGlob:
		return globMatch(p.text, t)
	}
	return p.text == t
}

// globMatch matches name against a pattern in which each '*' matches any
// run of bytes (including none) and every other byte matches itself; the
// whole name must match. It backtracks only to the last star, so it runs in
// O(len(pattern)*len(name)) at worst and never allocates.
func globMatch(pat, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pat) && pat[p] == '*':
			star, mark = p, n
			p++
		case p < len(pat) && pat[p] == name[n]:
			p++
			n++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// catalogue is the normalized policy catalogue with an index by name.
type catalogue struct {
	names []string
	index map[string]int
}

func newCatalogue(raw []string) *catalogue {
	c := &catalogue{index: make(map[string]int, len(raw))}
	for _, r := range raw {
		n := normalize(r)
		if n == "" {
			continue
		}
		if _, ok := c.index[n]; ok {
			continue
		}
		c.index[n] = len(c.names)
		c.names = append(c.names, n)
	}
	return c
}

// plist is a compiled name list: its normalized entries, each entry's rule
// as written with its path and the record that introduced it, and, for every
// tool of the policy catalogue, the first entry that matches it. A nil plist
// is an empty list.
type plist struct {
	names []string
	rules []string
	recs  []*envelope.RecordRef
	pats  []pattern
	first []int32 // per policy-catalogue index; -1 when no entry matches
	// For other tools: the first index of each literal entry, and the
	// indices of the other entries in ascending order.
	lit     map[string]int32
	special []int32
	star    bool // an entry is exactly "*"
	write   bool // the list matches "write" (admits apply_patch, 2.5)
	read    bool // the list matches "read" (may admit skills_read, 2.5)
}

// compileList builds a plist from items as written (normalized here) with
// the path used in rules. rec is the record of every entry; from, when not
// nil, overrides it per item (grant-added entries).
func compileList(path string, items []string, rec *envelope.RecordRef, from []*envelope.RecordRef, cat *catalogue) *plist {
	l := &plist{}
	for i, it := range items {
		n := normalize(it)
		if n == "" || contains(l.names, n) {
			continue
		}
		r := rec
		if from != nil && from[i] != nil {
			r = from[i]
		}
		l.names = append(l.names, n)
		l.rules = append(l.rules, path+": "+strconv.Quote(it))
		l.recs = append(l.recs, r)
		l.pats = append(l.pats, classify(n))
	}
	l.finish(cat)
	return l
}

func (l *plist) finish(cat *catalogue) {
	l.lit = make(map[string]int32, len(l.pats))
	for i := range l.pats {
		switch l.pats[i].kind {
		case kLiteral:
			l.lit[l.pats[i].text] = int32(i) // names are de-duplicated: one index each
			continue
		case kStar:
			l.star = true
		}
		l.special = append(l.special, int32(i))
	}
	l.write = l.match("write") >= 0
	l.read = l.match("read") >= 0
	l.first = make([]int32, len(cat.names))
	for i, t := range cat.names {
		l.first[i] = l.match(t)
	}
}

// empty reports whether the list has no entries.
func (l *plist) empty() bool { return l == nil || len(l.names) == 0 }

// match returns the index of the first entry matching t, or -1, with the
// legacy name rule: dispatch_action is also matched by what would match
// tool_call.
func (l *plist) match(t string) int32 {
	if l == nil {
		return -1
	}
	best := l.match1(t)
	if t == "dispatch_action" {
		if b := l.match1("tool_call"); b >= 0 && (best < 0 || b < best) {
			best = b
		}
	}
	return best
}

// match1 finds the first entry matching t itself: a literal by lookup, the
// other entries by scanning those before it.
func (l *plist) match1(t string) int32 {
	best, ok := l.lit[t]
	if !ok {
		best = -1
	}
	for _, si := range l.special {
		if best >= 0 && si > best {
			break
		}
		if l.pats[si].match1(t) {
			return si
		}
	}
	return best
}

// hit is match for a tool of the policy catalogue (i >= 0, a table read) or
// any other tool (i < 0, the slow path).
func (l *plist) hit(i int, t string) int32 {
	if l == nil {
		return -1
	}
	if i >= 0 {
		return l.first[i]
	}
	return l.match(t)
}
