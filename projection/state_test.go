package projection_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/projection"
)

// toy is a minimal dialect for testing the generic fold: a document
// {"deny": [...]} removes tools; children capture their parent's allowed set.
type toy struct{}

type toyDoc struct {
	Deny []string `json:"deny"`
}

func (toy) Name() string                        { return "toy" }
func (toy) Normalize(t string) string           { return t }
func (toy) DefaultChildSource() string          { return envelope.SourcePersistedChild }
func (toy) CheckEvent(*events.Event, any) error { return nil }
func (toy) GrantIdentity(g *events.GrantData) string {
	return fmt.Sprint(g.Kind, g.Agent, g.Target, g.Tools)
}
func (toy) Compile(doc json.RawMessage, _ []string) (any, error) {
	var d toyDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, events.Errorf(events.CodeInvalidPolicy, "%v", err)
	}
	return &d, nil
}
func (toy) Effective(p *envelope.PolicyState) (any, error) {
	d := *p.Compiled.(*toyDoc)
	for _, g := range p.Grants {
		d.Deny = append(slices.Clone(d.Deny), g.Data.Tools...)
	}
	return &d, nil
}
func (toy) Start(envelope.World, events.SessionKey, *events.StartedData) (envelope.Facts, error) {
	return envelope.Facts{}, nil
}
func (t toy) Spawn(w envelope.World, key events.SessionKey, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	parent := w.Session(d.Parent)
	ts := t.Tools(w, parent)
	return &envelope.Envelope{Requester: d.Parent, Agent: d.Agent, Depth: parent.Depth + 1, Role: "child",
		InheritedAllow: ts.Allowed, InheritedDeny: []string{}, Source: "config", Revision: w.Policy().Revision.Seq}, envelope.Facts{}, nil
}
func (t toy) Decide(w envelope.World, s *envelope.Session, tool string, _ json.RawMessage) envelope.Verdict {
	ts := t.Tools(w, s)
	d, r, ok := ts.Lookup(tool)
	if !ok {
		return envelope.Verdict{Tool: tool, Decision: envelope.Deny, Reason: envelope.Reason{Code: "catalogue:unknown"}}
	}
	v := envelope.Verdict{Tool: tool, Decision: d}
	if r != nil {
		v.Reason = *r
	}
	return v
}
func (toy) Tools(w envelope.World, s *envelope.Session) envelope.ToolSet {
	doc := w.Policy().Effective.(*toyDoc)
	ts := envelope.ToolSet{Allowed: []string{}, Denied: []envelope.Denial{}}
	for _, t := range append(slices.Clone(w.Policy().Catalogue), s.Tools...) {
		switch env := s.Applied(); {
		case slices.Contains(doc.Deny, t):
			ts.Denied = append(ts.Denied, envelope.Denial{Tool: t, Reason: envelope.Reason{Code: "global:deny"}})
		case env != nil && env.InheritedAllow != nil && !slices.Contains(env.InheritedAllow, t):
			ts.Denied = append(ts.Denied, envelope.Denial{Tool: t, Reason: envelope.Reason{Code: "inherited:allow"}})
		default:
			ts.Allowed = append(ts.Allowed, t)
		}
	}
	return ts
}
func (toy) SamePolicy(a, b *envelope.Envelope) bool {
	return slices.Equal(a.InheritedAllow, b.InheritedAllow)
}

var _ envelope.Dialect = toy{}

// harness appends events to a state as the service would.
type harness struct {
	t   testing.TB
	st  *projection.State
	n   int
	log []*events.Record
}

func newHarness(t testing.TB) *harness {
	return &harness{t: t, st: projection.New(projection.Dialects{"toy": toy{}})}
}

func (h *harness) append(raw string) (uint64, error) {
	h.t.Helper()
	ev, err := events.Parse([]byte(raw))
	if err != nil {
		return 0, err
	}
	if ev.ID == "" {
		h.n++
		ev.ID = fmt.Sprintf("01J%023d", h.n)
	}
	p := h.st.Prepare(ev, fmt.Sprintf("2026-01-01T00:00:00.%03dZ", h.n%1000))
	if p.Record == nil {
		return p.Landed, p.Err
	}
	seq := h.st.Position() + 1
	if err := h.st.Apply(projection.Input{Record: p.Record}, seq); err != nil {
		h.t.Fatalf("apply: %v", err)
	}
	h.log = append(h.log, p.Record)
	return seq, p.Err
}

