package service

// This file is the engine of append rounds: every path that appends
// several events (AppendEvents, and the API's batcher through Rounds)
// decides, publishes and ends them here, and the single-event path
// (appendEventLocked) follows the same rule through redoFrom. The
// contract (docs/SPEC.md section 3, "Overlapping rounds";
// docs/architecture.md, "Append rounds"):
//
//   - Never refuse on a stale view; a failed round redoes everything after
//     its last landed record (redoFrom, the one place that says it).
//   - In the pipelined mode a writer (Rounds) begins round n+1 on top of
//     round n's records while round n's acknowledgements are on their way,
//     at most maxRounds in flight, and the rounds end in the order they
//     began: Rounds.Next ends the oldest, so no caller can do otherwise.
//     AppendEvents runs one round at a time, to its end, under the lock.
//   - A round is decided on the head, which includes the records of every
//     round begun and not yet ended (speculative records).
//   - Nothing outside the rounds sees a speculative record: every query,
//     every other writer, the follower (when it folds another writer's
//     record; it passes one the head holds already at once,
//     TestFollowerLetsRoundsOverlap) and the projection's commits take
//     lock, which waits until no round is in flight, so they read only
//     acknowledged and folded records. Position and WaitApplied (min_seq)
//     count only acknowledged records (settled).
//   - A round that fails fails every round begun on top of it; when the
//     last of them has ended the head is rolled back to the log, and the
//     events to decide again are handed back (Ended.Redo).
//
// TestAppendFaults (every entry point, a fake log failing the k-th
// publish, acknowledgement or fold), TestOverlappedRoundsHideSpeculativeRecords,
// TestOverlappedRoundLostToAKilledServer and TestOverlappedRoundsKilledServer
// (a JetStream server killed between the rounds' publishes and their
// acknowledgements) guard it, and api.TestOverlappedRoundsRace the
// batcher's part.

