package openclaw

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

var _ envelope.Dialect = (*Dialect)(nil)

// world is a small fold for tests: a policy, grants and sessions, with the
// turn context table of section 10.1 reduced to what the tests need.
type world struct {
	tb       testing.TB
	d        *Dialect
	release  string
	seq      uint64
	policy   *envelope.PolicyState
	sessions map[events.SessionKey]*envelope.Session
}

func (w *world) Policy() *envelope.PolicyState                 { return w.policy }
func (w *world) Session(k events.SessionKey) *envelope.Session { return w.sessions[k] }
func (w *world) Position() uint64                              { return w.seq }

// newWorld is a world under the legacy release (the behaviour the unit
// tests below pin); newWorldRelease names another.
func newWorld(tb testing.TB, doc string, catalogue ...string) *world {
	tb.Helper()
	return newWorldRelease(tb, LegacyRelease, doc, catalogue...)
}

func newWorldRelease(tb testing.TB, release, doc string, catalogue ...string) *world {
	tb.Helper()
	w := &world{tb: tb, d: New(), release: release, sessions: map[events.SessionKey]*envelope.Session{}}
	w.setPolicy(doc, catalogue)
	return w
}

// compile compiles a document under the world's release, as the fold does
// with the release its policy.set recorded.
func (w *world) compile(doc json.RawMessage, catalogue []string) (any, error) {
	return w.d.CompileRelease(doc, catalogue, w.release)
}

func (w *world) ref(t events.Type) envelope.RecordRef {
	w.seq++
	return envelope.RecordRef{Seq: w.seq, ID: "REC" + string(rune('A'+w.seq%26)), Type: t}
}

// setPolicy appends a policy.set; a nil catalogue keeps the previous one.
func (w *world) setPolicy(doc string, catalogue []string) {
	w.tb.Helper()
	c, err := w.compile(json.RawMessage(doc), catalogue)
	if err != nil {
		w.tb.Fatalf("compile %s: %v", doc, err)
	}
	p := &envelope.PolicyState{Dialect: Name, Revision: w.ref(events.PolicySet), Document: json.RawMessage(doc), Compiled: c}
	if w.policy != nil {
		p.Grants = w.policy.Grants
		p.Catalogue = w.policy.Catalogue
	}
	if catalogue != nil {
		p.Catalogue = catalogue
	}
	w.policy = p
	w.refresh()
}

func (w *world) refresh() {
	w.tb.Helper()
	eff, err := w.d.Effective(w.policy)
	if err != nil {
		w.tb.Fatal(err)
	}
	w.policy.Effective = eff
}

func (w *world) grant(kind events.GrantKind, agent, target string, tools ...string) {
	w.tb.Helper()
	g := events.GrantData{Kind: kind, Agent: agent, Target: target, Tools: tools}
	if err := checkGrant(&g); err != nil {
		w.tb.Fatal(err)
	}
	id := w.d.GrantIdentity(&g)
	for _, x := range w.policy.Grants {
		if x.Identity == id {
			return
		}
	}
	p := *w.policy
	p.Grants = append(slices.Clone(p.Grants), envelope.Grant{Data: g, Identity: id, Record: w.ref(events.GrantAdded)})
	w.policy = &p
	w.refresh()
}

func (w *world) revoke(kind events.GrantKind, agent, target string, tools ...string) {
	w.tb.Helper()
	id := w.d.GrantIdentity(&events.GrantData{Kind: kind, Agent: agent, Target: target, Tools: tools})
	p := *w.policy
	p.Grants = slices.DeleteFunc(slices.Clone(p.Grants), func(g envelope.Grant) bool { return g.Identity == id })
	if len(p.Grants) == len(w.policy.Grants) {
		w.tb.Fatalf("revoke: no grant %s", id)
	}
	w.ref(events.GrantRevoked)
	w.policy = &p
	w.refresh()
}

func (w *world) start(key string, d events.StartedData) *envelope.Session {
	w.tb.Helper()
	k := events.SessionKey(key)
	facts, err := w.d.Start(w, k, &d)
	if err != nil {
		w.tb.Fatal(err)
	}
	s := &envelope.Session{Key: k, Agent: d.Agent, State: envelope.Active, Start: &d, Origin: w.ref(events.SessionStarted),
		Facts: facts, Tools: slices.Clone(d.Tools)}
	s.Context = envelope.Context{Source: envelope.SourceCurrentRequest, Sender: d.Sender, SetBy: s.Origin}
	w.sessions[k] = s
	return s
}

