package openclaw

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sessionledger/ledger/envelope"
)

// kind classifies a normalized policy entry by the first rule of section 2.3
// that applies to it.
type kind uint8

const (
	kLiteral kind = iota // rule 5: the identical name only
	kStar                // rule 1: every tool
	kMCP                 // rule 2: group:plugins, bundle-mcp: every MCP tool (and group:plugins every marked plugin tool)
	kGroup               // rule 3: a built-in group's members
	kGlob                // rule 4: '*' matches any run of characters
)

// pattern is one classified entry.
type pattern struct {
	kind    kind
	text    string
	members map[string]bool // kGroup: the members; kMCP: the marked plugin tools, besides every MCP tool
	// js: a '*' of a glob matches no line terminator, as the regular
	// expression OpenClaw compiles a glob into (".*") does not.
	js bool
}

// classify classifies a normalized entry under the release.
func (r *Release) classify(e string) pattern {
	js := r.Rules == rulesPackage
	switch {
	case e == "*":
		return pattern{kind: kStar, text: e}
	case e == "group:plugins" || e == "bundle-mcp":
		return pattern{kind: kMCP, text: e}
	}
	if m, ok := r.groupSets[e]; ok {
		return pattern{kind: kGroup, text: e, members: m}
	}
	if strings.IndexByte(e, '*') >= 0 {
		return pattern{kind: kGlob, text: e, js: js}
	}
	return pattern{kind: kLiteral, text: e}
}

// classify is the legacy release's.
func classify(e string) pattern { return releaseLegacy.classify(e) }

// classifyIn classifies a normalized entry under the release for a
// catalogue whose plugin tools are marked (pluginTools, 2.2), as OpenClaw's
// expandPluginGroups expands an entry before anything else: group:plugins
// stands for every plugin tool (the MCP tools and the marked ones), and a
// plugin id with tools in the catalogue for those tools.
func (r *Release) classifyIn(e string, cat *catalogue) pattern {
	if cat != nil && cat.pluginTools != nil {
		if e == "group:plugins" {
			return pattern{kind: kMCP, text: e, members: cat.pluginTools}
		}
		if m := cat.plugins[e]; len(m) > 0 {
			return pattern{kind: kGroup, text: e, members: m}
		}
	}
	return r.classify(e)
}

// expand returns what a normalized entry stands for under the release: the
// entry itself, or the name a rename gives it, followed by its family's
// members (OpenClaw's expandShippedCoreToolPolicyNames).
func (r *Release) expand(n string) []string {
	if r.Rules != rulesPackage {
		return []string{n}
	}
	out := []string{n}
	if to, ok := r.Renames[n]; ok {
		out[0] = to
	}
	for _, m := range r.Families[n] {
		if !contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// legacyNames reports whether the release matches dispatch_action by what
// would match tool_call (section 2.3's legacy name rule).
func (r *Release) legacyNames() bool { return r.Rules == rulesSpec }

// matches reports whether the entry matches the normalized tool name t
// under the legacy release, legacy name rule included (tests compare
// compiled lists with it).
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
		return isMCP(t) || p.members[t]
	case kGroup:
		return p.members[t]
	case kGlob:
		if p.js {
			return jsGlobMatch(p.text, t)
		}
		return globMatch(p.text, t)
	}
	return p.text == t
}

// globMatch matches name against a pattern in which each '*' matches any
// run of bytes (envelope.GlobMatch).
func globMatch(pat, name string) bool { return envelope.GlobMatch(pat, name) }

const lineTerminators = "\n\r\u2028\u2029"

// jsGlobMatch is globMatch where a '*' matches no line terminator (JavaScript's
// "." in the ^...$ expression OpenClaw builds). Names without one, the only
// names in practice, take globMatch.
func jsGlobMatch(pat, name string) bool {
	if !strings.ContainsAny(name, lineTerminators) {
		return globMatch(pat, name)
	}
	// Split both at the terminators: the name's terminators must be matched
	// by the same terminators of the pattern, in order, and each piece by
	// its piece.
	pp := splitTerminators(pat)
	np := splitTerminators(name)
	if len(pp) != len(np) {
		return false
	}
	for i := range pp {
		if pp[i].sep != np[i].sep || !globMatch(pp[i].text, np[i].text) {
			return false
		}
	}
	return true
}

type piece struct{ text, sep string }

