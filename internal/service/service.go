// Package service is the ledger's append and query path over a Log: it
// validates each event against the state at the head, decides what the
// ledger records, appends the record expecting that head (so every decision
// sees exactly the records before it), and folds it into the projection. A
// writer that decided on a stale view gets a conflict, catches up and
// re-validates. Time travel folds a fresh state from the log.
package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
	"github.com/sessionledger/ledger/wire"
)

// Log is where records are kept, in one total order.
type Log interface {
	// AppendHashed writes data at expected+1 on subject with the record id
	// as its de-duplication id, hash its content hash (events.HashBytes),
	// which the caller computed for its fold; "" to compute it. It fails
	// with events.ErrConflict when the log's last sequence is not
	// expected; an id that already landed answers with its sequence.
	AppendHashed(ctx context.Context, subject, id string, data []byte, hash string, expected uint64) (uint64, error)
	// Read returns the records from sequence from to to (capped at the
	// head), inclusive.
	Read(ctx context.Context, from, to uint64) ([][]byte, error)
	// Head returns the last sequence.
	Head(ctx context.Context) (uint64, error)
}

// Follower is a Log that can deliver records as they land.
type Follower interface {
	// Follow calls fn for every record from sequence from, in order, with
	// how many records are pending behind it, until fn fails or ctx ends
	// (until 0 means forever).
	Follow(ctx context.Context, from uint64, fn func(seq uint64, data []byte, pending uint64) error, until uint64) error
}

// Config wires a Service. The zero value of every field but Log and
// Dialects means its default.
type Config struct {
	Log      Log
	Dialects projection.Dialects
	// Store, when set, keeps the projection in a bbolt file that survives
	// restarts; nil keeps it in memory only.
	Store *projection.Store
	// Clock stamps records; nil means time.Now.
	Clock func() time.Time
	// Entropy makes record ids when callers send none; nil means
	// crypto/rand.
	Entropy io.Reader
	// Retries bounds how often an append is re-validated after a conflict;
	// 0 means 32.
	Retries int
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// OnConflict, when set, is called each time an append lost a race to
	// another writer and is decided again (for metrics).
	OnConflict func()
	// OnRound, when set, is called once for each round of appends whose
	// records all landed, with how many records it wrote: one durable
	// write of the log shared by every writer's events in it (an atomic
	// batch, or a pipelined round), so records over rounds is the group
	// commit the appends got (for metrics; TestCallsShareRounds).
	OnRound func(records int)
	// CommitInterval bounds how long applied records may wait before the
	// projection file is committed; 0 means 100ms. The log is the truth:
	// after a crash the projection resumes from its last commit and catches
	// up, so committing in groups loses nothing and keeps bbolt's fsync off
	// every append.
	CommitInterval time.Duration
	// Pipeline, on a log that can do both, sends a round of several events
	// (AppendMany) as pipelined single appends instead of one atomic batch.
	// An atomic batch shares one commit (one fsync, one replication round)
	// but a standalone server stages it in a temporary store first, a fixed
	// cost of several milliseconds; pipelining is faster on an unreplicated
	// stream that does not fsync every write. Leave it off on replicated
	// streams: there, two writers' conflicting pipelines can go
	// unacknowledged (see tests/faults TestPipelinedAppendAsyncOnR3).
	Pipeline bool
	// BatchFrom is the fewest events of a round (not pipelined) that go
	// out as one atomic batch on a log that can append them; a smaller
	// round goes as single appends pipelined within it. 0 means
	// BatchThreshold. Set it (FsyncBatchFrom) only on a standalone server:
	// single appends pipelined on a replicated stream have the issue
	// Pipeline's comment describes.
	BatchFrom int
}

