package projection_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// TestHeldToolSets: a store that holds its tool sets back
// (StoreOptions.HoldToolSets, a rebuild's) answers every turn's tool set
// as a state in memory does while it holds them, and the state's hash
// (its dump) is that of the state in memory, keeps its content sum
// true to the file after every commit (Check), and once synced holds none
// and has the content of a store that wrote them at every commit (the
// same dump hash, after reopening too). With a hold of one byte it writes
// them within each commit, to the same end.
func TestHeldToolSets(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	h := &harness{t: t, st: projection.New(dialects)}
	for _, ev := range workload.Sessions(40) {
		h.mustAppend(string(ev))
	}
	recs, mem := h.log, h.st
	const every = 23
	build := func(path string, opts projection.StoreOptions, each func(st *projection.Store, s *projection.State, at int)) *projection.Store {
		st, err := projection.OpenStore(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		s := projection.New(dialects)
		for i, r := range recs {
			if err := s.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
				t.Fatal(err)
			}
			if i%every != every-1 && i != len(recs)-1 {
				continue
			}
			if err := st.CommitAsync(s); err != nil {
				t.Fatal(err)
			}
			if err := st.Settle(s); err != nil {
				t.Fatal(err)
			}
			each(st, s, i+1)
		}
		return st
	}
	ref := build(filepath.Join(t.TempDir(), "ref.db"), projection.StoreOptions{NoSync: true}, func(*projection.Store, *projection.State, int) {})
	want, err := ref.DumpHash()
	if err != nil {
		t.Fatal(err)
	}
	ref.Close()
	keys := mem.Keys()
	for _, limit := range []int{*projection.HoldBytes, 1} {
		t.Run(fmt.Sprintf("hold-%d", limit), func(t *testing.T) {
			defer func(old int) { *projection.HoldBytes = old }(*projection.HoldBytes)
			*projection.HoldBytes = limit
			path := filepath.Join(t.TempDir(), "held.db")
			maxHeld := 0
			st := build(path, holding, func(st *projection.Store, s *projection.State, at int) {
				if err := st.Check(); err != nil {
					t.Fatalf("after the commit at %d: %v", at, err)
				}
				maxHeld = max(maxHeld, projection.Held(st))
				if at == len(recs) {
					// Still held (with the default hold): the state's
					// dump reads them among the stored ones.
					got, err := s.StateHash()
					if w, _ := mem.StateHash(); err != nil || got != w {
						t.Fatalf("state hash %s (%v) with %d tool sets held; in memory %s", got, err, projection.Held(st), w)
					}
				}
				for _, k := range keys {
					for turn := 1; ; turn++ {
						got, seq, ok := s.TurnSet(k, turn)
						if !ok || seq > uint64(at) {
							break
						}
						if w, _, _ := mem.TurnSet(k, turn); !reflect.DeepEqual(got, w) {
							t.Fatalf("at %d, %s turn %d: tool set %v, a state in memory has %v", at, k, turn, got, w)
						}
					}
				}
			})
			if limit > 1 && maxHeld == 0 {
				t.Fatal("the store held no tool set")
			}
			if limit == 1 && maxHeld != 0 {
				t.Fatalf("a hold of one byte kept %d tool sets past a commit", maxHeld)
			}
			if err := st.Sync(); err != nil {
				t.Fatal(err)
			}
			if n := projection.Held(st); n != 0 {
				t.Fatalf("%d tool sets held after Sync", n)
			}
			if err := st.Check(); err != nil {
				t.Fatalf("after Sync: %v", err)
			}
			if got, err := st.DumpHash(); err != nil || got != want {
				t.Fatalf("dump hash %s (%v), written at every commit %s", got, err, want)
			}
			st.Close()
			st, err := projection.OpenStore(path, projection.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if got, err := st.DumpHash(); err != nil || got != want {
				t.Fatalf("reopened: dump hash %s (%v), want %s", got, err, want)
			}
		})
	}
}

// holding is the options of a rebuild's store.
var holding = projection.StoreOptions{NoSync: true, HoldToolSets: true}

// TestHeldToolSetsWrittenOnClose: a store closed without Sync writes what
// it holds first.
func TestHeldToolSetsWrittenOnClose(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	recs := workloadLog(t)
	ref, _ := buildStoreAt(t, filepath.Join(t.TempDir(), "ref.db"), dialects, recs, len(recs))
	want, err := ref.DumpHash()
	if err != nil {
		t.Fatal(err)
	}
	ref.Close()
	path := filepath.Join(t.TempDir(), "held.db")
	st, _ := buildStoreWith(t, path, holding, dialects, recs, len(recs))
	if projection.Held(st) == 0 {
		t.Fatal("the store held no tool set")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.DumpHash(); err != nil || got != want {
		t.Fatalf("dump hash %s (%v), want %s", got, err, want)
	}
}

// TestUnfinishedRebuildRefused: the file of a store that held tool sets
// back and stopped without writing them (a rebuild killed) is refused when
// opened, with what to do; one synced and closed opens, and so does a
// fresh one that died before any commit when a rebuild opens it again.
func TestUnfinishedRebuildRefused(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	recs := workloadLog(t)
	path := filepath.Join(t.TempDir(), "killed.db")
	st, _ := buildStoreWith(t, path, holding, dialects, recs, len(recs))
	if projection.Held(st) == 0 {
		t.Fatal("the store held no tool set")
	}
	if err := projection.Crash(st); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []projection.StoreOptions{{}, holding} {
		if st, err := projection.OpenStore(path, opts); err == nil {
			st.Close()
			t.Fatalf("%+v: an unfinished rebuild's file opened", opts)
		} else if !strings.Contains(err.Error(), "did not finish") || !strings.Contains(err.Error(), "ledger replay") {
			t.Fatalf("%+v: %v, want what to do about an unfinished rebuild", opts, err)
		}
	}

	// Killed before its first commit: nothing held, nothing lost; a
	// rebuild takes the file as fresh (buildStoreWith opens it again), and
	// once synced it opens.
	path = filepath.Join(t.TempDir(), "early.db")
	st, err := projection.OpenStore(path, holding)
	if err != nil {
		t.Fatal(err)
	}
	projection.Crash(st)
	st, _ = buildStoreWith(t, path, holding, dialects, recs, len(recs))
	if err := st.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st, err = projection.OpenStore(path, projection.StoreOptions{}); err != nil {
		t.Fatalf("a synced rebuild: %v", err)
	}
	st.Close()
}
