package natslog

// This file keeps the log as a chain of streams (segments); the package
// documentation ("Rolling segments") says why and how.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

const (
	// DefaultRollSubjects is where a segment rolls when
	// StreamConfig.RollSubjects is 0: safely below nats-server's
	// highCardinalityThreshold (1,000,000 subjects), past which the
	// filestore writes its index (index.db) only on a clean shutdown.
	DefaultRollSubjects = 900_000

	// BaseKey is the stream metadata key that holds a segment's base: the
	// global sequence just before its first record (the last record of the
	// sealed segment before it). The first segment has none: its base is 0.
	BaseKey = "ledger.base"
	// LastKey, on a sealed segment, holds the global sequence of its last
	// record.
	LastKey = "ledger.last"
	// SealedPrefix starts the subject a segment moves to when it is rolled
	// (SealedPrefix + its name). The seal marker, the segment's last message
	// and not a record, is published there.
	SealedPrefix = "ledger.sealed."
)

// SegmentName returns the name of segment n (from 1) of the log named log:
// the log's own name for the first, then log-2, log-3, ...
func SegmentName(log string, n int) string {
	if n == 1 {
		return log
	}
	return log + "-" + strconv.Itoa(n)
}

// ParseRollSubjects reads a RollSubjects setting as a flag gives it: empty
// or "0" for the default, "off" for never, or a positive number.
func ParseRollSubjects(s string) (int, error) {
	switch s {
	case "", "0":
		return 0, nil
	case "off":
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("natslog: roll subjects %q: give a positive number of subjects, or off", s)
	}
	return n, nil
}

// segment is one stream of the log. It never changes once found: whether
// it is sealed is asked of the server.
type segment struct {
	n       int
	name    string
	base    uint64
	stream  jetstream.Stream
	created time.Time
	nc      *nats.Conn // for leaderGetMsg
}

// Segment describes one stream of the log.
type Segment struct {
	Name string
	// Base is the global sequence just before the segment's first record;
	// Last is the global sequence of its last record (Last == Base when it
	// has none).
	Base, Last uint64
	Sealed     bool
	Subjects   uint64
}

// Segments returns the log's segments in order, the live one last.
func (l *Log) Segments(ctx context.Context) ([]Segment, error) {
	head, segs, err := l.head(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Segment, len(segs))
	for i, seg := range segs {
		info, err := seg.stream.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("natslog: stream info: %w", err)
		}
		last := head
		if i < len(segs)-1 {
			last = segs[i+1].base
		}
		out[i] = Segment{Name: seg.name, Base: seg.base, Last: last, Sealed: info.Config.Sealed, Subjects: info.State.NumSubjects}
	}
	return out, nil
}

// rolled reports whether a segment has left the ledger's subjects: a roll
// of it started (or finished, then it is sealed too).
func rolled(cfg jetstream.StreamConfig) bool {
	return cfg.Sealed || len(cfg.Subjects) == 1 && strings.HasPrefix(cfg.Subjects[0], SealedPrefix)
}

func isMarker(subject string) bool { return strings.HasPrefix(subject, SealedPrefix) }

// live returns the segment appends go to (the last one found).
func (l *Log) live() *segment {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.segs[len(l.segs)-1]
}

func (l *Log) segments() []*segment {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.segs)
}

// loadSegment finds segment n.
func (l *Log) loadSegment(ctx context.Context, n int) (*segment, *jetstream.StreamInfo, error) {
	name := SegmentName(l.cfg.Name, n)
	sctx, cancel := context.WithTimeout(ctx, l.Timeout) // bounded as head's info is
	defer cancel()
	st, err := l.js.Stream(sctx, name)
	if err != nil {
		return nil, nil, err
	}
	info := st.CachedInfo()
	seg := &segment{n: n, name: name, stream: st, created: info.Created, nc: l.nc}
	if n > 1 {
		seg.base, err = strconv.ParseUint(info.Config.Metadata[BaseKey], 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("natslog: segment %s has no %s metadata: it is not a segment of the log %s", name, BaseKey, l.cfg.Name)
		}
	}
	return seg, info, nil
}

