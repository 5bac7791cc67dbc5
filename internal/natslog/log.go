package natslog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

// StreamConfig names and shapes the ledger's stream. The zero value means
// the defaults of SPEC section 3.
type StreamConfig struct {
	Name       string        // default "LEDGER"; later segments are Name-2, Name-3, ...
	Replicas   int           // default 1; 3 on a cluster
	Duplicates time.Duration // de-duplication window; default 2m
	// MaxAge and MaxMsgs, when set, make the live segment drop its oldest
	// records (a ledger normally keeps everything; consumers asking for
	// dropped records get behind_retention). A sealed segment keeps all
	// it has.
	MaxAge  time.Duration
	MaxMsgs int64
	// AllowDelete leaves deleting and purging records possible. Only for
	// tests that play an attacker: a ledger's stream denies both.
	AllowDelete bool
	// RollSubjects is how many distinct subjects the live segment holds
	// before the log rolls to a new segment: 0 means DefaultRollSubjects,
	// a negative number never rolls. Every writer of a log should use the
	// same value (ParseRollSubjects reads a flag's).
	RollSubjects int
	// RollAge, when positive, also rolls a segment older than it.
	RollAge time.Duration
	// Logger is told about rolls; nil discards.
	Logger *slog.Logger
	// DirectReads makes Read, ReadMsgs, Follow and FindID read with
	// batched direct gets and create no consumer; for readers whose
	// permissions grant no consumer API, e.g. an auditor ('ledger serve
	// --gen-auth'). Such a log is a reader's: Open then only looks the
	// segments up (stream info) and never creates, updates or rolls one
	// (TestDirectReaderPermissions, TestDirectReaderLeavesRollsToWriters).
	// A direct read needs nats-server 2.11 or later.
	DirectReads bool
	// Sync, when set, makes every append durable before it is answered:
	// after the stream acknowledges a record (or a batch), the append
	// waits for a sync of the server's store begun after that
	// acknowledgement (GroupSync), bounded by the log's Timeout. It is for
	// a server that does not fsync every write itself
	// (EmbeddedConfig.GroupSync); TestGroupSyncAppends guards every path.
	// The log also answers, on its connection, the server's other writers
	// (GroupSyncSubject), which cannot sync the store themselves.
	Sync *GroupSync
}

