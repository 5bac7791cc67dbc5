package claudecode

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// A revocation's rule (deny.added) is read as a permission deny rule
// (section 4.1): Bash, Bash(git push *), Read(./secrets/**),
// mcp__fs__write_file, mcp__fs. It matches a call as a deny rule of the
// document would, compound commands and the rule families included, but
// it is decided by the ledger's revocation layer before the dialect's
// steps (docs/dialects/claude-code.md, "Revocations").

var _ envelope.RuleMatcher = (*Dialect)(nil)

// CheckRule refuses a rule that does not parse as a permission rule.
func (*Dialect) CheckRule(text string) error {
	if err := checkRuleText(text); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "the rule %q: %v", text, err)
	}
	if _, err := compileRule(text); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "the rule %q: %v", text, err)
	}
	return nil
}

// revocationRules keeps compiled revocation rules: a rule's text compiles
// the same every time, and a check reads every revocation in force.
// It is bounded: past maxCachedRules, rules compile at each call.
var (
	revocationRules sync.Map // string -> *rule
	cachedRules     atomic.Int64
)

const maxCachedRules = 4096

func revocationRule(text string) *rule {
	if r, ok := revocationRules.Load(text); ok {
		return r.(*rule)
	}
	r, err := compileRule(text)
	if err != nil {
		return nil
	}
	if cachedRules.Add(1) <= maxCachedRules {
		revocationRules.Store(text, r)
	}
	return r
}

// MatchRule reports whether a deny rule denies the call (or, with whole,
// the tool whatever its input: a rule with no specifier).
func (*Dialect) MatchRule(_ *envelope.PolicyState, text, tool string, input json.RawMessage, whole bool) bool {
	r := revocationRule(text)
	if r == nil || !r.applies(tool, bDeny) {
		return false
	}
	if r.specKind == specNone {
		return true
	}
	if whole {
		return false
	}
	rr := ruleRef{r: r, b: bDeny}
	return rr.matches(newCall(tool, input))
}
