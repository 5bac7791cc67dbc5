package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
	"github.com/sessionledger/ledger/scenario"
)

// serviceLedger runs scenarios through a service.
type serviceLedger struct{ svc *service.Service }

func (l serviceLedger) Append(ctx context.Context, raw []byte) (uint64, error) {
	res, err := l.svc.Append(ctx, raw)
	return res.Seq, err
}

func (l serviceLedger) Head(context.Context) (uint64, error) { return l.svc.Position(), nil }

func (l serviceLedger) View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error {
	return l.svc.View(ctx, key, pos, fn)
}

// TestScenariosOnACommittedStore runs every conformance scenario through a
// service whose projection is committed after every record, so each
// decision and query reads the history from the store: every expectation
// holds, and the state ends equal to the one folded in memory.
func TestScenariosOnACommittedStore(t *testing.T) {
	for _, path := range conformanceFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			store, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			clock := scenario.NewClock()
			svc, err := service.Open(t.Context(), service.Config{Log: &service.MemLog{}, Dialects: dialects.All(),
				Store: store, Clock: clock.Now, CommitInterval: time.Nanosecond})
			if err != nil {
				t.Fatal(err)
			}
			r := &scenario.Runner{Ledger: serviceLedger{svc}, Clock: clock}
			if rep := r.Run(t.Context(), f); rep.Failed > 0 {
				t.Fatalf("scenario failed: %+v", rep.Failures)
			}
			if err := svc.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			mem, _ := runScenario(t, path)
			var got, want []byte
			_ = svc.View(t.Context(), "", zeroPos, func(s *projectionState) error { got = ledgertest.Dump(t, s); return nil })
			_ = mem.View(t.Context(), "", zeroPos, func(s *projectionState) error { want = ledgertest.Dump(t, s); return nil })
			if !bytes.Equal(got, want) {
				t.Errorf("the state on a committed store differs from the one in memory:\n%s\n%s", got, want)
			}
		})
	}
}

// TestStoreFoldMatchesMemory folds every conformance log twice in lockstep:
// in memory, and into a store committed every few records and reloaded
// from it now and then. After every record the two dump the same bytes and
// answer every history query alike.
func TestStoreFoldMatchesMemory(t *testing.T) {
	for _, path := range conformanceFiles(t) {
		_, log := runScenario(t, path)
		head, _ := log.Head(t.Context())
		raw, err := log.Read(t.Context(), 1, head)
		if err != nil {
			t.Fatal(err)
		}
		for _, every := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s/every-%d", filepath.Base(path), every), func(t *testing.T) {
				store, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer store.Close()
				mem, disk := projection.New(dialects.All()), projection.New(dialects.All())
				for i, b := range raw {
					seq := uint64(i + 1)
					if err := mem.Apply(projection.Input{Bytes: b}, seq); err != nil {
						t.Fatal(err)
					}
					if err := disk.Apply(projection.Input{Bytes: b}, seq); err != nil {
						t.Fatal(err)
					}
					if i%every == every-1 {
						if err := store.Commit(disk); err != nil {
							t.Fatal(err)
						}
						if i%(2*every) == every-1 {
							if disk, err = store.Load(dialects.All()); err != nil {
								t.Fatal(err)
							}
						}
					}
					sameState(t, seq, mem, disk, raw[:i+1])
				}
			})
		}
	}
}

func sameState(t *testing.T, seq uint64, want, got *projection.State, raw [][]byte) {
	t.Helper()
	if a, b := ledgertest.Dump(t, got), ledgertest.Dump(t, want); !bytes.Equal(a, b) {
		t.Fatalf("at %d the dumps differ:\n%s\n%s", seq, a, b)
	}
	if a, b := got.Keys(), want.Keys(); !slices.Equal(a, b) {
		t.Fatalf("at %d keys %v, want %v", seq, a, b)
	}
	for _, k := range want.Keys() {
		for turn := 0; turn <= want.Session(k).Turn+1; turn++ {
			ts1, s1, ok1 := got.TurnSet(k, turn)
			ts2, s2, ok2 := want.TurnSet(k, turn)
			if ok1 != ok2 || s1 != s2 || ts1.Hash() != ts2.Hash() {
				t.Fatalf("at %d turn %d of %s: %v %d %v, want %v %d %v", seq, turn, k, ok1, s1, ts1, ok2, s2, ts2)
			}
			r1, e1 := got.Resolve(k, projection.Position{Turn: turn})
			r2, e2 := want.Resolve(k, projection.Position{Turn: turn})
			if r1 != r2 || fmt.Sprint(e1) != fmt.Sprint(e2) {
				t.Fatalf("at %d resolving turn %d of %s: %d %v, want %d %v", seq, turn, k, r1, e1, r2, e2)
			}
		}
	}
	for i, b := range raw {
		rec, _ := events.DecodeRecord(b)
		s1, ok1 := got.Landed(rec.ID)
		s2, ok2 := want.Landed(rec.ID)
		r1, _ := got.Ref(uint64(i + 1))
		r2, _ := want.Ref(uint64(i + 1))
		if s1 != s2 || ok1 != ok2 || r1 != r2 {
			t.Fatalf("at %d record %d: landed %d %v ref %v, want %d %v %v", seq, i+1, s1, ok1, r1, s2, ok2, r2)
		}
		subj := events.Subject(rec.Type, rec.Session)
		if a, b := got.ChainHead(subj), want.ChainHead(subj); a != b {
			t.Fatalf("at %d chain head of %s: %s, want %s", seq, subj, a, b)
		}
		for _, tm := range []string{rec.Time, rec.Time + "x", "0"} {
			p1, e1 := got.Resolve("", projection.Position{Time: tm})
			p2, e2 := want.Resolve("", projection.Position{Time: tm})
			if p1 != p2 || fmt.Sprint(e1) != fmt.Sprint(e2) {
				t.Fatalf("at %d resolving time %s: %d %v, want %d %v", seq, tm, p1, e1, p2, e2)
			}
		}
	}
}

// TestRebuiltStateAfterClose: the state Rebuild returns reads its history
// from the file it wrote after Rebuild closed it; while the file is open
// again for writing, bbolt's lock refuses the read, and the state answers
// a storage error that says to load the state from the open store, never
// a wait or a read through another Store; once the file is closed again
// the state reads it.
func TestRebuiltStateAfterClose(t *testing.T) {
	_, log := runScenario(t, filepath.Join("..", "testdata", "conformance", "openclaw", "continuation-09-settle-batch-same-policy.json"))
	path := filepath.Join(t.TempDir(), "p.db")
	st, err := replay.Rebuild(t.Context(), log, dialects.All(), path, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, _, err := replay.Verify(t.Context(), log, dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ledgertest.StateHash(t, mem)
	if got := ledgertest.StateHash(t, st); got != want {
		t.Fatalf("rebuilt state %s, folded in memory %s", got, want)
	}
	store, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.StateHash(); events.CodeOf(err) != events.CodeStorage || !strings.Contains(err.Error(), "load the state again from the open one") {
		t.Fatalf("with the file open again: %v, want a %s error saying to load the state from the open store", err, events.CodeStorage)
	}
	loaded, err := store.Load(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	if got := ledgertest.StateHash(t, loaded); got != want {
		t.Fatalf("loaded from the open store: %s, folded in memory %s", got, want)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ledgertest.StateHash(t, st); got != want {
		t.Fatalf("with the file closed again: rebuilt state %s, folded in memory %s", got, want)
	}
}
