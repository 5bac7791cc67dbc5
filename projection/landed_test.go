package projection_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/projection"
)

// TestLandedAboveLastID: the store answers an id above the greatest one
// it holds without a read (Store.lastID), so that bound must never be
// below an id the file holds: after commits, after reopening the file,
// and for ids committed in any order.
func TestLandedAboveLastID(t *testing.T) {
	recs := sampleLog(t)
	path := filepath.Join(t.TempDir(), "p.db")
	st, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := projection.New(projection.Dialects{"toy": toy{}})
	for i, r := range recs {
		if err := s.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(s); err != nil { // one record a commit: each raises the bound
			t.Fatal(err)
		}
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	greatest := slices.Max(ids)
	above := greatest + "0"
	check := func(what string, state *projection.State) {
		t.Helper()
		for i, id := range ids {
			if seq, ok := state.Landed(id); !ok || seq != uint64(i+1) {
				t.Errorf("%s: id %s (record %d) answered %d, %v", what, id, i+1, seq, ok)
			}
		}
		if _, ok := state.Landed(above); ok {
			t.Errorf("%s: an id above every stored one (%s) answered landed", what, above)
		}
	}
	check("after the commits", s) // its layers are empty: the store answers
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	loaded, err := st.Load(projection.Dialects{"toy": toy{}})
	if err != nil {
		t.Fatal(err)
	}
	check("reopened", loaded)
}
