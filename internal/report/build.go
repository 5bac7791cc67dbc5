package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// Options choose what a report covers.
type Options struct {
	// Root limits the report to the spawn tree under this session; ""
	// reports every tree.
	Root events.SessionKey
	// Filter keeps the trees whose root passes it (scope, user, project,
	// runtime), and the policy records of their scopes (Selection).
	Filter wire.Filter
	// Title heads the page; "" means "ledger audit report".
	Title string
	// Where is the ledger (or scenario, or log file) the records were
	// read from: every command the page prints names it, so that pasted
	// as printed it answers from that ledger. The zero value prints
	// commands that read ./ledger-data.
	Where ledgercmd.Conn
}

// Report is everything the page shows, computed once so the template only
// lays it out.
type Report struct {
	Title string
	Root  events.SessionKey
	// Filter is what selected the trees, as text ("" for none).
	Filter string
	// WhyCall and WhyTurn are the commands that explain a call and a
	// turn's tool, with ID, S, T and N to fill in (the footer's).
	WhyCall, WhyTurn string
	// Seq is the position reported on: the last record read.
	Seq         uint64
	First, Last string // times of the first and last records
	// Policies are the policies in force in the reported scopes, by name.
	Policies []*PolicySummary
	// Changes are every policy.set, grant.added, grant.revoked,
	// deny.added and deny.lifted of the reported scopes.
	Changes  []*Entry
	Tree     []*Node
	Sessions []*Session
	// Denials lists what an investigation starts from: tools lost at a
	// turn, calls denied or asked, effects refused.
	Denials  []*Denial
	Overview *Overview
}

// PolicySummary is the policy in force at the reported position.
type PolicySummary struct {
	Scope       string
	Dialect     string
	Revision    string
	Hash        string
	Grants      []string
	Revocations []string
}

// Node is a session in the spawn tree.
type Node struct {
	Key    events.SessionKey
	Anchor string
	// Scope and Who are shown on roots only: a sub-agent shares its
	// root's.
	Scope    string
	Who      string
	Agent    string
	State    string
	Turns    int
	Source   string
	Children []*Node
}

// Session is one session's section: who it is and its timeline.
type Session struct {
	Key    events.SessionKey
	Anchor string
	// Scope is the scope the session is bound to; Identity its root's
	// (nil when the root recorded none).
	Scope    string
	Identity *wire.Identity
	Agent    string
	Depth    int
	State    string
	Parent   events.SessionKey
	ParentID string
	Actor    string
	Source   string // the current policy source, with its reason
	Envelope string // the envelope as JSON, "" for a root
	Hash     string
	Timeline []*Entry
}

// Entry is one row of a timeline: a record as one session (or the policy
// log) sees it.
type Entry struct {
	Anchor string
	Seq    uint64
	Time   string
	// Kind is a stable word used as the row's class: start, spawn, child,
	// turn, yield, complete, resume, check, effect, refusal, policy,
	// grant, revoke.
	Kind  string
	Label string
	Text  string
	// Link, when set, is the anchor the text refers to (a child's
	// section, the check an effect relied on).
	Link string
	// Bad marks what an investigation looks at: a lost tool, a denial, a
	// fallback continuation, a revocation.
	Bad  bool
	Turn *Turn
	// Why explains a denied or asked call, or a refused effect.
	Why *Why
	// Tool is the tool of a check, an effect or a refusal.
	Tool string
	// Input is what a call was to do, shortened: Bash's command, a file
	// tool's path, a fetch's url, ... ("" for a call without input).
	Input string
}

// Turn is a turn.started row: how the tool set differs from the
// session's previous turn, each change with the record that made it, and
// the tool set resolved at the turn's start (shown open on the session's
// first turn only: a long session's rows would otherwise repeat it).
type Turn struct {
	Turn         int
	Source       string
	Continuation uint64 // the session.resumed the turn continues, 0 if none
	// ContinuationAnchor is the row of that session.resumed.
	ContinuationAnchor string
	// First is set on the session's first turn, which has no previous one
	// to differ from.
	First   bool
	Allowed []string
	Gained  []*Tool
	Lost    []*Tool
	Denied  []*Tool
}

