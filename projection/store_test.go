package projection_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

func sampleLog(t *testing.T) []*events.Record {
	h := newHarness(t)
	h.mustAppend(policy)
	h.mustAppend(ev("session.started", "r", `{"agent":"main"}`))
	h.mustAppend(ev("turn.started", "r", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "c", `{"parent":"r","agent":"main"}`))
	h.mustAppend(ev("turn.started", "c", `{"turn":1}`))
	h.mustAppend(ev("tool.checked", "c", `{"turn":1,"tool":"exec","call":"x"}`))
	h.mustAppend(ev("session.yielded", "r", `{"children":["c"]}`))
	h.mustAppend(ev("session.completed", "c", `{"status":"ok"}`))
	h.mustAppend(ev("session.resumed", "r", `{"handoff":"completion","from":["c"]}`))
	h.mustAppend(ev("turn.started", "r", `{"turn":2}`))
	return h.log
}

// buildStore folds records into a fresh store, committing every `every`
// records.
func buildStore(t *testing.T, recs []*events.Record, every int) (*projection.Store, *projection.State) {
	t.Helper()
	return buildStoreAt(t, filepath.Join(t.TempDir(), "p.db"), projection.Dialects{"toy": toy{}}, recs, every)
}

// buildStoreAt is buildStore into the file at path, folding with dialects;
// the store is closed when the test ends (closing it twice is harmless).
func buildStoreAt(t *testing.T, path string, dialects projection.Dialects, recs []*events.Record, every int) (*projection.Store, *projection.State) {
	t.Helper()
	return buildStoreWith(t, path, projection.StoreOptions{}, dialects, recs, every)
}

