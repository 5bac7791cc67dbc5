package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/oklog/ulid/v2"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// MaxBatchEvents is the most events one batch append may carry.
const MaxBatchEvents = wire.MaxBatchEvents

// appendBatch is a batch append waiting for its events' outcomes; it is
// answered when the last one is in. handleBatch fills in the outcomes of
// the events it refuses and sets left before it queues the rest; from
// then on only the finisher (answer) writes out and left.
type appendBatch struct {
	r    micro.Request
	out  []wire.AppendOutcome
	left int // outcomes still to come
}

type pendingAppend struct {
	// r is the request of a lone append; batch and i place an event of a
	// batch append instead.
	r     micro.Request
	batch *appendBatch
	i     int
	ev    *events.Event
	start time.Time
	// owner is the orchestrator of a session event ("" for policy
	// events), whose sessions alone it may touch.
	owner string
	// sent is the id the event came with when ownID stored it under
	// another: the id its answer names.
	sent string
	// idChecked is set once ownID has looked at the event's id, and
	// idErr when it could not: the event's outcome, which the batcher's
	// screen gives it in its next round, for the finisher to answer.
	idChecked bool
	idErr     error
	// attempts counts the rounds that failed under the event.
	attempts int
	// check, for a recorded check (the check endpoint with record), is
	// answered as a check rather than an append.
	check *recordedCheck
	// landed is the record of the owner's own that carries the event's id
	// (ownID found it): a re-sent recorded check is answered with it.
	landed *events.Record
	// deadline, when set (a recorded check's within_ms), is past when the
	// caller has stopped waiting: a round that would decide the check
	// later refuses it instead (deadline_passed), recording nothing
	// (TestRecordedCheckDeadline).
	deadline time.Time
}

func (s *Server) handleAppend(r micro.Request) {
	start := time.Now()
	owner := scope(r)
	if !ValidOwner(owner) {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "append on %s: the last token must name the orchestrator ([A-Za-z0-9_-], not %q)", r.Subject(), wire.ScopeAll), 0)
		return
	}
	if data := bytes.TrimLeft(r.Data(), " \t\r\n"); len(data) > 0 && data[0] == '[' {
		s.handleBatch(r, owner, start)
		return
	}
	// The event is parsed here, on the request's goroutine, so the batcher
	// spends its round on deciding and appending only.
	ev, err := parseAs(r.Data(), owner)
	if err != nil {
		respondError(r, err, 0)
		return
	}
	if ev.Type.IsPolicy() {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s is a policy event: operators send it to %s.policy.<operator>", ev.Type, wire.Prefix), 0)
		return
	}
	if err := s.checkScope(ev, owner); err != nil {
		respondError(r, err, 0)
		return
	}
	// Ownership (of the sessions and of the id) is checked by the
	// batcher, for a whole round at once, so that this handler never waits
	// for the service while a round runs and requests keep arriving to fill
	// the next round.
	s.queue(&pendingAppend{r: r, ev: ev, start: start, owner: owner})
}

// queue hands p to the batcher; false when the server stops first (p is
// then not answered).
func (s *Server) queue(p *pendingAppend) bool {
	select {
	case s.appends <- p:
		return true
	case <-s.life.Done():
	}
	return false
}

// handleBatch takes a JSON array of session events: each is decided in
// order, against the state that includes the ones before it (an event
// refused does not stop the rest), and the answer is the array of their
// outcomes. The events usually share a round with other writers' appends.
func (s *Server) handleBatch(r micro.Request, owner string, start time.Time) {
	raws, err := splitBatch(r.Data())
	if err != nil {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "a batch append is a JSON array of events: %v", err), 0)
		return
	}
	if len(raws) == 0 || len(raws) > wire.MaxBatchEvents {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "a batch append carries 1 to %d events, not %d", wire.MaxBatchEvents, len(raws)), 0)
		return
	}
	b := &appendBatch{r: r, out: make([]wire.AppendOutcome, len(raws))}
	ps := make([]pendingAppend, len(raws))
	todo := make([]*pendingAppend, 0, len(raws))
	for i, raw := range raws {
		ev, err := parseAs(raw, owner)
		if err == nil && ev.Type.IsPolicy() {
			err = events.Errorf(events.CodeInvalidEvent, "%s is a policy event: operators send it to %s.policy.<operator>", ev.Type, wire.Prefix)
		}
		if err == nil {
			err = s.checkScope(ev, owner)
		}
		if err != nil {
			b.out[i] = wire.AppendOutcome{Error: errorBody(err, 0)}
			continue
		}
		ps[i] = pendingAppend{batch: b, i: i, ev: ev, start: start, owner: owner}
		todo = append(todo, &ps[i])
	}
	if len(todo) == 0 {
		respondJSON(r, b.out)
		return
	}
	b.left = len(todo)
	for _, p := range todo {
		if !s.queue(p) {
			return
		}
	}
}

