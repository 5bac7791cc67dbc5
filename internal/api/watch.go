package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// The watch endpoint, ledger.v1.watch.<owner> (or .all), serves the
// changes of sessions' tool sets from the log, so that no one but the
// service needs JetStream's API to follow the ledger: an orchestrator sees
// only its own sessions' changes, and the NATS server refuses it every
// JetStream subject (`ledger serve --gen-auth`;
// hostile.TestIsolationOrchestratorJetStream).
//
// It is a long poll. A request names what to watch and the first sequence
// From; the answer holds the changes the records from From on make, as far
// as this replica has applied them (at most watchScan records read and
// watchChanges changes per answer), and Next, the sequence to ask from
// next. A request with Wait set that finds no change and nothing more to
// read waits, holding no worker and no goroutine of its own (one of its
// owner's at most MaxPolls waiting polls; see longPoll), until the
// replica applies records that make a change or MaxWait passes, and
// answers what it then finds, perhaps nothing.
// Answers depend only on the records and From, so asking again from Next
// on any replica neither skips nor repeats a change
// (client.TestWatch, client.TestWatchAcrossSegments).

// watchScan and watchChanges bound the work of one watch answer: records
// read and changes sent.
const (
	watchScan    = 4096
	watchChanges = 256
)

func decodeWatch(data []byte) (wire.WatchQuery, error) {
	var q wire.WatchQuery
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, events.Errorf(events.CodeInvalidEvent, "the watch request is not JSON of session, root, all, from and wait: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return q, events.Errorf(events.CodeInvalidEvent, "the watch request is one JSON object; something follows it")
	}
	n := 0
	for _, set := range []bool{q.Session != "", q.Root != "", q.All} {
		if set {
			n++
		}
	}
	if n != 1 {
		return q, events.Errorf(events.CodeInvalidEvent, "a watch names exactly one of session, root and all")
	}
	q.From = max(q.From, 1)
	return q, nil
}

// handleWatch answers a watch request (see the section comment above).
func (s *Server) handleWatch(ctx context.Context, r micro.Request) {
	start := time.Now()
	defer func() { s.observeQuery("watch", start) }()
	owner, ok := queryScope(r)
	if !ok {
		return
	}
	q, err := decodeWatch(r.Data())
	if err != nil {
		respondError(r, err, 0)
		return
	}
	svc := s.cfg.Service
	if key := q.Session + q.Root; key != "" {
		// Another orchestrator's session is answered as one that does
		// not exist (hostile.TestIsolationProbes).
		if err := svc.View(ctx, "", projection.Position{}, func(st *projection.State) error { return owned(st, key, owner) }); err != nil {
			respondError(r, err, 0)
			return
		}
	}
	// Records that change none of the watched tool sets move Next on and
	// the wait goes on: the answer comes with a change, or with none at
	// MaxWait, not at every record appended meanwhile.
	busy := wire.WatchResult{Changes: []wire.Change{}, Next: q.From}
	var seen seenTurn
	longPoll(s, r, owner, q.Wait, busy, func(from uint64) (wire.WatchResult, uint64, bool, error) {
		if from != 0 {
			q.From = from
		}
		res, err := s.scanWatch(ctx, owner, q, &seen)
		return res, res.Next, len(res.Changes) == 0, err
	})
}

// longPoll answers a request that may wait for records (watch, denials):
// scan(0) reads from the request's own start (from) and says where it
// ended and whether it found nothing. With nothing found, wait set and
// every applied record read, the request joins its owner's waiting polls
// (see polls): it is scanned again from where it ended each time the
// replica applies past it, and answered when something is found, or with
// nothing at MaxWait (or Stop). An owner has at most MaxPolls polls
// waiting; one more is answered at once with nothing and next = from, the
// answer after which the client pauses before asking again (client.follow)
// and which skips nothing. So an empty answer comes at once only over that
// bound, never because another poll of the same owner waits
// (TestWatchesOfOneOwnerAllWait).
func longPoll[T any](s *Server, r micro.Request, owner string, wait bool, busy T, scan func(from uint64) (T, uint64, bool, error)) {
	svc := s.cfg.Service
	res, next, empty, err := scan(0)
	if err != nil || !empty || !wait || svc.Position() >= next {
		if err != nil {
			respondError(r, err, 0)
		} else {
			respondJSON(r, res)
		}
		return
	}
	p := &poll{deadline: time.Now().Add(s.cfg.MaxWait)}
	p.next.Store(next)
	p.step = func() bool {
		got, next, empty, err := scan(p.next.Load())
		if err != nil {
			respondError(r, err, 0)
			return true
		}
		res = got
		p.next.Store(next)
		if empty {
			return false
		}
		respondJSON(r, res)
		return true
	}
	p.expire = func() { respondJSON(r, res) }
	if !s.polls.add(s, owner, p) {
		s.log.Warn("long polls shed: an owner has its most polls waiting", "owner", owner, "limit", s.cfg.MaxPolls)
		respondJSON(r, busy)
	}
}

