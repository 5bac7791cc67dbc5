package ledgerpolicy

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// world is a fixed World for tests.
type world struct {
	p        *envelope.PolicyState
	sessions map[events.SessionKey]*envelope.Session
}

func (w *world) Policy() *envelope.PolicyState { return w.p }
func (w *world) Session(k events.SessionKey) *envelope.Session {
	return w.sessions[k]
}
func (w *world) Position() uint64 { return 10 }

// newWorld compiles doc with catalogue and grants (each at sequence 5+i)
// and starts a root "root" of agent main in project /repo.
func newWorld(t testing.TB, doc string, cat []string, grants ...events.GrantData) *world {
	t.Helper()
	c, err := New().Compile(json.RawMessage(doc), cat)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	p := &envelope.PolicyState{Dialect: DialectName, Revision: envelope.RecordRef{Seq: 1, ID: "P1", Type: events.PolicySet},
		CatalogueRecord: envelope.RecordRef{Seq: 1, ID: "P1", Type: events.PolicySet},
		Document:        json.RawMessage(doc), Catalogue: cat, Compiled: c}
	for i, g := range grants {
		p.Grants = append(p.Grants, envelope.Grant{Data: g, Identity: New().GrantIdentity(&g),
			Record: envelope.RecordRef{Seq: uint64(5 + i), ID: "G" + string(rune('0'+i)), Type: events.GrantAdded}})
	}
	e, err := New().Effective(p)
	if err != nil {
		t.Fatalf("effective: %v", err)
	}
	p.Effective = e
	w := &world{p: p, sessions: map[events.SessionKey]*envelope.Session{}}
	w.sessions["root"] = &envelope.Session{Key: "root", Agent: "main", State: envelope.Active,
		Start: &events.StartedData{Agent: "main", Project: "/repo"}, Origin: envelope.RecordRef{Seq: 2, ID: "S", Type: events.SessionStarted}}
	return w
}

// spawn admits a child of parent through the dialect and adds it.
func (w *world) spawn(t testing.TB, key, parent events.SessionKey, agent string) error {
	t.Helper()
	d := &events.SpawnedData{Parent: parent, Agent: agent}
	env, facts, err := New().Spawn(w, key, d)
	if err != nil {
		return err
	}
	env.Seal()
	w.sessions[key] = &envelope.Session{Key: key, Agent: agent, Parent: parent, Depth: env.Depth, State: envelope.Active,
		Spawn: d, Facts: facts, Envelope: env, Origin: envelope.RecordRef{Seq: 20, ID: "SP" + string(key), Type: events.SessionSpawned}}
	return nil
}

func (w *world) decide(key events.SessionKey, tool string, input any) envelope.Verdict {
	var raw json.RawMessage
	if input != nil {
		raw, _ = json.Marshal(input)
	}
	return New().Decide(w, w.sessions[key], tool, raw)
}
