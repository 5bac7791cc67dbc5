package service_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

func checkOutcomes(t *testing.T, outs []service.Outcome) {
	t.Helper()
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("event %d: %v", i, o.Err)
		}
		if i > 0 && o.Result.Seq != outs[i-1].Result.Seq+1 {
			t.Fatalf("event %d at %d after %d", i, o.Result.Seq, outs[i-1].Result.Seq)
		}
	}
}

// sameAsRebuild checks the live state equals a fold of the log.
func sameAsRebuild(t *testing.T, svc *service.Service, log service.Log) {
	t.Helper()
	recs, err := service.ReadRecords(t.Context(), log, 1, svc.Position())
	if err != nil {
		t.Fatal(err)
	}
	want, err := replay.Fold(dialects.All(), recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = svc.View(t.Context(), "", projection.Position{}, func(st *projection.State) error {
		if !bytes.Equal(ledgertest.Dump(t, st), ledgertest.Dump(t, want)) {
			t.Error("live state differs from a fold of the log")
		}
		return nil
	})
}

func TestAppendManyOnJetStream(t *testing.T) {
	n := startNode(t, t.TempDir())
	defer n.stop()
	evs := workload.Sessions(8)
	outs := n.svc.AppendMany(t.Context(), evs)
	checkOutcomes(t, outs)
	if head, _ := n.log.Head(t.Context()); head != uint64(len(evs)) {
		t.Fatalf("head %d, want %d", head, len(evs))
	}
	sameAsRebuild(t, n.svc, n.log)
	// Refusals inside a pipeline are answered and write nothing.
	outs = n.svc.AppendMany(t.Context(), [][]byte{evs[1], workload.Session(100)[0], evs[1]})
	if events.CodeOf(outs[0].Err) != events.CodeDuplicateSession || outs[1].Err != nil || events.CodeOf(outs[2].Err) != events.CodeDuplicateSession {
		t.Fatalf("outcomes %+v", outs)
	}
}

// interfering is a log on which another writer appends just before the
// pipeline's k-th publish.
type interfering struct {
	*service.MemLog
	k, calls int
	other    func()
}

func (l *interfering) AppendAsync(ctx context.Context, subject, id string, data []byte, expected uint64, prevID string) (func() (uint64, error), error) {
	l.calls++
	if l.calls == l.k {
		l.other()
	}
	return l.MemLog.AppendAsync(ctx, subject, id, data, expected, prevID)
}

func TestAppendManyConflictMidPipeline(t *testing.T) {
	mem := &service.MemLog{}
	log := &interfering{MemLog: mem, k: 5}
	a, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := service.Open(t.Context(), service.Config{Log: mem, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	evs := workload.Sessions(2)
	foreign := workload.Session(50)[0] // another root session, started by b
	log.other = func() {
		if _, err := b.Append(context.Background(), foreign); err != nil {
			t.Errorf("b: %v", err)
		}
	}
	outs := a.AppendMany(t.Context(), evs)
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("event %d: %v", i, o.Err)
		}
	}
	head, _ := mem.Head(t.Context())
	if head != uint64(len(evs))+1 {
		t.Fatalf("head %d, want %d: every event once and b's record", head, len(evs)+1)
	}
	if outs[3].Result.Seq != 4 || outs[4].Result.Seq != 6 {
		t.Fatalf("the events before the conflict keep their place and the rest follow b's record: %d, %d", outs[3].Result.Seq, outs[4].Result.Seq)
	}
	sameAsRebuild(t, a, mem)
}

// interferingBatch is a JetStream log on which another writer appends just
// before the k-th atomic batch (a streamed batch: after its first record
// was sent).
type interferingBatch struct {
	*natslog.Log
	k, calls int
	other    func()
}

func (l *interferingBatch) AppendBatch(ctx context.Context, msgs []events.Message, expected uint64) (uint64, error) {
	l.calls++
	if l.calls == l.k {
		l.other()
	}
	return l.Log.AppendBatch(ctx, msgs, expected)
}

// AppendBatchStream counts a batch when its first record is sent.
func (l *interferingBatch) AppendBatchStream(ctx context.Context, expected uint64, fill func(add func(events.Message)) error) (uint64, int, error) {
	return l.Log.AppendBatchStream(ctx, expected, func(add func(events.Message)) error {
		sent := false
		return fill(func(m events.Message) {
			add(m)
			if !sent {
				sent = true
				l.calls++
				if l.calls == l.k {
					l.other()
				}
			}
		})
	})
}

// classicBatch hides the log's streamed batches: a round goes out as
// AppendBatch, once decided.
type classicBatch struct{ *interferingBatch }

func (l classicBatch) AppendBatchStream() {}

// TestAtomicBatchConflict lets another writer land between a round's
// decisions and its batch's commit: the batch must not land, and the round
// is decided again after the other writer's record, streamed or not.
func TestAtomicBatchConflict(t *testing.T) {
	for _, streamed := range []bool{true, false} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) { testAtomicBatchConflict(t, streamed) })
	}
}