// polls are the long polls that wait for records, per owner: at most
// limit each, and one goroutine an owner while any waits (servePolls),
// which waits for the replica to apply past them and scans each again, in
// the order they came. So a poll holds no worker and no goroutine of its
// own, one owner's waiting polls cost one goroutine's work however many
// they are (an owner asking for many only makes its own answers later:
// the scans after a wake read what was applied meanwhile, all at once),
// and no owner's polls keep another's from waiting.
type polls struct {
	mu     sync.Mutex
	owners map[string][]*poll
	limit  int
}

// poll is a long poll waiting for the replica to apply next.
type poll struct {
	// next is written by its owner's goroutine (servePolls) alone, and
	// read by tests too.
	next     atomic.Uint64
	deadline time.Time
	// step scans again from next: true when the poll has been answered,
	// false when it found nothing (next has moved on).
	step func() bool
	// expire answers what the poll found (nothing).
	expire func()
}

// add makes p one of owner's waiting polls, starting the owner's
// goroutine if it has none; false when owner has limit polls waiting.
func (ps *polls) add(s *Server, owner string, p *poll) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	waiting, ok := ps.owners[owner]
	if len(waiting) >= ps.limit {
		return false
	}
	ps.owners[owner] = append(waiting, p)
	if !ok {
		s.goWaited(func() { s.servePolls(owner) })
	}
	return true
}