// Tool is a tool of a turn: a denied one with its full why trace, or one
// the turn gained or lost, with what it was and what changed it.
type Tool struct {
	Anchor string
	Tool   string
	// Code and Rule are the reason of its decision at this turn.
	Code string
	Rule string
	Why  *Why
	// Was is a gained or lost tool's decision at the previous turn, with
	// its reason.
	Was string
	// Explain says what the layer that decided the change holds, in the
	// dialect's words (a release rule: what that release does).
	Explain string
	// Cause is the record after which its decision changed.
	Cause *Cause
}

// Cause is the record that changed a tool's decision between two turns.
type Cause struct {
	Seq  uint64
	Text string
	// Link is the anchor of its row ("" for the turn's own start).
	Link string
}

// Why is a decision with every layer's step, and the terminal command
// that prints the same answer.
type Why struct {
	// Scope is the scope whose policy decided.
	Scope    string
	Decision string
	Code     string
	Rule     string
	Steps    []Step
	// Policy is the policy revision and grants the decision saw.
	Policy  string
	Command string
	// Input is a call's input as its tool.checked recorded it ("" for a
	// turn's tool): the command names the call by its id.
	Input string
}

// Step is one layer of a why trace.
type Step struct {
	N       int
	Layer   string
	Outcome string
	Code    string
	Rule    string
	Detail  string
}

// Denial is a row of the report's index of denials.
type Denial struct {
	Seq     uint64
	Time    string
	Scope   string
	Session events.SessionKey
	// Who is the identity of the session's root (IdentityText).
	Who    string
	Tool   string
	What   string // "lost at turn 2", "call denied", "effect refused"
	Code   string
	Anchor string
}