// FsyncBatchFrom is BatchFrom for a standalone server that fsyncs every
// write: there an atomic batch, which the server stages in a store of
// its own first, costs a fixed 2.5 to 5 ms, about as much as 16 single
// appends pipelined (270 to 300 µs each, one fsync each), so a round of
// two to four is 3 to 5 times faster as singles. It is 5, not 16: rounds
// that go as singles end sooner and so gather fewer calls for the next,
// and with 16 the 64 sessions of TestCallsShareRounds on a loaded machine
// fell to 3.7 records a durable write (6.2 to 15.5 with two busy loops,
// against 24 to 28 with 5): under load the calls share atomic batches
// (docs/bench.md, "Small rounds on a server that fsyncs every write";
// TestSmallRoundsGoAsSingles).
const FsyncBatchFrom = 5

// Validate reports every problem with the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Log == nil {
		errs = append(errs, errors.New("service: a Log is required"))
	}
	if len(c.Dialects) == 0 {
		errs = append(errs, errors.New("service: at least one dialect is required"))
	}
	if c.Retries < 0 {
		errs = append(errs, errors.New("service: retries must not be negative"))
	}
	if c.BatchFrom < 0 || c.BatchFrom > MaxBatch {
		errs = append(errs, fmt.Errorf("service: BatchFrom %d: give 0 (the default, %d) or at most %d events, the most one atomic batch carries", c.BatchFrom, BatchThreshold, MaxBatch))
	}
	return errors.Join(errs...)
}

// Service is the append and query path.
//
// Concurrency: every method is safe for concurrent use. One mutex orders
// them: an append (Append, AppendMany, AppendEvents) holds it from its
// decision to its fold, so appends of one Service are decided one after
// another, each on the state that includes the ones before it; queries
// (View, Tools, Check, Why, Position) hold it while they read the head;
// Run, the follower, holds it while it folds other writers' records. At
// most one Run at a time. WaitApplied waits without holding it. View's fn
// must not call back into the Service (the mutex is not reentrant) and
// must not keep the state. Appends from several Services (replicas) on one
// log are ordered by the log itself (Nats-Expected-Last-Sequence), not by
// the mutex (TestPipelinedWritersRaceOnJetStream,
// cluster.TestConcurrentAppendsThroughTwoReplicas).
type Service struct {
	cfg  Config
	log  *slog.Logger
	mu   sync.Mutex
	head *projection.State
	// stamp is the text of the last millisecond a record was stamped
	// with (see now).
	stamp atomic.Pointer[stamp]
	// applied is closed and replaced whenever the head moves, to wake
	// readers waiting for a sequence (read-your-writes).
	applied chan struct{}
	// following is true while Run applies other writers' records.
	following atomic.Bool
	// commits decides when the projection file is committed (commit.go).
	commits commitPolicy
	// rounds are the rounds begun and not yet ended (beginRound), oldest
	// first: their records are folded into head but not acknowledged, and
	// no query, commit or other writer sees head until they have ended
	// (see lock and rounds.go).
	rounds []*round
	// waiting counts the callers of lock waiting for the rounds to end;
	// settledCond (on mu) wakes them, and a Submit that yields to them.
	waiting     int
	settledCond *sync.Cond
	// failed is set when a round failed and the rounds begun on top of it
	// are still to end: they fail too, and the last one rolls back.
	failed bool
	// lastID is the id of the last record the rounds in flight published,
	// which the next round's first record expects to follow.
	lastID string
	// foldFault, set by tests only (export_test.go), fails the folds of
	// the append paths it answers an error for (TestAppendFaults).
	foldFault func() error
}

