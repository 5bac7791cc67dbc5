package service

// This file is the overlapping append rounds of the pipelined mode: a
// writer (the API's batcher) begins round n+1 on top of round n's records
// while round n's acknowledgements are still on their way, and ends the
// rounds in order. The contract (docs/SPEC.md section 3, "Overlapping
// rounds"; docs/architecture.md, "Append rounds"):
//
//   - A round is decided on the head, which includes the records of every
//     round begun and not yet ended (speculative records).
//   - Nothing outside the rounds sees a speculative record: every query,
//     every other writer, the follower (when it folds another writer's
//     record; it passes one the head holds already at once,
//     TestFollowerLetsRoundsOverlap) and the projection's commits take
//     lock, which waits until no round is in flight, so they read only
//     acknowledged and folded records. Position and WaitApplied (min_seq)
//     count only acknowledged records (settled).
//   - A round that fails (a conflict, a publish or acknowledgement that
//     failed, a refusal decided while another writer got ahead) fails
//     every round begun on top of it; when the last of them has ended the
//     head is rolled back to the log, and EndRound tells the writer which
//     events to decide again.
//
// TestOverlappedRoundsHideSpeculativeRecords,
// TestOverlappedRoundLostToAKilledServer and TestOverlappedRoundsKilledServer
// (a JetStream server killed between the rounds' publishes and their
// acknowledgements) guard it, and api.TestOverlappedRoundsRace the
// batcher's part.

import (
	"context"
	"errors"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// maxRounds is how many rounds may be in flight at once: one being
// acknowledged while the next is decided.
const maxRounds = 2

// Round is a round of appends begun by BeginRound and not yet ended.
type Round struct {
	evs     []*events.Event
	out     []Outcome
	flights []flight
	// tail is set when events were decided after the round's last
	// record (refusals, duplicates): nothing the log said validates the
	// head they were decided on, so EndRound checks the log's head for
	// them, and no round may begin on top of this one before it has.
	tail bool
	// stop is the index in evs of the first event whose record was not
	// published or not folded (len(evs) when every one was), and stopErr
	// why.
	stop    int
	stopErr error
	// done means the round was appended synchronously (not pipelined):
	// out is final and nothing is in flight.
	done bool
	// pos is the head's position the round was decided on.
	pos uint64
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
// acknowledged records. Every caller but BeginRound and EndRound takes mu
// through it.
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
		s.settledCond.Broadcast() // a BeginRound that let the waiting go first
	}
}

// overlapOK reports whether a round may begin on top of the rounds in
// flight: not when callers of lock wait for them to end, when the
// projection is due a commit (which writes only acknowledged records),
// when one of them failed, when enough are in flight already, or on top
// of a round that decided refusals after its last record (which EndRound
// checks against the log's head, so no record of this writer's may
// follow them yet).
func (s *Service) overlapOK() bool {
	last := s.rounds[len(s.rounds)-1]
	return s.waiting == 0 && !s.failed && len(s.rounds) < maxRounds &&
		!last.tail &&
		(s.cfg.Store == nil || s.syncCommits || time.Since(s.lastCommit) < s.cfg.CommitInterval)
}

