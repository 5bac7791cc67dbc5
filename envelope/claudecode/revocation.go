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

// revocationRules keeps each revocation rule compiled as the deny list of
// an effective document of its own: a rule's text compiles the same every
// time, and a check reads every revocation in force. It is bounded: past
// maxCachedRules, rules compile at each call.
var (
	revocationRules sync.Map // string -> *Effective
	cachedRules     atomic.Int64
)

const maxCachedRules = 4096

func revocationRule(text string) *Effective {
	if e, ok := revocationRules.Load(text); ok {
		return e.(*Effective)
	}
	r, err := compileRule(text)
	if err != nil {
		return nil
	}
	e := &Effective{}
	e.rules[bDeny] = []ruleRef{{r: r, b: bDeny, where: r.where(bDeny)}}
	if cachedRules.Add(1) <= maxCachedRules {
		revocationRules.Store(text, e)
	}
	return e
}

// MatchRule reports whether a deny rule denies the call as the deny step
// of section 9.3 would with it as the only deny rule: the rule itself,
// then a Read or Edit path rule against the paths of a Bash command's
// segments, then the commands of a shell -c script (which the dialect
// asks about, and a revocation denies). With whole, whether it denies the
// tool whatever its input: a rule with no specifier.
func (*Dialect) MatchRule(p *envelope.PolicyState, text, tool string, input json.RawMessage, whole bool) bool {
	e := revocationRule(text)
	if e == nil {
		return false
	}
	if r := e.rules[bDeny][0].r; whole {
		return r.specKind == specNone && r.applies(tool, bDeny)
	}
	v := &view{e: e}
	c := newCall(tool, input)
	if p != nil {
		pc := effectiveOf(p).c
		if pc != nil {
			v.ruleDirs = pc.dirs
		}
		if c.tool == toolAgent {
			// An Agent(type) rule names the agent a call launches too.
			c.launches(pc)
		}
	}
	if v.firstRule(bDeny, c) != nil {
		return true
	}
	if rr, _, _ := v.commandPathDeny(c); rr != nil {
		return true
	}
	rr, _ := v.shellScriptDeny(c, 0)
	return rr != nil
}
