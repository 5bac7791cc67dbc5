package envelope

import (
	"encoding/json"
	"strings"

	"github.com/sessionledger/ledger/events"
)

// The ledger's revocation layer (deny.added, deny.lifted): a layer above
// the dialects, decided before them, so a revocation denies whatever a
// dialect's own rules and grants allow. Its reason code is ReasonRevoked,
// its rule the revocation's rule with its target, its record the
// deny.added that put it in force.
const (
	LayerRevocation = "revocation"
	ReasonRevoked   = "revocation:deny"
)

// Revocation is a deny.added in force in a scope, with the record that
// added it.
type Revocation struct {
	Data     events.DenyData `json:"data"`
	Identity string          `json:"identity"`
	Record   RecordRef       `json:"record"`
}

// RevocationIdentity is the identity two denials share when they are the
// same one: a deny.lifted lifts the deny.added of its identity. The note
// is not part of it.
func RevocationIdentity(d *events.DenyData) string {
	b, _ := json.Marshal([]any{events.ScopeName(d.Scope), d.Rule, d.Session, d.Subtree, d.Agent, d.User, d.Project})
	return string(b)
}

// Rule is how the reason of a revocation names what matched: its rule and
// its target.
func (r *Revocation) Rule() string {
	s := "deny " + r.Data.Rule + " for " + r.Data.Target()
	if r.Data.Note != "" {
		s += " (" + r.Data.Note + ")"
	}
	return s
}

// Reason is the reason of a decision the revocation made.
func (r *Revocation) Reason() Reason {
	ref := r.Record
	return Reason{Code: ReasonRevoked, Rule: r.Rule(), Record: &ref}
}

// RuleMatcher is implemented by dialects that read a revocation's rule in
// their own rule syntax (claude-code's permission rules, Bash(git push *));
// for the others a rule is a tool name, and a '*' in it matches any run of
// characters.
type RuleMatcher interface {
	// CheckRule refuses a rule the dialect cannot read, with a message
	// that says what to write instead.
	CheckRule(rule string) error
	// MatchRule reports whether rule denies a call of tool (normalized)
	// with input; with whole, whether it denies the tool whatever its
	// input (a rule with no content).
	MatchRule(p *PolicyState, rule, tool string, input json.RawMessage, whole bool) bool
}

// SessionRuleMatcher is a RuleMatcher whose rules may also read the
// session being decided (the openclaw dialect: the plugin tools its root's
// start reported); Revoked asks it instead of MatchRule.
type SessionRuleMatcher interface {
	MatchRuleFor(w World, s *Session, p *PolicyState, rule, tool string, input json.RawMessage, whole bool) bool
}

// AgentIDReader is implemented by dialects that compare agent ids in a
// normal form of their own (openclaw's packaged releases read every id
// through OpenClaw's normalizeAgentId): a revocation's agent target holds
// a session whose agent id reads as the same id under the scope's policy
// p, so it reaches every session the dialect decides as that agent type.
// The others compare ids exactly. The revocation's identity keeps the id
// as written (TestRevocationOfAgentTypeReachesNormalizedAgentIDs).
type AgentIDReader interface {
	AgentID(p *PolicyState, id string) string
}

// SpawnCaller is implemented by dialects whose spawn admission decides a
// call of the parent's spawn tool (claude-code's Agent with the child's
// subagent_type, the ledger dialect's runtime spawn tool): SpawnCall
// returns that call under the scope's policy p, ok false when the spawn
// makes none. The ledger decides it with the revocation layer (Revoked)
// when the spawn is appended, so a revocation of the call refuses the
// spawn as a deny of the dialect's own does; the fold of a spawn already
// recorded reads only its record (TestRevocationOfSpawnToolRefusesSpawn,
// TestRevokedSpawnInOldLogFoldsUnchanged).
type SpawnCaller interface {
	SpawnCall(p *PolicyState, d *events.SpawnedData) (tool string, input json.RawMessage, ok bool)
}

// SplitRule splits a rule into its tool name and its content (the text in
// parentheses, "" when there is none).
func SplitRule(rule string) (name, content string, hasContent bool) {
	rule = strings.TrimSpace(rule)
	if i := strings.IndexByte(rule, '('); i > 0 && strings.HasSuffix(rule, ")") {
		return rule[:i], rule[i+1 : len(rule)-1], true
	}
	return rule, "", false
}