// BeginRound decides evs in order, each on the head that includes the
// events before it and every round in flight, publishes their records
// without waiting for the acknowledgements, and folds them speculatively.
// screen, when not nil, is called for each event first, on that head; an
// event it refuses is not decided and its error is the event's outcome.
// End every round with EndRound, in the order they began. Without
// pipelining (Pipelined false) the round is appended at once, as
// AppendEvents does, and EndRound only hands back its outcomes.
func (s *Service) BeginRound(ctx context.Context, evs []*events.Event, screen func(st *projection.State, i int) error) *Round {
	r := &Round{evs: evs, out: make([]Outcome, len(evs)), stop: len(evs)}
	s.mu.Lock()
	defer s.mu.Unlock()
	pipelined := s.Pipelined()
	for len(s.rounds) > 0 && (!pipelined || !s.overlapOK()) || len(s.rounds) == 0 && s.waiting > 0 {
		s.settledCond.Wait()
	}
	var todo []int
	for i, ev := range evs {
		switch {
		case ev == nil:
			r.out[i].Err = events.Errorf(events.CodeInvalidEvent, "no event")
		case screen != nil:
			if err := screen(s.head, i); err != nil {
				r.out[i].Err = err
				continue
			}
			fallthrough
		default:
			todo = append(todo, i)
		}
	}
	if !pipelined {
		s.appendLocked(ctx, evs, todo, r.out)
		r.done = true
		return r
	}
	r.pos = s.head.Position()
	prevID := ""
	if len(s.rounds) > 0 {
		prevID = s.lastID
	}
	s.rounds = append(s.rounds, r)
	al := s.cfg.Log.(AsyncLog)
	for k, i := range todo {
		ev := evs[i]
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
		wait, err := al.AppendAsync(ctx, prep.Subject, prep.Record.ID, b, expected, prevID)
		if err != nil {
			r.stop, r.stopErr = todo[k], err
			break
		}
		r.flights = append(r.flights, flight{i: i, seq: expected + 1, wait: wait})
		if err := s.head.Apply(prep.Input(b), expected+1); err != nil {
			// Published but not folded: it fails the round from here.
			r.stop, r.stopErr = i, err
			break
		}
		r.out[i] = Outcome{Result{Seq: expected + 1, ID: ev.ID, Decided: prep.Record.Decided}, prep.Err}
		prevID = prep.Record.ID
	}
	s.lastID = prevID
	return r
}

// EndRound waits for the acknowledgements of the oldest round in flight,
// r, and ends it. When every record landed as decided (and, for a round
// that published nothing, no other writer got ahead of the head it was
// decided on), it returns the outcomes and no redo. Otherwise redo lists
// the events to decide again, in order (every event from the first whose
// record did not land, or every event when a round beneath failed), their
// outcomes in outs are not to be used, and the head is rolled back to the
// log once the last round begun on top of r has ended; err is a failure
// of that roll-back.
func (s *Service) EndRound(ctx context.Context, r *Round) (outs []Outcome, redo []int, err error) {
	if r.done {
		return r.out, nil, nil
	}
	failedAt := r.stop
	failErr := r.stopErr
	for _, f := range r.flights {
		if seq, err := f.wait(); (err != nil || seq != f.seq) && f.i < failedAt {
			failedAt, failErr = f.i, err
		}
	}
	// validated is the index of the last event whose record landed where
	// it was decided, before the failure if any (-1: none): what was
	// decided up to it was decided on the log's own head.
	validated := -1
	for _, f := range r.flights {
		if f.i < failedAt {
			validated = f.i
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rounds) == 0 || s.rounds[0] != r {
		return nil, nil, errors.New("service: EndRound called out of order")
	}
	switch {
	case s.failed:
		failedAt = 0
	case failedAt < len(r.evs):
		// A refusal decided after the last record that landed may have
		// been decided on a head another writer had got ahead of (the
		// record that failed says it had): decide it again too.
		failedAt = validated + 1
	case r.tail:
		// Refusals after the last record: they stand unless another
		// writer got ahead of the head they were decided on (no round
		// began on top of this one, see overlapOK).
		head, err := s.cfg.Log.Head(ctx)
		if err != nil {
			failedAt, failErr = validated+1, err
		} else if head > s.head.Position() {
			failedAt = validated + 1
		}
	}
	s.rounds = s.rounds[1:]
	if failedAt == len(r.evs) {
		if len(s.rounds) == 0 {
			if err := s.maybeCommit(ctx); err != nil {
				s.log.Error("committing the projection", "err", err)
			}
		}
		s.notify()
		s.settledCond.Broadcast()
		return r.out, nil, nil
	}
	if failErr != nil && !errors.Is(failErr, events.ErrConflict()) {
		s.log.Info("a pipelined round failed; it is decided again", "err", failErr)
	}
	if s.cfg.OnConflict != nil {
		s.cfg.OnConflict()
	}
	for i := range r.evs {
		if i >= failedAt && r.evs[i] != nil {
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
	return r.out, redo, err
}

// Retries is how often an append is decided again after a conflict
// (Config.Retries).
func (s *Service) Retries() int { return s.cfg.Retries }