// overlapHeaders are the headers of an answer whose round overlapped
// another: one map for every answer (three allocations an event less).
// micro.WithHeaders makes it the answer message's header, which nats.go
// only reads, writing it out before Respond returns; nothing writes it
// (the -race runs of TestOverlappedRoundsRace and of the client's tests
// would see a write racing the reads).
var overlapHeaders = micro.Headers{wire.RoundsHeader: {wire.RoundsOverlap}}

// answer answers one append: its request, or its place in a batch (the
// batch is answered with its last outcome). Only the finisher calls it
// (through answerOutcome), so a batch's outcomes and left have one writer
// (TestBatchAnswersHaveOneOwner).
func answer(p *pendingAppend, res wire.AppendResult, err error, seq uint64, overlap bool) {
	if p.sent != "" && res.ID != "" {
		res.ID = p.sent
	}
	var hdr micro.Headers
	if overlap {
		hdr = overlapHeaders
	}
	if p.batch == nil {
		if err != nil {
			respondError(p.r, err, seq)
		} else {
			respondJSONWith(p.r, res, hdr)
		}
		return
	}
	b := p.batch
	if err != nil {
		b.out[p.i] = wire.AppendOutcome{Seq: seq, Error: errorBody(err, seq)}
	} else {
		b.out[p.i] = wire.AppendOutcome{Seq: res.Seq, ID: res.ID, Duplicate: res.Duplicate}
	}
	if b.left--; b.left == 0 {
		respondJSONWith(b.r, b.out, hdr)
	}
}

// foreign checks that a session event touches only its orchestrator's
// sessions: an event on another orchestrator's session (or a spawn under
// one) is answered as if that session did not exist. round holds the
// owners of sessions that events earlier in the same round create, which
// the state does not hold yet.
func foreign(st *projection.State, round map[events.SessionKey]string, p *pendingAppend) error {
	if p.owner == "" {
		return nil
	}
	ownerOf := func(key events.SessionKey) (string, bool) {
		if o, ok := round[key]; ok {
			return o, true
		}
		if sess := st.Session(key); sess != nil {
			return sess.Actor, true
		}
		return "", false
	}
	switch p.ev.Type {
	case events.SessionSpawned:
		var d struct {
			Parent events.SessionKey `json:"parent"`
		}
		_ = json.Unmarshal(p.ev.Data, &d) // parsed already: it decodes
		if o, ok := ownerOf(d.Parent); ok && o != p.owner {
			return events.UnknownParent(d.Parent)
		}
	default:
		if o, ok := ownerOf(p.ev.Session); ok && o != p.owner {
			return events.UnknownSession(p.ev.Session)
		}
	}
	// The sessions a yield or a resume names must be the orchestrator's
	// too, and are refused as missing ones are when they are not (the
	// service checks them in this order after the session itself).
	foreignIn := func(keys []events.SessionKey, unknown func(events.SessionKey) *events.Error) error {
		for _, k := range keys {
			if o, ok := ownerOf(k); ok && o != p.owner {
				return unknown(k)
			}
		}
		return nil
	}
	switch p.ev.Type {
	case events.SessionYielded:
		var d events.YieldedData
		_ = json.Unmarshal(p.ev.Data, &d)
		if err := foreignIn(d.Children, events.UnknownChild); err != nil {
			return err
		}
	case events.SessionResumed:
		var d events.ResumedData
		_ = json.Unmarshal(p.ev.Data, &d)
		if err := foreignIn(d.From, events.UnknownFrom); err != nil {
			return err
		}
	}
	if p.ev.Type == events.SessionStarted || p.ev.Type == events.SessionSpawned {
		if _, ok := ownerOf(p.ev.Session); !ok {
			round[p.ev.Session] = p.owner
		}
	}
	return nil
}