// Open loads the projection (from the store when there is one) and catches
// up with the log.
func Open(ctx context.Context, cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Retries == 0 {
		cfg.Retries = 32
	}
	if cfg.CommitInterval == 0 {
		cfg.CommitInterval = 100 * time.Millisecond
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{cfg: cfg, log: logger, head: projection.New(cfg.Dialects), applied: make(chan struct{})}
	s.settledCond = sync.NewCond(&s.mu)
	s.commits = newCommitPolicy(cfg, logger, s)
	if cfg.Store != nil {
		st, err := cfg.Store.Load(cfg.Dialects)
		if err != nil {
			return nil, err
		}
		s.head = st
	}
	head, err := cfg.Log.Head(ctx)
	if err != nil {
		return nil, err
	}
	if s.head.Position() > head {
		return nil, fmt.Errorf("service: the projection is at sequence %d but the log ends at %d: the log is behind the projection (a different or truncated stream?); rebuild the projection with 'ledger replay'", s.head.Position(), head)
	}
	// The projection must have been folded from this log: the record at its
	// checkpoint must be the one it remembers there.
	if pos := s.head.Position(); pos > 0 {
		recs, err := ReadRecords(ctx, cfg.Log, pos, pos)
		if err != nil {
			return nil, err
		}
		ref, _ := s.head.Ref(pos)
		if len(recs) != 1 || recs[0].ID != ref.ID {
			got := "nothing"
			if len(recs) == 1 {
				got = recs[0].ID
			}
			return nil, fmt.Errorf("service: the projection was folded from another log: at sequence %d it holds record %s but the log has %s; rebuild the projection from this log with 'ledger replay --out NEW' and move it over", pos, ref.ID, got)
		}
	}
	s.lock()
	defer s.mu.Unlock()
	if err := s.catchup(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// New returns a service over an empty in-memory projection without reading
// the log; for tests and scenario runs on a fresh log.
func New(cfg Config) *Service {
	s, err := Open(context.Background(), cfg)
	if err != nil {
		panic("service.New: " + err.Error())
	}
	return s
}

// Log returns the log the service appends to.
func (s *Service) Log() Log { return s.cfg.Log }

// Pipelined reports whether a round of appends goes out as pipelined
// single appends (Config.Pipeline on a log that can) rather than as one
// atomic batch.
func (s *Service) Pipelined() bool {
	_, async := s.cfg.Log.(AsyncLog)
	_, batch := s.cfg.Log.(BatchLog)
	return async && (s.cfg.Pipeline || !batch)
}

// Batches reports whether a round of n events goes out as one atomic
// batch: on a batch log, not pipelined, from Config.BatchFrom events
// (else it goes as single appends).
func (s *Service) Batches(n int) bool {
	if _, ok := s.cfg.Log.(BatchLog); !ok || s.cfg.Pipeline {
		return false
	}
	from := s.cfg.BatchFrom
	if from == 0 {
		from = BatchThreshold
	}
	return n >= from
}

// Dialects returns the dialects the service folds with.
func (s *Service) Dialects() projection.Dialects { return s.cfg.Dialects }

// Position is the last sequence this service has applied.
func (s *Service) Position() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settled()
}

// Result is the answer to an append.
type Result struct {
	Seq uint64 `json:"seq"`
	ID  string `json:"id"`
	// Duplicate is true when the id had already landed and nothing was
	// written.
	Duplicate bool `json:"duplicate,omitempty"`
	// Decided is what the ledger recorded it decided (nil for a
	// duplicate).
	Decided json.RawMessage `json:"-"`
	// Check is, for a tool.checked record, what Decided holds as a value
	// (projection.Prepared.Checked), so its answer is written without
	// decoding Decided; nil otherwise (a duplicate, another type).
	Check *projection.CheckDecided `json:"-"`
}

// checkOf is prep's decision as a Result's Check.
func checkOf(prep projection.Prepared) *projection.CheckDecided {
	if c, ok := prep.Checked(); ok {
		return &c
	}
	return nil
}

// Append validates, decides and appends one event given as JSON. A refused
// effect answers authorization_changed after its decision record landed.
func (s *Service) Append(ctx context.Context, raw []byte) (Result, error) {
	ev, err := events.Parse(raw)
	if err != nil {
		return Result{}, err
	}
	return s.appendEvent(ctx, ev)
}

func (s *Service) appendEvent(ctx context.Context, ev *events.Event) (Result, error) {
	s.lock()
	defer s.mu.Unlock()
	return s.appendEventLocked(ctx, ev)
}

// appendEventLocked is appendEvent for a caller that holds mu, through
// lock.
func (s *Service) appendEventLocked(ctx context.Context, ev *events.Event) (Result, error) {
	if ev.ID == "" {
		ev.ID = events.NewID(s.cfg.Clock(), s.entropy())
	}
	for attempt := 0; ; attempt++ {
		prep := s.head.Prepare(ev, s.now())
		if prep.Record == nil {
			if prep.Err != nil && attempt < s.cfg.Retries {
				// A refusal, which nothing the log said confirms: another
				// writer may have appended what makes this event valid.
				redo, err := s.redoFrom(ctx, 1, 0, false)
				if err != nil {
					return Result{}, err
				}
				if redo == 0 {
					if err := s.catchup(ctx); err != nil {
						return Result{}, err
					}
					continue
				}
			}
			return Result{Seq: prep.Landed, ID: ev.ID, Duplicate: prep.Landed != 0}, prep.Err
		}
		seq, in, err := s.publish(ctx, prep)
		var landed *events.AlreadyLanded
		if errors.As(err, &landed) {
			// The id landed earlier (an attempt of this event through
			// another path): that record is the truth; catch up to it.
			if err := s.catchup(ctx); err != nil {
				return Result{}, err
			}
			return Result{Seq: landed.Seq, ID: ev.ID, Duplicate: true}, nil
		}
		if err != nil && errors.Is(err, events.ErrConflict()) && attempt < s.cfg.Retries {
			// Another writer got in first: catch up and decide again.
			if cerr := s.catchUpAfterConflict(ctx, attempt); cerr != nil {
				return Result{}, cerr
			}
			continue
		}
		if err != nil {
			return Result{}, err
		}
		if seq != s.head.Position()+1 {
			// Published with the expected head, the record can only land
			// right after it: any other sequence is the log de-duplicating
			// an id that landed already (an earlier attempt of this event,
			// maybe through another replica). That record, not the one
			// prepared here, is the truth: catch up to it.
			if err := s.catchup(ctx); err != nil {
				return Result{}, err
			}
			return Result{Seq: seq, ID: ev.ID, Duplicate: true}, nil
		}
		if ferr := s.fold(in, seq); ferr != nil {
			// Landed and not folded: the head is not the log's. As for
			// a round (redoFrom), the attempt failed with no landed
			// record behind it: start again from the log, where the next
			// attempt finds the record and answers it as a re-send.
			if attempt >= s.cfg.Retries {
				return Result{}, ferr
			}
			if err := s.rollback(ctx); err != nil {
				return Result{}, errors.Join(ferr, err)
			}
			continue
		}
		if s.cfg.OnRound != nil {
			s.cfg.OnRound(1) // a round of one: this record's own write
		}
		if err := s.afterFold(ctx, nil); err != nil {
			return Result{}, err
		}
		return Result{Seq: seq, ID: ev.ID, Decided: prep.Record.Decided, Check: checkOf(prep)}, prep.Err
	}
}

func (s *Service) publish(ctx context.Context, prep projection.Prepared) (uint64, projection.Input, error) {
	b, err := prep.Encode()
	if err != nil {
		return 0, projection.Input{}, fmt.Errorf("service: encoding record: %w", err)
	}
	// The record is hashed once, for its publish and its fold.
	in := prep.Input(b)
	seq, err := s.cfg.Log.AppendHashed(ctx, prep.Subject, prep.Record.ID, b, in.Hash(), s.head.Position())
	return seq, in, err
}

// catchUpAfterConflict brings the head up to the log's after a lost race.
// With a follower running it waits, without holding the lock, for the
// follower to apply the records (cheaper than reading them again), and it
// backs off a little, with jitter, so racing writers stop colliding. The
// caller holds mu; it is held again on return.
func (s *Service) catchUpAfterConflict(ctx context.Context, attempt int) error {
	if s.cfg.OnConflict != nil {
		s.cfg.OnConflict()
	}
	head, err := s.cfg.Log.Head(ctx)
	if err != nil {
		return err
	}
	if s.following.Load() && head > s.head.Position() {
		s.mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		werr := s.WaitApplied(wctx, head)
		cancel()
		pause(ctx, attempt)
		s.lock()
		if werr == nil {
			return nil
		}
	} else {
		s.mu.Unlock()
		pause(ctx, attempt)
		s.lock()
	}
	return s.catchup(ctx)
}

// pause sleeps a random time that grows with attempt, up to 50ms.
func pause(ctx context.Context, attempt int) {
	limit := min(time.Millisecond<<min(attempt, 6), 50*time.Millisecond)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(limit)) + 1))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// behind reports whether the log has records this service has not applied.