// CheckRevocationRule refuses a rule dialect dl cannot apply.
func CheckRevocationRule(dl Dialect, rule string) error {
	if m, ok := dl.(RuleMatcher); ok {
		return m.CheckRule(rule)
	}
	if _, _, content := SplitRule(rule); content {
		return events.Errorf(events.CodeInvalidEvent, "the %s dialect denies whole tools: write the tool name (or a pattern with *), not %q", dl.Name(), rule)
	}
	return nil
}

// matchRule reports whether rule denies tool (normalized) with input.
func matchRule(w World, s *Session, dl Dialect, normalize func(string) string, p *PolicyState, rule, tool string, input json.RawMessage, whole bool) bool {
	if m, ok := dl.(SessionRuleMatcher); ok && w != nil && s != nil {
		return m.MatchRuleFor(w, s, p, rule, tool, input, whole)
	}
	if m, ok := dl.(RuleMatcher); ok {
		return m.MatchRule(p, rule, tool, input, whole)
	}
	name, _, content := SplitRule(rule)
	if content {
		return false
	}
	if strings.IndexByte(name, '*') >= 0 {
		return GlobMatch(name, tool) || GlobMatch(normalize(name), tool)
	}
	return normalize(name) == tool
}

// GlobMatch matches name against a pattern in which each '*' matches any
// run of bytes (including none) and every other byte matches itself; the
// whole name must match. It backtracks only to the last star, so it runs in
// O(len(pattern)*len(name)) at worst and never allocates.
func GlobMatch(pat, name string) bool {
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

// Revoked returns the first revocation of p in force for session s that
// denies tool (normalized) with input, or nil; with whole, the first that
// denies the tool whatever its input (what a tool set shows). w reads the
// session's ancestors, for a denial of a session and its sub-agents and
// for the identity its root started with.
func Revoked(w World, dl Dialect, normalize func(string) string, p *PolicyState, s *Session, tool string, input json.RawMessage, whole bool) *Revocation {
	if p == nil || len(p.Revocations) == 0 {
		return nil
	}
	for i := range p.Revocations {
		r := &p.Revocations[i]
		if targets(w, dl, p, &r.Data, s) && matchRule(w, s, dl, normalize, p, r.Data.Rule, tool, input, whole) {
			return r
		}
	}
	return nil
}

// targets reports whether a denial's target holds session s, under the
// policy p of dialect dl.
func targets(w World, dl Dialect, p *PolicyState, d *events.DenyData, s *Session) bool {
	switch {
	case d.Session != "":
		if s.Key == d.Session {
			return true
		}
		if !d.Subtree {
			return false
		}
		for h, a := 0, s; h < 128 && a != nil && a.Parent != ""; h++ {
			if a.Parent == d.Session {
				return true
			}
			a = w.Session(a.Parent)
		}
		return false
	case d.Agent != "":
		if s.Agent == d.Agent {
			return true
		}
		a, ok := dl.(AgentIDReader)
		return ok && a.AgentID(p, s.Agent) == a.AgentID(p, d.Agent)
	case d.User != "" || d.Project != "":
		root := RootOf(w, s)
		if root == nil || root.Start == nil {
			return false
		}
		if d.User != "" {
			return root.Start.User == d.User
		}
		return root.Start.Project == d.Project
	}
	return true
}

// RootOf returns the root of s's spawn tree (s itself for a root), nil
// when a link is missing.
func RootOf(w World, s *Session) *Session {
	for h := 0; h < 128 && s != nil; h++ {
		if s.Parent == "" {
			return s
		}
		s = w.Session(s.Parent)
	}
	return nil
}

// RevocationStep is the trace step of the revocation layer: it decided
// when r is not nil, else it passed the call.
func RevocationStep(p *PolicyState, r *Revocation) Step {
	if r != nil {
		reason := r.Reason()
		return Step{Layer: LayerRevocation, Outcome: Decided, Detail: r.Rule(), Reason: &reason}
	}
	n := 0
	if p != nil {
		n = len(p.Revocations)
	}
	if n == 0 {
		return Step{Layer: LayerRevocation, Outcome: Absent, Detail: "no revocation in force in the scope"}
	}
	return Step{Layer: LayerRevocation, Outcome: Kept, Detail: "no revocation in force in the scope targets this session and call"}
}
