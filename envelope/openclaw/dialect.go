package openclaw

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Name is the dialect's name as written in policy.set.
const Name = "openclaw"

// Dialect is the openclaw dialect. It holds no state; the zero value is
// ready to use and safe for concurrent use.
type Dialect struct{}

// New returns the openclaw dialect.
func New() *Dialect { return &Dialect{} }

// Name returns "openclaw".
func (*Dialect) Name() string { return Name }

// Normalize returns a tool name's canonical form (section 2.1) under the
// legacy release. Names normalize differently under other releases (the
// legacy release aliases tool_call and update_plan, 2026.9.6 does not);
// NormalizeUnder normalizes under the release of a policy.
func (*Dialect) Normalize(tool string) string { return normalize(tool) }

// NormalizeUnder returns a tool name's canonical form under the release
// the policy in force decides with; with no policy, under the newest.
func (*Dialect) NormalizeUnder(p *envelope.PolicyState, tool string) string {
	if p != nil {
		if pol, ok := p.Compiled.(*Policy); ok {
			return pol.rel.normalize(tool)
		}
	}
	return newest().normalize(tool)
}

// DefaultChildSource is persisted_child: a child's ordinary turn outside a
// continuation runs under its own spawn snapshot (section 10.1).
func (*Dialect) DefaultChildSource() string { return envelope.SourcePersistedChild }

// SetDecides is true: openclaw decides a call by its tool set alone (no
// per-call input rules and no ask), so a check may read the resolved set,
// except a call whose input holds a report of its tool's plugins
// (InputDecides).
func (*Dialect) SetDecides() bool { return true }

// Compile validates a policy document (section 1) under the release it
// names, or the newest. The catalogue needs no validation: any string is a
// tool name once normalized.
func (*Dialect) Compile(doc json.RawMessage, _ []string) (any, error) {
	d, err := ParseDocument(doc)
	if err != nil {
		return nil, err
	}
	return newPolicy(d), nil
}

// CompileRelease compiles a policy document under the release a record
// decided with: "" (a record from before releases were recorded) is the
// legacy release.
func (*Dialect) CompileRelease(doc json.RawMessage, _ []string, release string) (any, error) {
	d, err := ParseDocumentRelease(doc, release)
	if err != nil {
		return nil, err
	}
	return newPolicy(d), nil
}

// Release returns the release a policy.set of doc decides with: the one
// the document names, else the newest this build pins. doc must validate.
func (*Dialect) Release(doc json.RawMessage) string {
	d, err := ParseDocument(doc)
	if err != nil {
		return NewestRelease()
	}
	return d.rel.Name
}

// GrantIdentity is (kind, agent, target, set of normalized tools).
func (*Dialect) GrantIdentity(g *events.GrantData) string { return grantIdentity(g) }

// Effective applies the grants in force to the compiled revision and
// compiles the result against the catalogue.
func (*Dialect) Effective(p *envelope.PolicyState) (any, error) {
	pol, ok := p.Compiled.(*Policy)
	if !ok {
		return nil, events.Errorf(events.CodeInvalidPolicy, "the policy in force was not compiled by the openclaw dialect")
	}
	return newEffective(pol, p), nil
}