func testAtomicBatchConflict(t *testing.T, streamed bool) {
	n := startNode(t, t.TempDir())
	defer n.stop()
	log := &interferingBatch{Log: n.log, k: 1}
	var sl service.Log = log
	if !streamed {
		sl = classicBatch{log}
	}
	if _, ok := sl.(service.StreamBatchLog); ok != streamed {
		t.Fatalf("the log streams batches: %v", ok)
	}
	a, err := service.Open(t.Context(), service.Config{Log: sl, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	log.other = func() {
		if _, err := n.svc.Append(context.Background(), workload.Session(77)[0]); err != nil {
			t.Errorf("other writer: %v", err)
		}
	}
	evs := workload.Session(1)
	outs := a.AppendMany(t.Context(), evs)
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("event %d: %v", i, o.Err)
		}
	}
	head, _ := n.log.Head(t.Context())
	if head != uint64(2+len(evs)) || outs[0].Result.Seq != 3 {
		t.Fatalf("head %d, first at %d: want the batch after the other writer's record", head, outs[0].Result.Seq)
	}
	if log.calls < 2 {
		t.Fatalf("%d batches: the conflicted batch was not retried", log.calls)
	}
	sameAsRebuild(t, a, n.log)
}

// TestPipelinedWritersRaceOnJetStream runs two writers that pipeline their
// rounds (Config.Pipeline) on one standalone JetStream stream at once:
// every event lands exactly once, in an order both writers agree on, and
// each writer's state equals a fold of the log.
func TestPipelinedWritersRaceOnJetStream(t *testing.T) {
	n := startNode(t, t.TempDir())
	defer n.stop()
	if _, err := n.svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	writers := make([]*service.Service, 2)
	var conflicts atomic.Int64
	for i := range writers {
		svc, err := service.Open(t.Context(), service.Config{Log: n.log, Dialects: dialects.All(), Pipeline: true,
			OnConflict: func() { conflicts.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		writers[i] = svc
	}
	const rounds = 15
	total := 1
	errs := make(chan error, len(writers))
	for w, svc := range writers {
		var batches [][][]byte
		for r := 0; r < rounds; r++ {
			evs := workload.Session(1000*w + r)
			batches = append(batches, evs)
			total += len(evs)
		}
		go func() {
			for _, evs := range batches {
				for i, o := range svc.AppendMany(context.Background(), evs) {
					if o.Err != nil {
						errs <- fmt.Errorf("writer %d event %d: %w", w, i, o.Err)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	head, _ := n.log.Head(t.Context())
	if head != uint64(total) {
		t.Fatalf("head %d, want %d: every event exactly once", head, total)
	}
	t.Logf("%d conflicts between the writers", conflicts.Load())
	for _, svc := range writers {
		if err := svc.WaitApplied(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Append(t.Context(), workload.Session(5000)[0]); err != nil && events.CodeOf(err) != events.CodeDuplicateSession {
			t.Fatal(err) // catches the writer up to the head
		}
		sameAsRebuild(t, svc, n.log)
	}
}