// refresh finds the segments created after the last one known.
func (l *Log) refresh(ctx context.Context) ([]*segment, error) {
	segs := l.segments()
	for {
		next, _, err := l.loadSegment(ctx, segs[len(segs)-1].n+1)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("natslog: looking for the next segment: %w", err)
		}
		segs = append(segs, next)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(segs) > len(l.segs) {
		l.segs = segs
	}
	return slices.Clone(l.segs), nil
}

// head returns the log's last global sequence with the segments as they
// are now: the last is the live one, or one being rolled whose successor
// does not exist yet.
func (l *Log) head(ctx context.Context) (uint64, []*segment, error) {
	segs := l.segments()
	for {
		last := segs[len(segs)-1]
		// Bounded whatever ctx is: a stream info request lost while a
		// cluster elects a stream leader is never answered, and a caller
		// without a deadline would wait for it forever (every read of the
		// log has a deadline; faults.TestClusterLeaderFailover).
		ictx, cancel := context.WithTimeout(ctx, l.Timeout)
		info, err := last.stream.Info(ictx)
		cancel()
		if err != nil {
			return 0, nil, fmt.Errorf("natslog: stream info: %w", err)
		}
		if !rolled(info.Config) {
			// No segment follows one that is still live.
			return last.base + info.State.LastSeq, segs, nil
		}
		more, err := l.refresh(ctx)
		if err != nil {
			return 0, nil, err
		}
		if len(more) > len(segs) {
			segs = more
			continue
		}
		end, err := l.lastOfRolled(ctx, last, info)
		return end, segs, err
	}
}

// lastOfRolled returns the global sequence of the last record of a segment
// that left the ledger's subjects.
func (l *Log) lastOfRolled(ctx context.Context, seg *segment, info *jetstream.StreamInfo) (uint64, error) {
	if v, ok := info.Config.Metadata[LastKey]; ok {
		return strconv.ParseUint(v, 10, 64)
	}
	last, marked, err := markerSeq(ctx, seg)
	if err != nil {
		return 0, err
	}
	if marked {
		return seg.base + last - 1, nil
	}
	return seg.base + last, nil
}

// markerSeq returns the last stream sequence of a segment that left the
// ledger's subjects, and whether that is its seal marker. Once the
// subjects moved only the marker can land, behind every record, so when
// it is there it is last. Stream info is answered by the stream's leader,
// unlike a direct get, which a replica that has not applied the marker yet
// may answer.
func markerSeq(ctx context.Context, seg *segment) (uint64, bool, error) {
	subject := SealedPrefix + seg.name
	info, err := seg.stream.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		return 0, false, fmt.Errorf("natslog: looking for the seal of %s: %w", seg.name, err)
	}
	return info.State.LastSeq, info.State.Subjects[subject] > 0, nil
}

// locate returns the index of the segment that holds (or will hold) global
// sequence seq.
func locate(segs []*segment, seq uint64) int {
	i := len(segs) - 1
	for i > 0 && segs[i].base >= seq {
		i--
	}
	return i
}

// streamConfig is the configuration of segment n starting after base.
func (l *Log) streamConfig(n int, base uint64) jetstream.StreamConfig {
	sc := jetstream.StreamConfig{
		Name:        SegmentName(l.cfg.Name, n),
		Description: "session policy ledger",
		Subjects:    Subjects,
		Storage:     jetstream.FileStorage,
		Replicas:    l.cfg.Replicas,
		Duplicates:  l.cfg.Duplicates,
		AllowDirect: true,
		DenyDelete:  !l.cfg.AllowDelete,
		DenyPurge:   !l.cfg.AllowDelete,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		MaxMsgSize:  events.MaxRecordBytes,
		MaxAge:      l.cfg.MaxAge,
		MaxMsgs:     l.cfg.MaxMsgs,
		// Atomic batches let many appends share one commit (and one
		// fsync) while every one is still validated against its head.
		AllowAtomicPublish: true,
	}
	if sc.MaxMsgs == 0 {
		sc.MaxMsgs = -1
	}
	if n > 1 {
		sc.Metadata = map[string]string{BaseKey: strconv.FormatUint(base, 10)}
	}
	return sc
}

