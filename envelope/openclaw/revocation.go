package openclaw

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// A revocation's rule (deny.added) is read as one entry of a tools.deny
// list of this dialect (sections 2.1 to 2.4): a tool name, normalized; a
// group (group:fs, group:runtime, group:plugins) standing for its members;
// "*"; a glob. It denies what that entry would deny, under the release of
// the scope's policy, but it is decided by the ledger's revocation layer
// before this dialect's layers (docs/dialects/openclaw.md, section 1.5).

var _ envelope.RuleMatcher = (*Dialect)(nil)

// CheckRule refuses a rule with content in parentheses: OpenClaw decides
// whole tools.
func (*Dialect) CheckRule(rule string) error {
	if _, _, content := envelope.SplitRule(rule); content {
		return events.Errorf(events.CodeInvalidEvent, "the openclaw dialect denies whole tools: write the tool name, a group (group:runtime) or a pattern with *, not %q", rule)
	}
	if normalize(rule) == "" {
		return events.Errorf(events.CodeInvalidEvent, "the rule %q names no tool", rule)
	}
	return nil
}

// revocationLists keeps each rule compiled, per release. Bounded: past
// maxRevocationLists, rules compile at each call.
var (
	revocationLists sync.Map // revocationKey -> *plist
	cachedLists     atomic.Int64
)

type revocationKey struct {
	rel  *Release
	rule string
}

const maxRevocationLists = 4096

// MatchRule reports whether the rule, as a deny entry under the policy's
// release, denies the tool (normalized); the input plays no part.
func (*Dialect) MatchRule(p *envelope.PolicyState, rule, tool string, _ json.RawMessage, _ bool) bool {
	rel := newest()
	var pol *Policy
	if p != nil {
		if pl, ok := p.Compiled.(*Policy); ok {
			pol, rel = pl, pl.rel
		}
	}
	if _, _, content := envelope.SplitRule(rule); content {
		return false
	}
	if pol != nil && pol.Doc.PluginTools != nil {
		// group:plugins and a plugin id stand for the tools the policy
		// marks as plugin tools (2.2): compiled with those marks, uncached
		// (they belong to the policy, not to the release).
		if n := rel.normalize(rule); n == "group:plugins" || pluginID(rel, pol.Doc.PluginTools, n) {
			return matchMarked(rel, rule, tool, pol.Doc.PluginTools)
		}
	}
	k := revocationKey{rel, strings.TrimSpace(rule)}
	var l *plist
	if v, ok := revocationLists.Load(k); ok {
		l = v.(*plist)
	} else {
		l = rel.compileList("deny", []string{k.rule}, nil, nil, &catalogue{})
		if cachedLists.Add(1) <= maxRevocationLists {
			revocationLists.Store(k, l)
		}
	}
	return l.match(tool) >= 0
}

var _ envelope.SessionRuleMatcher = (*Dialect)(nil)

// MatchRuleFor is MatchRule for session s: a rule also denies what it
// denies with the plugin tools s's root reported as the marks (group:plugins
// and plugin ids, 2.2), so a revocation of group:plugins reaches a bundled
// plugin's tools that pluginTools omits, as OpenClaw's own deny would.
func (d *Dialect) MatchRuleFor(w envelope.World, s *envelope.Session, p *envelope.PolicyState, rule, tool string, input json.RawMessage, whole bool) bool {
	if d.MatchRule(p, rule, tool, input, whole) {
		return true
	}
	rep := reportFor(w, s, tool, input)
	if rep == nil {
		return false
	}
	if _, _, content := envelope.SplitRule(rule); content {
		return false
	}
	marks, err := events.DecodePluginTools([]byte(rep.raw))
	if err != nil {
		return false
	}
	rel := newest()
	if p != nil {
		if pl, ok := p.Compiled.(*Policy); ok {
			rel = pl.rel
		}
	}
	if n := rel.normalize(rule); n == "group:plugins" || pluginID(rel, marks, n) {
		return matchMarked(rel, rule, tool, marks)
	}
	return false
}

// matchMarked reports whether rule, as a deny entry, denies tool when
// marks are the plugin tools (compiled over a catalogue of just those).
func matchMarked(rel *Release, rule, tool string, marks map[string][]string) bool {
	cat := &catalogue{index: map[string]int{}}
	for _, tools := range marks {
		for _, t := range tools {
			if tn := rel.normalize(t); tn != "" {
				if _, dup := cat.index[tn]; !dup {
					cat.index[tn] = len(cat.names)
					cat.names = append(cat.names, tn)
				}
			}
		}
	}
	cat.mark(rel, marks)
	return rel.compileList("deny", []string{rule}, nil, nil, cat).match(tool) >= 0
}

// pluginID reports whether the normalized entry n names a plugin of
// pluginTools (its id trimmed and lower-cased).
func pluginID(rel *Release, pluginTools map[string][]string, n string) bool {
	for id := range pluginTools {
		if rel.lower(rel.trim(id)) == n {
			return true
		}
	}
	return false
}