// servePolls serves owner's waiting polls until none waits: it waits for
// the replica to apply the earliest next any of them waits for (a poll's
// next is at most the head it scanned to, plus one, so a poll that comes
// later never waits for less) or the earliest deadline, then scans again
// each poll the replica has applied past, and answers with nothing those
// whose MaxWait has passed. Stop ends every wait: the polls are answered
// with nothing.
func (s *Server) servePolls(owner string) {
	svc := s.cfg.Service
	ps := s.polls
	for {
		ps.mu.Lock()
		waiting := slices.Clone(ps.owners[owner])
		if len(waiting) == 0 {
			delete(ps.owners, owner)
			ps.mu.Unlock()
			return
		}
		ps.mu.Unlock()
		next, deadline := waiting[0].next.Load(), waiting[0].deadline
		for _, p := range waiting[1:] {
			next, deadline = min(next, p.next.Load()), earlier(deadline, p.deadline)
		}
		wctx, cancel := context.WithDeadline(s.life, deadline)
		_ = svc.WaitApplied(wctx, next)
		cancel()
		now, stopped := time.Now(), s.life.Err() != nil
		done := map[*poll]bool{}
		for _, p := range waiting {
			if !stopped && svc.Position() >= p.next.Load() && p.step() {
				done[p] = true
			} else if stopped || !now.Before(p.deadline) {
				p.expire()
				done[p] = true
			}
		}
		if len(done) > 0 {
			ps.mu.Lock()
			ps.owners[owner] = slices.DeleteFunc(ps.owners[owner], func(p *poll) bool { return done[p] })
			ps.mu.Unlock()
		}
	}
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// turnStart is a turn.started record a watch delivers.
type turnStart struct {
	seq     uint64
	key     events.SessionKey
	turn    int
	decided []byte
}

// seenTurn is the latest turn of a watched session that a poll found,
// and the sequence of the record that started it. A session's turns
// start in order, one record each, so while its turn is the same the
// sequence is too: a poll woken by every round of appends reads the turn
// from the store once, not at every wake (TestWatchReadsTurnOnce).
type seenTurn struct {
	turn int
	seq  uint64
}

// turnSeq is the sequence of the record that started key's turn (the
// store's read, which a test counts).
var turnSeq = func(st *projection.State, key events.SessionKey, turn int) (uint64, bool) {
	_, seq, ok := st.TurnSet(key, turn)
	return seq, ok
}

// scanWatch reads the records from q.From up to what the replica has
// applied (at most watchScan of them) and returns the changes they make to
// the watched sessions. seen is what the poll found at its earlier scans.
func (s *Server) scanWatch(ctx context.Context, owner string, q wire.WatchQuery, seen *seenTurn) (wire.WatchResult, error) {
	svc := s.cfg.Service
	res := wire.WatchResult{Changes: []wire.Change{}, Next: q.From}
	head := svc.Position()
	if q.From > head {
		return res, nil
	}
	if q.Session != "" {
		// One session changes only at its own turn starts: when its
		// latest began before From, none of the records from From to the
		// head is one, and they need not be read
		// (TestWatchSessionSkipsOtherRecords).
		var fresh bool
		_ = svc.View(ctx, "", projection.Position{}, func(st *projection.State) error {
			head = st.Position()
			sess := st.Session(q.Session)
			if sess == nil || owner != wire.ScopeAll && sess.Actor != owner || sess.Turn == 0 {
				return nil
			}
			if seen.turn == sess.Turn {
				fresh = seen.seq >= q.From
				return nil
			}
			seq, ok := turnSeq(st, q.Session, sess.Turn)
			if !ok {
				fresh = true // unreadable: the scan says why
				return nil
			}
			*seen = seenTurn{turn: sess.Turn, seq: seq}
			fresh = seq >= q.From
			return nil
		})
		if !fresh {
			res.Next = max(q.From, head+1)
			return res, nil
		}
	}
	to := min(head, q.From+watchScan-1)
	recs, err := service.ReadRecords(ctx, svc.Log(), q.From, to)
	if err != nil {
		return res, err
	}
	var turns []turnStart
	res.Next = q.From + uint64(len(recs))
	// Membership is decided on the state at the replica's head, which
	// holds every session the records name: a session's owner and parent
	// never change once it exists.
	err = svc.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		for i, rec := range recs {
			if rec.Type != events.TurnStarted || !watched(st, owner, q, rec.Session) {
				continue
			}
			var d events.TurnData
			if err := json.Unmarshal(rec.Data, &d); err != nil {
				return err
			}
			turns = append(turns, turnStart{seq: q.From + uint64(i), key: rec.Session, turn: d.Turn, decided: rec.Decided})
			if len(turns) == watchChanges {
				res.Next = q.From + uint64(i) + 1
				break
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	for _, t := range turns {
		var dec struct {
			PolicySource string `json:"policy_source"`
			SourceReason string `json:"source_reason"`
			ToolSetHash  string `json:"tool_set_hash"`
		}
		_ = json.Unmarshal(t.decided, &dec)
		ts, _, err := svc.Tools(ctx, t.key, projection.Position{Turn: t.turn})
		if err != nil {
			return res, err
		}
		if got := ts.Hash(); got != dec.ToolSetHash {
			return res, events.Errorf(wire.CodeInternal, "%s turn %d: this replica's tool set hashes to %s but record %d says %s", t.key, t.turn, got, t.seq, dec.ToolSetHash)
		}
		res.Changes = append(res.Changes, wire.Change{Seq: t.seq, Session: t.key, Turn: t.turn, ToolSetHash: dec.ToolSetHash,
			Tools: ts, PolicySource: dec.PolicySource, SourceReason: dec.SourceReason})
	}
	return res, nil
}

// watched reports whether a watch of owner sees key's changes.
func watched(st *projection.State, owner string, q wire.WatchQuery, key events.SessionKey) bool {
	sess := st.Session(key)
	if sess == nil || owner != wire.ScopeAll && sess.Actor != owner {
		return false
	}
	switch {
	case q.All:
		return true
	case q.Session != "":
		return key == q.Session
	}
	// A tree member: the root, or a session whose parents lead to it
	// (spawn depth is bounded, events.MaxSpawnDepth).
	for sess != nil {
		if sess.Key == q.Root {
			return true
		}
		if sess.Parent == "" {
			return false
		}
		sess = st.Session(sess.Parent)
	}
	return false
}