// effectiveOf returns the compiled effective policy of w, building it when
// the stored one is missing or stale (a safeguard; the fold stores it).
func effectiveOf(w envelope.World) *effective {
	p := w.Policy()
	if p == nil {
		return nil
	}
	if e, ok := p.Effective.(*effective); ok && e.current(p) {
		return e
	}
	pol, ok := p.Compiled.(*Policy)
	if !ok {
		return nil
	}
	return newEffective(pol, p)
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// CheckEvent runs the dialect's shape checks (section 13 step 1) after the
// generic ones: grant checks 1-3, session tools that are not MCP names
// (invalid_event), then the key forms (bad_session_key).
//
// Before them come the bounds on names (events.CheckNames; section 16.4,
// D-names): no control characters, bounded lengths, and agent ids that are
// single subject tokens (no '.', '*', '>' or white space; a grant may name
// "*"), in events and in a new policy document. They apply to new events
// only: Compile, which the fold runs on recorded documents, does not make
// them.
func (*Dialect) CheckEvent(ev *events.Event, payload any) error {
	if err := events.CheckNames(payload); err != nil {
		return err
	}
	switch d := payload.(type) {
	case *events.CheckedData:
		if _, ok := callOwners(d.Input); !ok {
			return events.Errorf(events.CodeInvalidEvent, "input %q must be a list of plugin ids, like [\"browser\"]", CallPluginKey)
		}
	case *events.TurnData:
		if d.Mode != "" {
			return events.Errorf(events.CodeInvalidEvent, "a turn of an openclaw session names no mode (OpenClaw has no permission modes), got %q", d.Mode)
		}
	case *events.PolicySetData:
		return checkDocumentNames(d.Document)
	case *events.GrantData:
		if err := checkAgentToken("agent", d.Agent, true); err != nil {
			return err
		}
		if err := checkAgentToken("target", d.Target, true); err != nil {
			return err
		}
		return checkGrant(d)
	case *events.StartedData:
		if err := checkAgentToken("agent", d.Agent, false); err != nil {
			return err
		}
		if err := checkSessionTools(d.Tools); err != nil {
			return err
		}
		for _, seg := range strings.Split(string(ev.Session), ":") {
			if strings.EqualFold(seg, "subagent") {
				return events.Errorf(events.CodeBadSessionKey,
					"session key %q has a subagent segment; children are created only by session.spawned", ev.Session)
			}
		}
	case *events.SpawnedData:
		if err := checkAgentToken("agent", d.Agent, false); err != nil {
			return err
		}
		if err := checkSessionTools(d.Tools); err != nil {
			return err
		}
		if !childKey(ev.Session, d.Agent) {
			return events.Errorf(events.CodeBadSessionKey,
				"a child's key must be agent:%s:subagent:<id> with <id> made of [A-Za-z0-9_-] (the target agent is %q), got %q",
				d.Agent, d.Agent, ev.Session)
		}
	}
	return nil
}

// checkAgentToken refuses an agent id that cannot be a segment of a session
// key (agent:<id>:...) or a subject token: events.CheckAgent, and no '.'.
func checkAgentToken(what, id string, wildcard bool) error {
	return events.CheckToken(what, id, events.MaxAgentIDLen, wildcard)
}

// checkDocumentNames refuses, in a new policy document, a control character
// in any key or string (an OpenClaw document holds names and modes, no free
// text), a string longer than events.MaxNameLen, and an agents.list id that
// checkAgentToken refuses.
func checkDocumentNames(doc []byte) error {
	return events.WalkDocument(doc, func(path, s string, key bool) error {
		what := path
		if key {
			what = "key " + strconv.Quote(s) + " of " + path
		}
		if err := events.CheckText(what, s, events.MaxNameLen); err != nil {
			return events.Errorf(events.CodeInvalidPolicy, "%s", err.(*events.Error).Msg)
		}
		if !key && agentIDPath.MatchString(path) {
			if err := checkAgentToken(path, s, false); err != nil {
				return events.Errorf(events.CodeInvalidPolicy, "%s", err.(*events.Error).Msg)
			}
		}
		return nil
	})
}

// agentIDPath matches the path of an agent entry's id.
var agentIDPath = regexp.MustCompile(`^document\.agents\.list\[[0-9]+\]\.id$`)

func checkSessionTools(tools []string) error {
	for _, t := range tools {
		if n := normalize(t); !isMCP(n) {
			return events.Errorf(events.CodeInvalidEvent,
				"session tool %q is not an MCP tool name (<server>__<tool>); only MCP tools join a session's catalogue", t)
		}
	}
	return nil
}

// childKey reports whether key is agent:<agent>:subagent:<id>.
func childKey(key events.SessionKey, agent string) bool {
	id, ok := strings.CutPrefix(string(key), "agent:"+agent+":subagent:")
	if !ok || id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Start admits a root: openclaw checks nothing beyond the generic ones, and
// fixes whether the root is sandboxed (section 6.1).
func (*Dialect) Start(w envelope.World, key events.SessionKey, d *events.StartedData) (envelope.Facts, error) {
	e := effectiveOf(w)
	if e == nil {
		return envelope.Facts{}, events.Errorf(events.CodeInvalidPolicy, "no openclaw policy is in force; append a policy.set first")
	}
	return envelope.Facts{Sandboxed: e.sandboxedRoot(key, d), Role: role(0, e.maxDepth)}, nil
}

// Spawn runs admission checks 6-10 of section 8 and captures the child's
// envelope (section 9), unsealed.
func (*Dialect) Spawn(w envelope.World, key events.SessionKey, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	e := effectiveOf(w)
	if e == nil {
		return nil, envelope.Facts{}, events.Errorf(events.CodeInvalidPolicy, "no openclaw policy is in force; append a policy.set first")
	}
	parent := w.Session(d.Parent)
	if parent == nil {
		return nil, envelope.Facts{}, events.UnknownParent(d.Parent)
	}
	return e.admit(w, parent, d)
}

// SamePolicy compares the captured requester policy of two envelopes: the
// tuple (inherited_allow, inherited_deny, source, delegated) (10.2, A8).
func (*Dialect) SamePolicy(a, b *envelope.Envelope) bool {
	if a == nil || b == nil {
		return a == b
	}
	if (a.InheritedAllow == nil) != (b.InheritedAllow == nil) || !slices.Equal(a.InheritedAllow, b.InheritedAllow) {
		return false
	}
	if !slices.Equal(a.InheritedDeny, b.InheritedDeny) || a.Source != b.Source {
		return false
	}
	da, db := a.Delegated, b.Delegated
	if da == nil || db == nil {
		return da == db
	}
	return da.Requester == db.Requester && da.Target == db.Target && slices.Equal(da.Deny, db.Deny)
}

// Tools resolves the session's tool set over its catalogue (section 5.3).
func (*Dialect) Tools(w envelope.World, s *envelope.Session) envelope.ToolSet {
	e := effectiveOf(w)
	if e == nil {
		return envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}
	}
	p := pipeline{rel: e.rel}
	e.resolve(w, s, &p, false)
	ts := e.toolSet(&p, s)
	rep := reportOf(w, s)
	if er := e.reported(w.Policy(), rep); er != nil {
		pr := pipeline{rel: er.rel}
		er.resolve(w, s, &pr, false)
		ts = rep.narrow(e, s, ts, er.toolSet(&pr, s))
	}
	return ts
}

// extra reports whether the j-th session tool, normalized to t, is one the
// policy catalogue does not hold and no earlier session tool named.
func (e *effective) extra(s *envelope.Session, j int, t string) bool {
	if t == "" {
		return false
	}
	if _, ok := e.cat.index[t]; ok {
		return false
	}
	for _, prev := range s.Tools[:j] {
		if e.rel.normalize(prev) == t {
			return false
		}
	}
	return true
}

// inCatalogue reports whether normalized t is in session s's catalogue and
// its policy-catalogue index (-1 for a session tool).
func (e *effective) inCatalogue(s *envelope.Session, t string) (int, bool) {
	if i, ok := e.cat.index[t]; ok {
		return i, true
	}
	for _, raw := range s.Tools {
		if e.rel.normalize(raw) == t && t != "" {
			return -1, true
		}
	}
	return -1, false
}

// toolSet decides every tool of the session's catalogue: the policy
// catalogue, then the session's own tools, in order.
func (e *effective) toolSet(p *pipeline, s *envelope.Session) envelope.ToolSet {
	// Decide into a scratch table (on the stack for ordinary catalogues),
	// layer by layer over the pre-computed verdicts, so that the hot loop
	// is a scan of int32 tables and the result slices are allocated at
	// their size.
	type verdict struct {
		li int32 // deciding layer, -1: allowed
		v  int32
	}
	var buf [128]verdict
	nc := len(e.cat.names)
	n := nc + len(s.Tools)
	scratch := buf[:0]
	if n > len(buf) {
		scratch = make([]verdict, 0, n)
	}
	scratch = scratch[:nc]
	for i := range scratch {
		scratch[i] = verdict{li: -1}
	}
	for li, c := range p.layers {
		if c == nil {
			continue
		}
		for i, v := range c.v {
			if v != vKept && scratch[i].li < 0 {
				scratch[i] = verdict{int32(li), v}
			}
		}
	}
	for j, raw := range s.Tools {
		if t := e.rel.normalize(raw); e.extra(s, j, t) {
			li, v := p.decide(-1, t)
			scratch = append(scratch, verdict{int32(li), v})
		}
	}
	denied := 0
	for _, r := range scratch {
		if r.li >= 0 {
			denied++
		}
	}
	ts := envelope.ToolSet{Allowed: make([]string, 0, len(scratch)-denied), Denied: make([]envelope.Denial, denied)}
	d := 0
	for k, r := range scratch {
		var t string
		if k < nc {
			t = e.cat.names[k]
		} else {
			t = e.extraAt(s, k-nc)
		}
		if r.li < 0 {
			ts.Allowed = append(ts.Allowed, t)
			continue
		}
		ts.Denied[d] = envelope.Denial{Tool: t, Reason: p.reason(int(r.li), r.v)}
		d++
	}
	return ts
}

// extraAt returns the k-th of the session's own tools that extra admits.
func (e *effective) extraAt(s *envelope.Session, k int) string {
	for j, raw := range s.Tools {
		if t := e.rel.normalize(raw); e.extra(s, j, t) {
			if k == 0 {
				return t
			}
			k--
		}
	}
	return ""
}

// Decide decides one tool for session s with the full trace: a catalogue
// step, then one step per layer of section 5.1. Of input, the dialect reads
// only the call's report of the tool's plugins (CallPluginKey).
//
// A session whose root's start reported the gateway's plugin tools
// (plugin_tools), or whose call reports the tool's plugins, is decided
// under the document and under that report, and denied when either denies
// (plugins.go).
//
// A call whose report is malformed (CallPluginKey not a list of plugin
// ids) is denied before the layers, input:plugin_report_malformed: an
// append refuses such a check (CheckEvent), and a query that records
// nothing must not decide it as if the call reported no plugin
// (TestMalformedCallReportDenies, conformance plugins-04).
func (*Dialect) Decide(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	return decideCall(w, s, tool, input, true)
}

// DecideBrief is Decide without the trace (projection.BriefDecider): the
// same tool, decision and reason, and no trace (the steps' details are
// most of a decision's allocations). The ledger records what a check
// decided this way; why and the queries answer with Decide.
// TestDecideBriefIsDecide holds the two to the same verdict.
func (*Dialect) DecideBrief(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) envelope.Verdict {
	v := decideCall(w, s, tool, input, false)
	v.Trace = nil
	return v
}

// decideCall is Decide, with its trace when trace is set.
func decideCall(w envelope.World, s *envelope.Session, tool string, input json.RawMessage, trace bool) envelope.Verdict {
	e := effectiveOf(w)
	if _, ok := callOwners(input); !ok {
		return e.malformedReport(tool)
	}
	v := e.decide(w, s, tool, trace)
	if e == nil || v.Decision == envelope.Deny {
		return v
	}
	rep := reportFor(w, s, tool, input)
	er := e.reported(w.Policy(), rep)
	if er == nil {
		return v
	}
	vr := er.decide(w, s, tool, trace)
	if vr.Decision != envelope.Deny {
		return v
	}
	return rep.disagree(e, vr)
}

// InputDecides reports whether a call's input takes part in its decision:
// it does when it may hold the call's report of the tool's plugins
// (CallPluginKey), so a check with it is decided in full, not read from
// the session's tool set (projection.InputDecides).
func (*Dialect) InputDecides(input json.RawMessage) bool {
	return len(input) > 0 && bytes.Contains(input, []byte(CallPluginKey))
}

// codePluginReportMalformed is the reason of a call whose input's report
// of the tool's plugins cannot be read; its trace's first step is the
// input's, and the catalogue and the layers are skipped.
const codePluginReportMalformed = "input:plugin_report_malformed"

// malformedReport is the verdict on a call of tool whose input's
// CallPluginKey is not a list of plugin ids.
func (e *effective) malformedReport(tool string) envelope.Verdict {
	t := normalize(tool)
	if e != nil {
		t = e.rel.normalize(tool)
	}
	r := envelope.Reason{Code: codePluginReportMalformed, Rule: "input " + strconv.Quote(CallPluginKey) +
		` must be a list of plugin ids, like ["browser"]: the call's report of its tool's plugins cannot be read, so the call is denied`}
	v := envelope.Verdict{Tool: t, Decision: envelope.Deny, Reason: r, Trace: make([]envelope.Step, 0, nLayers+2)}
	rr := r
	v.Trace = append(v.Trace, envelope.Step{Layer: "input", Outcome: envelope.Removed, Reason: &rr},
		envelope.Step{Layer: "catalogue", Outcome: envelope.Skipped})
	for li := 0; li < nLayers; li++ {
		v.Trace = append(v.Trace, envelope.Step{Layer: layerNames[li], Outcome: envelope.Skipped})
	}
	return v
}

// decide is Decide under e alone (nil: no policy), with its trace when
// trace is set; without, the verdict's tool, decision and reason are the
// same (nothing below reads the trace or the details to decide).
func (e *effective) decide(w envelope.World, s *envelope.Session, tool string, trace bool) envelope.Verdict {
	t := normalize(tool)
	if e != nil {
		t = e.rel.normalize(tool)
	}
	v := envelope.Verdict{Tool: t}
	if trace {
		v.Trace = make([]envelope.Step, 0, nLayers+1)
	}
	i, known := -1, false
	if e != nil {
		i, known = e.inCatalogue(s, t)
	}
	if !known {
		v.Decision = envelope.Deny
		v.Reason = envelope.Reason{Code: codeCatalogueUnknown, Rule: "catalogue: not in the policy catalogue or the session's tools"}
		if e != nil {
			v.Reason.Record = e.rev
		}
		if !trace {
			return v
		}
		r := v.Reason
		v.Trace = append(v.Trace, envelope.Step{Layer: "catalogue", Outcome: envelope.Removed, Reason: &r})
		for li := 0; li < nLayers; li++ {
			v.Trace = append(v.Trace, envelope.Step{Layer: layerNames[li], Outcome: envelope.Skipped})
		}
		return v
	}
	if trace {
		v.Trace = append(v.Trace, envelope.Step{Layer: "catalogue", Outcome: envelope.Kept, Detail: "in the session's catalogue"})
	}
	p := pipeline{rel: e.rel}
	e.resolve(w, s, &p, trace)
	decided := false
	// An allow names the last layer that restricted the tool and admitted it
	// (its allow list or the inherited ceiling), else default:allow.
	allow := envelope.Reason{Code: codeDefaultAllow, Rule: ruleDefaultAllow, Record: e.rev}
	for li, c := range p.layers {
		st := envelope.Step{Layer: layerNames[li]}
		switch {
		case decided:
			st.Outcome = envelope.Skipped
		case c == nil:
			st.Outcome = envelope.Absent
		default:
			st.Detail = p.details[li]
			if code := c.verdict(i, t); code != vKept {
				r := p.reason(li, code)
				st.Outcome, st.Reason = envelope.Removed, &r
				v.Decision, v.Reason, decided = envelope.Deny, r, true
			} else {
				st.Outcome = envelope.Kept
				if how := ""; trace {
					if how = c.admittedBy(i, t); how != "" {
						st.Detail += "; " + how
					}
				}
				if r, ok := p.admission(li, i, t); ok {
					allow = r
				}
			}
		}
		if trace {
			v.Trace = append(v.Trace, st)
		}
	}
	if !decided {
		v.Decision, v.Reason = envelope.Allow, allow
	}
	return v
}

// The reason of an allow that no layer restricted.
const (
	codeDefaultAllow = "default:allow"
	ruleDefaultAllow = "no layer restricts the tool: in the session's catalogue"
)

// admission is the reason layer li gives for admitting a tool it kept (a
// catalogue index i, name t): its allow entry that matched, with the record
// that introduced it, or the inherited ceiling. ok is false when the layer
// has neither, and so admitted the tool only by not removing it.
func (p *pipeline) admission(li, i int, t string) (envelope.Reason, bool) {
	c := p.layers[li]
	if c.ceil != nil {
		return envelope.Reason{Code: allowCodes[lInherited], Rule: "inherited_allow", Record: p.inherited}, true
	}
	a := c.admitted(i, t)
	switch {
	case c.nAllow == 0 || a < 0:
		return envelope.Reason{}, false
	case a == c.nAllow:
		// apply_patch through write, skills_read through read.
		return envelope.Reason{Code: allowCodes[li], Rule: c.allowRule, Record: p.rev}, true
	}
	list := c.allow[a]
	h := list.hit(i, t)
	rec := list.recs[h]
	if rec == nil {
		rec = p.rev
	}
	return envelope.Reason{Code: allowCodes[li], Rule: list.rules[h], Record: rec}, true
}

// admittedBy says what admitted a kept tool, with the record that
// introduced the entry when that is a grant.
func (c *cLayer) admittedBy(i int, t string) string {
	if c.ceil != nil {
		return "in inherited_allow"
	}
	if c.nAllow == 0 {
		return ""
	}
	a := c.admitted(i, t)
	switch {
	case a < 0:
		return ""
	case a == c.nAllow:
		if t == "apply_patch" {
			return "admitted because the allow list matches write"
		}
		return "admitted because the allow list matches read"
	}
	list := c.allow[a]
	h := list.hit(i, t)
	how := "admitted by " + list.rules[h]
	if rec := list.recs[h]; rec != nil && rec.Type != events.PolicySet {
		how += " (" + string(rec.Type) + " at seq " + strconv.FormatUint(rec.Seq, 10) + ")"
	}
	return how
}