// differs reports whether a live segment's settings are not the ones the
// log is opened with.
func differs(have, want jetstream.StreamConfig) bool {
	return !slices.Equal(have.Subjects, want.Subjects) || have.Replicas != want.Replicas ||
		have.Duplicates != want.Duplicates || have.MaxAge != want.MaxAge || have.MaxMsgs != want.MaxMsgs ||
		have.MaxMsgSize != want.MaxMsgSize || have.DenyDelete != want.DenyDelete || have.DenyPurge != want.DenyPurge ||
		have.AllowDirect != want.AllowDirect || have.AllowAtomicPublish != want.AllowAtomicPublish ||
		have.Description != want.Description
}

// errNoLog: a reader's Open (StreamConfig.DirectReads) found no first
// segment, which only a writer creates.
var errNoLog = errors.New("the log does not exist; a reader (direct reads) does not create it: check the stream name, or start the ledger service first")

// openSegments finds the log's segments, creating the first when there is
// none, finishing a roll that was cut short, and updating the live
// segment when the log is opened with other settings. A reader's log
// (DirectReads) only looks them up, so stream info is all it needs
// (TestDirectReaderPermissions): the log's last segment may then be one
// rolled without a successor yet, which head reads the end of.
func (l *Log) openSegments(ctx context.Context) error {
	reader := l.cfg.DirectReads
	first, info, err := l.loadSegment(ctx, 1)
	if reader && errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("%w: %w", errNoLog, err)
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = l.js.CreateStream(ctx, l.streamConfig(1, 0))
		if err == nil || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			first, info, err = l.loadSegment(ctx, 1)
		}
	}
	if err != nil {
		return err
	}
	// Only a segment that left the ledger's subjects has a successor.
	l.segs = []*segment{first}
	for rolled(info.Config) {
		last := l.segs[len(l.segs)-1]
		next, nextInfo, err := l.loadSegment(ctx, last.n+1)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			if reader {
				return nil // the writers finish the roll
			}
			return l.roll(ctx, last) // a roll cut short
		}
		if err != nil {
			return err
		}
		l.segs, info = append(l.segs, next), nextInfo
	}
	if reader {
		return nil
	}
	live := l.segs[len(l.segs)-1]
	// Only when something changed: an update carries the ledger's
	// subjects, and one racing another writer's roll would put them back
	// on the segment being sealed.
	if want := l.streamConfig(live.n, live.base); differs(info.Config, want) {
		if _, err := l.js.UpdateStream(ctx, want); err != nil {
			return fmt.Errorf("updating stream %s: %w", live.name, err)
		}
	}
	return nil
}

// landed is told that a record landed at streamSeq of seg, and rolls seg
// when it is due. A failed roll does not fail the append (the record is
// in); the next append tries again.
func (l *Log) landed(ctx context.Context, seg *segment, streamSeq uint64) {
	limit := l.rollSubjects()
	aged := l.cfg.RollAge > 0 && time.Since(seg.created) >= l.cfg.RollAge
	if !aged && (limit <= 0 || seg.base+streamSeq < l.nextCheck.Load()) {
		return
	}
	// One check at a time per log: the others would only ask again.
	if !l.rolling.TryLock() {
		return
	}
	defer l.rolling.Unlock()
	// Bounded: the record is in, and its writer waits.
	ctx, cancel := context.WithTimeout(ctx, 2*l.Timeout)
	defer cancel()
	if err := l.rollIfDue(ctx, seg, aged, limit); err != nil {
		l.log.Warn("rolling the log to a new segment failed; the next append tries again", "segment", seg.name, "err", err)
	}
}

// rollIfDue rolls seg when it holds limit subjects (or is too old). A
// segment gains at most one subject per record, so the next check is due
// no earlier than limit minus its subjects records later. The caller holds
// l.rolling.
func (l *Log) rollIfDue(ctx context.Context, seg *segment, aged bool, limit int) error {
	if l.live() != seg {
		return nil
	}
	info, err := seg.stream.Info(ctx)
	if err != nil {
		return err
	}
	due := aged || rolled(info.Config) || limit > 0 && info.State.NumSubjects >= uint64(limit)
	if !due {
		l.nextCheck.Store(seg.base + info.State.LastSeq + uint64(limit) - info.State.NumSubjects)
		return nil
	}
	return l.rollLocked(ctx, seg)
}

func (l *Log) rollSubjects() int {
	if l.cfg.RollSubjects == 0 {
		return DefaultRollSubjects
	}
	return l.cfg.RollSubjects
}

