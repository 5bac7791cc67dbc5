package projection_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// TestStateDumpMatchesMaps: the state's dump, its sections sorted lists
// merged, is byte for byte the one of a map per section
// (projection.OldStateDump), for states in memory, over a store with
// records folded since its last commit, and loaded from it. (Every key a
// fold makes is ASCII, so a store's order is the canonical one;
// TestSortEntriesAndMerge takes keys where they differ.)
func TestStateDumpMatchesMaps(t *testing.T) {
	toyDialects := projection.Dialects{"toy": toy{}}
	oc := openclaw.New()
	ocDialects := projection.Dialects{oc.Name(): oc}
	for _, c := range []struct {
		name     string
		recs     []*events.Record
		dialects projection.Dialects
	}{
		{"sample", sampleLog(t), toyDialects},
		{"effects", effectsLog(t), toyDialects},
		{"workload", workloadLog(t), ocDialects},
	} {
		t.Run(c.name, func(t *testing.T) {
			same := func(what string, s *projection.State) {
				t.Helper()
				got, err := s.Dump()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				want, err := projection.OldStateDump(s)
				if err != nil {
					t.Fatalf("%s: the maps' dump: %v", what, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: the dump differs from the maps' dump:\n%s\n---\n%s", what, got, want)
				}
			}
			mem := projection.New(c.dialects)
			for i, r := range c.recs {
				if err := mem.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
					t.Fatal(err)
				}
			}
			same("in memory", mem)
			n := len(c.recs)
			for _, every := range []int{1, 2, 3, 7, n} {
				for _, tail := range []int{0, 1, 4, n / 2} {
					what := fmt.Sprintf("committed every %d, %d folded since", every, tail)
					st, s := buildStoreAt(t, t.TempDir()+"/p.db", c.dialects, c.recs[:n-tail], every)
					for i := n - tail; i < n; i++ {
						if err := s.Apply(projection.Input{Record: c.recs[i]}, uint64(i+1)); err != nil {
							t.Fatal(err)
						}
					}
					same(what, s)
					loaded, err := st.Load(c.dialects)
					if err != nil {
						t.Fatal(err)
					}
					same(what+", loaded", loaded)
					if tail == 0 {
						// The same state, so the same dump as in memory.
						if a, b := ledgerDump(t, loaded), ledgerDump(t, mem); !bytes.Equal(a, b) {
							t.Fatalf("%s: loaded:\n%s\nin memory:\n%s", what, a, b)
						}
					}
				}
			}
		})
	}
}

func ledgerDump(t *testing.T, s *projection.State) []byte {
	t.Helper()
	b, err := s.Dump()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