func (h *harness) mustAppend(raw string) uint64 {
	h.t.Helper()
	seq, err := h.append(raw)
	if err != nil {
		h.t.Fatalf("append %s: %v", raw, err)
	}
	return seq
}

func (h *harness) wantCode(raw string, code events.Code) {
	h.t.Helper()
	if _, err := h.append(raw); events.CodeOf(err) != code {
		h.t.Fatalf("append %s: got %v, want %s", raw, err, code)
	}
}

const policy = `{"type":"policy.set","v":1,"actor":"t","data":{"dialect":"toy","document":{},"catalogue":["read","exec","write"]}}`

func ev(typ, session, data string) string {
	return fmt.Sprintf(`{"type":%q,"v":1,"actor":"t","session":%q,"data":%s}`, typ, session, data)
}

func TestLifecycle(t *testing.T) {
	h := newHarness(t)
	h.wantCode(ev("session.started", "root", `{"agent":"main"}`), events.CodeInvalidPolicy)
	h.mustAppend(policy)
	h.mustAppend(ev("session.started", "root", `{"agent":"main"}`))
	h.wantCode(ev("session.started", "root", `{"agent":"main"}`), events.CodeDuplicateSession)
	h.wantCode(ev("turn.started", "root", `{"turn":2}`), events.CodeBadTurn)
	h.wantCode(ev("turn.started", "ghost", `{"turn":1}`), events.CodeUnknownSession)
	h.mustAppend(ev("turn.started", "root", `{"turn":1}`))
	h.wantCode(ev("session.spawned", "a", `{"parent":"nobody","agent":"main"}`), events.CodeUnknownParent)
	h.mustAppend(ev("session.spawned", "a", `{"parent":"root","agent":"main"}`))
	h.mustAppend(ev("session.spawned", "b", `{"parent":"root","agent":"main"}`))
	h.mustAppend(ev("session.started", "other", `{"agent":"main"}`))
	h.wantCode(ev("session.yielded", "root", `{"children":["other"]}`), events.CodeNotAChild)
	h.wantCode(ev("session.yielded", "root", `{"children":["zzz"]}`), events.CodeUnknownSession)
	yseq := h.mustAppend(ev("session.yielded", "root", `{"children":["a","b"]}`))
	h.wantCode(ev("turn.started", "root", `{"turn":2}`), events.CodeSessionNotActive)
	batch := h.log[yseq-1].ID

	// Not settled yet: the resume is accepted and falls back.
	h.mustAppend(ev("session.completed", "a", `{"status":"ok"}`))
	h.wantCode(ev("session.completed", "a", `{"status":"ok"}`), events.CodeSessionNotActive)
	h.mustAppend(ev("session.resumed", "root", fmt.Sprintf(`{"handoff":"settle_batch","batch":%q,"from":["a","b"]}`, batch)))
	if c := h.st.Session("root").Context; c.Source != envelope.SourceCurrentRequest || c.SourceReason != envelope.ReasonBatchNotSettled {
		t.Fatalf("context after an unsettled resume: %+v", c)
	}
	// A batch is resumed once.
	h.mustAppend(ev("session.completed", "b", `{"status":"ok"}`))
	h.mustAppend(ev("session.resumed", "root", fmt.Sprintf(`{"handoff":"settle_batch","batch":%q,"from":["a","b"]}`, batch)))
	if c := h.st.Session("root").Context; c.SourceReason != envelope.ReasonHandoffNotCurrent {
		t.Fatalf("second resume of a batch: %+v", c)
	}
	// A completion handoff from a completed direct child succeeds.
	h.mustAppend(ev("session.resumed", "root", `{"handoff":"completion","from":["a"]}`))
	if c := h.st.Session("root").Context; c.Source != envelope.SourceCompletionHandoff || c.Captured == nil {
		t.Fatalf("completion: %+v", c)
	}
	// Ordinary turns keep it; an external one ends it.
	h.mustAppend(ev("turn.started", "root", `{"turn":2}`))
	if c := h.st.Session("root").Context; c.Source != envelope.SourceCompletionHandoff {
		t.Fatalf("ordinary turn under a continuation: %+v", c)
	}
	h.mustAppend(ev("turn.started", "root", `{"turn":3,"sender":"alice"}`))
	if c := h.st.Session("root").Context; c.Source != envelope.SourceCurrentRequest || c.SourceReason != envelope.ReasonExternalRequester || c.Sender != "alice" {
		t.Fatalf("external turn: %+v", c)
	}
	h.wantCode(ev("turn.started", "a", `{"turn":1}`), events.CodeSessionNotActive)
}