// Build computes the report of the log whose records are recs, the i-th at
// sequence i+1. It folds them into a state of its own with dialects, and on
// the way keeps the why trace of every denied or asked call as the state
// just before the call's record decided it, so each trace is the one the
// ledger answered with, even when the policy changed within the turn.
func Build(dialects projection.Dialects, recs []*events.Record, opts Options) (*Report, error) {
	st := projection.New(dialects)
	calls := map[uint64]*Why{}
	changed := newCauses()
	for i, rec := range recs {
		seq := uint64(i) + 1
		if rec.Type == events.ToolChecked {
			var d events.CheckedData
			var dec projection.CheckDecided
			if err := json.Unmarshal(rec.Data, &d); err != nil {
				return nil, fmt.Errorf("report: record %d: %w", seq, err)
			}
			if err := json.Unmarshal(rec.Decided, &dec); err != nil {
				return nil, fmt.Errorf("report: record %d: %w", seq, err)
			}
			if dec.Decision != envelope.Allow {
				v, err := st.Why(rec.Session, d.Tool, d.Input)
				if err != nil {
					return nil, fmt.Errorf("report: record %d: %w", seq, err)
				}
				w := why(v, st.ScopeOf(rec.Session), st.SessionPolicy(rec.Session), whyCall(opts.Where, d.Call, seq))
				w.Input = string(d.Input)
				calls[seq] = w
			}
		}
		if rec.Type == events.EffectStarted {
			// An effect decided ask (a later enforcement point started a
			// call its check asked about) is listed as ledger denials lists
			// it: its trace is the one it was decided with, on the input of
			// the check that prepared it.
			var d events.EffectData
			var dec projection.EffectDecided
			if err := json.Unmarshal(rec.Data, &d); err != nil {
				return nil, fmt.Errorf("report: record %d: %w", seq, err)
			}
			if err := json.Unmarshal(rec.Decided, &dec); err != nil {
				return nil, fmt.Errorf("report: record %d: %w", seq, err)
			}
			if dec.Decision != envelope.Allow {
				input := preparedInput(recs, dec.PreparedAt)
				v, err := st.Why(rec.Session, d.Tool, input)
				if err != nil {
					return nil, fmt.Errorf("report: record %d: %w", seq, err)
				}
				w := why(v, st.ScopeOf(rec.Session), st.SessionPolicy(rec.Session), whyCall(opts.Where, d.Call, seq))
				w.Input = string(input)
				calls[seq] = w
			}
		}
		if err := st.Apply(projection.Input{Record: rec}, seq); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		changed.after(st, rec, seq)
	}
	r := &Report{Title: opts.Title, Root: opts.Root, Filter: filterText(opts.Filter), Seq: st.Position(),
		WhyCall: opts.Where.Command("why", "--call") + " ID", WhyTurn: opts.Where.Command("why", "--session") + " S --tool T --turn N"}
	if r.Title == "" {
		r.Title = "ledger audit report"
	}
	if len(recs) > 0 {
		r.First, r.Last = recs[0].Time, recs[len(recs)-1].Time
	}
	sel, err := SelectIn(st, opts.Root, opts.Filter)
	if err != nil {
		return nil, err
	}
	for _, name := range st.Scopes() {
		p := st.PolicyOf(name)
		if p == nil || !sel.Scope(name) {
			continue
		}
		ps := &PolicySummary{Scope: name, Dialect: p.Dialect, Revision: refText(&p.Revision), Hash: p.Hash}
		for _, g := range p.Grants {
			ps.Grants = append(ps.Grants, grantText(&g.Data)+" ("+refText(&g.Record)+")")
		}
		for _, rv := range p.Revocations {
			ps.Revocations = append(ps.Revocations, rv.Rule()+" ("+refText(&rv.Record)+")")
		}
		r.Policies = append(r.Policies, ps)
	}
	roots := sel.Tops()
	// Sessions are numbered in tree order: anchors are short, unique and
	// the same for the same log.
	b := &builder{st: st, recs: recs, calls: calls, causes: changed.byTurn, r: r, sel: sel, where: opts.Where, index: map[events.SessionKey]*Session{}}
	for _, root := range roots {
		for _, k := range Subtree(st, root) {
			s := st.Session(k)
			sec := &Session{Key: k, Anchor: fmt.Sprintf("s%d", len(r.Sessions)+1), Scope: st.ScopeOf(k), Agent: s.Agent, Depth: s.Depth,
				State: string(s.State), Parent: s.Parent, Actor: s.Actor, Source: sourceText(s.Context.Source, s.Context.SourceReason)}
			if s.Envelope != nil {
				e, _ := json.Marshal(s.Envelope)
				sec.Envelope, sec.Hash = string(e), s.Envelope.Hash
			}
			if root := st.Session(RootOf(st, k)); root != nil {
				sec.Identity = wire.IdentityOf(root.Start)
			}
			r.Sessions = append(r.Sessions, sec)
			b.index[k] = sec
		}
	}
	for _, sec := range r.Sessions {
		if p := b.index[sec.Parent]; p != nil {
			sec.ParentID = p.Anchor
		}
	}
	for _, root := range roots {
		n := b.node(root)
		if n.Scope == "" {
			// A sub-agent named with Options.Root: its root's scope and
			// identity, which it shares.
			n.Scope, n.Who = st.ScopeOf(root), IdentityText(b.index[root].Identity)
		}
		r.Tree = append(r.Tree, n)
	}
	if err := b.timelines(); err != nil {
		return nil, err
	}
	r.Overview = overview(r, len(recs))
	return r, nil
}

type builder struct {
	st   *projection.State
	recs []*events.Record
	// calls holds the why of every denied or asked call, by sequence.
	calls map[uint64]*Why
	// causes holds, by turn.started sequence, the record that changed
	// each tool since the session's previous turn.
	causes map[uint64]map[string]uint64
	r      *Report
	sel    *Selection
	where  ledgercmd.Conn
	index  map[events.SessionKey]*Session
}

func (b *builder) node(key events.SessionKey) *Node {
	s := b.st.Session(key)
	n := &Node{Key: key, Anchor: b.index[key].Anchor, Agent: s.Agent, State: string(s.State), Turns: s.Turn,
		Source: sourceText(s.Context.Source, s.Context.SourceReason)}
	if s.Root() {
		n.Scope, n.Who = b.st.ScopeOf(key), IdentityText(wire.IdentityOf(s.Start))
	}
	for _, c := range s.Children {
		n.Children = append(n.Children, b.node(c))
	}
	return n
}