// trySpawn runs admission and, when it passes, adds the child.
func (w *world) trySpawn(key, parent, agent string, mod ...func(*events.SpawnedData)) (*envelope.Session, error) {
	w.tb.Helper()
	d := events.SpawnedData{Parent: events.SessionKey(parent), Agent: agent}
	for _, m := range mod {
		m(&d)
	}
	k := events.SessionKey(key)
	ev := &events.Event{Type: events.SessionSpawned, Session: k}
	if err := w.d.CheckEvent(ev, &d); err != nil {
		return nil, err
	}
	env, facts, err := w.d.Spawn(w, k, &d)
	if err != nil {
		return nil, err
	}
	env.Seal()
	p := w.sessions[d.Parent]
	s := &envelope.Session{Key: k, Agent: agent, Parent: d.Parent, Depth: p.Depth + 1, State: envelope.Active,
		Spawn: &d, Origin: w.ref(events.SessionSpawned), Facts: facts, Envelope: env,
		Tools: append(slices.Clone(p.Tools), d.Tools...)}
	s.Context = envelope.Context{Source: envelope.SourcePersistedChild, SetBy: s.Origin}
	p.Children = append(p.Children, k)
	p.ActiveChildren++
	w.sessions[k] = s
	return s, nil
}

func (w *world) spawn(key, parent, agent string, mod ...func(*events.SpawnedData)) *envelope.Session {
	w.tb.Helper()
	s, err := w.trySpawn(key, parent, agent, mod...)
	if err != nil {
		w.tb.Fatalf("spawn %s: %v", key, err)
	}
	return s
}

// turn starts an ordinary (no sender, not external) or external turn with
// no continuation in force.
func (w *world) turn(key, sender string, external bool) *envelope.Session {
	w.tb.Helper()
	s := w.sessions[events.SessionKey(key)]
	s.Turn++
	ref := w.ref(events.TurnStarted)
	ext := external || sender != ""
	switch {
	case ext:
		if sender == "" && s.Root() {
			sender = s.Start.Sender
		}
		s.Context = envelope.Context{Source: envelope.SourceCurrentRequest, SourceReason: envelope.ReasonExternalRequester,
			Sender: sender, External: true, SetBy: ref}
	case s.Root():
		s.Context = envelope.Context{Source: envelope.SourceCurrentRequest, Sender: s.Start.Sender, SetBy: ref}
	default:
		s.Context = envelope.Context{Source: envelope.SourcePersistedChild, SetBy: ref}
	}
	return s
}

// resume puts a session under a successful continuation with captured.
func (w *world) resume(key string, source string, captured *envelope.Envelope) *envelope.Session {
	s := w.sessions[events.SessionKey(key)]
	ref := w.ref(events.SessionResumed)
	s.Context = envelope.Context{Source: source, Captured: captured, Continuation: &ref, SetBy: ref}
	return s
}

func (w *world) complete(key string) {
	s := w.sessions[events.SessionKey(key)]
	s.State = envelope.Completed
	if p := w.sessions[s.Parent]; p != nil {
		p.ActiveChildren--
	}
}

func (w *world) tools(key string) envelope.ToolSet {
	w.tb.Helper()
	return w.d.Tools(w, w.sessions[events.SessionKey(key)])
}

// codes renders a tool set as tool -> "allow" or reason code.
func codes(ts envelope.ToolSet) map[string]string {
	m := map[string]string{}
	for _, a := range ts.Allowed {
		m[a] = "allow"
	}
	for _, d := range ts.Denied {
		m[d.Tool] = d.Reason.Code
	}
	return m
}

func withSandboxed(v bool) func(*events.SpawnedData) {
	return func(d *events.SpawnedData) { d.Sandboxed = &v }
}

func withTools(t ...string) func(*events.SpawnedData) {
	return func(d *events.SpawnedData) { d.Tools = t }
}

func ptr[T any](v T) *T { return &v }
