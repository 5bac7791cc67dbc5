package ledgerpolicy

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// A revocation's rule (deny.added) is read as a deny rule of this dialect
// against the scope's runtime table: Bash, Bash(git push *),
// read_file(/etc/**). It matches a call as a deny rule of the document
// would, compound commands included; the ledger's revocation layer decides
// it before the dialect (conformance ledger-dialect/revoke-01).

var (
	_ envelope.RuleMatcher        = (*Dialect)(nil)
	_ envelope.SessionRuleMatcher = (*Dialect)(nil)
)

// CheckRule refuses a rule no runtime table reads.
func (*Dialect) CheckRule(text string) error {
	if err := checkRuleText(text); err != nil {
		return err
	}
	if err := checkRuleAnyTable(text); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "the rule %q: %v", text, err)
	}
	return nil
}

// MatchRule matches without a session: relative path patterns match
// relative paths only.
func (d *Dialect) MatchRule(p *envelope.PolicyState, text, tool string, input json.RawMessage, whole bool) bool {
	return matchRevocation(p, "", text, tool, input, whole)
}

// MatchRuleFor matches with the session's root project.
func (d *Dialect) MatchRuleFor(w envelope.World, s *envelope.Session, p *envelope.PolicyState, text, tool string, input json.RawMessage, whole bool) bool {
	project := ""
	if root := envelope.RootOf(w, s); root != nil && root.Start != nil {
		project = root.Start.Project
	}
	return matchRevocation(p, project, text, tool, input, whole)
}

func matchRevocation(p *envelope.PolicyState, project, text, tool string, input json.RawMessage, whole bool) bool {
	e := effectiveOf(p)
	if e == nil {
		return false
	}
	r, err := compileRule(e.c.table, text)
	if err != nil {
		// A rule the scope's table cannot read (CheckRule accepted it
		// against another table: read_file under codex with a catalogue
		// naming read_file) revokes every call of the tool it names,
		// pattern or not (TestRevocationUnreadableRuleDeniesItsTool).
		name, _, _ := envelope.SplitRule(text)
		return name == tool
	}
	if whole {
		return !r.hasPat && r.names(tool)
	}
	v := &view{e: e, project: project}
	return v.matches(r, newCall(e.c.table.spec(tool), input, project))
}