// timelines walks the records once, adding each to the timelines that show
// it: a session's own records, a spawn to its parent too, and every policy
// change to each session alive when it landed.
func (b *builder) timelines() error {
	ended := b.endings()
	prevAllowed := map[events.SessionKey][]string{}
	for i, rec := range b.recs {
		seq := uint64(i) + 1
		var err error
		if rec.Type.IsPolicy() {
			err = b.policyChange(rec, seq, ended)
		} else {
			err = b.sessionRecord(rec, seq, prevAllowed)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// endings maps each completed session to the sequence of its completion:
// a session is alive from its start or spawn to its completion.
func (b *builder) endings() map[events.SessionKey]uint64 {
	ended := map[events.SessionKey]uint64{}
	for i, rec := range b.recs {
		if rec.Type == events.SessionCompleted {
			ended[rec.Session] = uint64(i) + 1
		}
	}
	return ended
}

// policyChange adds a policy record of a selected scope to the report's
// changes, and a copy linking to it to the timeline of each session of its
// scope alive when it landed: a policy change holds for the sessions of
// its scope only.
func (b *builder) policyChange(rec *events.Record, seq uint64, ended map[events.SessionKey]uint64) error {
	scope := PolicyScope(rec)
	if !b.sel.Scope(scope) {
		return nil
	}
	e, err := b.policyEntry(rec, seq)
	if err != nil {
		return err
	}
	e.Anchor = fmt.Sprintf("p%d", seq)
	b.r.Changes = append(b.r.Changes, e)
	for _, sec := range b.r.Sessions {
		s := b.st.Session(sec.Key)
		if sec.Scope == scope && s.Origin.Seq < seq && (ended[sec.Key] == 0 || seq < ended[sec.Key]) {
			c := *e
			c.Anchor = fmt.Sprintf("%s-r%d", sec.Anchor, seq)
			c.Link = e.Anchor
			sec.Timeline = append(sec.Timeline, &c)
		}
	}
	return nil
}

// sessionRecord adds a record of a session in the report to its timeline,
// when it is of a type the timeline shows.
func (b *builder) sessionRecord(rec *events.Record, seq uint64, prevAllowed map[events.SessionKey][]string) error {
	sec := b.index[rec.Session]
	if sec == nil {
		return nil
	}
	e := &Entry{Anchor: fmt.Sprintf("%s-r%d", sec.Anchor, seq), Seq: seq, Time: rec.Time}
	ev := rec.Event()
	p, err := ev.Payload()
	if err != nil {
		return fmt.Errorf("report: record %d: %w", seq, err)
	}
	shown, err := b.describe(sec, e, rec, seq, p, prevAllowed)
	if err != nil || !shown {
		return err
	}
	sec.Timeline = append(sec.Timeline, e)
	return nil
}

// describe fills in e for the record rec of session sec, whose payload is
// p; shown is false for a type the timeline does not show.
func (b *builder) describe(sec *Session, e *Entry, rec *events.Record, seq uint64, p any, prevAllowed map[events.SessionKey][]string) (shown bool, err error) {
	switch d := p.(type) {
	case *events.StartedData:
		describeStart(e, rec, d)
	case *events.EndedData:
		describeRuntime(e, "end", "ended", "ended by its runtime", d.Reason)
	case *events.ReopenedData:
		describeRuntime(e, "reopen", "reopened", "reopened by its runtime", d.Reason)
	case *events.SpawnedData:
		b.describeSpawn(sec, e, rec, seq, d)
	case *events.TurnData:
		err = b.turn(sec, e, d, prevAllowed)
	case *events.YieldedData:
		e.Kind, e.Label = "yield", "yielded"
		e.Text = "waits for " + joinKeys(d.Children)
	case *events.CompletedData:
		e.Kind, e.Label = "complete", "completed"
		e.Text = "status " + d.Status
	case *events.ResumedData:
		err = describeResume(e, rec, seq, d)
	case *events.CheckedData:
		err = b.check(sec, e, rec, d)
	case *events.EffectData:
		err = b.effect(sec, e, rec, seq, d)
	default:
		return false, nil
	}
	return true, err
}

func describeStart(e *Entry, rec *events.Record, d *events.StartedData) {
	e.Kind, e.Label = "start", "started"
	e.Text = fmt.Sprintf("a root session of agent %s, started by %s", d.Agent, rec.Actor)
	if d.Sender != "" || d.Channel != "" {
		e.Text += fmt.Sprintf(" (channel %q, sender %q)", d.Channel, d.Sender)
	}
	if d.Scope != "" {
		e.Text += ", in scope " + d.Scope
	}
}

// describeRuntime describes a session's end or reopening by its runtime,
// with the reason when given.
func describeRuntime(e *Entry, kind, label, text, reason string) {
	e.Kind, e.Label, e.Text = kind, label, text
	if reason != "" {
		e.Text += " (" + reason + ")"
	}
}

// describeSpawn describes a spawn, linking to the parent when the report
// shows it, and adds to the parent's timeline the entry of its child.
func (b *builder) describeSpawn(sec *Session, e *Entry, rec *events.Record, seq uint64, d *events.SpawnedData) {
	e.Kind, e.Label = "spawn", "spawned"
	e.Text = fmt.Sprintf("spawned by %s as agent %s", d.Parent, d.Agent)
	if d.Label != "" {
		e.Text += fmt.Sprintf(" (%q)", d.Label)
	}
	if ps := b.index[d.Parent]; ps != nil {
		e.Link = ps.Anchor
		child := &Entry{Anchor: fmt.Sprintf("%s-r%d", ps.Anchor, seq), Seq: seq, Time: rec.Time, Kind: "child", Label: "spawned a child",
			Text: fmt.Sprintf("%s (agent %s)", rec.Session, d.Agent), Link: sec.Anchor}
		ps.Timeline = append(ps.Timeline, child)
	}
}

func describeResume(e *Entry, rec *events.Record, seq uint64, d *events.ResumedData) error {
	var dec projection.ResumeDecided
	if err := json.Unmarshal(rec.Decided, &dec); err != nil {
		return fmt.Errorf("report: record %d: %w", seq, err)
	}
	e.Kind, e.Label = "resume", "continuation"
	e.Text = fmt.Sprintf("resumed by %s from %s: runs under %s", d.Handoff, joinKeys(d.From), sourceText(dec.PolicySource, dec.SourceReason))
	// A continuation that fell back (a reason is given) is what an
	// investigation of a surprising tool set looks at.
	e.Bad = dec.SourceReason != ""
	return nil
}

// effect describes an effect's start, linking to the check it was
// prepared at. An effect decided ask (or deny) is, as for a check, what
// an investigation looks at, and in the index of denials: ledger denials
// lists every record decided deny or ask (TestAskedOneRecordThenEffectListedAlike).
func (b *builder) effect(sec *Session, e *Entry, rec *events.Record, seq uint64, d *events.EffectData) error {
	var dec projection.EffectDecided
	if err := json.Unmarshal(rec.Decided, &dec); err != nil {
		return fmt.Errorf("report: record %d: %w", seq, err)
	}
	e.Kind, e.Label = "effect", "effect started"
	e.Text = fmt.Sprintf("%s (call %s, turn %d): %s, checked at seq %d", d.Tool, d.Call, d.Turn, dec.Decision, dec.PreparedAt)
	if dec.Reason.Code != "" && dec.Decision != envelope.Allow {
		e.Text += " (" + dec.Reason.Code + ")"
	}
	e.Link = fmt.Sprintf("%s-r%d", sec.Anchor, dec.PreparedAt)
	if dec.Decision == envelope.Allow {
		return nil
	}
	e.Bad = true
	e.Why = b.calls[seq]
	what := "call denied"
	if dec.Decision == envelope.Ask {
		what = "call asked"
	}
	b.r.Denials = append(b.r.Denials, &Denial{Seq: seq, Time: e.Time, Scope: sec.Scope, Session: sec.Key, Who: IdentityText(sec.Identity), Tool: d.Tool, What: what,
		Code: dec.Reason.Code, Anchor: e.Anchor + "-why"})
	return nil
}

// preparedInput is the input of the tool.checked at seq, which prepared
// an effect (nil when seq names no check).
func preparedInput(recs []*events.Record, seq uint64) json.RawMessage {
	if seq == 0 || seq > uint64(len(recs)) || recs[seq-1].Type != events.ToolChecked {
		return nil
	}
	var d events.CheckedData
	if json.Unmarshal(recs[seq-1].Data, &d) != nil {
		return nil
	}
	return d.Input
}

func (b *builder) policyEntry(rec *events.Record, seq uint64) (*Entry, error) {
	e := &Entry{Seq: seq, Time: rec.Time}
	switch rec.Type {
	case events.PolicySet:
		var d events.PolicySetData
		var dec projection.PolicyDecided
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return nil, fmt.Errorf("report: record %d: %w", seq, err)
		}
		if err := json.Unmarshal(rec.Decided, &dec); err != nil {
			return nil, fmt.Errorf("report: record %d: %w", seq, err)
		}
		e.Kind, e.Label = "policy", "policy set"
		e.Text = fmt.Sprintf("%s policy by %s, %s", d.Dialect, rec.Actor, dec.Hash)
		if d.Catalogue != nil {
			e.Text += fmt.Sprintf(", catalogue of %d tools", len(d.Catalogue))
		}
	case events.GrantAdded, events.GrantRevoked:
		var d events.GrantData
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return nil, fmt.Errorf("report: record %d: %w", seq, err)
		}
		e.Kind, e.Label = "grant", "grant added"
		if rec.Type == events.GrantRevoked {
			e.Kind, e.Label, e.Bad = "revoke", "grant revoked", true
		}
		e.Text = grantText(&d) + " by " + rec.Actor
	case events.DenyAdded, events.DenyLifted:
		var d events.DenyData
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return nil, fmt.Errorf("report: record %d: %w", seq, err)
		}
		e.Kind, e.Label, e.Bad = "deny", "revocation added", true
		if rec.Type == events.DenyLifted {
			e.Kind, e.Label, e.Bad = "lift", "revocation lifted", false
		}
		rv := envelope.Revocation{Data: d}
		e.Text = rv.Rule() + " by " + rec.Actor
	}
	if scope := PolicyScope(rec); scope != events.DefaultScope || b.multiScope() {
		e.Text = "scope " + scope + ": " + e.Text
	}
	return e, nil
}