// ownID keeps one orchestrator from learning of another's records through
// their ids: an event whose id a record of another owner carries is stored
// under an id of its own, scopedID(owner, id), the same for every re-send
// of it, and answered with the id it came with, just as a fresh id is. So
// a re-send of one's own event is answered duplicate, and anyone else's id
// is answered as an id never used (hostile.TestIsolationProbes). It
// returns the id the event came with when it changed it, else "".
//
// The batcher calls it only for the events of a round whose id the round's
// one look at the head found landed, so a fresh id costs the request path
// nothing (handleAppend never waits for the service).
//
// Caveat: two owners' appends with the same new id in flight at once are
// not told apart (the second is answered duplicate of the first); ids are
// ULIDs, 80 bits of them random, which no one guesses.
func (s *Server) ownID(ctx context.Context, ev *events.Event, owner string) (string, *events.Record, error) {
	sent := ev.ID
	var own *events.Record
	for range 4 {
		var seq uint64
		var landed bool
		_ = s.cfg.Service.View(ctx, "", projection.Position{}, func(st *projection.State) error {
			seq, landed = st.Landed(ev.ID)
			return nil
		})
		if ev.ID == "" || !landed {
			break
		}
		recs, err := service.ReadRecords(ctx, s.cfg.Service.Log(), seq, seq)
		if err != nil {
			return "", nil, err
		}
		if len(recs) == 1 && recs[0].Actor == owner {
			own = recs[0]
			break // a re-send of its own: answered duplicate
		}
		ev.ID = scopedID(owner, ev.ID)
	}
	if ev.ID == sent {
		return "", own, nil
	}
	return sent, nil, nil
}

// scopedID is the id an event of owner with id is stored under when
// another owner's record has id: the same time, and the 80 bits after it
// taken from a hash of owner and id.
func scopedID(owner, id string) string {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return id // parsed already: it is a ULID
	}
	h := sha256.Sum256([]byte(owner + "\x00" + id))
	copy(u[6:], h[:10])
	return u.String()
}

func (s *Server) handlePolicy(r micro.Request) {
	start := time.Now()
	var ev *events.Event
	var err error
	operator, bound := strings.CutPrefix(r.Subject(), wire.Prefix+".policy.")
	if bound {
		if !ValidOwner(operator) {
			respondError(r, events.Errorf(events.CodeInvalidEvent, "%s: the last token must name an operator", r.Subject()), 0)
			return
		}
		ev, err = parseAs(r.Data(), operator)
	} else {
		ev, err = events.Parse(r.Data())
	}
	if err != nil {
		respondError(r, err, 0)
		return
	}
	if !ev.Type.IsPolicy() {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s is a session event: orchestrators send it to %s.append.<orchestrator>", ev.Type, wire.Prefix), 0)
		return
	}
	if !bound && s.cfg.ScopeLimits != nil && len(s.cfg.ScopeLimits.Users) > 0 {
		// The unbound policy subject names no operator to limit: with
		// limits in force, only the operators' own subjects take policy.
		respondError(r, events.Errorf(events.CodeScopeNotAllowed, "with scope limits in force, policy events go to %s.policy.<operator>, whose limits apply", wire.Prefix), 0)
		return
	}
	if bound {
		if err := s.checkScope(ev, operator); err != nil {
			respondError(r, err, 0)
			return
		}
	}
	s.queue(&pendingAppend{r: r, ev: ev, start: start})
}

// parseAs parses an event sent on an orchestrator's (or an operator's)
// subject: its actor is that orchestrator, whether the event names it or
// leaves it out; naming anyone else is refused.
func parseAs(raw []byte, owner string) (*events.Event, error) {
	ev, err := events.Parse(raw)
	if err != nil {
		// Parse needs an actor; an event may leave it out. Anything else
		// wrong with it is the answer.
		var m map[string]json.RawMessage
		if events.CheckJSON(raw) != nil || json.Unmarshal(raw, &m) != nil || m == nil {
			return nil, err
		}
		if _, ok := m["actor"]; ok {
			return nil, err
		}
		m["actor"], _ = json.Marshal(owner)
		b, merr := json.Marshal(m)
		if merr != nil {
			return nil, err
		}
		if ev, err = events.Parse(b); err != nil {
			return nil, err
		}
	}
	if ev.Actor != "" && ev.Actor != owner {
		return nil, events.Errorf(events.CodeInvalidEvent, "actor %q does not match %q, whose subject this is; leave actor out", ev.Actor, owner)
	}
	ev.Actor = owner
	return ev, nil
}