func (c StreamConfig) withDefaults() StreamConfig {
	if c.Name == "" {
		c.Name = "LEDGER"
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.Duplicates == 0 {
		c.Duplicates = 2 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Subjects the stream holds (SPEC section 3).
// The default scope's are those of a log from before scopes; another
// scope's records go under ledger.scope.<scope> (events.SubjectIn).
var Subjects = []string{"ledger.session.>", "ledger.policy", "ledger.decision.>", "ledger.scope.>"}

// Log is the ledger's log on a chain of JetStream streams (segments), seen
// as one sequence.
//
// Concurrency: every method is safe for concurrent use, from any number of
// goroutines and processes. Writers are ordered by JetStream, not by the
// Log: an append names the head it was decided on and fails with
// events.ErrConflict when another writer got there first; a roll is made
// by one writer at a time (the rolling mutex in process, the seal marker
// across processes: TestWritersRaceToRoll, TestServicesRaceAcrossRolls).
// Readers (Read, ReadMsgs, Follow, FindID, Head) see one sequence across
// segments while writers append and roll. Timeout is read by appends: set
// it before the Log is shared.
type Log struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	acks acks // of every append's publish (Log.ack)
	cfg  StreamConfig
	log  *slog.Logger
	// Timeout bounds each publish attempt.
	Timeout time.Duration

	mu   sync.Mutex
	segs []*segment // in order; appends go to the last

	rolling   sync.Mutex    // held while checking for or making a roll
	nextCheck atomic.Uint64 // the global sequence at which to count the live segment's subjects again

	// server is the name of the server the log was last seen connected
	// to (asksForSync), nil before.
	server atomic.Pointer[string]
}

// Open finds the log's segments (creating the first stream when there is
// none) and returns the log.
func Open(ctx context.Context, nc *nats.Conn, cfg StreamConfig) (*Log, error) {
	cfg = cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natslog: %w", err)
	}
	l := &Log{nc: nc, js: js, acks: acks{nc: nc, sync: cfg.Sync}, cfg: cfg, log: cfg.Logger, Timeout: 5 * time.Second}
	for attempt := 0; ; attempt++ {
		err = l.openSegments(ctx)
		if err == nil || attempt >= 50 || ctx.Err() != nil || errors.Is(err, errNoLog) {
			break
		}
		// A cluster's meta leader may not be elected yet; the loop ends
		// once ctx does.
		_ = sleep(ctx, 200*time.Millisecond)
	}
	if err != nil {
		return nil, fmt.Errorf("natslog: opening stream %s: %w", cfg.Name, err)
	}
	l.asksForSync() // notes the server's name
	if cfg.Sync != nil {
		// The server's other writers make their appends durable through
		// this process's syncs.
		if err := cfg.Sync.serve(nc, l.Timeout); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Name returns the name of the log's first stream.
func (l *Log) Name() string { return l.cfg.Name }

// JetStream returns the JetStream context the log uses.
func (l *Log) JetStream() jetstream.JetStream { return l.js }

// Head returns the log's last sequence.
func (l *Log) Head(ctx context.Context) (uint64, error) {
	head, _, err := l.head(ctx)
	return head, err
}

// Append publishes a record expecting the log's last sequence to be
// expected. It returns the record's sequence, or events.ErrConflict when
// another record got in first. A re-sent id that already landed answers with
// its sequence.
func (l *Log) Append(ctx context.Context, subject, id string, data []byte, expected uint64) (uint64, error) {
	return l.AppendHashed(ctx, subject, id, data, "", expected)
}

// AppendHashed is Append with the record's content hash (events.HashBytes
// of data) given, as the service has it for its fold; "" to compute it.
func (l *Log) AppendHashed(ctx context.Context, subject, id string, data []byte, hash string, expected uint64) (uint64, error) {
	seq, stream, err := l.append(ctx, subject, id, data, hash, expected)
	if err == nil || isLanded(err) {
		if serr := l.durable(ctx, l.syncsBegun(), stream); serr != nil {
			return 0, serr
		}
	}
	return seq, err
}

// isLanded reports whether err says the record had landed before.
func isLanded(err error) bool {
	var al *events.AlreadyLanded
	return errors.As(err, &al)
}

// durable waits, when the log syncs its appends (StreamConfig.Sync), for a
// sync of stream ("" for the whole store) begun after gen, the syncs begun
// when the acknowledgement came.
//
// A log without a GroupSync of its own, connected to a server started for
// group sync (another process's over --listen, or one opened without
// Sync), asks the process that runs the server for that sync instead
// (askSync); on any other server the server's own sync applies.
func (l *Log) durable(ctx context.Context, gen uint64, stream string) error {
	if l.cfg.Sync != nil {
		return l.cfg.Sync.SyncWithin(ctx, gen, stream, l.Timeout)
	}
	if l.asksForSync() {
		return l.askSync(ctx, stream)
	}
	return nil
}

// asksForSync reports whether the log's appends ask for a sync
// (askSync): its server was started for group sync. When the connection
// is down at that moment (a record acknowledged just before it dropped),
// the server is the one it was last seen connected to, and an unknown one
// asks (TestGroupSyncWhenDisconnected).
func (l *Log) asksForSync() bool {
	name := l.nc.ConnectedServerName()
	if name == "" {
		if last := l.server.Load(); last != nil {
			name = *last
		}
	} else if last := l.server.Load(); last == nil || *last != name {
		l.server.Store(&name)
	}
	return isGroupSyncServer(name)
}

// append is Append without the sync: it also returns the stream the record
// landed in, "" when it was found by its id.
func (l *Log) append(ctx context.Context, subject, id string, data []byte, hash string, expected uint64) (uint64, string, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		var streamSeq uint64
		var dup bool
		seg, err := l.onLive(ctx, expected, func(seg *segment, local uint64) error {
			pm := recordMsg(subject, id, data, hash, seg.name, local, "")
			if err := l.acks.publish(pm); err != nil {
				return err
			}
			var wait, err error
			streamSeq, dup, _, wait, err = l.ack(ctx, pm, id, seg.name)
			if wait != nil {
				return wait
			}
			return err
		})
		if err == nil {
			l.landed(ctx, seg, streamSeq)
			seq := seg.base + streamSeq
			if dup {
				// A replicated stream answers a re-sent id with a
				// duplicate ack: the record there is the earlier one.
				return seq, seg.name, &events.AlreadyLanded{Seq: seq}
			}
			return seq, seg.name, nil
		}
		lastErr = err
		var ae *jetstream.APIError
		switch {
		case errors.Is(err, events.ErrConflict()), errors.As(err, &ae) && (ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant):
			// A retry of ours may have landed (a standalone server answers
			// a re-sent id with 10071); look the id up first.
			if attempt > 0 {
				if seq, ok, lerr := l.FindID(ctx, id, expected+1); lerr == nil && ok {
					return seq, "", nil
				}
			}
			return 0, "", events.ErrConflict()
		case errors.As(err, &ae) && ae.ErrorCode == errCodeDuplicateInProcess: // same id in flight on a cluster
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return 0, "", err
			}
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrNoResponders),
			errors.Is(err, jetstream.ErrNoStreamResponse): // no responders, after the client's own retries
			if ctx.Err() != nil {
				return 0, "", ctx.Err()
			}
			// Ambiguous: the record may have landed.
			if seq, ok, lerr := l.FindID(ctx, id, expected+1); lerr == nil && ok {
				return seq, "", nil
			}
		default:
			return 0, "", fmt.Errorf("natslog: publish: %w", err)
		}
	}
	return 0, "", fmt.Errorf("natslog: publish of %s failed after retries: %w", id, lastErr)
}

