package projection_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
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
	st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := projection.New(projection.Dialects{"toy": toy{}})
	for i, r := range recs {
		if err := s.Apply(r, uint64(i+1)); err != nil {
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
	if !bytes.Equal(got.Dump(), want.Dump()) {
		t.Fatalf("loaded state differs:\n%s\n%s", got.Dump(), want.Dump())
	}
	// Resume from the checkpoint and end identical to a full build.
	for i := 6; i < len(recs); i++ {
		if err := got.Apply(recs[i], uint64(i+1)); err != nil {
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
		if err := behind.Apply(recs[i], uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(behind); err == nil {
		t.Fatal("committing a state behind the checkpoint must fail")
	}
}