// turn fills a turn.started row from what the projection stored for the
// turn: its tool set, its context, and the why trace of each denied tool
// as the turn's start saw it.
func (b *builder) turn(sec *Session, e *Entry, d *events.TurnData, prevAllowed map[events.SessionKey][]string) error {
	tv, err := b.st.AtTurn(sec.Key, d.Turn)
	if err != nil {
		return fmt.Errorf("report: record %d: %w", e.Seq, err)
	}
	ts := tv.Tools()
	c := tv.SessionView().Context
	t := &Turn{Turn: d.Turn, Source: sourceText(c.Source, c.SourceReason), Allowed: ts.Allowed}
	if c.Continuation != nil {
		t.Continuation = c.Continuation.Seq
		t.ContinuationAnchor = fmt.Sprintf("%s-r%d", sec.Anchor, c.Continuation.Seq)
	}
	anchor := fmt.Sprintf("%s-t%d", sec.Anchor, d.Turn)
	byTool := map[string]*Tool{}
	for i, dn := range ts.Denied {
		tool := &Tool{Anchor: fmt.Sprintf("%s-why-%d", anchor, i+1), Tool: dn.Tool, Code: dn.Reason.Code, Rule: reasonRule(&dn.Reason),
			Why: why(tv.Why(dn.Tool, nil), tv.Scope(), tv.Policy(), b.where.Command("why", "--session", string(sec.Key), "--tool", dn.Tool, "--turn", strconv.Itoa(d.Turn)))}
		t.Denied = append(t.Denied, tool)
		byTool[dn.Tool] = tool
	}
	gained, lost := Diff(prevAllowed[sec.Key], ts)
	prevAllowed[sec.Key] = ts.Allowed
	var prev *projection.TurnView
	if d.Turn > 1 {
		prev, _ = b.st.AtTurn(sec.Key, d.Turn-1)
	}
	t.First = prev == nil
	if prev != nil {
		for i, g := range gained {
			v := tv.Why(g, nil)
			gt := &Tool{Anchor: fmt.Sprintf("%s-gained-%d", anchor, i+1), Tool: g, Code: v.Reason.Code, Rule: reasonRule(&v.Reason)}
			pv := prev.Why(g, nil)
			gt.Was, gt.Explain = verdictText(pv), decidingDetail(pv)
			gt.Cause = b.cause(sec, e.Seq, g, t.Source)
			t.Gained = append(t.Gained, gt)
		}
		for i, l := range lost {
			tool := byTool[l.Tool]
			if tool == nil {
				tool = &Tool{Tool: l.Tool, Code: l.Reason.Code}
			}
			lt := *tool
			lt.Anchor = fmt.Sprintf("%s-lost-%d", anchor, i+1)
			lt.Was = verdictText(prev.Why(l.Tool, nil))
			if lt.Why != nil {
				lt.Explain = decidingDetail(tv.Why(l.Tool, nil))
			}
			lt.Cause = b.cause(sec, e.Seq, l.Tool, t.Source)
			t.Lost = append(t.Lost, &lt)
			b.r.Denials = append(b.r.Denials, &Denial{Seq: e.Seq, Time: e.Time, Scope: sec.Scope, Session: sec.Key, Who: IdentityText(sec.Identity), Tool: l.Tool,
				What: fmt.Sprintf("lost at turn %d", d.Turn), Code: l.Reason.Code, Anchor: lt.Anchor})
		}
	}
	e.Anchor, e.Kind, e.Label, e.Turn = anchor, "turn", fmt.Sprintf("turn %d", d.Turn), t
	e.Bad = len(t.Lost) > 0
	e.Text = fmt.Sprintf("under %s: %d allowed, %d denied", t.Source, len(ts.Allowed), len(ts.Denied))
	return nil
}