import (
	"context"
	"errors"
	"sync"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// maxRounds is how many rounds may be in flight at once: one being
// acknowledged while the next is decided.
const maxRounds = 2

// redoFrom is the rule of every append path: never refuse on a stale view,
// and a failed round redoes everything after its last landed record. A
// round decided n events in order; the log confirmed the view the first
// landed of them were decided on (a record at or after them landed where
// it was decided, or an atomic batch holding them committed). failed
// says a record of the round did not land, or landed and was not folded.
// The events from the one it returns on are to be decided again: after a
// failure, every one past the last landed record; otherwise the ones
// decided after it (refusals and re-sent ids, which wrote nothing) when
// another writer got ahead of the head they were decided on. err is a
// failure to ask the log, which redoes them too.
//
// Callers: appendEventLocked, batchRound and endRound. Guards:
// TestAppendFaults, TestNoRefusalOnAStaleView,
// TestAppendManyConflictMidPipeline.
func (s *Service) redoFrom(ctx context.Context, n, landed int, failed bool) (int, error) {
	if failed {
		return landed, nil
	}
	if landed == n {
		return n, nil
	}
	behind, err := s.behind(ctx)
	if err != nil || behind {
		return landed, err
	}
	return n, nil
}

// round is a round of appends: begun by beginRound, ended by endRound.
type round struct {
	evs []*events.Event
	out []Outcome
	// checks hold the decisions out's Results point to (Result.Check),
	// one array a round (see check).
	checks []projection.CheckDecided
	// all are the events (indices in evs) the round answers for, and todo
	// those of them it decides (all but the ones screened out), in order.
	all, todo []int
	flights   []flight
	// tail is set when events were decided after the round's last record
	// (refusals, duplicates): nothing the log said validates the head
	// they were decided on, so endRound asks the log's head for them, and
	// no round may begin on top of this one before it has.
	tail bool
	// stop is the place in todo of the first event whose record was not
	// published or not folded (len(todo) when every one was), and stopErr
	// why.
	stop    int
	stopErr error
	// landed and failed are what the acknowledgements said (land): the
	// view of todo's first landed events is confirmed, and failed says a
	// record did not land where it was decided; failErr is why.
	landed  int
	failed  bool
	failErr error
	// done means nothing of the round is in flight: it was appended
	// synchronously (not pipelined), and out is final, or it was skipped.
	done bool
	// skipped means the round was not decided: a round before it had
	// failed (Rounds.redoOwed).
	skipped bool
	// pos is the head's position the round was decided on.
	pos uint64
	// apart says each record of the round is its own durable write: the
	// single appends of a small round on a log that fsyncs each
	// (Config.BatchFrom), counted one by one (Config.OnRound).
	apart bool
}

// flight is a record published and not yet acknowledged: event i of the
// round, at place k of its todo, expected at seq.
type flight struct {
	i, k int
	seq  uint64
	wait func() (uint64, error)
}

// settled is the last sequence acknowledged and folded: the head's
// position when no round is in flight, else the position the oldest round
// was decided on. The caller holds mu.
func (s *Service) settled() uint64 {
	if len(s.rounds) > 0 {
		return s.rounds[0].pos
	}
	return s.head.Position()
}

// lock takes mu once no round is in flight, so that the caller sees only
// acknowledged records. Every caller but the rounds' own (Rounds.Submit,
// Rounds.Next) takes mu through it.
func (s *Service) lock() {
	s.mu.Lock()
	if len(s.rounds) == 0 {
		return
	}
	s.waiting++
	for len(s.rounds) > 0 {
		s.settledCond.Wait()
	}
	s.waiting--
	if s.waiting == 0 {
		s.settledCond.Broadcast() // a Submit that let the waiting go first
	}
}

// overlapOK reports whether a round may begin on top of the rounds in
// flight: not when callers of lock wait for them to end, when the
// projection is due a commit (which writes only acknowledged records),
// when one of them failed, when enough are in flight already, on top of
// a round that stopped early (a publish or a fold failed: it fails, and
// its events after the failure were not sent, so a record of the next
// round would land in their place: TestAppendFaults, Rounds
// pipelined/publish), or on top of a round that decided refusals after
// its last record (which endRound checks against the log's head, so no
// record of this writer's may follow them yet).
func (s *Service) overlapOK() bool {
	last := s.rounds[len(s.rounds)-1]
	return s.waiting == 0 && !s.failed && len(s.rounds) < maxRounds &&
		last.stop == len(last.todo) && !last.tail && s.commits.mayOverlap()
}

// beginRound decides the events of r.todo in order, each on the head that
// includes the events before it and every round in flight, publishes
// their records without waiting for the acknowledgements, folds them
// speculatively, and puts r in flight. The caller holds mu.
func (s *Service) beginRound(ctx context.Context, al AsyncLog, r *round) {
	r.pos = s.head.Position()
	r.stop = len(r.todo)
	prevID := ""
	if len(s.rounds) > 0 {
		prevID = s.lastID
	}
	s.rounds = append(s.rounds, r)
	for k, i := range r.todo {
		ev := r.evs[i]
		if ev.ID == "" {
			ev.ID = events.NewID(s.cfg.Clock(), s.entropy())
		}
		prep, b, ok := s.prepareEvent(ev, &r.out[i])
		if !ok {
			r.tail = true
			continue
		}
		r.tail = false
		expected := s.head.Position()
		// The record is hashed once, for its publish and its fold.
		in := prep.Input(b)
		wait, err := al.AppendAsync(ctx, prep.Subject, prep.Record.ID, b, in.Hash(), expected, prevID)
		if err != nil {
			r.stop, r.stopErr = k, err
			break
		}
		r.flights = append(r.flights, flight{i: i, k: k, seq: expected + 1, wait: wait})
		if err := s.fold(in, expected+1); err != nil {
			// Published but not folded: it fails the round from here.
			r.stop, r.stopErr = k, err
			break
		}
		r.out[i] = Outcome{Result{Seq: expected + 1, ID: ev.ID, Decided: prep.Record.Decided, Check: r.check(i, prep)}, prep.Err}
		prevID = prep.Record.ID
	}
	s.lastID = prevID
}

// land waits for the acknowledgements of r's records; it needs no lock.
func (r *round) land() {
	failedAt, failErr := r.stop, r.stopErr
	for _, f := range r.flights {
		if seq, err := f.wait(); (err != nil || seq != f.seq) && f.k < failedAt {
			failedAt, failErr = f.k, err
		}
	}
	// What was decided up to the last record that landed before the
	// failure, if any, was decided on the log's own head.
	r.landed = 0
	for _, f := range r.flights {
		if f.k < failedAt {
			r.landed = f.k + 1
		}
	}
	r.failed, r.failErr = failedAt < len(r.todo), failErr
	if r.failed && r.failErr == nil {
		r.failErr = events.ErrConflict() // landed at another sequence
	}
}

// endRound ends r, the oldest round in flight, whose acknowledgements land
// has waited for. redo lists the events of r.all to decide again, in
// order: every one after the last landed record when r failed, every one
// when a round beneath it failed, none otherwise (redoFrom); their
// outcomes are not to be used. why is the failure behind a redo; the head
// is rolled back to the log once the last round begun on top of a failed
// one has ended, and err is a failure of that roll-back. The caller holds
// mu.
func (s *Service) endRound(ctx context.Context, r *round) (redo []int, why, err error) {
	s.rounds = s.rounds[1:]
	from := 0 // in evs: the first event to decide again
	if !s.failed {
		k, herr := s.redoFrom(ctx, len(r.todo), r.landed, r.failed)
		why = r.failErr
		if herr != nil {
			why = herr
		}
		if k == len(r.todo) {
			if s.cfg.OnRound != nil && len(r.flights) > 0 {
				if r.apart {
					for range r.flights {
						s.cfg.OnRound(1)
					}
				} else {
					s.cfg.OnRound(len(r.flights))
				}
			}
			if len(s.rounds) == 0 {
				if err := s.commits.folded(ctx); err != nil {
					s.log.Error("committing the projection", "err", err)
				}
			}
			s.notify()
			s.settledCond.Broadcast()
			return nil, nil, nil
		}
		if k > 0 {
			from = r.todo[k-1] + 1 // past the last landed record's event
		}
	}
	if why == nil {
		why = events.ErrConflict() // a round beneath failed, or another writer got ahead
	}
	if !errors.Is(why, events.ErrConflict()) {
		s.log.Info("an append round failed; it is decided again", "err", why)
	}
	if s.cfg.OnConflict != nil {
		s.cfg.OnConflict()
	}
	for _, i := range r.all {
		if i >= from {
			redo = append(redo, i)
		}
	}
	s.failed = true
	if len(s.rounds) == 0 {
		// The last round of the failed ones: every record that will land
		// has; start again from the log.
		s.failed = false
		s.lastID = ""
		err = s.rollback(ctx)
		s.notify()
		s.settledCond.Broadcast()
	}
	return redo, why, err
}

// roundLocked runs the events of todo as one round, begun and ended under
// mu (AppendEvents' pipelined path, one round in flight). It returns the
// events to decide again and why, as appendLocked's rounds do.
func (s *Service) roundLocked(ctx context.Context, al AsyncLog, evs []*events.Event, todo []int, out []Outcome, apart bool) ([]int, error) {
	r := &round{evs: evs, out: out, all: todo, todo: todo, apart: apart}
	s.beginRound(ctx, al, r)
	r.land()
	redo, why, err := s.endRound(ctx, r)
	switch {
	case err != nil:
		return redo, err
	case len(redo) == 0:
		return nil, nil
	case ctx.Err() == nil:
		// An ambiguous failure is resolved by the catch-up: an id that
		// landed is answered as a re-send when decided again.
		why = events.ErrConflict()
	}
	return redo, why
}

// Rounds is one writer's pipeline of append rounds (the API's batcher):
// Submit begins a round, Next ends the oldest round begun and not yet
// ended and returns its outcomes. Rounds end in the order Submit began
// them whoever calls Next, and at most maxRounds are in flight. In the
// pipelined mode (Service.Pipelined) round n+1 is decided on top of round
// n's records before they are acknowledged; otherwise Submit appends the
// round whole, as AppendEvents does, and Next only hands back its
// outcomes. T is what the caller files with a round (its requests).
//
// Caveat: every round submitted must be ended with Next (after Close, Next
// reports false once none is left): until then the service's queries and
// other writers wait for it.
type Rounds[T any] struct {
	s *Service
	// submitMu and nextMu make Submit and Next, each, one at a time, so
	// that rounds go into begun, and come out, in the order they began.
	submitMu, nextMu sync.Mutex
	begun            chan begunRound[T]
	// redoOwed (guarded by s.mu) is set when Next handed back events of
	// a failed round to decide again, and cleared by the next round
	// submitted, which is skipped: it was put together before the caller
	// could put those events in front of it (or waited to begin on top of
	// the failed round), and deciding it first would decide later events
	// before earlier ones (a batch append spanning two rounds:
	// TestAppendFaults, Rounds pipelined/publish).
	redoOwed bool
}

type begunRound[T any] struct {
	r   *round
	tag T
}

// Ended is a round Rounds.Next ended: Outs holds an outcome for each event
// of the round, except those of Redo, the events to decide again (in
// order, before any submitted since); Err is a failed roll-back, the
// outcome of every event of Redo. Skipped means the round was not decided
// at all (Redo is every event): no attempt of its events was spent.
type Ended[T any] struct {
	Tag     T
	Outs    []Outcome
	Redo    []int
	Err     error
	Skipped bool
}

// NewRounds returns the rounds of a writer on s.
func NewRounds[T any](s *Service) *Rounds[T] {
	return &Rounds[T]{s: s, begun: make(chan begunRound[T], maxRounds)}
}

// Submit decides evs in order, each on the head that includes the events
// before it and every round in flight, and begins their round (files it
// with tag, for Next). screen, when not nil, is called for each event
// first, on that head; an event it refuses is not decided and its error is
// the event's outcome. Submit waits while maxRounds are in flight, and
// while callers of lock wait for them to end.
func (rs *Rounds[T]) Submit(ctx context.Context, evs []*events.Event, screen func(st *projection.State, i int) error, tag T) {
	rs.submitMu.Lock()
	defer rs.submitMu.Unlock()
	rs.begun <- begunRound[T]{rs.begin(ctx, evs, screen), tag}
}

// Next ends the oldest round submitted and not yet ended, once its
// acknowledgements have come, and returns its outcomes; it waits for a
// round to be submitted. ok is false after Close, once every round has
// ended.
func (rs *Rounds[T]) Next(ctx context.Context) (e Ended[T], ok bool) {
	rs.nextMu.Lock()
	defer rs.nextMu.Unlock()
	b, ok := <-rs.begun
	if !ok {
		return e, false
	}
	e.Tag, e.Outs = b.tag, b.r.out
	if b.r.skipped {
		e.Redo, e.Skipped = b.r.all, true
	}
	if b.r.done {
		return e, true
	}
	b.r.land()
	rs.s.mu.Lock()
	defer rs.s.mu.Unlock()
	e.Redo, _, e.Err = rs.s.endRound(ctx, b.r)
	if len(e.Redo) > 0 {
		rs.redoOwed = true
	}
	return e, true
}

// Close says no round is submitted any more; Next then ends the rest.
func (rs *Rounds[T]) Close() { close(rs.begun) }

// begin is Submit's work: it screens and decides evs and begins their
// round, or, when not pipelined, appends them whole.
func (rs *Rounds[T]) begin(ctx context.Context, evs []*events.Event, screen func(st *projection.State, i int) error) *round {
	s := rs.s
	r := &round{evs: evs, out: make([]Outcome, len(evs))}
	s.mu.Lock()
	defer s.mu.Unlock()
	pipelined := s.Pipelined()
	for len(s.rounds) > 0 && (!pipelined || !s.overlapOK()) || len(s.rounds) == 0 && s.waiting > 0 {
		s.settledCond.Wait()
	}
	for i, ev := range evs {
		if ev == nil {
			r.out[i].Err = events.Errorf(events.CodeInvalidEvent, "no event")
			continue
		}
		r.all = append(r.all, i)
		if rs.redoOwed {
			continue
		}
		if screen != nil {
			if err := screen(s.head, i); err != nil {
				r.out[i].Err = err
				continue
			}
		}
		r.todo = append(r.todo, i)
	}
	if rs.redoOwed {
		rs.redoOwed = false
		r.done, r.skipped = true, true
		return r
	}
	if !pipelined {
		s.appendLocked(ctx, evs, r.todo, r.out)
		r.done = true
		return r
	}
	s.beginRound(ctx, s.cfg.Log.(AsyncLog), r)
	return r
}

// Retries is how often an append is decided again after a conflict
// (Config.Retries).
func (s *Service) Retries() int { return s.cfg.Retries }

// check is checkOf(prep) for evs[i], kept in r.checks: one allocation a
// round rather than one an event (TestResultCheckIsDecided guards the
// values).
func (r *round) check(i int, prep projection.Prepared) *projection.CheckDecided {
	c, ok := prep.Checked()
	if !ok {
		return nil
	}
	if r.checks == nil {
		r.checks = make([]projection.CheckDecided, len(r.evs))
	}
	r.checks[i] = c
	return &r.checks[i]
}