func TestEffectsAndResend(t *testing.T) {
	h := newHarness(t)
	h.mustAppend(policy)
	h.mustAppend(ev("session.started", "s", `{"agent":"main"}`))
	h.mustAppend(ev("turn.started", "s", `{"turn":1}`))
	check := h.mustAppend(ev("tool.checked", "s", `{"turn":1,"tool":"exec","call":"c1"}`))
	h.wantCode(ev("tool.effect_started", "s", `{"turn":1,"tool":"exec","call":"c9"}`), events.CodeInvalidEvent)
	h.wantCode(ev("tool.effect_started", "s", fmt.Sprintf(`{"turn":1,"tool":"read","call":"c1","prepared_at":%d}`, check)), events.CodeInvalidEvent)
	h.mustAppend(`{"type":"grant.added","v":1,"actor":"t","data":{"kind":"x","agent":"a","target":"a","tools":["exec"]}}`)

	effect := `{"id":"01JEFFECT0000000000000000A","type":"tool.effect_started","v":1,"actor":"t","session":"s","data":{"turn":1,"tool":"exec","call":"c1"}}`
	before := h.st.Position()
	if _, err := h.append(effect); events.CodeOf(err) != events.CodeAuthorizationChanged {
		t.Fatalf("effect after the deny: %v", err)
	}
	if h.st.Position() != before+1 {
		t.Fatalf("a refused effect leaves one decision record: position %d, want %d", h.st.Position(), before+1)
	}
	if rec := h.log[len(h.log)-1]; rec.Type != events.ToolChecked || rec.ID != "01JEFFECT0000000000000000A" {
		t.Fatalf("decision record: %s %s", rec.Type, rec.ID)
	}
	// Re-sent: answered with the first outcome, nothing written.
	if _, err := h.append(effect); events.CodeOf(err) != events.CodeAuthorizationChanged || h.st.Position() != before+1 {
		t.Fatalf("re-sent refused effect: %v at %d", err, h.st.Position())
	}
	// The refusal record prepares nothing: without a new check there is none.
	h.mustAppend(`{"type":"grant.revoked","v":1,"actor":"t","data":{"kind":"x","agent":"a","target":"a","tools":["exec"]}}`)
	h.mustAppend(ev("tool.effect_started", "s", `{"turn":1,"tool":"exec","call":"c1"}`))
	h.wantCode(ev("tool.effect_started", "s", fmt.Sprintf(`{"turn":1,"tool":"exec","call":"c1","prepared_at":%d}`, before+1)), events.CodeInvalidEvent)
	h.wantCode(`{"type":"grant.revoked","v":1,"actor":"t","data":{"kind":"x","agent":"a","target":"a","tools":["exec"]}}`, events.CodeUnknownGrant)
}

// TestReplayIdentical checks that folding the same records twice, as a fresh
// state, gives the same answers as the state that made them.
func TestReplayIdentical(t *testing.T) {
	h := newHarness(t)
	h.mustAppend(policy)
	h.mustAppend(ev("session.started", "r", `{"agent":"main"}`))
	h.mustAppend(ev("session.spawned", "c", `{"parent":"r","agent":"main"}`))
	h.mustAppend(ev("turn.started", "c", `{"turn":1}`))
	again := projection.New(projection.Dialects{"toy": toy{}})
	for i, r := range h.log {
		if err := again.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := ledgertest.Dump(t, h.st), ledgertest.Dump(t, again); string(a) != string(b) {
		t.Fatalf("replay differs:\n%s\n%s", a, b)
	}
	if err := again.Apply(projection.Input{Record: h.log[0]}, 9); err == nil {
		t.Fatal("a gap must be an error")
	}
}