// check fills a tool.checked row; a denied or asked call, or a refused
// effect, gets the why trace the ledger decided it with.
func (b *builder) check(sec *Session, e *Entry, rec *events.Record, d *events.CheckedData) error {
	var dec projection.CheckDecided
	if err := json.Unmarshal(rec.Decided, &dec); err != nil {
		return fmt.Errorf("report: record %d: %w", e.Seq, err)
	}
	call := ""
	if d.Call != "" {
		call = ", call " + d.Call
	}
	e.Kind, e.Label, e.Tool = "check", "check", d.Tool
	e.Input = inputText(d.Input)
	e.Text = fmt.Sprintf("%s (turn %d%s): %s", d.Tool, d.Turn, call, dec.Decision)
	if dec.Reason.Code != "" {
		e.Text += " (" + dec.Reason.Code + ")"
	}
	if d.Effect && dec.Decision == envelope.Allow {
		// One record for the check and the start (effect: true).
		e.Label = "check, effect started"
		e.Text += ", effect started"
	}
	if dec.Decision == envelope.Allow {
		return nil
	}
	e.Bad = true
	e.Why = b.calls[e.Seq]
	what := "call denied"
	if dec.Decision == envelope.Ask {
		what = "call asked"
	}
	if dec.Reason.Code == projection.ReasonAuthorizationChanged {
		e.Kind, e.Label, what = "refusal", "effect refused", "effect refused"
		// The record says deny (an effect is refused), and its rule is the
		// reason code of the decision that refused it, which may be an ask.
		e.Text = fmt.Sprintf("%s (turn %d%s): its check at seq %d no longer holds: now %s (%s)", d.Tool, d.Turn, call, dec.PreparedAt, e.Why.Decision, dec.Reason.Rule)
		e.Link = fmt.Sprintf("%s-r%d", sec.Anchor, dec.PreparedAt)
	}
	b.r.Denials = append(b.r.Denials, &Denial{Seq: e.Seq, Time: e.Time, Scope: sec.Scope, Session: sec.Key, Who: IdentityText(sec.Identity), Tool: d.Tool, What: what,
		Code: dec.Reason.Code, Anchor: e.Anchor + "-why"})
	return nil
}

