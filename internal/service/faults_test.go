package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
)

// errFault is the failure a faultLog injects where the log could answer
// anything (a pipelined publish or acknowledgement).
var errFault = errors.New("faultLog: the k-th call fails")

// faultLog is a log in memory that fails its k-th call of one kind:
//   - "publish": the append fails before anything is stored (a conflict
//     for Append and AppendBatch, errFault for AppendAsync);
//   - "ack": the records are stored but the answer is lost (a conflict,
//     errFault for AppendAsync's acknowledgement);
//   - "fold": the service's k-th fold of a record it published fails
//     (Service.SetFoldFault).
type faultLog struct {
	*service.MemLog
	kind string
	k    int

	mu    sync.Mutex
	n     int
	fired bool
}

// next counts a call of kind and reports whether it is the one to fail.
func (l *faultLog) next(kind string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kind != kind {
		return false
	}
	l.n++
	if l.n == l.k {
		l.fired = true
		return true
	}
	return false
}

// publish counts a publish and says which fault, if any, it meets.
func (l *faultLog) publish() string {
	if l.kind == "publish" || l.kind == "ack" {
		if l.next(l.kind) {
			return l.kind
		}
	}
	return ""
}

func (l *faultLog) AppendHashed(ctx context.Context, subject, id string, data []byte, _ string, expected uint64) (uint64, error) {
	fault := l.publish()
	if fault == "publish" {
		return 0, events.ErrConflict()
	}
	seq, err := l.MemLog.Append(ctx, subject, id, data, expected)
	if err == nil && fault == "ack" {
		return 0, events.ErrConflict()
	}
	return seq, err
}

func (l *faultLog) AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (func() (uint64, error), error) {
	fault := l.publish()
	if fault == "publish" {
		return nil, errFault
	}
	wait, err := l.MemLog.AppendAsync(ctx, subject, id, data, hash, expected, prevID)
	if err != nil || fault != "ack" {
		return wait, err
	}
	return func() (uint64, error) {
		if _, err := wait(); err != nil {
			return 0, err
		}
		return 0, errFault
	}, nil
}

// faultBatchLog is a faultLog that appends atomic batches too; a batch
// is one publish.
type faultBatchLog struct{ *faultLog }

func (l faultBatchLog) AppendBatch(ctx context.Context, msgs []events.Message, expected uint64) (uint64, error) {
	fault := l.publish()
	if fault == "publish" {
		return 0, events.ErrConflict()
	}
	if head, _ := l.MemLog.Head(ctx); head != expected {
		return 0, events.ErrConflict()
	}
	for i, m := range msgs {
		if _, err := l.MemLog.Append(ctx, m.Subject, m.ID, m.Data, expected+uint64(i)); err != nil {
			return 0, err
		}
	}
	if fault == "ack" {
		return 0, events.ErrConflict()
	}
	return expected + 1, nil
}

// appendByRounds appends evs in two rounds of a Rounds, submitted on one
// goroutine and ended on this one, as the API's batcher and finisher do
// (overlapping when the service is pipelined), and decides the events a
// round hands back again once the rounds in flight have ended.
func appendByRounds(t *testing.T, svc *service.Service, evs []*events.Event) []service.Outcome {
	t.Helper()
	rs := service.NewRounds[[]int](svc)
	defer rs.Close()
	out := make([]service.Outcome, len(evs))
	submit := func(idx []int) {
		sub := make([]*events.Event, len(idx))
		for j, i := range idx {
			sub[j] = evs[i]
		}
		rs.Submit(t.Context(), sub, nil, idx)
	}
	all := make([]int, len(evs))
	for i := range all {
		all[i] = i
	}
	inFlight := 2
	go func() {
		submit(all[:len(all)/2])
		submit(all[len(all)/2:])
	}()
	for attempt := 0; inFlight > 0; attempt++ {
		var again []int
		for ; inFlight > 0; inFlight-- {
			e, _ := rs.Next(t.Context())
			if e.Err != nil {
				t.Fatalf("a round's roll-back failed: %v", e.Err)
			}
			for j, i := range e.Tag {
				if slices.Contains(e.Redo, j) {
					again = append(again, i)
				} else {
					out[i] = e.Outs[j]
				}
			}
		}
		if len(again) == 0 {
			break
		}
		if attempt >= svc.Retries() {
			t.Fatalf("events %v still to decide again after %d attempts", again, attempt)
		}
		submit(again)
		inFlight++
	}
	return out
}

