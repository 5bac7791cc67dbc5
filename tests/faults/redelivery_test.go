package faults

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// memRecords appends the workload with n sessions to an in-memory log and
// returns the log and its decoded records.
func memRecords(t *testing.T, n int) (*service.MemLog, []*events.Record) {
	t.Helper()
	mem := &service.MemLog{}
	svc := service.New(service.Config{Log: mem, Dialects: dialects.All()})
	for i, raw := range workload.Sessions(n) {
		if _, err := svc.Append(t.Context(), raw); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	head, _ := mem.Head(t.Context())
	recs, err := service.ReadRecords(t.Context(), mem, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	return mem, recs
}

func fold(t *testing.T, recs []*events.Record, to int) *projection.State {
	t.Helper()
	st, err := replay.Fold(dialects.All(), recs, uint64(to))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func dumpHash(t *testing.T, st *projection.Store) (string, uint64) {
	t.Helper()
	h, err := st.DumpHash()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := st.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return h, cp
}

// TestCommitRefusesRecordsAtOrBelowCheckpoint: a store that has committed
// up to N never takes records at or below N again, whether they come in a
// state folded from scratch (behind, level with or past the checkpoint) or
// are applied again to the state loaded from it; the dump does not move.
func TestCommitRefusesRecordsAtOrBelowCheckpoint(t *testing.T) {
	mem, recs := memRecords(t, 4)
	n := len(recs) - 10
	store, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Commit(fold(t, recs, n)); err != nil {
		t.Fatal(err)
	}
	want, cp := dumpHash(t, store)
	if cp != uint64(n) {
		t.Fatalf("checkpoint %d, want %d", cp, n)
	}
	if rebuilt := rebuildHash(t, mem, uint64(n)); want != rebuilt {
		t.Fatalf("committed dump %s, rebuild %s", want, rebuilt)
	}
	for _, tc := range []struct {
		name string
		to   int
	}{
		{"state behind the checkpoint", n / 2},
		{"state level with the checkpoint", n},
		{"state past the checkpoint, folded from 1", n + 5},
	} {
		err := store.Commit(fold(t, recs, tc.to))
		if err == nil {
			t.Errorf("%s (records 1..%d onto checkpoint %d): Commit accepted it", tc.name, tc.to, n)
		} else if !strings.Contains(err.Error(), "checkpoint") {
			t.Errorf("%s: error does not say what is wrong: %v", tc.name, err)
		}
		if got, cp := dumpHash(t, store); got != want || cp != uint64(n) {
			t.Errorf("%s: the store changed (checkpoint %d, dump %s, want %d %s)", tc.name, cp, got, n, want)
		}
	}

	// Redelivering a record the loaded state holds is refused by Apply;
	// committing the untouched state writes nothing.
	st, err := store.Load(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int{1, n / 2, n} {
		if err := st.Apply(projection.Input{Record: recs[seq-1]}, uint64(seq)); err == nil {
			t.Errorf("Apply of record %d on a state at %d was accepted", seq, n)
		}
	}
	if err := store.Commit(st); err != nil {
		t.Errorf("commit of the loaded state with nothing new: %v", err)
	}
	if got, cp := dumpHash(t, store); got != want || cp != uint64(n) {
		t.Errorf("redelivery changed the store (checkpoint %d)", cp)
	}
	// The next record still goes in, and the store stays equal to a
	// rebuild.
	for seq := n + 1; seq <= len(recs); seq++ {
		if err := st.Apply(projection.Input{Record: recs[seq-1]}, uint64(seq)); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Commit(st); err != nil {
		t.Fatal(err)
	}
	got, cp := dumpHash(t, store)
	if want := rebuildHash(t, mem, 0); got != want || cp != uint64(len(recs)) {
		t.Errorf("after the rest: checkpoint %d dump %s, rebuild %s", cp, got, want)
	}
}

// redeliveringLog is a natslog.Log whose Follow starts again from the first
// record whatever it is asked, and delivers every record twice: the worst
// an at-least-once transport could do.
type redeliveringLog struct {
	*natslog.Log
	delivered atomic.Uint64 // the highest sequence delivered (twice)
	calls     atomic.Int64
}

func (l *redeliveringLog) Follow(ctx context.Context, from uint64, fn func(seq uint64, data []byte, pending uint64) error, until uint64) error {
	return l.Log.Follow(ctx, 1, func(seq uint64, data []byte, pending uint64) error {
		for range 2 {
			l.calls.Add(1)
			if err := fn(seq, data, pending); err != nil {
				return err
			}
		}
		l.delivered.Store(max(l.delivered.Load(), seq))
		return nil
	}, until)
}

// TestFollowerSkipsRedeliveredRecords: the service's follower is handed
// every record again from the start, twice each: the records it folded at
// Open, the ones it appended itself (folded before the follower sees them)
// and another writer's. The projection ends equal to a rebuild, and a
// second pass of pure redelivery does not move its dump.
func TestFollowerSkipsRedeliveredRecords(t *testing.T) {
	dir := t.TempDir()
	ns := startServer(t, filepath.Join(dir, "nats"))
	log := openLog(t, connect(t, ns, "writer"), natslog.StreamConfig{})
	other, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	evs := workload.Sessions(12) // the policy, then 13 events per session
	at := func(session int) int { return 1 + 13*session }
	for _, raw := range evs[:at(3)] {
		if _, err := other.Append(t.Context(), raw); err != nil {
			t.Fatal(err)
		}
	}

	rl := &redeliveringLog{Log: openLog(t, connect(t, ns, "replica"), natslog.StreamConfig{})}
	store, err := projection.OpenStore(filepath.Join(dir, "p.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := service.Open(t.Context(), service.Config{Log: rl, Dialects: dialects.All(), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Position() != uint64(at(3)) {
		t.Fatalf("opened at %d, want %d", svc.Position(), at(3))
	}
	run := func() (stop func() error) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		return func() error { cancel(); return <-done }
	}
	stop := run()
	// Its own records, pipelined, while the other writer appends too.
	mine := evs[at(3):at(8)]
	errc := make(chan error, 1)
	go func() {
		for _, raw := range evs[at(8):] {
			if _, err := other.Append(context.Background(), raw); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	for i := 0; i < len(mine); i += 16 {
		for k, o := range svc.AppendMany(t.Context(), mine[i:min(i+16, len(mine))]) {
			if o.Err != nil {
				t.Fatalf("own event %d: %v", i+k, o.Err)
			}
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("other writer: %v", err)
	}
	head, err := log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if head != uint64(len(evs)) {
		t.Fatalf("head %d, want %d", head, len(evs))
	}
	ledgertest.WaitFor(t, 30*time.Second, "the follower delivers every record twice", func() bool {
		return svc.Position() == head && rl.delivered.Load() == head
	})
	if err := stop(); err != nil {
		t.Fatalf("Run with redelivery: %v", err)
	}
	got, cp := dumpHash(t, store)
	want := rebuildHash(t, log, 0)
	if got != want || cp != head {
		t.Fatalf("after redelivery: checkpoint %d dump %s, rebuild %s", cp, got, want)
	}
	if n := rl.calls.Load(); n < int64(2*head) {
		t.Fatalf("the follower was handed %d records, want at least %d", n, 2*head)
	}

	// Pure redelivery: everything again, twice, nothing new.
	before := rl.calls.Load()
	rl.delivered.Store(0)
	stop = run()
	ledgertest.WaitFor(t, 30*time.Second, "the second pass", func() bool { return rl.delivered.Load() == head })
	if err := stop(); err != nil {
		t.Fatalf("second Run: %v", err)
	}
	if rl.calls.Load()-before < int64(2*head) {
		t.Fatalf("second pass handed %d records", rl.calls.Load()-before)
	}
	if got2, cp2 := dumpHash(t, store); got2 != got || cp2 != head || svc.Position() != head {
		t.Fatalf("pure redelivery moved the projection: checkpoint %d position %d", cp2, svc.Position())
	}
}