// FindID looks for a record with Nats-Msg-Id id from sequence from to the
// head. With DirectReads it reads the records in batches, and a gap is a
// *DamagedError; otherwise it gets them one by one.
func (l *Log) FindID(ctx context.Context, id string, from uint64) (uint64, bool, error) {
	head, segs, err := l.head(ctx)
	if err != nil {
		return 0, false, err
	}
	if l.cfg.DirectReads {
		return l.findID(ctx, id, max(from, 1), head, segs)
	}
	for seq := max(from, 1); seq <= head; seq++ {
		seg := segs[locate(segs, seq)]
		m, err := seg.stream.GetMsg(ctx, seq-seg.base)
		if err != nil {
			return 0, false, err
		}
		if m.Header.Get(jetstream.MsgIDHeader) == id {
			return seq, true, nil
		}
	}
	return 0, false, nil
}

// Read returns the records from sequence from to to (capped at the head),
// inclusive, in order.
func (l *Log) Read(ctx context.Context, from, to uint64) ([][]byte, error) {
	from = max(from, 1)
	head, segs, err := l.head(ctx)
	if err != nil {
		return nil, err
	}
	to = min(to, head)
	if to < from {
		return nil, nil
	}
	out := make([][]byte, 0, to-from+1)
	f := &follower{next: from, until: to, fn: func(_ uint64, m *stored, _ uint64) error {
		out = append(out, m.data)
		return nil
	}}
	err = l.follow(ctx, f, head, segs)
	return out, err
}

// Follow calls fn for every record from sequence from, in order, with the
// number of records still pending behind it, until fn returns an error or
// ctx ends; with until > 0 it stops after that sequence (which must exist).
// It reads each segment with an ordered consumer (with DirectReads: with
// batched direct gets, polling at the live head), so it sees no gap and no
// duplicate, and goes on in the next segment at the seal marker.
func (l *Log) Follow(ctx context.Context, from uint64, fn func(seq uint64, data []byte, pending uint64) error, until uint64) error {
	head, segs, err := l.head(ctx)
	if err != nil {
		return err
	}
	f := &follower{next: max(from, 1), until: until, fn: func(seq uint64, m *stored, pending uint64) error {
		return fn(seq, m.data, pending)
	}}
	return l.follow(ctx, f, head, segs)
}

// follower is where a Follow is: the next sequence it delivers.
type follower struct {
	next  uint64
	until uint64
	fn    func(seq uint64, m *stored, pending uint64) error
}

func (l *Log) follow(ctx context.Context, f *follower, head uint64, segs []*segment) error {
	for {
		i := locate(segs, f.next)
		seg, sealed := segs[i], i < len(segs)-1
		start := f.next - seg.base
		var later uint64 // records in the segments after seg
		if sealed {
			later = head - segs[i+1].base
		} else {
			// Start no later than just past the head, so the seal
			// marker, if one comes, is seen.
			start = min(start, head-seg.base+1)
		}
		done, err := l.segment(ctx, f, seg, start, sealed, later)
		if errors.Is(err, errStalled) {
			continue // a new source from f.next
		}
		if err != nil || done {
			return err
		}
		if err := l.awaitSegment(ctx, seg.n+1); err != nil {
			return err
		}
		if head, segs, err = l.head(ctx); err != nil {
			return err
		}
	}
}