// TestAppendFaults runs every entry point of the append path over a log
// that fails its k-th publish, acknowledgement or fold, for every k the
// events reach: however a round fails, every event is answered as if
// nothing had failed (a refusal stays one, every other event lands
// exactly once, at the sequence its answer names, maybe as a re-send of
// itself), and the service's state is a fold of the log. It guards the
// rule of redoFrom (never refuse on a stale view; a failed round redoes
// everything after its last landed record) on each path.
func TestAppendFaults(t *testing.T) {
	raws := workload.Session(1)
	// A second start of the root is refused (duplicate_session) among
	// events that land.
	raws = slices.Insert(raws, 3, raws[0])
	entries := appendEntries()
	for _, entry := range entries {
		for _, kind := range []string{"publish", "ack", "fold"} {
			for k := 1; k <= len(raws); k++ {
				t.Run(fmt.Sprintf("%s/%s/%d", entry.name, kind, k), func(t *testing.T) {
					flog := &faultLog{MemLog: &service.MemLog{}}
					var log service.Log = flog
					if entry.batch {
						log = faultBatchLog{flog}
					}
					svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), BatchFrom: entry.batchFrom})
					if err != nil {
						t.Fatal(err)
					}
					if got := svc.Pipelined(); got == entry.batch {
						t.Fatalf("Pipelined() = %v on this log", got)
					}
					if _, err := svc.Append(t.Context(), workload.Policy()); err != nil {
						t.Fatal(err)
					}
					flog.kind, flog.k = kind, k
					if kind == "fold" {
						svc.SetFoldFault(func() error {
							if flog.next("fold") {
								return errFault
							}
							return nil
						})
					}
					evs := parsed(t, raws)
					out := entry.run(t, svc, evs)
					if k == 1 && !flog.fired {
						t.Fatal("the fault never fired")
					}
					checkAfterFaults(t, svc, flog.MemLog, evs, out)
				})
			}
		}
	}
}

// checkAfterFaults checks the outcomes of TestAppendFaults: event 3 is
// refused as a duplicate session, every other one landed once where its
// outcome says, and the state is a fold of the log.
func checkAfterFaults(t *testing.T, svc *service.Service, log *service.MemLog, evs []*events.Event, out []service.Outcome) {
	t.Helper()
	recs, err := service.ReadRecords(t.Context(), log, 1, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.ID]++
	}
	for i, o := range out {
		if i == 3 {
			if events.CodeOf(o.Err) != events.CodeDuplicateSession {
				t.Errorf("event 3, a second start: %+v, want duplicate_session", o)
			}
			continue
		}
		if o.Err != nil {
			t.Errorf("event %d (%s): %v", i, evs[i].Type, o.Err)
			continue
		}
		if o.Result.Seq == 0 || o.Result.Seq > uint64(len(recs)) || recs[o.Result.Seq-1].ID != evs[i].ID {
			t.Errorf("event %d (%s) answered at %d, which does not hold its id %s", i, evs[i].Type, o.Result.Seq, evs[i].ID)
		}
		if count[evs[i].ID] != 1 {
			t.Errorf("event %d (%s) is %d times in the log", i, evs[i].Type, count[evs[i].ID])
		}
	}
	if want := 1 + len(evs) - 1; len(recs) != want {
		t.Errorf("the log holds %d records, want %d (the policy and every event but the refused one)", len(recs), want)
	}
	sameAsRebuild(t, svc, log)
}

// appendEntry is an entry point of the append path, which appends evs
// in order and returns their outcomes.
type appendEntry struct {
	name  string
	batch bool // the log appends atomic batches (and the service uses them)
	// batchFrom is the service's Config.BatchFrom: on a batch log, a
	// round of fewer events goes as single appends pipelined within it.
	batchFrom int
	run       func(t *testing.T, svc *service.Service, evs []*events.Event) []service.Outcome
}

// appendEntries are every entry point of the append path: Append, one
// event at a time; AppendEvents, pipelined or in atomic batches; and
// Rounds, as the API's batcher uses them, pipelined or not.
func appendEntries() []appendEntry {
	return []appendEntry{
		{"Append", false, 0, func(t *testing.T, svc *service.Service, evs []*events.Event) []service.Outcome {
			out := make([]service.Outcome, len(evs))
			for i, ev := range evs {
				b, err := json.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				out[i].Result, out[i].Err = svc.Append(t.Context(), b)
				if out[i].Err == nil {
					ev.ID = out[i].Result.ID
				}
			}
			return out
		}},
		{"AppendEvents pipelined", false, 0, appendEvents},
		{"AppendEvents atomic batch", true, 0, appendEvents},
		// Config.BatchFrom past every round: a batch log's rounds go as
		// single appends, one round at a time.
		{"AppendEvents singles on a batch log", true, 1000, appendEvents},
		{"Rounds pipelined", false, 0, appendByRounds},
		{"Rounds atomic batch", true, 0, appendByRounds},
		{"Rounds singles on a batch log", true, 1000, appendByRounds},
	}
}

func appendEvents(t *testing.T, svc *service.Service, evs []*events.Event) []service.Outcome {
	return svc.AppendEvents(t.Context(), evs, nil)
}

