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
	if p != nil {
		if pol, ok := p.Compiled.(*Policy); ok {
			rel = pol.rel
		}
	}
	if _, _, content := envelope.SplitRule(rule); content {
		return false
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