// roll seals seg and creates the segment after it.
func (l *Log) roll(ctx context.Context, seg *segment) error {
	l.rolling.Lock()
	defer l.rolling.Unlock()
	return l.rollLocked(ctx, seg)
}

// rollLocked seals seg and creates the next segment. Every step can be
// repeated, by this writer or another, with the same outcome: writers
// racing to roll agree on one next segment and its base, and any writer
// finishes a roll another cut short. The caller holds l.rolling.
func (l *Log) rollLocked(ctx context.Context, seg *segment) error {
	var last uint64
	for try := 0; ; try++ {
		var sealedMeanwhile bool
		var err error
		last, sealedMeanwhile, err = l.seal(ctx, seg)
		if err == nil {
			break
		}
		// Another writer sealed seg between two of our steps: read
		// what it wrote down.
		if !sealedMeanwhile || try >= 3 {
			return err
		}
	}
	// 4. The next segment takes the ledger's subjects, from last on.
	next, err := l.createSegment(ctx, seg.n+1, last)
	if err != nil {
		return err
	}
	l.mu.Lock()
	if len(l.segs) == seg.n {
		l.segs = append(l.segs, next)
	}
	l.mu.Unlock()
	if limit := l.rollSubjects(); limit > 0 {
		l.nextCheck.Store(last + uint64(limit))
	}
	l.log.Info("rolled the log to a new segment", "sealed", seg.name, "last", last, "next", next.name)
	return nil
}

// seal seals seg, unless it is sealed already, and returns the global
// sequence of its last record. On failure it reports whether seg was
// sealed meanwhile (by another writer).
func (l *Log) seal(ctx context.Context, seg *segment) (last uint64, sealedMeanwhile bool, err error) {
	info, err := seg.stream.Info(ctx)
	if err != nil {
		return 0, false, err
	}
	if info.Config.Sealed {
		last, err = l.lastOfRolled(ctx, seg, info)
		return last, false, err
	}
	defer func() {
		if err != nil {
			if info, ierr := seg.stream.Info(ctx); ierr == nil && info.Config.Sealed {
				sealedMeanwhile = true
			}
		}
	}()
	cfg := info.Config
	cfg.Metadata = maps.Clone(cfg.Metadata)
	// 1. Off the ledger's subjects: nothing new reaches seg, and the next
	// segment may take them (subjects of two streams must not overlap).
	if !rolled(cfg) {
		cfg.Subjects = []string{SealedPrefix + seg.name}
		if _, err := l.js.UpdateStream(ctx, cfg); err != nil {
			return 0, false, fmt.Errorf("moving %s off the ledger's subjects: %w", seg.name, err)
		}
	}
	// 2. The seal marker lands behind every record already on its way (on
	// a replicated stream: proposed but not yet applied), so the record
	// before it is the segment's last, for every writer.
	marker, err := l.mark(ctx, seg)
	if err != nil {
		return 0, false, err
	}
	last = seg.base + marker - 1
	// 3. Sealed, nothing can land or be removed; the last record is
	// written down for readers.
	cfg.Sealed = true
	if cfg.Metadata == nil {
		cfg.Metadata = map[string]string{}
	}
	cfg.Metadata[LastKey] = strconv.FormatUint(last, 10)
	if _, err := l.js.UpdateStream(ctx, cfg); err != nil {
		return 0, false, fmt.Errorf("sealing %s: %w", seg.name, err)
	}
	return last, false, nil
}

// mark publishes seg's seal marker, once: it must find the subject empty,
// and a writer that finds the marker there reads its sequence.
func (l *Log) mark(ctx context.Context, seg *segment) (uint64, error) {
	subject := SealedPrefix + seg.name
	for try := 0; ; try++ {
		ack, err := l.js.PublishMsg(ctx, nats.NewMsg(subject), jetstream.WithMsgID("seal-"+seg.name),
			jetstream.WithExpectStream(seg.name), jetstream.WithExpectLastSequencePerSubject(0))
		if err == nil {
			return ack.Sequence, nil // a duplicate ack names the marker too
		}
		var ae *jetstream.APIError
		switch {
		case errors.As(err, &ae) && ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence:
			seq, marked, merr := markerSeq(ctx, seg)
			if merr == nil && marked {
				return seq, nil
			}
			err = errors.Join(err, merr)
		case errors.As(err, &ae) && (ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant || ae.ErrorCode == errCodeDuplicateInProcess):
			// Another writer's marker is in flight.
		case errors.Is(err, jetstream.ErrNoStreamResponse):
			// The subject change has not reached the stream's leader yet.
		default:
			return 0, fmt.Errorf("sealing %s: %w", seg.name, err)
		}
		if try >= 50 {
			return 0, fmt.Errorf("sealing %s: %w", seg.name, err)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return 0, err
		}
	}
}