func (s *Service) behind(ctx context.Context) (bool, error) {
	head, err := s.cfg.Log.Head(ctx)
	if err != nil {
		return false, err
	}
	return head > s.head.Position(), nil
}

// fold folds a record this service decided and published into the head.
func (s *Service) fold(in projection.Input, seq uint64) error {
	if s.foldFault != nil {
		if err := s.foldFault(); err != nil {
			return err
		}
	}
	return s.head.Apply(in, seq)
}

// afterFold follows the fold of one record (whose error it is given): it
// commits the store when due and wakes readers.
func (s *Service) afterFold(ctx context.Context, folded error) error {
	if folded != nil {
		return folded
	}
	if err := s.commits.folded(ctx); err != nil {
		return err
	}
	s.notify()
	return nil
}

// Flush commits everything applied so far to the projection file, in the
// foreground (the commit policy's flush event, commit.go). Call it before
// closing the store. ctx bounds the catch-up that follows a background
// write found to have failed; the commit itself is not interrupted.
func (s *Service) Flush(ctx context.Context) error {
	s.lock()
	defer s.mu.Unlock()
	return s.commits.flush(ctx)
}

// current is the head, for the commit policy. The caller holds mu.
func (s *Service) current() *projection.State { return s.head }

// replaceHead makes st the head and catches it up from the log, for the
// commit policy after a failed background write. The caller holds mu.
func (s *Service) replaceHead(ctx context.Context, st *projection.State) error {
	s.head = st
	return s.catchup(ctx)
}

