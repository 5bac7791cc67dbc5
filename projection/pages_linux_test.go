package projection_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// residentStore folds 300 workload sessions (about 1300 records, a file
// of about a megabyte) into a store with the given resident budget,
// committing every 100 records, and returns the store and the state.
func residentStore(t *testing.T, budget int) (*projection.Store, *projection.State, *harness) {
	t.Helper()
	st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{ResidentBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	oc := openclaw.New()
	h := &harness{t: t, st: projection.New(projection.Dialects{oc.Name(): oc})}
	h.mustAppend(string(workload.Policy()))
	for i := range 300 {
		for _, ev := range workload.Session(i) {
			h.mustAppend(string(ev))
		}
		if i%8 == 7 {
			if err := st.Commit(h.st); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Commit(h.st); err != nil {
		t.Fatal(err)
	}
	return st, h.st, h
}

// resident is the share of the store's file mapped in this process.
func resident(t *testing.T, st *projection.Store) float64 {
	t.Helper()
	n, pages, err := projection.ResidentPages(st)
	if err != nil {
		t.Fatal(err)
	}
	if pages < 200 {
		t.Fatalf("the file has %d pages: too few to tell", pages)
	}
	return float64(n) / float64(pages)
}

func TestResidentBudget(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	tests := []struct {
		name   string
		budget int
		// whether most of the file is mapped after a Load that starts
		// with none of it mapped, and after a commit that starts with all
		// of it
		wantLoaded, wantCommitted bool
	}{
		{"within the default budget, Load maps the file and a commit keeps it", 0, true, true},
		{"within a budget, Load maps the file and a commit keeps it", 1 << 30, true, true},
		{"over the budget, Load leaves the file and a commit drops it", 64 << 10, false, false},
		{"a negative budget drops the file at every commit", -1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, h := residentStore(t, tt.budget)
			projection.DropPages(st)
			if got := resident(t, st); got > 0.05 {
				t.Fatalf("after DropPages, %.0f%% of the file is mapped", 100*got)
			}
			s, err := st.Load(dialects)
			if err != nil {
				t.Fatal(err)
			}
			// Load reads the slots, and a fault maps the pages around the
			// one it reads (up to 64 KiB): a third of a file this small.
			if got := resident(t, st); (got > 0.6) != tt.wantLoaded {
				t.Errorf("after Load, %.0f%% of the file is mapped; want all of it: %v", 100*got, tt.wantLoaded)
			}
			// Map all of the file, then commit a few records.
			if err := st.Dump(io.Discard); err != nil {
				t.Fatal(err)
			}
			if got := resident(t, st); got < 0.9 {
				t.Fatalf("after a dump, only %.0f%% of the file is mapped", 100*got)
			}
			h.st = s
			for _, ev := range workload.Session(300) {
				h.mustAppend(string(ev))
			}
			if err := st.Commit(s); err != nil {
				t.Fatal(err)
			}
			if got := resident(t, st); (got > 0.6) != tt.wantCommitted {
				t.Errorf("after a commit, %.0f%% of the file is mapped; want most of it: %v", 100*got, tt.wantCommitted)
			}
		})
	}
}

// TestCheckDropsPagesAsItReads: Check of a file over the resident budget
// drops the pages it has read as it sums the entries, so the file never
// becomes resident all at once (serve checks a 745 MB file at start: it
// peaked at the whole file, 907 to 913 MB, before); a file within the
// budget keeps its pages through the check.
func TestCheckDropsPagesAsItReads(t *testing.T) {
	for _, tt := range []struct {
		name      string
		budget    int
		wantDrops bool
	}{
		{"over the budget", 64 << 10, true},
		{"within the budget", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, _, _ := residentStore(t, tt.budget)
			if err := st.Dump(io.Discard); err != nil { // map all of it
				t.Fatal(err)
			}
			var before []float64
			restore := projection.CheckDrops(16<<10, func() { before = append(before, resident(t, st)) })
			defer restore()
			if err := st.Check(); err != nil {
				t.Fatal(err)
			}
			if !tt.wantDrops {
				if len(before) > 0 {
					t.Fatalf("%d drops", len(before))
				}
				if got := resident(t, st); got < 0.9 {
					t.Fatalf("after Check, %.0f%% of the file is mapped; want all of it", 100*got)
				}
				return
			}
			// The entries are about 1 MB: dozens of steps of 16 KiB. The
			// first drop finds what bbolt's check mapped (all of it).
			if len(before) < 10 {
				t.Fatalf("%d drops while summing; want one every 16 KiB of entries", len(before))
			}
			if before[0] < 0.9 {
				t.Fatalf("at the first drop %.0f%% of the file was mapped; the dump mapped all of it", 100*before[0])
			}
			var most float64
			for _, r := range before[1:] {
				most = max(most, r)
			}
			if most > 0.6 {
				t.Fatalf("between drops up to %.0f%% of the file was mapped; want the pages of 16 KiB of entries", 100*most)
			}
			t.Logf("%d drops, at most %.0f%% of the file mapped between them", len(before), 100*most)
		})
	}
}

// TestRebuildDropsPagesByGrowth: a rebuild (a NoSync store) over its
// resident budget drops the pages its commits read only once its file has
// grown by rebuildDropGrowth since the last drop, so that the pages it
// reads commit after commit are not faulted in again after every few
// commits (a tenth of a rebuild's CPU when it dropped at every 8th
// commit); and it drops them then, so the file does not stay mapped.
func TestRebuildDropsPagesByGrowth(t *testing.T) {
	const growth = 256 << 10
	old := *projection.RebuildDropGrowth
	*projection.RebuildDropGrowth = growth
	t.Cleanup(func() { *projection.RebuildDropGrowth = old })
	st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{NoSync: true, ResidentBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	oc := openclaw.New()
	h := &harness{t: t, st: projection.New(projection.Dialects{oc.Name(): oc})}
	h.mustAppend(string(workload.Policy()))
	size := func() int64 {
		_, pages, err := projection.ResidentPages(st)
		if err != nil {
			t.Fatal(err)
		}
		return int64(pages) * int64(os.Getpagesize())
	}
	var droppedAt int64
	drops, keeps := 0, 0
	for i := range 500 {
		for _, ev := range workload.Session(i) {
			h.mustAppend(string(ev))
		}
		if i%8 != 7 {
			continue
		}
		// Map all of the file, then commit what was folded.
		if err := st.Dump(io.Discard); err != nil {
			t.Fatal(err)
		}
		before := size()
		if err := st.CommitAsync(h.st); err != nil {
			t.Fatal(err)
		}
		if err := st.Settle(h.st); err != nil {
			t.Fatal(err)
		}
		wantDrop := before-droppedAt >= growth
		if wantDrop {
			droppedAt = before
		}
		if before < 1<<20 {
			continue // too few pages to tell
		}
		if wantDrop {
			drops++
		} else {
			keeps++
		}
		if got := resident(t, st); wantDrop && got > 0.2 || !wantDrop && got < 0.5 {
			t.Errorf("commit after session %d (file of %d bytes, %d after the last drop): %.0f%% of the file mapped; want it dropped: %v",
				i, before, before-droppedAt, 100*got, wantDrop)
		}
	}
	if drops < 2 || keeps < 2 {
		t.Fatalf("%d commits dropped the pages and %d kept them: too few of either to tell", drops, keeps)
	}
}
