package projection

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
)

// failing is a history whose reads fail while fail is set.
type failing struct {
	history
	fail bool
}

var errInjected = errors.New("injected read error")

func (f *failing) landed(id string) (landed, bool, error) {
	if f.fail {
		return landed{}, false, errInjected
	}
	return f.history.landed(id)
}

func (f *failing) chainHead(bucket, key []byte) (string, error) {
	if f.fail {
		return "", errInjected
	}
	return f.history.chainHead(bucket, key)
}

func (f *failing) check(seq uint64) (*check, error) {
	if f.fail {
		return nil, errInjected
	}
	return f.history.check(seq)
}

func (f *failing) call(key []byte) (uint64, error) {
	if f.fail {
		return 0, errInjected
	}
	return f.history.call(key)
}

func (f *failing) yield(n uint64) (*yield, error) {
	if f.fail {
		return nil, errInjected
	}
	return f.history.yield(n)
}

func (f *failing) toolSet(hash string) (envelope.ToolSet, error) {
	if f.fail {
		return envelope.ToolSet{}, errInjected
	}
	return f.history.toolSet(hash)
}

func (f *failing) session(n uint64) (*envelope.Session, error) {
	if f.fail {
		return nil, errInjected
	}
	return f.history.session(n)
}

func (f *failing) turn(n uint64, turn int) (Turn, bool, error) {
	if f.fail {
		return Turn{}, false, errInjected
	}
	return f.history.turn(n, turn)
}

func (f *failing) turnCount(n uint64) (int, error) {
	if f.fail {
		return 0, errInjected
	}
	return f.history.turnCount(n)
}

func (f *failing) logEntry(seq uint64) (logEntry, bool, error) {
	if f.fail {
		return logEntry{}, false, errInjected
	}
	return f.history.logEntry(seq)
}

func (f *failing) atTime(t string, n uint64) (uint64, error) {
	if f.fail {
		return 0, errInjected
	}
	return f.history.atTime(t, n)
}

func (f *failing) scan(fn func(each func(bucket []byte, fn func(k, v []byte) error) error) error) error {
	if f.fail {
		return errInjected
	}
	return f.history.scan(fn)
}

// failingState commits workload sessions to a store and loads them back
// (holding no session in memory) reading through a failing history.
func failingState(t *testing.T) (*State, *failing) {
	t.Helper()
	oc := openclaw.New()
	dl := Dialects{oc.Name(): oc}
	st := New(dl)
	for i, raw := range workload.Sessions(3) {
		ev, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		ev.ID = fmt.Sprintf("01K%023d", i)
		p := st.Prepare(ev, fmt.Sprintf("2026-01-01T00:00:%02d.000Z", i))
		if p.Err != nil {
			t.Fatalf("event %d: %v", i, p.Err)
		}
		b, err := p.Record.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(Input{Record: p.Record, Bytes: b}, st.Position()+1); err != nil {
			t.Fatal(err)
		}
	}
	store, err := OpenStore(filepath.Join(t.TempDir(), "p.db"), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Commit(st); err != nil {
		t.Fatal(err)
	}
	loaded, err := store.Load(dl)
	if err != nil {
		t.Fatal(err)
	}
	f := &failing{history: loaded.hist}
	loaded.hist = f
	return loaded, f
}

func wantStorage(t *testing.T, what string, err error) {
	t.Helper()
	if events.CodeOf(err) != events.CodeStorage || !errors.Is(err, errInjected) {
		t.Fatalf("%s: %v, want a %s error wrapping the read's", what, err, events.CodeStorage)
	}
	if !strings.Contains(err.Error(), "p.db") || !strings.Contains(err.Error(), "ledger replay --out NEW") {
		t.Fatalf("%s: %v, want it to name the file and how to rebuild it", what, err)
	}
}

// TestReadErrorIsStorageError: a read of the history that fails reaches
// the caller of a query, of Prepare, of Dump and of Apply as an error with
// the code storage_error, never as an unknown session, a missing turn or
// a panic; a query or a Prepare that failed leaves the state as it was,
// an Apply that failed halfway fails every later one.
func TestReadErrorIsStorageError(t *testing.T) {
	const key = events.SessionKey("agent:main:w1")
	st, f := failingState(t)
	f.fail = true
	_, err := st.Why(key, "read", nil)
	wantStorage(t, "why", err)
	_, err = st.Check(key, "read", nil)
	wantStorage(t, "check", err)
	_, err = st.Tools(key)
	wantStorage(t, "tools", err)
	_, err = st.AtTurn(key, 1)
	wantStorage(t, "at turn", err)
	_, err = st.Resolve(key, Position{Turn: 1})
	wantStorage(t, "resolve a turn", err)
	_, err = st.Resolve(key, Position{Time: "2026-01-01T00:00:05.000Z"})
	wantStorage(t, "resolve a time", err)
	_, err = st.Lookup(key)
	wantStorage(t, "lookup", err)
	c, _ := st.Candidate([]byte(`{}`))
	_, err = c.Tools(key)
	wantStorage(t, "candidate tools", err)
	err = st.Read(func() error {
		if st.Session(key) == nil {
			return events.UnknownSession(key)
		}
		return nil
	})
	wantStorage(t, "a read of several calls", err)
	_, err = st.Dump()
	wantStorage(t, "dump", err)
	_, err = st.StateHash()
	wantStorage(t, "state hash", err)
	ev, err := events.Parse([]byte(`{"type":"turn.started","v":1,"actor":"t","session":"agent:main:w1","data":{"turn":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	ev.ID = "01K99999999999999999999999"
	p := st.Prepare(ev, "2026-01-01T00:01:00.000Z")
	if p.Record != nil {
		t.Fatalf("prepare on a history that cannot be read made a record")
	}
	wantStorage(t, "prepare", p.Err)

	// What failed to read was no answer, and changed nothing.
	f.fail = false
	if _, err := st.Why(key, "read", nil); err != nil {
		t.Fatalf("why once the history reads again: %v", err)
	}
	if _, err := st.Lookup("agent:main:nobody"); err != nil {
		t.Fatalf("lookup of no session: %v", err)
	}
	if _, err := st.Why("agent:main:nobody", "read", nil); events.CodeOf(err) != events.CodeUnknownSession {
		t.Fatalf("why of no session: %v, want %s", err, events.CodeUnknownSession)
	}
	if _, err := st.Dump(); err != nil {
		t.Fatalf("dump once the history reads again: %v", err)
	}

	// A fold that fails halfway leaves a state that is no fold of its
	// records: every later Apply and Prepare fails.
	st, f = failingState(t)
	ev, err = events.Parse([]byte(`{"type":"turn.started","v":1,"actor":"t","session":"agent:main:w2","data":{"turn":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	ev.ID = "01K99999999999999999999998"
	p = st.Prepare(ev, "2026-01-01T00:01:00.000Z")
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	b, err := p.Record.Encode()
	if err != nil {
		t.Fatal(err)
	}
	st.sessions = map[events.SessionKey]*envelope.Session{} // read again in the fold
	f.fail = true
	wantStorage(t, "apply", st.Apply(Input{Record: p.Record, Bytes: b}, st.Position()+1))
	f.fail = false
	wantStorage(t, "apply after a failed one", st.Apply(Input{Record: p.Record, Bytes: b}, st.Position()+1))
	wantStorage(t, "prepare after a failed apply", st.Prepare(ev, "2026-01-01T00:01:00.000Z").Err)
}