// segment delivers seg's records from stream sequence start on to f. It
// returns done false when it reached seg's seal marker.
func (l *Log) segment(ctx context.Context, f *follower, seg *segment, start uint64, sealed bool, later uint64) (done bool, err error) {
	var end uint64 // the last stream sequence f wants of seg, 0 for no end
	if f.until > seg.base {
		end = f.until - seg.base // past a sealed seg's end, its marker comes first
	}
	src, err := l.openSource(ctx, seg, start, end)
	if err != nil {
		return true, err
	}
	defer src.close()
	delivered := 0
	for {
		m, err := src.next(ctx, f.next-seg.base)
		if err != nil {
			return true, err
		}
		if isMarker(m.subject) {
			return false, nil
		}
		seq := seg.base + m.seq
		if seq < f.next {
			continue
		}
		if seq != f.next {
			return true, gapError(seg, f.next, seq, delivered == 0)
		}
		f.next++
		delivered++
		pending := m.pending + later
		if sealed && m.pending > 0 {
			pending-- // the seal marker is no record
		}
		if err := f.fn(seq, &m, pending); err != nil {
			return true, err
		}
		if f.until > 0 && seq >= f.until {
			return true, nil
		}
	}
}

// gapError is a read's error for receiving global sequence got where it
// expected want: a *DamagedError, unless it is the first record read and
// the stream drops its oldest ones (TestRetentionIsNoDamage,
// TestDirectGapIsDamage).
func gapError(seg *segment, want, got uint64, first bool) error {
	if info := seg.stream.CachedInfo(); first && info != nil && (info.Config.MaxAge > 0 || info.Config.MaxMsgs > 0) {
		return events.Errorf(events.CodeBehindRetention, "sequence %d is no longer kept; the oldest record available is %d", want, got)
	}
	return &DamagedError{Seq: want, Stream: seg.name,
		What: fmt.Sprintf("stream %s delivered sequence %d after %d: the stream has a gap", seg.name, got-seg.base, want-1-seg.base)}
}

// findID is FindID for a log with DirectReads: it follows the log from
// from to head.
func (l *Log) findID(ctx context.Context, id string, from, head uint64, segs []*segment) (uint64, bool, error) {
	if head < from {
		return 0, false, nil
	}
	var found uint64
	errFound := errors.New("found")
	f := &follower{next: from, until: head, fn: func(seq uint64, m *stored, _ uint64) error {
		if m.header.Get(jetstream.MsgIDHeader) == id {
			found = seq
			return errFound
		}
		return nil
	}}
	switch err := l.follow(ctx, f, head, segs); {
	case errors.Is(err, errFound):
		return found, true, nil
	case err != nil:
		return 0, false, err
	}
	return 0, false, nil
}

// AppendAsync starts an append of data at expected+1 without waiting for
// its acknowledgement, so a writer can pipeline its own appends. With prevID
// set the append also requires the log's last record to carry that id
// (Nats-Expected-Last-Msg-Id): if an earlier append of the pipeline failed,
// none behind it can land on a log it was not validated against. wait
// returns the record's sequence, events.ErrConflict, or another error
// (a timeout is ambiguous: the caller looks the id up after catching up).
// An append that races a roll of the log fails with events.ErrConflict.
func (l *Log) AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (wait func() (uint64, error), err error) {
	conflict := func() (uint64, error) { return 0, events.ErrConflict() }
	seg := l.live()
	if expected < seg.base {
		return conflict, nil
	}
	chain := "" // the expected last message id
	switch {
	case prevID == "":
	case expected == seg.base && seg.n > 1:
		// The record before is the sealed segment's last, which cannot
		// change; the new segment has no last id to check against.
		ok, err := l.lastIDIs(ctx, seg, prevID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return conflict, nil
		}
	default:
		chain = prevID
	}
	pm := recordMsg(subject, id, data, hash, seg.name, expected-seg.base, chain)
	if err := l.acks.publish(pm); err != nil {
		return nil, fmt.Errorf("natslog: publish: %w", err)
	}
	return func() (uint64, error) {
		// A pipelined round waits for its acknowledgements after deciding
		// the next round, by when most have come: those take no timer.
		seq, dup, gen, wait, err := l.ack(ctx, pm, id, seg.name)
		if wait != nil {
			return 0, wait
		}
		if err == nil {
			seq, err := l.acked(ctx, seg, seq, dup)
			if err == nil || dup {
				if serr := l.durable(ctx, gen, seg.name); serr != nil {
					return 0, serr
				}
			}
			return seq, err
		}
		var ae *jetstream.APIError
		switch {
		case mayHaveRolled(err):
			if moved, _ := l.checkRolled(ctx, seg); moved {
				return 0, events.ErrConflict() // the next append goes to the next segment
			}
		case errors.As(err, &ae) && (ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant || ae.ErrorCode == errCodeWrongLastMsgID):
			return 0, events.ErrConflict()
		}
		return 0, fmt.Errorf("natslog: publish: %w", err)
	}, nil
}