// whyCall is the command that answers why a recorded call was decided
// as it was: by its call id, or by its record's sequence when it has none.
func whyCall(where ledgercmd.Conn, call string, seq uint64) string {
	return where.Command("why", ledgercmd.WhyArgs(call, seq)...)
}

func why(v envelope.Verdict, scope string, p *envelope.PolicyState, cmd string) *Why {
	w := &Why{Scope: scope, Decision: string(v.Decision), Code: v.Reason.Code, Rule: reasonRule(&v.Reason), Command: cmd}
	if p != nil {
		w.Policy = fmt.Sprintf("revision seq %d, %d grant(s) in force", p.Revision.Seq, len(p.Grants))
	}
	for i, s := range v.Trace {
		st := Step{N: i + 1, Layer: s.Layer, Outcome: string(s.Outcome), Detail: s.Detail}
		if s.Reason != nil {
			st.Code, st.Rule = s.Reason.Code, reasonRule(s.Reason)
		}
		w.Steps = append(w.Steps, st)
	}
	return w
}

// reasonRule is the rule that matched and the record that introduced it,
// as `ledger why` prints them.
func reasonRule(r *envelope.Reason) string {
	var parts []string
	if r.Rule != "" {
		parts = append(parts, r.Rule)
	}
	if r.Record != nil {
		parts = append(parts, "("+refText(r.Record)+")")
	}
	return strings.Join(parts, " ")
}

