package claudecode

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

var _ envelope.Dialect = (*Dialect)(nil)

// fakeWorld is a small stand-in for the fold: a policy state and sessions,
// built through the dialect's own Compile, Effective, Start and Spawn.
type fakeWorld struct {
	d        *Dialect
	policy   *envelope.PolicyState
	sessions map[events.SessionKey]*envelope.Session
	seq      uint64
}

func (w *fakeWorld) Policy() *envelope.PolicyState { return w.policy }
func (w *fakeWorld) Session(k events.SessionKey) *envelope.Session {
	return w.sessions[k]
}
func (w *fakeWorld) Position() uint64 { return w.seq }

func (w *fakeWorld) next(t events.Type) envelope.RecordRef {
	w.seq++
	return envelope.RecordRef{Seq: w.seq, ID: fmt.Sprintf("01J%023d", w.seq), Type: t}
}

// newWorld sets a first policy: doc (JSON) and its catalogue.
func newWorld(t testing.TB, doc string, catalogue ...string) *fakeWorld {
	t.Helper()
	w := &fakeWorld{d: New(), sessions: map[events.SessionKey]*envelope.Session{}}
	w.setPolicy(t, doc, catalogue)
	return w
}

func (w *fakeWorld) setPolicy(t testing.TB, doc string, catalogue []string) {
	t.Helper()
	if catalogue == nil && w.policy == nil {
		catalogue = []string{}
	}
	compiled, err := w.d.Compile(json.RawMessage(doc), catalogue)
	if err != nil {
		t.Fatalf("Compile(%s): %v", doc, err)
	}
	ref := w.next(events.PolicySet)
	p := &envelope.PolicyState{Dialect: DialectName, Revision: ref, Document: json.RawMessage(doc), Compiled: compiled}
	if w.policy != nil {
		p.Catalogue, p.CatalogueRecord, p.Grants = w.policy.Catalogue, w.policy.CatalogueRecord, w.policy.Grants
	}
	if catalogue != nil {
		p.Catalogue, p.CatalogueRecord = slices.Clone(catalogue), ref
	}
	w.policy = p
	w.refresh(t)
}

func (w *fakeWorld) refresh(t testing.TB) {
	t.Helper()
	eff, err := w.d.Effective(w.policy)
	if err != nil {
		t.Fatalf("Effective: %v", err)
	}
	w.policy.Effective = eff
}

func (w *fakeWorld) grant(t testing.TB, behavior, rule string) envelope.RecordRef {
	t.Helper()
	g := events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: behavior, Rule: rule}
	if err := w.d.CheckEvent(&events.Event{Type: events.GrantAdded}, &g); err != nil {
		t.Fatalf("grant %s %q: %v", behavior, rule, err)
	}
	ref := w.next(events.GrantAdded)
	p := *w.policy
	p.Grants = append(slices.Clone(p.Grants), envelope.Grant{Data: g, Identity: w.d.GrantIdentity(&g), Record: ref})
	w.policy = &p
	w.refresh(t)
	return ref
}

func (w *fakeWorld) revoke(t testing.TB, behavior, rule string) {
	t.Helper()
	g := events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: behavior, Rule: rule}
	id := w.d.GrantIdentity(&g)
	p := *w.policy
	i := slices.IndexFunc(p.Grants, func(x envelope.Grant) bool { return x.Identity == id })
	if i < 0 {
		t.Fatalf("revoke %s %q: not in force", behavior, rule)
	}
	p.Grants = slices.Delete(slices.Clone(p.Grants), i, i+1)
	w.next(events.GrantRevoked)
	w.policy = &p
	w.refresh(t)
}

// start starts a root session as the fold would.
func (w *fakeWorld) start(t testing.TB, key string, d events.StartedData) *envelope.Session {
	t.Helper()
	s, err := w.tryStart(key, d)
	if err != nil {
		t.Fatalf("start %s: %v", key, err)
	}
	return s
}

func (w *fakeWorld) tryStart(key string, d events.StartedData) (*envelope.Session, error) {
	if err := w.d.CheckEvent(&events.Event{Type: events.SessionStarted, Session: events.SessionKey(key)}, &d); err != nil {
		return nil, err
	}
	facts, err := w.d.Start(w, events.SessionKey(key), &d)
	if err != nil {
		return nil, err
	}
	ref := w.next(events.SessionStarted)
	s := &envelope.Session{Key: events.SessionKey(key), Agent: d.Agent, State: envelope.Active,
		Start: &d, Origin: ref, Facts: facts, Tools: slices.Clone(d.Tools),
		Context: envelope.Context{Source: envelope.SourceCurrentRequest, SetBy: ref}}
	w.sessions[s.Key] = s
	return s, nil
}

func (w *fakeWorld) spawn(t testing.TB, key string, d events.SpawnedData) *envelope.Session {
	t.Helper()
	s, err := w.trySpawn(key, d)
	if err != nil {
		t.Fatalf("spawn %s: %v", key, err)
	}
	return s
}

func (w *fakeWorld) trySpawn(key string, d events.SpawnedData) (*envelope.Session, error) {
	if err := w.d.CheckEvent(&events.Event{Type: events.SessionSpawned, Session: events.SessionKey(key)}, &d); err != nil {
		return nil, err
	}
	parent := w.sessions[d.Parent]
	if parent == nil {
		return nil, events.Errorf(events.CodeUnknownParent, "no parent %q", d.Parent)
	}
	env, facts, err := w.d.Spawn(w, events.SessionKey(key), &d)
	if err != nil {
		return nil, err
	}
	env.Seal()
	ref := w.next(events.SessionSpawned)
	s := &envelope.Session{Key: events.SessionKey(key), Agent: d.Agent, Parent: d.Parent, Depth: parent.Depth + 1,
		State: envelope.Active, Spawn: &d, Origin: ref, Facts: facts, Envelope: env,
		Tools:   append(slices.Clone(parent.Tools), d.Tools...),
		Context: envelope.Context{Source: envelope.SourceCurrentRequest, SetBy: ref}}
	w.sessions[s.Key] = s
	parent.Children = append(parent.Children, s.Key)
	return s, nil
}

// resume puts a continuation in force on key, capped by captured.
func (w *fakeWorld) resume(key string, captured *envelope.Envelope) envelope.RecordRef {
	ref := w.next(events.SessionResumed)
	s := w.sessions[events.SessionKey(key)]
	src := envelope.SourceSettleBatch
	if captured == nil {
		src = envelope.SourceCurrentRequest
	}
	s.Context = envelope.Context{Source: src, Captured: captured, Continuation: &ref, SetBy: ref}
	return ref
}

func (w *fakeWorld) tools(key string) envelope.ToolSet {
	return w.d.Tools(w, w.sessions[events.SessionKey(key)])
}

func (w *fakeWorld) decide(key, tool string, input any) envelope.Verdict {
	var raw json.RawMessage
	switch x := input.(type) {
	case nil:
	case json.RawMessage:
		raw = x
	default:
		raw, _ = json.Marshal(x)
	}
	return w.d.Decide(w, w.sessions[events.SessionKey(key)], tool, raw)
}

// reasons maps each denied tool of a set to its code.
func reasons(ts envelope.ToolSet) map[string]string {
	m := map[string]string{}
	for _, d := range ts.Denied {
		m[d.Tool] = d.Reason.Code
	}
	return m
}

func codeOf(err error) events.Code { return events.CodeOf(err) }

func list(s ...string) []string { return s }