// ack waits for the acknowledgement of pm, published to stream through
// l.acks, and reads it (pubAck): the record's sequence in stream and
// whether its id had landed before. Both append paths take their
// acknowledgements here (Append one at a time, AppendAsync pipelined).
// A publish no stream took (a leader being elected, or a segment removed
// under a roll) is sent again, as nats.go does (pubRetries times,
// pubRetryWait apart), and is then jetstream.ErrNoStreamResponse. Read,
// pm goes back to the pool and gen is the syncs begun when the
// acknowledgement came (GroupSync); on a failure pm is left to the
// collector. wait is the wait's own failure (none came within l.Timeout,
// which wraps nats.ErrTimeout, or ctx ended): whether the record landed is
// then unknown. err is what the stream or the publish answered.
// TestAppendAsyncAnswers and TestAppendAnswers guard it.
func (l *Log) ack(ctx context.Context, pm *pooledMsg, id, stream string) (seq uint64, dup bool, gen uint64, wait, err error) {
	for retries := 0; ; retries++ {
		m, err := l.acks.await(ctx, pm, id, l.Timeout)
		if err != nil {
			return 0, false, 0, err, nil
		}
		if !noResponders(m) {
			if seq, dup, err = pubAck(m.Data, stream); err != nil {
				return 0, false, 0, nil, err
			}
			gen = pm.gen
			pm.release()
			return seq, dup, gen, nil, nil
		}
		if retries >= pubRetries {
			return 0, false, 0, nil, jetstream.ErrNoStreamResponse
		}
		if err := sleep(ctx, pubRetryWait); err != nil {
			return 0, false, 0, err, nil
		}
		if err := l.acks.publish(pm); err != nil {
			return 0, false, 0, nil, err
		}
	}
}

// acked is the sequence of a record the stream acknowledged in seg at
// stream sequence streamSeq.
func (l *Log) acked(ctx context.Context, seg *segment, streamSeq uint64, duplicate bool) (uint64, error) {
	l.landed(ctx, seg, streamSeq)
	seq := seg.base + streamSeq
	if duplicate {
		return seq, &events.AlreadyLanded{Seq: seq}
	}
	return seq, nil
}

// stallAfter bounds how long a read waits for a record the stream holds
// (it reports the sequence and returns the record when asked) but its
// consumer does not deliver.
const stallAfter = 30 * time.Second

// recordMsg is the message that appends a record at lastSeq+1 of stream
// (the stream's own sequence), its headers set at once, their values in
// one slice (the publish options would take a closure and a header set
// each): its content hash (Ledger-Hash; hash, or computed when ""), its id
// as Nats-Msg-Id, and the expected stream, last sequence and, when prevID
// is not empty, last message id. The message, its header map and values
// come from a pool (release puts them back once the record is
// acknowledged: nats.go keeps the message until then, to publish it
// again), about four allocations a record; TestRecordMsgReused guards it.
func recordMsg(subject, id string, data []byte, hash string, stream string, lastSeq uint64, prevID string) *pooledMsg {
	pm, _ := msgPool.Get().(*pooledMsg)
	if pm == nil {
		pm = &pooledMsg{}
		pm.msg.Header = make(nats.Header, 5)
	}
	if hash == "" {
		hash = events.HashBytes(data)
	}
	pm.vals = [5]string{hash, id, stream, strconv.FormatUint(lastSeq, 10), prevID}
	h := pm.msg.Header
	clear(h)
	h[events.HashHeader] = pm.vals[0:1:1]
	h[jetstream.MsgIDHeader] = pm.vals[1:2:2]
	h[jetstream.ExpectedStreamHeader] = pm.vals[2:3:3]
	h[jetstream.ExpectedLastSeqHeader] = pm.vals[3:4:4]
	if prevID != "" {
		h[jetstream.ExpectedLastMsgIDHeader] = pm.vals[4:5:5]
	}
	pm.msg.Subject, pm.msg.Data = subject, data
	return pm
}