// buildStoreWith is buildStoreAt with a store opened with opts.
func buildStoreWith(t *testing.T, path string, opts projection.StoreOptions, dialects projection.Dialects, recs []*events.Record, every int) (*projection.Store, *projection.State) {
	t.Helper()
	st, err := projection.OpenStore(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := projection.New(dialects)
	for i, r := range recs {
		if err := s.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		if (i+1)%every == 0 {
			if err := st.Commit(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Commit(s); err != nil {
		t.Fatal(err)
	}
	return st, s
}

func TestStoreDumpIndependentOfGrouping(t *testing.T) {
	recs := sampleLog(t)
	var dumps [][]byte
	for _, every := range []int{1, 3, 100} {
		st, _ := buildStore(t, recs, every)
		var buf bytes.Buffer
		if err := st.Dump(&buf); err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, buf.Bytes())
	}
	for i := 1; i < len(dumps); i++ {
		if !bytes.Equal(dumps[0], dumps[i]) {
			t.Fatalf("dump %d differs:\n%s\n---\n%s", i, dumps[0], dumps[i])
		}
	}
}

func TestStoreLoadResumes(t *testing.T) {
	recs := sampleLog(t)
	st, want := buildStore(t, recs[:6], 2)
	got, err := st.Load(projection.Dialects{"toy": toy{}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ledgertest.Dump(t, got), ledgertest.Dump(t, want)) {
		t.Fatalf("loaded state differs:\n%s\n%s", ledgertest.Dump(t, got), ledgertest.Dump(t, want))
	}
	// Resume from the checkpoint and end identical to a full build.
	for i := 6; i < len(recs); i++ {
		if err := got.Apply(projection.Input{Record: recs[i]}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(got); err != nil {
		t.Fatal(err)
	}
	full, _ := buildStore(t, recs, 1)
	a, _ := st.DumpHash()
	b, _ := full.DumpHash()
	if a != b {
		t.Fatalf("resumed store %s, full rebuild %s", a, b)
	}
	// A state behind the store is refused, never written twice.
	behind := projection.New(projection.Dialects{"toy": toy{}})
	for i := 0; i < 3; i++ {
		if err := behind.Apply(projection.Input{Record: recs[i]}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(behind); err == nil {
		t.Fatal("committing a state behind the checkpoint must fail")
	}
}

// effectsLog has a yield and a settle-batch resume, checks, effects with
// and without prepared_at, and a refused effect.
func effectsLog(t *testing.T) []*events.Record {
	h := newHarness(t)
	h.mustAppend(policy)
	h.mustAppend(ev("session.started", "r", `{"agent":"main"}`))
	h.mustAppend(ev("turn.started", "r", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "a", `{"parent":"r","agent":"main"}`))
	h.mustAppend(ev("session.spawned", "b", `{"parent":"r","agent":"main"}`))
	check := h.mustAppend(ev("tool.checked", "r", `{"turn":1,"tool":"exec","call":"c1"}`))
	h.mustAppend(ev("tool.checked", "r", `{"turn":1,"tool":"read","call":"c2","input":"x"}`))
	h.mustAppend(ev("tool.effect_started", "r", fmt.Sprintf(`{"turn":1,"tool":"exec","call":"c1","prepared_at":%d}`, check)))
	yseq := h.mustAppend(ev("session.yielded", "r", `{"children":["a","b"]}`))
	h.mustAppend(ev("turn.started", "a", `{"turn":1}`))
	h.mustAppend(ev("session.completed", "a", `{"status":"ok"}`))
	h.mustAppend(ev("session.completed", "b", `{"status":"ok"}`))
	h.mustAppend(ev("session.resumed", "r", fmt.Sprintf(`{"handoff":"settle_batch","batch":%q,"from":["a","b"]}`, h.log[yseq-1].ID)))
	h.mustAppend(ev("turn.started", "r", `{"turn":2}`))
	h.mustAppend(ev("tool.checked", "r", `{"turn":2,"tool":"read","call":"c3","input":{"path":"/"}}`))
	h.mustAppend(`{"type":"grant.added","v":1,"actor":"t","data":{"kind":"x","agent":"a","target":"a","tools":["read"]}}`)
	if _, err := h.append(ev("tool.effect_started", "r", `{"turn":2,"tool":"read","call":"c3"}`)); events.CodeOf(err) != events.CodeAuthorizationChanged {
		t.Fatalf("effect after the deny: %v", err)
	}
	h.mustAppend(ev("turn.started", "r", `{"turn":3}`))
	return h.log
}

// workloadLog is openclaw workload sessions: spawns, checks, effects that
// find their check, completions and completion handoffs.
func workloadLog(t *testing.T) []*events.Record {
	oc := openclaw.New()
	h := &harness{t: t, st: projection.New(projection.Dialects{oc.Name(): oc})}
	for _, ev := range workload.Sessions(12) {
		h.mustAppend(string(ev))
	}
	return h.log
}

// TestStoreStateAnswersLikeMemory folds logs twice in lockstep, in memory
// and into a store committed every few records (or written in the
// background while the state folds on), reloaded now and then and keeping
// no session it did not just write: after every record both dump the same
// bytes, answer queries alike and prepare the same records.
func TestStoreStateAnswersLikeMemory(t *testing.T) {
	defer func(n int) { *projection.MaxSessions = n }(*projection.MaxSessions)
	*projection.MaxSessions = 0
	oc := openclaw.New()
	dialects := projection.Dialects{"toy": toy{}, oc.Name(): oc}
	for name, recs := range map[string][]*events.Record{"sample": sampleLog(t), "effects": effectsLog(t), "workload": workloadLog(t)} {
		for _, every := range []int{1, 2, 3, 7} {
			for _, async := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/every-%d/async-%v", name, every, async), func(t *testing.T) {
					st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					mem, disk := projection.New(dialects), projection.New(dialects)
					for i, r := range recs {
						seq := uint64(i + 1)
						// The next record, prepared again on both, is the same.
						ev := r.Event()
						if p, q := mem.Prepare(ev, r.Time), disk.Prepare(ev, r.Time); fmt.Sprint(p.Err) != fmt.Sprint(q.Err) ||
							(p.Record == nil) != (q.Record == nil) || p.Record != nil && string(p.Record.Decided) != string(q.Record.Decided) {
							t.Fatalf("at %d preparing %s: %+v, want %+v", seq, r.ID, q, p)
						}
						if err := mem.Apply(projection.Input{Record: r}, seq); err != nil {
							t.Fatal(err)
						}
						if err := disk.Apply(projection.Input{Record: r}, seq); err != nil {
							t.Fatal(err)
						}
						if i%every == every-1 {
							commit := st.Commit
							if async {
								commit = st.CommitAsync
							}
							if err := commit(disk); err != nil {
								t.Fatal(err)
							}
							if i%(2*every) == every-1 {
								if err := st.Commit(disk); err != nil { // waits for the write
									t.Fatal(err)
								}
								if disk, err = st.Load(dialects); err != nil {
									t.Fatal(err)
								}
							}
						}
						if a, b := ledgertest.Dump(t, disk), ledgertest.Dump(t, mem); !bytes.Equal(a, b) {
							t.Fatalf("at %d the dumps differ:\n%s\n%s", seq, a, b)
						}
						for _, k := range mem.Keys() {
							for turn := 0; turn <= mem.Session(k).Turn+1; turn++ {
								_, s1, ok1 := disk.TurnSet(k, turn)
								_, s2, ok2 := mem.TurnSet(k, turn)
								v1, e1 := disk.AtTurn(k, turn)
								v2, e2 := mem.AtTurn(k, turn)
								if s1 != s2 || ok1 != ok2 || fmt.Sprint(e1) != fmt.Sprint(e2) || (v1 == nil) != (v2 == nil) ||
									v1 != nil && v1.Why("exec", nil).Decision != v2.Why("exec", nil).Decision {
									t.Fatalf("at %d turn %d of %s differs", seq, turn, k)
								}
							}
						}
						if !slices.Equal(disk.Keys(), mem.Keys()) {
							t.Fatalf("at %d keys %v, want %v", seq, disk.Keys(), mem.Keys())
						}
					}
					if err := st.Commit(disk); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestOldLayoutRefused: a store of another layout version is refused with
// the way back.
func TestOldLayoutRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return meta.Put([]byte("schema"), []byte("2"))
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
	_, err = projection.OpenStore(path, projection.StoreOptions{})
	if !errors.Is(err, projection.ErrSchema) || !strings.Contains(err.Error(), "ledger replay --out NEW") || !strings.Contains(err.Error(), path) {
		t.Fatalf("opening a layout 2 store: %v", err)
	}
}