func refText(r *envelope.RecordRef) string {
	return fmt.Sprintf("seq %d %s %s", r.Seq, r.Type, r.ID)
}

func sourceText(source, reason string) string {
	if reason != "" {
		return source + " (" + reason + ")"
	}
	return source
}

func grantText(d *events.GrantData) string {
	s := fmt.Sprintf("%s for agent %s, target %s", d.Kind, d.Agent, d.Target)
	if len(d.Tools) > 0 {
		s += ": " + strings.Join(d.Tools, ", ")
	}
	if d.Rule != "" {
		s += fmt.Sprintf(": %s %s", d.Behavior, d.Rule)
	}
	return s
}

func joinKeys(keys []events.SessionKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// multiScope reports whether the log has more than one scope, when even
// the default scope is named on a policy change.
func (b *builder) multiScope() bool { return len(b.st.Scopes()) > 1 }

// IdentityText is an identity as a tree shows it on a root's line:
// runtime (with its version), user@host, project; "" when none was
// recorded.
func IdentityText(id *wire.Identity) string {
	if id == nil {
		return ""
	}
	var parts []string
	if id.Runtime != "" {
		parts = append(parts, strings.TrimSpace(id.Runtime+" "+id.RuntimeVersion))
	}
	switch {
	case id.User != "" && id.Host != "":
		parts = append(parts, id.User+"@"+id.Host)
	case id.User != "":
		parts = append(parts, id.User)
	case id.Host != "":
		parts = append(parts, "@"+id.Host)
	}
	if id.Project != "" {
		parts = append(parts, id.Project)
	}
	return strings.Join(parts, ", ")
}

// filterText is a filter as the page's header names it.
func filterText(f wire.Filter) string {
	var parts []string
	for _, kv := range [][2]string{{"scope", f.Scope}, {"user", f.User}, {"project", f.Project}, {"runtime", f.Runtime}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	return strings.Join(parts, ", ")
}

// cause is the record that changed tool between the previous turn of sec
// and its turn that started at seq, under source.
func (b *builder) cause(sec *Session, seq uint64, tool, source string) *Cause {
	at := b.causes[seq][tool]
	switch {
	case at == 0 || at > uint64(len(b.recs)):
		return nil
	case at == seq:
		return &Cause{Seq: seq, Text: "this turn's start, under " + source}
	}
	rec := b.recs[at-1]
	c := &Cause{Seq: at, Text: fmt.Sprintf("seq %d %s by %s", at, rec.Type, rec.Actor)}
	if rec.Type.IsPolicy() {
		if e, err := b.policyEntry(rec, at); err == nil {
			c.Text = fmt.Sprintf("seq %d %s: %s", at, e.Label, e.Text)
		}
		c.Link = fmt.Sprintf("p%d", at)
		return c
	}
	if s := b.index[rec.Session]; s != nil {
		c.Link = fmt.Sprintf("%s-r%d", s.Anchor, at)
	}
	if rec.Session != sec.Key {
		c.Text += " of " + string(rec.Session)
	}
	return c
}

// verdictText is a decision with its reason code and rule.
func verdictText(v envelope.Verdict) string {
	return strings.TrimSpace(strings.Join([]string{string(v.Decision), v.Reason.Code, reasonRule(&v.Reason)}, " "))
}

// decidingDetail is what the layer that decided v held, as the dialect
// words it (a release's rule says what that release does); "" when the
// layer says nothing more than its rule.
func decidingDetail(v envelope.Verdict) string {
	for _, s := range v.Trace {
		if s.Reason != nil && s.Detail != "" {
			return s.Layer + ": " + s.Detail
		}
	}
	return ""
}
