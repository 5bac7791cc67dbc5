package openclawdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// Kinds of comparison.
const (
	KindValidation = "validation"
	KindAdmission  = "admission"
	KindSandbox    = "sandbox"
	KindTools      = "tools"
)

// Diff is one disagreement between the ledger and OpenClaw.
type Diff struct {
	Case    string
	Kind    string
	Session int // -1 for the config
	Detail  string
	// Explained names the deliberate choice that explains it ("" when
	// none does).
	Explained string
	// Tools are the tools decided differently (KindTools).
	Tools []string
}

func (d Diff) String() string {
	s := fmt.Sprintf("%s %s", d.Case, d.Kind)
	if d.Session >= 0 {
		s += fmt.Sprintf(" session %d", d.Session)
	}
	return s + ": " + d.Detail
}

// Tally counts agreements.
type Tally struct {
	Lineages                      int
	Validations, ValidationsAgree int
	Admissions, AdmissionsAgree   int
	Sessions, SessionsAgree       int // full tool list
	Decisions, DecisionsAgree     int
	Unreachable                   int // spawns OpenClaw could not make (the requester lacks sessions_spawn)
	Explained                     int
	// FailOpen counts the decisions where the ledger allows a tool
	// OpenClaw denies (a defect, never a deliberate difference).
	FailOpen int
}

func (t *Tally) add(o *Tally) {
	t.Lineages += o.Lineages
	t.Validations += o.Validations
	t.ValidationsAgree += o.ValidationsAgree
	t.Admissions += o.Admissions
	t.AdmissionsAgree += o.AdmissionsAgree
	t.Sessions += o.Sessions
	t.SessionsAgree += o.SessionsAgree
	t.Decisions += o.Decisions
	t.DecisionsAgree += o.DecisionsAgree
	t.Unreachable += o.Unreachable
	t.Explained += o.Explained
	t.FailOpen += o.FailOpen
}

// Deliberate is one entry of testdata/deliberate.json: a documented choice
// of the dialect that departs from the release, fail-closed.
type Deliberate struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Docs   string `json:"docs"`
}