// pooledMsg is a record's message with its header values.
type pooledMsg struct {
	msg  nats.Msg
	vals [5]string
	ack  chan *nats.Msg // where the acknowledgement comes (acks)
	gen  uint64         // the syncs begun when the acknowledgement came (GroupSync)
}

var msgPool sync.Pool

// release puts pm back in the pool: only once nothing holds it (its
// publish was acknowledged, so nats.go publishes it no more).
func (pm *pooledMsg) release() {
	h := pm.msg.Header
	clear(h)
	pm.msg = nats.Msg{Header: h}
	pm.vals = [5]string{}
	msgPool.Put(pm)
}

// hashed makes the message for a record, with its content hash in the
// Ledger-Hash header.
func hashed(subject string, data []byte) *nats.Msg { return hashedWith(subject, data, "") }

// hashedWith is hashed with data's hash given ("" to compute it).
func hashedWith(subject string, data []byte, hash string) *nats.Msg {
	if hash == "" {
		hash = events.HashBytes(data)
	}
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(events.HashHeader, hash)
	return m
}

// Msg is a stored record with its sequence and the content hash its
// Ledger-Hash header claims ("" when it has none).
type Msg = events.StoredMsg

// ReadMsgs returns the stored records from sequence from to the head, in
// order, with their hash headers. Unlike Read it does not stop at a gap:
// a missing sequence is for the caller to notice (verify names it).
func (l *Log) ReadMsgs(ctx context.Context, from uint64) ([]Msg, error) {
	var out []Msg
	err := l.EachMsg(ctx, from, func(m Msg) error {
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachMsg is ReadMsgs one record at a time: it calls fn with each, in
// order, and holds none of them (ledger verify reads a log of any length
// this way). An error fn returns ends the read and is EachMsg's.
func (l *Log) EachMsg(ctx context.Context, from uint64, fn func(Msg) error) error {
	from = max(from, 1)
	head, segs, err := l.head(ctx)
	if err != nil {
		return err
	}
	for i := locate(segs, from); i < len(segs); i++ {
		end := head
		if i < len(segs)-1 {
			end = segs[i+1].base
		}
		seg := segs[i]
		if from > end {
			continue
		}
		if err := l.eachMsg(ctx, seg, max(from, seg.base+1)-seg.base, end-seg.base, fn); err != nil {
			return err
		}
	}
	return nil
}

// dropConsumer deletes a reader's ordered consumer once it is done. The
// server would keep it for minutes after the last pull (an ordered
// consumer's inactive threshold): a catch-up that reads a long log chunk
// by chunk left one per chunk, until the server's limit refused new ones
// ("maximum consumers limit reached" after 1000).
func dropConsumer(ctx context.Context, seg *segment, cons jetstream.Consumer) {
	info := cons.CachedInfo()
	if info == nil {
		return // never created
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = seg.stream.DeleteConsumer(dctx, info.Name)
}

// eachMsg calls fn with seg's stored records from stream sequence from to
// end.
func (l *Log) eachMsg(ctx context.Context, seg *segment, from, end uint64, fn func(Msg) error) error {
	info, err := seg.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("natslog: stream info: %w", err)
	}
	if from > info.State.LastSeq {
		return nil
	}
	if info.State.Msgs == 0 {
		// The stream reports sequences up to its last and holds none.
		_, err := missing(ctx, seg, from)
		return err
	}
	src, err := l.openSource(ctx, seg, from, end)
	if err != nil {
		return err
	}
	defer src.close()
	next := from
	for {
		m, err := src.next(ctx, next)
		if errors.Is(err, errStalled) {
			// Read on with a new source from the record not delivered.
			return l.eachMsg(ctx, seg, next, end, fn)
		}
		if err != nil {
			return err
		}
		if isMarker(m.subject) {
			return nil
		}
		if err := fn(Msg{Seq: seg.base + m.seq, Data: m.data, Hash: m.header.Get(events.HashHeader)}); err != nil {
			return err
		}
		next = m.seq + 1
		if m.seq >= end {
			return nil
		}
		if m.pending == 0 {
			// Nothing more to deliver: the records the stream reports up
			// to end that it did not deliver are lost, not gaps a caller
			// could notice between two records.
			if _, err := missing(ctx, seg, next); err != nil && next <= end {
				return err
			}
			return nil
		}
	}
}