// TestNoRefusalOnAStaleView runs every entry point on a writer that has
// not seen another writer's start of a session, with events that need
// it: they are decided on a stale view first, and refused there, but the
// refusals do not stand (redoFrom asks the log's head): every event is
// decided again after a catch-up and lands.
func TestNoRefusalOnAStaleView(t *testing.T) {
	life := workload.Session(1)
	for _, entry := range appendEntries() {
		t.Run(entry.name, func(t *testing.T) {
			mem := &service.MemLog{}
			var log service.Log = &faultLog{MemLog: mem}
			if entry.batch {
				log = faultBatchLog{&faultLog{MemLog: mem}}
			}
			other, err := service.Open(t.Context(), service.Config{Log: mem, Dialects: dialects.All()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.Append(t.Context(), workload.Policy()); err != nil {
				t.Fatal(err)
			}
			svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), BatchFrom: entry.batchFrom})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.Append(t.Context(), life[0]); err != nil { // svc does not see it
				t.Fatal(err)
			}
			evs := parsed(t, life[1:3]) // a turn and a spawn of that session
			for i, o := range entry.run(t, svc, evs) {
				if o.Err != nil || o.Result.Seq != uint64(3+i) {
					t.Errorf("event %d (%s): %+v, want it landed at %d", i, evs[i].Type, o, 3+i)
				}
			}
			sameAsRebuild(t, svc, mem)
		})
	}
}

// countingBatchLog is a faultBatchLog that fails nothing and counts the
// atomic batches and the single appends it was sent.
type countingBatchLog struct {
	faultBatchLog
	batches, singles int
}

func (l *countingBatchLog) AppendBatch(ctx context.Context, msgs []events.Message, expected uint64) (uint64, error) {
	l.batches++
	return l.faultBatchLog.AppendBatch(ctx, msgs, expected)
}

func (l *countingBatchLog) AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (func() (uint64, error), error) {
	l.singles++
	return l.faultBatchLog.AppendAsync(ctx, subject, id, data, hash, expected, prevID)
}

// TestSmallRoundsGoAsSingles: on a log that appends atomic batches, a
// round of fewer than Config.BatchFrom events goes as single appends
// pipelined within it, and a round of at least that many as one batch;
// without BatchFrom every round of two or more is a batch. Every event
// lands either way.
func TestSmallRoundsGoAsSingles(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		batchFrom             int
		sessions              []int // a round of each session's life (13 events) or two
		wantBatch, wantSingle int
	}{
		{"BatchFrom 16, 13 then 26 events", 16, []int{1, 2}, 1, 13},
		{"the default, 13 then 26 events", 0, []int{1, 2}, 2, 0},
		{"FsyncBatchFrom, 13 then 26 events", service.FsyncBatchFrom, []int{1, 2}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &countingBatchLog{faultBatchLog: faultBatchLog{&faultLog{MemLog: &service.MemLog{}}}}
			svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), BatchFrom: tc.batchFrom})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Append(t.Context(), workload.Policy()); err != nil {
				t.Fatal(err)
			}
			next := 0
			for _, n := range tc.sessions {
				var raws [][]byte
				for i := 0; i < n; i++ {
					raws = append(raws, workload.Session(next)...)
					next++
				}
				evs := parsed(t, raws)
				for i, o := range svc.AppendEvents(t.Context(), evs, nil) {
					if o.Err != nil {
						t.Fatalf("event %d (%s): %v", i, evs[i].Type, o.Err)
					}
				}
			}
			if log.batches != tc.wantBatch || log.singles != tc.wantSingle {
				t.Errorf("%d atomic batches and %d single appends, want %d and %d", log.batches, log.singles, tc.wantBatch, tc.wantSingle)
			}
			sameAsRebuild(t, svc, log.MemLog)
		})
	}
}

// TestBatchFromIsValidated: Open refuses a BatchFrom below zero or above
// what one atomic batch carries, naming the field.
func TestBatchFromIsValidated(t *testing.T) {
	for _, n := range []int{-1, service.MaxBatch + 1} {
		_, err := service.Open(t.Context(), service.Config{Log: &service.MemLog{}, Dialects: dialects.All(), BatchFrom: n})
		if err == nil || !strings.Contains(err.Error(), "BatchFrom") {
			t.Errorf("BatchFrom %d: %v, want an error naming BatchFrom", n, err)
		}
	}
	for _, n := range []int{0, service.FsyncBatchFrom, service.MaxBatch} {
		if _, err := service.Open(t.Context(), service.Config{Log: &service.MemLog{}, Dialects: dialects.All(), BatchFrom: n}); err != nil {
			t.Errorf("BatchFrom %d: %v", n, err)
		}
	}
}