// LoadDeliberate reads the deliberate list.
func LoadDeliberate(path string) ([]Deliberate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Deliberate
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ctx is what an explainer sees of one disagreement.
type ctx struct {
	l      *Lineage
	depth  []int
	ledger *LedgerAnswer
	oc     *Answer
	s      int
	tools  []string
}

// explainers decide, by id, whether a deliberate choice explains a
// disagreement; an id of deliberate.json must have one (and the reverse).
var explainers = map[string]func(kind string, c *ctx) bool{
	// The ledger refuses toolsBySender keys that select one sender;
	// OpenClaw takes the first one written.
	"sender-keys-select-one-sender": func(kind string, c *ctx) bool {
		return kind == KindValidation && c.oc.Valid && strings.Contains(c.ledger.Invalid, "select the same sender")
	},
	// The ledger refuses byProvider keys that name one provider; OpenClaw
	// takes the first one written (or the canonical spelling).
	"provider-keys-name-one-provider": func(kind string, c *ctx) bool {
		return kind == KindValidation && c.oc.Valid && strings.Contains(c.ledger.Invalid, "name the same provider")
	},
	// The ledger applies the root's group layer to external turns at every
	// depth; OpenClaw trusts a group id only from the session's key or its
	// requester's, so a grandchild's external turn loses it.
	"group-layer-at-every-depth": func(kind string, c *ctx) bool {
		root := c.l.Sessions[0]
		if kind != KindTools || c.depth[c.s] < 2 || c.l.Sessions[c.s].Sender == "" || root.Group == "" && !groupKey.MatchString(root.Key) {
			return false
		}
		return ledgerStricterBy(c, "group:")
	},
	// The ledger matches an inherited ceiling by exact names; OpenClaw
	// matches it as an allow list (a family head admits its members,
	// write admits apply_patch, a group name its group).
	"exact-inherited-ceiling": func(kind string, c *ctx) bool {
		return kind == KindTools && ledgerStricterBy(c, "inherited:allow")
	},
}

// groupKey matches a root key that names a group or channel conversation
// (with or without the agent:<id>: prefix), which the plugin once sent no
// group for when it had no prefix.
var groupKey = regexp.MustCompile(`(?i)^(agent:[^:]+:)?[^:]+:(group|channel):[^:]`)

// ledgerStricterBy reports whether every tool decided differently is one
// the ledger denies, with a reason code starting with prefix, and OpenClaw
// allows.
func ledgerStricterBy(c *ctx, prefix string) bool {
	if len(c.tools) == 0 {
		return false
	}
	ts := c.ledger.Sessions[c.s].Tools
	for _, t := range c.tools {
		d, r, ok := ts.Lookup(c.ledger.Normalize(t))
		if !ok || d != envelope.Deny || r == nil || !strings.HasPrefix(r.Code, prefix) {
			return false
		}
	}
	return true
}

// admissionCode reads OpenClaw's refusal message as the ledger's code.
func admissionCode(msg string) string {
	switch {
	case strings.Contains(msg, "is not allowed at this depth"):
		return "depth_limit"
	case strings.Contains(msg, "max active children"):
		return "max_children"
	case strings.Contains(msg, "requires explicit agentId"):
		return "agent_id_required"
	case strings.Contains(msg, "is not in the configured agent registry"):
		return "agent_not_configured"
	case strings.Contains(msg, "is not allowed for sessions_spawn"):
		return "agent_not_allowed"
	case strings.Contains(msg, "Sandboxed sessions cannot spawn"):
		return "sandbox_required"
	}
	return "openclaw: " + msg
}

// Compare compares one lineage's answers. It returns the lineage's tally
// and its disagreements, each explained by a listed deliberate choice
// where one applies.
func Compare(l *Lineage, ledger *LedgerAnswer, oc *Answer, listed map[string]bool) (*Tally, []Diff) {
	t := &Tally{Lineages: 1, Validations: 1}
	var diffs []Diff
	depth := make([]int, len(l.Sessions))
	for i, s := range l.Sessions {
		if s.Parent != nil {
			depth[i] = depth[*s.Parent] + 1
		}
	}
	c := &ctx{l: l, depth: depth, ledger: ledger, oc: oc, s: -1}
	// stricter[i]: session i's tool list differs by a deliberate choice
	// under which the ledger is the stricter side; a child inherits that
	// difference through its ceiling, and is explained by the same choice.
	stricter := make([]string, len(l.Sessions))
	report := func(kind string, s int, tools []string, format string, args ...any) {
		d := Diff{Case: l.ID, Kind: kind, Session: s, Tools: tools, Detail: fmt.Sprintf(format, args...)}
		c.s, c.tools = s, tools
		for _, id := range sortedIDs(listed) {
			if f := explainers[id]; f != nil && f(kind, c) {
				d.Explained = id
				break
			}
		}
		if d.Explained == "" && kind == KindTools && s >= 0 && l.Sessions[s].Parent != nil {
			if id := stricter[*l.Sessions[s].Parent]; id != "" && ledgerStricterBy(c, "inherited:") {
				d.Explained = id
			}
		}
		if d.Explained != "" {
			t.Explained++
			if kind == KindTools && ledgerStricterBy(c, "") {
				stricter[s] = d.Explained
			}
		}
		diffs = append(diffs, d)
	}
	ledgerValid := ledger.Invalid == ""
	if ledgerValid == oc.Valid {
		t.ValidationsAgree++
	} else if oc.Valid {
		report(KindValidation, -1, nil, "the ledger refuses the config OpenClaw accepts: %s", ledger.Invalid)
	} else {
		report(KindValidation, -1, nil, "the ledger accepts the config OpenClaw refuses: %s", issues(oc.Issues))
	}
	if !ledgerValid || !oc.Valid {
		return t, diffs
	}
	ocMade := make([]bool, len(l.Sessions))
	// Children created so far, per parent, on each side: once they differ
	// (a spawn one side makes and the other does not), the parent's later
	// spawns meet different child counts and are not compared.
	ledgerKids := make([]int, len(l.Sessions))
	ocKids := make([]int, len(l.Sessions))
	norm := ledger.Normalize
	for i, s := range l.Sessions {
		la, oa := ledger.Sessions[i], oc.Sessions[i]
		if la.Refused == "parent_not_created" {
			continue
		}
		if s.Parent != nil {
			p := *s.Parent
			if !ocMade[p] {
				continue
			}
			if la.Refused == "" {
				ledgerKids[p]++
			}
			if ledgerKids[p]-btoi(la.Refused == "") != ocKids[p] {
				continue
			}
			adm := oa.Admission.Explicit
			if s.Omitted && oa.Admission.Omitted != nil {
				adm = *oa.Admission.Omitted
			}
			t.Admissions++
			ocCode := ""
			if !adm.OK {
				ocCode = admissionCode(adm.Error)
			}
			if la.Refused == ocCode {
				t.AdmissionsAgree++
			} else {
				report(KindAdmission, i, nil, "ledger %s, OpenClaw %s", orAdmitted(la.Refused, la.Msg), orAdmitted(ocCode, adm.Error))
			}
			if oa.Reachable != "" {
				if adm.OK {
					t.Unreachable++
				}
				continue
			}
			ocKids[p]++
		}
		ocMade[i] = true
		if la.Refused != "" {
			continue
		}
		if la.Sandboxed != oa.Sandboxed {
			report(KindSandbox, i, nil, "ledger sandboxed=%v, OpenClaw sandboxed=%v", la.Sandboxed, oa.Sandboxed)
		}
		t.Sessions++
		allowed := map[string]bool{}
		for _, n := range oa.Tools {
			allowed[n] = true
		}
		var differ []string
		for _, tool := range l.Catalogue {
			t.Decisions++
			d, _, ok := la.Tools.Lookup(norm(tool.Name))
			ledgerAllows := ok && d == envelope.Allow
			if ledgerAllows == allowed[tool.Name] {
				t.DecisionsAgree++
			} else {
				differ = append(differ, tool.Name)
				if ledgerAllows {
					t.FailOpen++
				}
			}
		}
		if len(differ) == 0 {
			t.SessionsAgree++
			continue
		}
		var parts []string
		for _, n := range differ {
			_, r, _ := la.Tools.Lookup(norm(n))
			if allowed[n] {
				code := "catalogue:unknown"
				if r != nil {
					code = r.Code
				}
				parts = append(parts, fmt.Sprintf("%s: ledger deny (%s), OpenClaw allow", n, code))
			} else {
				parts = append(parts, n+": ledger allow, OpenClaw deny")
			}
		}
		report(KindTools, i, differ, "%s", strings.Join(parts, "; "))
	}
	return t, diffs
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func orAdmitted(code, msg string) string {
	if code == "" {
		return "admits"
	}
	return "refuses (" + code + ": " + msg + ")"
}

func issues(is []Issue) string {
	var parts []string
	for _, i := range is {
		parts = append(parts, i.Path+": "+i.Message)
	}
	return strings.Join(parts, "; ")
}

func sortedIDs(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Table writes the agreement table: one row per category, then all.
func Table(w io.Writer, byTag map[string]*Tally, all *Tally) {
	pct := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%d/%d (%.2f%%)", a, b, 100*float64(a)/float64(b))
	}
	fmt.Fprintf(w, "%-16s %8s  %-26s %-30s %-24s %-24s %-11s %s\n", "category", "lineages", "sessions (full tool list)", "decisions (tool by tool)", "admission", "validation", "unreachable", "fail-open")
	tags := make([]string, 0, len(byTag))
	for k := range byTag {
		tags = append(tags, k)
	}
	slices.Sort(tags)
	row := func(name string, t *Tally) {
		fmt.Fprintf(w, "%-16s %8d  %-26s %-30s %-24s %-24s %-11d %d\n", name, t.Lineages, pct(t.SessionsAgree, t.Sessions),
			pct(t.DecisionsAgree, t.Decisions), pct(t.AdmissionsAgree, t.Admissions), pct(t.ValidationsAgree, t.Validations), t.Unreachable, t.FailOpen)
	}
	for _, k := range tags {
		row(k, byTag[k])
	}
	row("all", all)
}
