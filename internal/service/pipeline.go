package service

import (
	"context"
	"errors"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// AsyncLog is a Log that can pipeline a writer's own appends.
type AsyncLog interface {
	Log
	// AppendAsync starts an append at expected+1 that, when prevID is not
	// empty, also requires the log's last record to carry prevID; wait
	// returns its sequence or its failure. hash is data's content hash
	// (events.HashBytes), which the caller computed for its fold; "" to
	// have the log compute it when it needs it.
	AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (wait func() (uint64, error), err error)
}

// BatchLog is a Log that can append many records as one atomic batch,
// validated against one head, sharing one commit.
type BatchLog interface {
	Log
	AppendBatch(ctx context.Context, msgs []events.Message, expected uint64) (uint64, error)
}

// StreamBatchLog is a BatchLog that publishes a batch's records while the
// caller is still deciding the rest, so the log stages the batch
// meanwhile: fill calls add with each record in order, and the batch is
// committed, validated against expected, when fill returns. It returns
// the first record's sequence and how many records fill added (with none,
// nothing is sent and first is expected+1). When fill fails, nothing
// lands and fill's error is returned.
type StreamBatchLog interface {
	BatchLog
	AppendBatchStream(ctx context.Context, expected uint64, fill func(add func(events.Message)) error) (first uint64, n int, err error)
}

// appendBatch appends what fill adds as one atomic batch, streamed when
// the log can.
func appendBatch(ctx context.Context, bl BatchLog, expected uint64, fill func(add func(events.Message)) error) (uint64, int, error) {
	if sl, ok := bl.(StreamBatchLog); ok {
		return sl.AppendBatchStream(ctx, expected, fill)
	}
	var msgs []events.Message
	if err := fill(func(m events.Message) { msgs = append(msgs, m) }); err != nil {
		return 0, len(msgs), err
	}
	if len(msgs) == 0 {
		return expected + 1, 0, nil
	}
	first, err := bl.AppendBatch(ctx, msgs, expected)
	return first, len(msgs), err
}

// MaxBatch is the most events one atomic batch carries (JetStream allows
// 1000).
const MaxBatch = 1000

// BatchThreshold is the fewest events AppendMany sends as one atomic batch
// rather than pipelined single appends. Two: on a replicated stream,
// pipelined appends that carry Nats-Expected-Last-Msg-Id from two writers
// that conflict can go unacknowledged, while an atomic batch is validated
// against one head and lands whole or not at all.
const BatchThreshold = 2

// Outcome is the answer to one event of AppendMany.
type Outcome struct {
	Result Result
	Err    error
}

// AppendMany appends events in order, each validated against the state
// that includes the ones before it. On a BatchLog (unless Config.Pipeline)
// a round goes out as one atomic batch validated against one head; on an
// AsyncLog it is pipelined: each record is published without waiting with
// Nats-Expected-Last-Sequence and, after the first,
// Nats-Expected-Last-Msg-Id = its predecessor's id, and folded at once. If
// one fails (another writer got in between), none behind it can land; the
// writer then drops the speculative state, catches up and re-validates the
// rest. Over a Log that can do neither it appends one at a time.
func (s *Service) AppendMany(ctx context.Context, raws [][]byte) []Outcome {
	evs := make([]*events.Event, len(raws))
	errs := make([]error, len(raws))
	for i, raw := range raws {
		evs[i], errs[i] = events.Parse(raw)
	}
	return s.AppendEvents(ctx, evs, errs)
}

// AppendEvents is AppendMany for events already parsed by events.Parse
// (so a caller can parse off the append path): evs[i] is nil where errs[i]
// says why it did not parse, and that error is its outcome.
func (s *Service) AppendEvents(ctx context.Context, evs []*events.Event, errs []error) []Outcome {
	out := make([]Outcome, len(evs))
	var todo []int
	for i, ev := range evs {
		if ev == nil {
			if i < len(errs) {
				out[i].Err = errs[i]
			}
			if out[i].Err == nil {
				out[i].Err = events.Errorf(events.CodeInvalidEvent, "no event")
			}
			continue
		}
		todo = append(todo, i)
	}
	s.lock()
	defer s.mu.Unlock()
	s.appendLocked(ctx, evs, todo, out)
	return out
}

// appendLocked is AppendEvents for the events of todo, their outcomes
// written to out: one event goes through appendEventLocked, several run in
// rounds (one atomic batch, batchRound, or one pipelined round,
// roundLocked) with this retry loop. A round hands back the events to
// decide again (redoFrom) and why: after a conflict they go round again,
// at most Config.Retries times; any other failure is their outcome. The
// caller holds mu, through lock.
func (s *Service) appendLocked(ctx context.Context, evs []*events.Event, todo []int, out []Outcome) {
	al, ok := s.cfg.Log.(AsyncLog)
	if !ok || len(todo) == 1 {
		for _, i := range todo {
			out[i].Result, out[i].Err = s.appendEventLocked(ctx, evs[i])
		}
		return
	}
	for _, i := range todo {
		if evs[i].ID == "" {
			evs[i].ID = events.NewID(s.cfg.Clock(), s.entropy())
		}
	}
	bl, batching := s.cfg.Log.(BatchLog)
	for attempt := 0; len(todo) > 0; attempt++ {
		var rest []int
		var err error
		if s.Batches(len(todo)) {
			rest, err = s.batchRound(ctx, bl, evs, todo, out)
		} else {
			// A batch log's round too small for a batch (BatchFrom): its
			// single appends are durable writes of their own.
			rest, err = s.roundLocked(ctx, al, evs, todo, out, batching && !s.cfg.Pipeline)
		}
		if err == nil && len(rest) == 0 {
			return
		}
		if err != nil && !errors.Is(err, events.ErrConflict()) || attempt >= s.cfg.Retries {
			if err == nil {
				err = events.ErrConflict()
			}
			for _, i := range rest {
				out[i] = Outcome{Err: err}
			}
			return
		}
		todo = rest
	}
}

// prepareEvent decides ev against the head and encodes its record. ok is
// false when there is nothing to append; out then holds the event's
// outcome (a refusal, a re-sent id, or a record that did not encode).
func (s *Service) prepareEvent(ev *events.Event, out *Outcome) (projection.Prepared, []byte, bool) {
	prep := s.head.Prepare(ev, s.now())
	if prep.Record == nil {
		*out = Outcome{Result{Seq: prep.Landed, ID: ev.ID, Duplicate: prep.Landed != 0}, prep.Err}
		return prep, nil, false
	}
	b, err := prep.Encode()
	if err != nil {
		*out = Outcome{Err: err}
		return prep, nil, false
	}
	return prep, b, true
}

// rollback drops state folded from records that did not land: it reloads
// the projection from the store (or refolds the log) and catches up.
func (s *Service) rollback(ctx context.Context) error {
	if s.cfg.Store != nil {
		// A background commit writes only records that landed; let it
		// finish, so the file loaded is the one the next commit expects.
		// When it failed, settle has loaded the file and caught up.
		if reloaded, err := s.commits.settle(ctx); reloaded || err != nil {
			return err
		}
		st, err := s.cfg.Store.Load(s.cfg.Dialects)
		if err != nil {
			return err
		}
		s.head = st
	} else {
		cp := s.head.Position()
		head, err := s.cfg.Log.Head(ctx)
		if err != nil {
			return err
		}
		st, err := s.StateAt(ctx, min(cp, head))
		if err != nil {
			return err
		}
		s.head = st
	}
	return s.catchup(ctx)
}

// batchRound prepares the events of todo in order, each folded
// speculatively so the next is validated against it, and appends their
// records as one atomic batch expecting the head they were validated at
// (streamed, on a StreamBatchLog: each record is sent as soon as it is
// decided). The batch commits only on that head, so it confirms every
// decision of the round; when it fails nothing landed: the speculative
// state is dropped and every event is decided again (redoFrom).
func (s *Service) batchRound(ctx context.Context, bl BatchLog, evs []*events.Event, todo []int, out []Outcome) ([]int, error) {
	base := s.head.Position()
	decided := 0 // events of todo decided, the first of those not sent
	var foldErr error
	fill := func(add func(events.Message)) error {
		for n := 0; decided < len(todo) && n < MaxBatch; {
			i := todo[decided]
			decided++
			prep, b, ok := s.prepareEvent(evs[i], &out[i])
			if !ok {
				continue
			}
			seq := s.head.Position() + 1
			in := prep.Input(b) // hashed once, for the fold and the publish
			if err := s.fold(in, seq); err != nil {
				foldErr = err
				return err
			}
			add(events.Message{Subject: prep.Subject, ID: prep.Record.ID, Data: b, Hash: in.Hash()})
			n++
			out[i] = Outcome{Result{Seq: seq, ID: evs[i].ID, Decided: prep.Record.Decided, Check: checkOf(prep)}, prep.Err}
		}
		return nil
	}
	first, n, err := appendBatch(ctx, bl, base, fill)
	failed := foldErr != nil || err != nil || n > 0 && first != base+1
	confirmed := decided // the batch committed on base: every decision held
	if failed || n == 0 {
		confirmed = 0 // nothing landed, or nothing was sent to confirm them
	}
	k, herr := s.redoFrom(ctx, decided, confirmed, failed)
	if k == decided {
		if n > 0 {
			if s.cfg.OnRound != nil {
				s.cfg.OnRound(n)
			}
			if err := s.commits.folded(ctx); err != nil {
				return nil, err
			}
			s.notify()
		}
		return todo[decided:], nil
	}
	if failed || herr != nil {
		if s.cfg.OnConflict != nil {
			s.cfg.OnConflict()
		}
		if rerr := s.rollback(ctx); rerr != nil {
			return todo, rerr
		}
	} else if cerr := s.catchup(ctx); cerr != nil {
		// Only refusals, on a head another writer had got ahead of:
		// nothing speculative to drop.
		return todo, cerr
	}
	switch {
	case herr != nil:
		err = herr
	case err == nil || errors.Is(err, events.ErrConflict()) || foldErr != nil:
		err = events.ErrConflict()
	}
	return todo, err
}