func splitTerminators(s string) []piece {
	var out []piece
	for {
		i := strings.IndexAny(s, lineTerminators)
		if i < 0 {
			return append(out, piece{text: s})
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		out = append(out, piece{text: s[:i], sep: s[i : i+w]})
		s = s[i+w:]
	}
}

// catalogue is the normalized policy catalogue with an index by name, and
// its plugin tools as the document marks them (pluginTools): every marked
// tool of the catalogue, and by plugin id (trimmed, lower-cased). Both are
// nil when the document marks none.
type catalogue struct {
	names       []string
	index       map[string]int
	pluginTools map[string]bool
	plugins     map[string]map[string]bool
}

// mark records the document's plugin tools that are in the catalogue
// (OpenClaw groups the plugin tools of the session's tool list:
// buildPluginToolGroups).
func (c *catalogue) mark(r *Release, pluginTools map[string][]string) {
	for id, tools := range pluginTools {
		pid := r.lower(r.trim(id))
		for _, t := range tools {
			n := r.normalize(t)
			if _, ok := c.index[n]; !ok {
				continue
			}
			if c.pluginTools == nil {
				c.pluginTools, c.plugins = map[string]bool{}, map[string]map[string]bool{}
			}
			if c.plugins[pid] == nil {
				c.plugins[pid] = map[string]bool{}
			}
			c.pluginTools[n] = true
			c.plugins[pid][n] = true
		}
	}
}

func (r *Release) newCatalogue(raw []string) *catalogue {
	c := &catalogue{index: make(map[string]int, len(raw))}
	for _, t := range raw {
		n := r.normalize(t)
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

// newCatalogue is the legacy release's.
func newCatalogue(raw []string) *catalogue { return releaseLegacy.newCatalogue(raw) }

// plist is a compiled name list: its normalized entries, each entry's rule
// as written with its path and the record that introduced it, the patterns
// the entries stand for, and, for every tool of the policy catalogue, the
// first entry that matches it. A nil plist is an empty list.
type plist struct {
	rel   *Release
	names []string
	rules []string
	recs  []*envelope.RecordRef
	pats  []pattern
	entry []int32 // per pattern: the entry it comes from
	first []int32 // per policy-catalogue index: an entry; -1 when none matches
	// For other tools: the pattern index of each literal pattern, and the
	// indices of the other patterns in ascending order.
	lit     map[string]int32
	special []int32
	star    bool // an entry is exactly "*"
	write   bool // the list matches "write" (admits apply_patch, 2.5)
	read    bool // the list matches "read" (may admit skills_read, 2.5)
}

// compileList builds a plist from items as written (normalized here) with
// the path used in rules. rec is the record of every entry; from, when not
// nil, overrides it per item (grant-added entries).
func (r *Release) compileList(path string, items []string, rec *envelope.RecordRef, from []*envelope.RecordRef, cat *catalogue) *plist {
	l := &plist{rel: r}
	for i, it := range items {
		n := r.normalize(it)
		if n == "" || contains(l.names, n) {
			continue
		}
		rc := rec
		if from != nil && i < len(from) && from[i] != nil {
			rc = from[i]
		}
		e := int32(len(l.names))
		l.names = append(l.names, n)
		l.rules = append(l.rules, path+": "+strconv.Quote(it))
		l.recs = append(l.recs, rc)
		for _, x := range r.expand(n) {
			l.pats = append(l.pats, r.classifyIn(x, cat))
			l.entry = append(l.entry, e)
		}
	}
	l.finish(cat)
	return l
}

// compileList is the legacy release's.
func compileList(path string, items []string, rec *envelope.RecordRef, from []*envelope.RecordRef, cat *catalogue) *plist {
	return releaseLegacy.compileList(path, items, rec, from, cat)
}

func (l *plist) finish(cat *catalogue) {
	l.lit = make(map[string]int32, len(l.pats))
	for i := range l.pats {
		switch l.pats[i].kind {
		case kLiteral:
			if _, dup := l.lit[l.pats[i].text]; !dup {
				l.lit[l.pats[i].text] = int32(i)
			}
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
// legacy release's legacy name rule: dispatch_action is also matched by
// what would match tool_call.
func (l *plist) match(t string) int32 {
	if l == nil {
		return -1
	}
	best := l.match1(t)
	if t == "dispatch_action" && l.rel.legacyNames() {
		if b := l.match1("tool_call"); b >= 0 && (best < 0 || b < best) {
			best = b
		}
	}
	if best < 0 {
		return -1
	}
	return l.entry[best]
}

// match1 finds the first pattern matching t itself: a literal by lookup,
// the other patterns by scanning those before it.
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