// batchAppends runs appends in rounds: every append waiting when a round
// starts goes into it, so concurrent writers share acknowledgement round
// trips. Who does what:
//
//   - the batcher (this goroutine) puts rounds together, from the requeue
//     first, and submits them (service.Rounds.Submit): it decides, and
//     answers nothing;
//   - the finisher ends the rounds in the order they began (Rounds.Next)
//     and is the only one that answers appends (finishRound); the events
//     to decide again go back to the requeue;
//   - ownID runs on a goroutine of its own for the events whose id had
//     landed, and puts them back in the requeue, its failure, if any, in
//     idErr: the next round gives it to the event as its outcome (screen),
//     and the finisher answers it.
//
// An append belongs to one of them at a time: handed over through the
// appends channel, Submit and Next, and the requeue's lock. So in the
// pipelined mode round n+1 is decided while round n's acknowledgements
// are on their way (internal/service/rounds.go), and a batch append whose
// events span rounds is answered once, by the finisher.
func (s *Server) batchAppends(ctx context.Context) {
	rounds := service.NewRounds[*roundJob](s.cfg.Service)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			e, ok := rounds.Next(ctx)
			if !ok {
				return
			}
			s.finishRound(ctx, e)
		}
	}()
	defer func() { rounds.Close(); <-finished }()
	var last roundStats
	for {
		batch := s.retries.take()
		if len(batch) == 0 {
			select {
			case <-s.life.Done():
				return
			case p := <-s.appends:
				batch = append(batch, p)
			case <-s.retries.ready:
				continue
			}
		}
		batch = s.fill(batch, last)
		j := &roundJob{batch: batch, start: time.Now()}
		last = roundStats{writers: writers(batch), took: time.Duration(s.lastTook.Load()), batch: s.cfg.Service.Batches(len(batch))}
		evs := make([]*events.Event, len(batch))
		for i, p := range batch {
			evs[i] = p.ev
		}
		// The ownership checks see the head the round is decided on.
		round := map[events.SessionKey]string{}
		screen := func(st *projection.State, i int) error {
			p := batch[i]
			if p.idErr != nil {
				return p.idErr
			}
			if !p.deadline.IsZero() && s.now().After(p.deadline) {
				return events.Errorf(events.CodeDeadlinePassed, "the check of %s for session %s was not decided within the %s its caller waits (within_ms), so nothing was recorded: the caller has answered it already; retry the call, or look at the ledger's load ('ledger metrics')", p.check.tool, p.ev.Session, p.deadline.Sub(p.start).Round(time.Millisecond))
			}
			if err := foreign(st, round, p); err != nil {
				return err
			}
			if p.check != nil {
				p.check.atTurn(st, p.ev)
			}
			if !p.idChecked && p.owner != "" && p.ev.ID != "" {
				if _, ok := st.Landed(p.ev.ID); ok {
					return errLandedID // a re-send, or another owner's id: see ownID
				}
			}
			return nil
		}
		rounds.Submit(ctx, evs, screen, j)
	}
}

// roundJob is a round the batcher has begun, for the finisher.
type roundJob struct {
	batch []*pendingAppend
	start time.Time
}

// errLandedID marks an event of a round whose id has landed already; it
// is decided in a later round, after ownID has looked at the record that
// carries the id.
var errLandedID = errors.New("api: the id has landed")

// finishRound ends a round and answers its appends; the events the
// service says to decide again, and those whose id had landed (once
// ownID has run), go back to the front of the queue.
func (s *Server) finishRound(ctx context.Context, e service.Ended[*roundJob]) {
	j, outs, err := e.Tag, e.Outs, e.Err
	s.lastTook.Store(int64(time.Since(j.start)))
	again := map[int]bool{}
	for _, i := range e.Redo {
		again[i] = true
	}
	var back, landed []*pendingAppend
	for i, p := range j.batch {
		switch {
		case again[i] && err != nil:
			s.answerOutcome(p, service.Outcome{Err: err})
		case again[i] && e.Skipped:
			back = append(back, p) // not decided: no attempt spent
		case again[i] && p.attempts >= s.cfg.Service.Retries():
			s.answerOutcome(p, service.Outcome{Err: events.ErrConflict()})
		case again[i]:
			p.attempts++
			back = append(back, p)
		case errors.Is(outs[i].Err, errLandedID):
			landed = append(landed, p)
		default:
			s.answerOutcome(p, outs[i])
		}
	}
	s.retries.put(back)
	if len(landed) > 0 {
		// ownID reads the head once the rounds in flight have ended,
		// which this goroutine does: it runs on another, which answers
		// nothing (see batchAppends).
		s.goWaited(func() {
			for _, p := range landed {
				p.sent, p.landed, p.idErr = s.ownID(ctx, p.ev, p.owner)
				p.idChecked = true
				s.retries.put([]*pendingAppend{p})
			}
		})
	}
}