// createSegment creates segment n after base, or finds it created by
// another writer (then with the same base, or the log is inconsistent).
func (l *Log) createSegment(ctx context.Context, n int, base uint64) (*segment, error) {
	_, err := l.js.CreateStream(ctx, l.streamConfig(n, base))
	if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil, fmt.Errorf("creating segment %s: %w", SegmentName(l.cfg.Name, n), err)
	}
	seg, _, err := l.loadSegment(ctx, n)
	if err != nil {
		return nil, err
	}
	if seg.base != base {
		return nil, fmt.Errorf("segment %s starts after %d, not after %d: the log's segments disagree", seg.name, seg.base, base)
	}
	return seg, nil
}

// mayHaveRolled reports whether an append failed because its segment was
// rolled: it found no stream (the subjects moved), reached a newer segment
// than it expected, or a sealed one.
func mayHaveRolled(err error) bool {
	var ae *jetstream.APIError
	return errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) ||
		errors.As(err, &ae) && (ae.ErrorCode == 10060 || ae.ErrorCode == 10109) // stream mismatch, sealed
}

// checkRolled reports whether seg is no longer the live segment, finishing
// its roll when it started: a roller that died between sealing a segment
// and creating the next must not stop every writer.
func (l *Log) checkRolled(ctx context.Context, seg *segment) (bool, error) {
	if l.live() != seg {
		return true, nil
	}
	// Bounded: a replicated stream without a leader (one failing over)
	// answers nothing, and then the append's own error is the answer.
	ictx, cancel := context.WithTimeout(ctx, l.Timeout)
	info, err := seg.stream.Info(ictx)
	cancel()
	if err != nil {
		return false, fmt.Errorf("natslog: stream info: %w", err)
	}
	if !rolled(info.Config) {
		return false, nil
	}
	rctx, cancel := context.WithTimeout(ctx, 2*l.Timeout)
	defer cancel()
	if err := l.roll(rctx, seg); err != nil {
		l.log.Warn("finishing the roll of a segment failed; the next append tries again", "segment", seg.name, "err", err)
		return false, fmt.Errorf("natslog: %w", err)
	}
	return true, nil
}

// onLive runs publish on the live segment with the expectation made local
// to it, and again on the next segment when the log rolled under it. It
// answers events.ErrConflict when the log is past expected.
func (l *Log) onLive(ctx context.Context, expected uint64, publish func(seg *segment, local uint64) error) (*segment, error) {
	for tries := 0; ; tries++ {
		seg := l.live()
		if expected < seg.base {
			return seg, events.ErrConflict()
		}
		err := publish(seg, expected-seg.base)
		if err == nil || tries >= 3 || !mayHaveRolled(err) {
			return seg, err
		}
		if moved, _ := l.checkRolled(ctx, seg); !moved {
			// Not a roll (or not known to be one): the append's own
			// error is the answer.
			return seg, err
		}
	}
}

// lastIDIs reports whether the last record of the segment before seg
// carries id.
func (l *Log) lastIDIs(ctx context.Context, seg *segment, id string) (bool, error) {
	prev := l.segments()[seg.n-2]
	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	m, err := prev.stream.GetMsg(ctx, seg.base-prev.base)
	if err != nil {
		return false, fmt.Errorf("natslog: reading the last record of %s: %w", prev.name, err)
	}
	return m.Header.Get(jetstream.MsgIDHeader) == id, nil
}

// awaitSegment waits until segment n exists and answers: a roller creates
// it right after sealing the one before.
func (l *Log) awaitSegment(ctx context.Context, n int) error {
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		// A replicated stream just created answers nothing (not even
		// "not found") until its replicas elect a leader.
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		segs, err := l.refresh(rctx)
		cancel()
		switch {
		case err == nil && len(segs) >= n:
			return nil
		case err != nil && (ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded)):
			return err
		}
		if err := sleep(ctx, pause); err != nil {
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