// notify wakes everyone waiting for the head to move. The caller holds mu.
func (s *Service) notify() {
	close(s.applied)
	s.applied = make(chan struct{})
}

// WaitApplied waits until this service has applied sequence seq, or ctx
// ends; then it answers not_caught_up with how far it got.
func (s *Service) WaitApplied(ctx context.Context, seq uint64) error {
	for {
		s.mu.Lock()
		pos, ch := s.settled(), s.applied
		s.mu.Unlock()
		if pos >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return events.Errorf(events.CodeNotCaughtUp, "this replica has applied up to sequence %d, not %d yet; retry, or ask with a longer wait", pos, seq)
		}
	}
}

// catchupChunk is how many records a catch-up reads and commits at a time,
// so catching up a long log holds one chunk in memory, not the log.
const catchupChunk = 4096

// catchup applies every record past the head, a chunk at a time; the
// next chunk is read and decoded while the fold applies one, and each is
// committed in the background. The caller holds mu.
func (s *Service) catchup(ctx context.Context) error {
	head, err := s.cfg.Log.Head(ctx)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Unbuffered: one chunk folded, one decoded ahead (a buffered one
	// more cost a replica catching up 1M records 18 MB of peak RSS for a
	// 5% faster catch-up).
	chunks := make(chan decodedChunk)
	go s.readAhead(rctx, s.head.Position()+1, head, chunks)
	for c := range chunks {
		for i, d := range c.recs {
			if err := s.head.Apply(d, c.from+uint64(i)); err != nil {
				return fmt.Errorf("service: %w", err)
			}
		}
		if c.err != nil {
			return c.err
		}
		if reloaded, err := s.commits.chunk(ctx); reloaded || err != nil {
			return err // a reload caught up on its own
		}
	}
	if err := ctx.Err(); err != nil {
		return err // the reader stopped early
	}
	s.notify()
	return nil
}

// decodedChunk is up to catchupChunk records from sequence from, decoded
// for the fold; err is why the chunk ends early, if it does.
type decodedChunk struct {
	from uint64
	recs []projection.Input
	err  error
}

// readAhead reads and decodes the records from sequence from to to, a
// chunk at a time, into chunks, which it closes at the end, after the
// first chunk with an error, or when ctx ends.
func (s *Service) readAhead(ctx context.Context, from, to uint64, chunks chan<- decodedChunk) {
	defer close(chunks)
	for from <= to {
		raw, err := s.cfg.Log.Read(ctx, from, min(to, from+catchupChunk-1))
		if err == nil && len(raw) == 0 {
			err = fmt.Errorf("service: the log has no record %d although its head is %d", from, to)
		}
		c := decodedChunk{from: from, err: err, recs: make([]projection.Input, 0, len(raw))}
		for i, b := range raw {
			rec, err := events.DecodeRecord(b)
			if err != nil {
				c.err = fmt.Errorf("service: projection: record %d: %w", from+uint64(i), err)
				break
			}
			c.recs = append(c.recs, projection.Decode(rec, b))
		}
		select {
		case chunks <- c:
		case <-ctx.Done():
			return
		}
		if c.err != nil {
			return
		}
		from += uint64(len(raw))
	}
}

// Run follows the log and applies records other writers append, until ctx
// ends. It returns nil on cancellation.
func (s *Service) Run(ctx context.Context) error {
	f, ok := s.cfg.Log.(Follower)
	if !ok {
		<-ctx.Done()
		return nil
	}
	s.lock()
	if err := s.catchup(ctx); err != nil {
		s.mu.Unlock()
		return err
	}
	pos := s.head.Position()
	s.mu.Unlock()
	s.log.Info("caught up", "position", pos)
	s.log.Info("following the log", "from", pos+1)
	s.following.Store(true)
	defer s.following.Store(false)
	// Commit what waits in memory when no record comes to trigger it.
	flushDone := make(chan struct{})
	defer func() { <-flushDone }()
	fctx, stopFlush := context.WithCancel(ctx)
	defer stopFlush()
	go func() {
		defer close(flushDone)
		s.commitTicker(fctx)
	}()
	err := f.Follow(ctx, pos+1, func(seq uint64, data []byte, pending uint64) error {
		// A record the head holds already (this service's own, maybe of a
		// round still in flight) is skipped without waiting for the rounds
		// to end: a follower that waited at every record of its own
		// service's rounds would keep them from overlapping. Should such a
		// round fail, its roll-back catches up from the log.
		s.mu.Lock()
		if seq <= s.head.Position() {
			if pending == 0 {
				// seq is in the log: the follower read it there.
				s.log.Info("caught up", "position", max(seq, s.settled()))
			}
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
		s.lock()
		defer s.mu.Unlock()
		if seq > s.head.Position() {
			if seq != s.head.Position()+1 {
				return fmt.Errorf("service: record %d arrived after %d: gap", seq, s.head.Position())
			}
			rec, err := events.DecodeRecord(data)
			if err != nil {
				return fmt.Errorf("service: record %d: %w", seq, err)
			}
			if err := s.afterFold(ctx, s.head.Apply(projection.Input{Record: rec, Bytes: data}, seq)); err != nil {
				return err
			}
		}
		if pending == 0 {
			s.log.Info("caught up", "position", s.head.Position())
		}
		return nil
	}, 0)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// commitTicker is Run's commit ticker: it flushes the projection every
// CommitInterval, so that records folded when no append came to commit
// them reach the file, and once more when ctx ends. A flush is not
// interrupted by ctx (the last one runs after it ended): it runs under
// context.WithoutCancel(ctx).
func (s *Service) commitTicker(ctx context.Context) {
	flush := func() {
		if err := s.Flush(context.WithoutCancel(ctx)); err != nil {
			s.log.Error("committing the projection", "err", err)
		}
	}
	t := time.NewTicker(s.cfg.CommitInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			flush()
			return
		case <-t.C:
			flush()
		}
	}
}

func (s *Service) entropy() io.Reader {
	if s.cfg.Entropy != nil {
		return s.cfg.Entropy
	}
	return defaultEntropy
}

// View runs fn on the state at a position of the session key (the head when
// the position is empty). fn must not keep the state.
func (s *Service) View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error {
	s.lock()
	seq, err := s.head.Resolve(key, pos)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	if seq == s.head.Position() {
		defer s.mu.Unlock()
		return s.head.Read(func() error { return fn(s.head) })
	}
	s.mu.Unlock()
	st, err := s.StateAt(ctx, seq)
	if err != nil {
		return err
	}
	return fn(st)
}

// StateAt folds a fresh state from the log's first seq records.
func (s *Service) StateAt(ctx context.Context, seq uint64) (*projection.State, error) {
	if seq == 0 {
		return projection.New(s.cfg.Dialects), nil
	}
	recs, err := ReadRecords(ctx, s.cfg.Log, 1, seq)
	if err != nil {
		return nil, err
	}
	return replay.Fold(s.cfg.Dialects, recs, seq)
}

// ReadRecords reads and decodes records from a log.
func ReadRecords(ctx context.Context, log Log, from, to uint64) ([]*events.Record, error) {
	raw, err := log.Read(ctx, from, to)
	if err != nil {
		return nil, err
	}
	recs := make([]*events.Record, len(raw))
	for i, b := range raw {
		if recs[i], err = events.DecodeRecord(b); err != nil {
			return nil, fmt.Errorf("record %d: %w", from+uint64(i), err)
		}
	}
	return recs, nil
}

// Tools answers the tools query: the tool set at a position and that
// position's sequence. A turn's set is read as stored, never replayed.
// ScopeOf is the name of the scope a session is bound to ("" when the
// session does not exist at the head): a session's scope never changes.
func (s *Service) ScopeOf(key events.SessionKey) string {
	s.lock()
	defer s.mu.Unlock()
	return s.head.ScopeOf(key)
}

func (s *Service) Tools(ctx context.Context, key events.SessionKey, pos projection.Position) (ts envelope.ToolSet, seq uint64, err error) {
	r, err := s.toolsAt(ctx, key, pos, false)
	return r.Tools, r.Seq, err
}

// ToolsAnswer is Tools as the tools query answers it: with the session's
// scope and, when the session takes no recorded check at the position,
// the refusal one would get (wire.WhyResult.NotActive), read at the same
// position as the tool set.
func (s *Service) ToolsAnswer(ctx context.Context, key events.SessionKey, pos projection.Position) (wire.ToolsResult, error) {
	return s.toolsAt(ctx, key, pos, true)
}

// toolsAt is the tool set at pos; with answer also the session's scope
// and NotActive, which Tools' callers (the watches, one read a turn) do
// not read.
func (s *Service) toolsAt(ctx context.Context, key events.SessionKey, pos projection.Position, answer bool) (r wire.ToolsResult, err error) {
	r.Session = key
	if pos.Turn != 0 && pos.Seq == 0 && pos.Time == "" {
		s.lock()
		defer s.mu.Unlock()
		tv, err := s.head.AtTurn(key, pos.Turn)
		if err != nil {
			return r, err
		}
		r.Scope, r.Tools, r.Seq = tv.Scope(), tv.Tools(), tv.Position()
		return r, nil
	}
	err = s.View(ctx, key, pos, func(st *projection.State) error {
		ts, err := st.Tools(key)
		if err != nil {
			return err
		}
		r.Tools, r.Seq = ts, st.Position()
		if !answer {
			return nil
		}
		r.Scope = st.ScopeOf(key)
		r.NotActive, err = notActive(st, key)
		return err
	})
	return r, err
}

// Check answers the check query: Why without the trace, from the resolved
// tool set on a warm session where the dialect allows it.
func (s *Service) Check(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, pos projection.Position) (a wire.WhyResult, err error) {
	if pos == (projection.Position{}) {
		s.lock()
		defer s.mu.Unlock()
		v, err := s.head.Check(key, tool, input)
		if err != nil {
			return a, err
		}
		na, err := notActive(s.head, key)
		if err != nil {
			return a, err
		}
		return wire.WhyResult{Seq: s.head.Position(), Scope: s.head.ScopeOf(key), Verdict: v, NotActive: na}, nil
	}
	a, err = s.Why(ctx, key, tool, input, pos)
	a.Verdict.Trace = nil
	return a, err
}

// Why answers the why query (check is the same without the trace). At a
// turn it is a read of what the projection stored for the turn, not a
// replay.
func (s *Service) Why(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, pos projection.Position) (a wire.WhyResult, err error) {
	if pos.Turn != 0 && pos.Seq == 0 && pos.Time == "" {
		s.lock()
		defer s.mu.Unlock()
		tv, err := s.head.AtTurn(key, pos.Turn)
		if err != nil {
			return a, err
		}
		sess := tv.SessionView()
		return wire.WhyResult{Seq: tv.Position(), Scope: tv.Scope(), Verdict: tv.Why(tool, input), Policy: tv.Policy(), Context: sess.Context, Envelope: sess.Envelope}, nil
	}
	err = s.View(ctx, key, pos, func(st *projection.State) error {
		v, err := st.Why(key, tool, input)
		if err != nil {
			return err
		}
		na, err := notActive(st, key)
		if err != nil {
			return err
		}
		sess := st.Session(key)
		a = wire.WhyResult{Seq: st.Position(), Scope: events.ScopeName(sess.Scope), Verdict: v, Policy: st.SessionPolicy(key), Context: sess.Context, Envelope: sess.Envelope, NotActive: na}
		return nil
	})
	return a, err
}

// notActive is the refusal a recorded check of the session would get at
// st's position (projection.State.NotActive), as an answer carries it
// beside the policy's decision: nil when the session is active; an error
// other than session_not_active (a failed read) is the query's.
func notActive(st *projection.State, key events.SessionKey) (*wire.ErrorBody, error) {
	err := st.NotActive(key)
	if err == nil {
		return nil, nil
	}
	var ee *events.Error
	if !errors.As(err, &ee) || ee.Code != events.CodeSessionNotActive {
		return nil, err
	}
	return &wire.ErrorBody{Code: ee.Code, Message: ee.Msg}, nil
}

// stamp is a millisecond of the clock and its text (events.FormatTime).
type stamp struct {
	ms   int64
	text string
}

// now is events.FormatTime(s.cfg.Clock()); the records stamped within one
// millisecond share the text (one allocation a millisecond instead of one
// a record). TestStampSharedWithinAMillisecond guards it.
func (s *Service) now() string {
	t := s.cfg.Clock()
	ms := t.UnixMilli() // floored (before 1970 too), as the text is
	if st := s.stamp.Load(); st != nil && st.ms == ms {
		return st.text
	}
	st := &stamp{ms: ms, text: events.FormatTime(t)}
	s.stamp.Store(st)
	return st.text
}