// answerOutcome answers one append with its outcome, and tells the
// observer.
func (s *Server) answerOutcome(p *pendingAppend, o service.Outcome) {
	result := "accepted"
	switch {
	case o.Err != nil && events.CodeOf(o.Err) == "":
		result = "error"
		s.log.Error("append failed", "err", o.Err)
	case o.Err != nil:
		result = "refused"
	case o.Result.Duplicate:
		result = "duplicate"
	}
	overlap := s.cfg.Service.Pipelined()
	switch {
	case p.check != nil && o.Err == nil && o.Result.Duplicate:
		// A re-sent recorded check: the record its id landed as answers
		// it, read off the finisher when ownID did not (the service found
		// the id itself).
		if p.landed != nil {
			answerLandedCheck(p, o.Result.Seq, p.landed)
		} else {
			s.goWaited(func() {
				recs, err := service.ReadRecords(s.life, s.cfg.Service.Log(), o.Result.Seq, o.Result.Seq)
				if err != nil || len(recs) != 1 {
					respondError(p.r, fmt.Errorf("reading record %d, which the re-sent check's id %s landed as: %v", o.Result.Seq, p.ev.ID, err), o.Result.Seq)
					return
				}
				answerLandedCheck(p, o.Result.Seq, recs[0])
			})
		}
	case p.check != nil:
		answerCheck(p, o.Result, o.Err)
	case o.Err != nil:
		answer(p, wire.AppendResult{}, o.Err, o.Result.Seq, overlap)
	default:
		answer(p, wire.AppendResult{Seq: o.Result.Seq, ID: o.Result.ID, Duplicate: o.Result.Duplicate}, nil, 0, overlap)
	}
	if s.cfg.Observer != nil {
		s.cfg.Observer.Append(result, time.Since(p.start))
	}
}

// requeue is where appends to decide again wait, ahead of new ones.
type requeue struct {
	mu    sync.Mutex
	ps    []*pendingAppend
	ready chan struct{} // signalled when ps is not empty
}

func newRequeue() *requeue { return &requeue{ready: make(chan struct{}, 1)} }

func (q *requeue) put(ps []*pendingAppend) {
	if len(ps) == 0 {
		return
	}
	q.mu.Lock()
	q.ps = append(q.ps, ps...)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *requeue) take() []*pendingAppend {
	q.mu.Lock()
	defer q.mu.Unlock()
	ps := q.ps
	q.ps = nil
	return ps
}

// roundStats is what the next round's fill learns from the last one.
type roundStats struct {
	// writers is how many requests the round answered: a batch append
	// is one writer, however many events it carries.
	writers int
	took    time.Duration
	// batch says the round went as one atomic batch (Service.Batches).
	batch bool
}

// writers counts the requests appends come from (a batch's events are
// pushed one after another).
func writers(batch []*pendingAppend) int {
	n := 0
	for i, p := range batch {
		if newWriter(batch[:i], p) {
			n++
		}
	}
	return n
}

// newWriter reports whether p is of a request other than the last
// append's of batch.
func newWriter(batch []*pendingAppend, p *pendingAppend) bool {
	return p.batch == nil || len(batch) == 0 || batch[len(batch)-1].batch != p.batch
}

// fill takes the appends that are waiting, and then, when the last round
// answered several writers, lingers a little for them: they usually append
// again at once, and a round's cost is mostly fixed (one atomic batch, one
// commit), so fewer, fuller rounds go faster. A lone writer never waits,
// nor anyone after a round that was not one atomic batch: a pipelined
// round's writers are answered as its acknowledgements come, while this
// one is decided, and single appends (a round smaller than the service's
// BatchFrom) cost each their own write, so waiting would only idle the
// writers that are here.
func (s *Server) fill(batch []*pendingAppend, last roundStats) []*pendingAppend {
	queued := len(s.appends)
	for len(batch) < s.cfg.Batch {
		select {
		case p := <-s.appends:
			batch = append(batch, p)
			continue
		default:
		}
		break
	}
	// The writers the last round answered, beside those that were queued
	// already (the first append taken may be either).
	want := writers(batch[1:min(len(batch), 1+queued)]) + last.writers
	wait := min(s.cfg.Linger, last.took/4)
	have := writers(batch)
	if !last.batch || last.writers <= 1 || have >= want || wait <= 0 {
		return batch
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for have < want && len(batch) < s.cfg.Batch {
		select {
		case p := <-s.appends:
			if newWriter(batch, p) {
				have++
			}
			batch = append(batch, p)
		case <-t.C:
			return batch
		}
	}
	return batch
}
