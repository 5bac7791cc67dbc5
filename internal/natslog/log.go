package natslog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/replay"
)

// StreamConfig names and shapes the ledger's stream. The zero value means
// the defaults of SPEC section 3.
type StreamConfig struct {
	Name       string        // default "LEDGER"
	Replicas   int           // default 1; 3 on a cluster
	Duplicates time.Duration // de-duplication window; default 2m
	// MaxAge and MaxMsgs, when set, make the stream drop its oldest
	// records (a ledger normally keeps everything; consumers asking for
	// dropped records get behind_retention).
	MaxAge  time.Duration
	MaxMsgs int64
	// AllowDelete leaves deleting and purging records possible. Only for
	// tests that play an attacker: a ledger's stream denies both.
	AllowDelete bool
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
	return c
}

// Subjects the stream holds (SPEC section 3).
var Subjects = []string{"ledger.session.>", "ledger.policy", "ledger.decision.>"}

// Log is the ledger's log on a JetStream stream.
type Log struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	cfg    StreamConfig
	// Timeout bounds each publish attempt.
	Timeout time.Duration
}

// Open creates or updates the stream idempotently and returns the log.
func Open(ctx context.Context, nc *nats.Conn, cfg StreamConfig) (*Log, error) {
	cfg = cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natslog: %w", err)
	}
	sc := jetstream.StreamConfig{
		Name:        cfg.Name,
		Description: "session policy ledger",
		Subjects:    Subjects,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		Duplicates:  cfg.Duplicates,
		AllowDirect: true,
		DenyDelete:  !cfg.AllowDelete,
		DenyPurge:   !cfg.AllowDelete,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		MaxMsgSize:  events.MaxRecordBytes,
		MaxAge:      cfg.MaxAge,
		MaxMsgs:     cfg.MaxMsgs,
		// Atomic batches let many appends share one commit (and one
		// fsync) while every one is still validated against its head.
		AllowAtomicPublish: true,
	}
	if sc.MaxMsgs == 0 {
		sc.MaxMsgs = -1
	}
	var st jetstream.Stream
	for attempt := 0; ; attempt++ {
		st, err = js.CreateOrUpdateStream(ctx, sc)
		if err == nil || attempt >= 50 || ctx.Err() != nil {
			break
		}
		// A cluster's meta leader may not be elected yet.
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, fmt.Errorf("natslog: creating stream %s: %w", cfg.Name, err)
	}
	return &Log{nc: nc, js: js, stream: st, cfg: cfg, Timeout: 5 * time.Second}, nil
}

// Name returns the stream's name.
func (l *Log) Name() string { return l.cfg.Name }

// JetStream returns the JetStream context the log uses.
func (l *Log) JetStream() jetstream.JetStream { return l.js }

// Head returns the stream's last sequence.
func (l *Log) Head(ctx context.Context) (uint64, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("natslog: stream info: %w", err)
	}
	return info.State.LastSeq, nil
}

// Append publishes a record expecting the stream's last sequence to be
// expected. It returns the record's sequence, or events.ErrConflict when
// another record got in first. A re-sent id that already landed answers with
// its sequence.
func (l *Log) Append(ctx context.Context, subject, id string, data []byte, expected uint64) (uint64, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, l.Timeout)
		ack, err := l.js.PublishMsg(actx, hashed(subject, data), jetstream.WithMsgID(id), jetstream.WithExpectLastSequence(expected))
		cancel()
		if err == nil {
			if ack.Duplicate {
				// A replicated stream answers a re-sent id with a
				// duplicate ack: the record there is the earlier one.
				return ack.Sequence, &events.AlreadyLanded{Seq: ack.Sequence}
			}
			return ack.Sequence, nil
		}
		lastErr = err
		var ae *jetstream.APIError
		switch {
		case errors.As(err, &ae) && (ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant):
			// A retry of ours may have landed (a standalone server answers
			// a re-sent id with 10071); look the id up first.
			if attempt > 0 {
				if seq, ok, lerr := l.FindID(ctx, id, expected+1); lerr == nil && ok {
					return seq, nil
				}
			}
			return 0, events.ErrConflict
		case errors.As(err, &ae) && ae.ErrorCode == 10158: // same id in flight on a cluster
			time.Sleep(50 * time.Millisecond)
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrNoResponders):
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			// Ambiguous: the record may have landed.
			if seq, ok, lerr := l.FindID(ctx, id, expected+1); lerr == nil && ok {
				return seq, nil
			}
		default:
			return 0, fmt.Errorf("natslog: publish: %w", err)
		}
	}
	return 0, fmt.Errorf("natslog: publish of %s failed after retries: %w", id, lastErr)
}

// FindID looks for a record with Nats-Msg-Id id from sequence from to the
// head.
func (l *Log) FindID(ctx context.Context, id string, from uint64) (uint64, bool, error) {
	head, err := l.Head(ctx)
	if err != nil {
		return 0, false, err
	}
	for seq := from; seq <= head; seq++ {
		m, err := l.stream.GetMsg(ctx, seq)
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
	if from == 0 {
		from = 1
	}
	head, err := l.Head(ctx)
	if err != nil {
		return nil, err
	}
	if to > head {
		to = head
	}
	if to < from {
		return nil, nil
	}
	out := make([][]byte, 0, to-from+1)
	err = l.Follow(ctx, from, func(seq uint64, data []byte, _ uint64) error {
		out = append(out, data)
		if seq >= to {
			return errStop
		}
		return nil
	}, to)
	return out, err
}

var errStop = errors.New("stop")

// Follow calls fn for every record from sequence from, in order, with the
// number of records still pending behind it, until fn returns an error or
// ctx ends; with until > 0 it stops after that sequence (which must exist).
// It is built on an ordered consumer, so it sees no gap and no duplicate.
func (l *Log) Follow(ctx context.Context, from uint64, fn func(seq uint64, data []byte, pending uint64) error, until uint64) error {
	if from == 0 {
		from = 1
	}
	cons, err := l.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   from,
	})
	if err != nil {
		return fmt.Errorf("natslog: consumer: %w", err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(512))
	if err != nil {
		return fmt.Errorf("natslog: consumer: %w", err)
	}
	defer it.Stop()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			it.Stop()
		case <-done:
		}
	}()
	next := from
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("natslog: reading the stream: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return fmt.Errorf("natslog: message metadata: %w", err)
		}
		seq := md.Sequence.Stream
		if seq != next {
			return fmt.Errorf("natslog: expected sequence %d, got %d: the stream has a gap", next, seq)
		}
		next++
		if err := fn(seq, m.Data(), md.NumPending); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
		if until > 0 && seq >= until {
			return nil
		}
	}
}

// AppendAsync starts an append of data at expected+1 without waiting for
// its acknowledgement, so a writer can pipeline its own appends. With prevID
// set the append also requires the stream's last record to carry that id
// (Nats-Expected-Last-Msg-Id): if an earlier append of the pipeline failed,
// none behind it can land on a log it was not validated against. wait
// returns the record's sequence, events.ErrConflict, or another error
// (a timeout is ambiguous: the caller looks the id up after catching up).
func (l *Log) AppendAsync(ctx context.Context, subject, id string, data []byte, expected uint64, prevID string) (wait func() (uint64, error), err error) {
	opts := []jetstream.PublishOpt{jetstream.WithMsgID(id), jetstream.WithExpectLastSequence(expected)}
	if prevID != "" {
		opts = append(opts, jetstream.WithExpectLastMsgID(prevID))
	}
	fut, err := l.js.PublishMsgAsync(hashed(subject, data), opts...)
	if err != nil {
		return nil, fmt.Errorf("natslog: publish: %w", err)
	}
	return func() (uint64, error) {
		timer := time.NewTimer(l.Timeout)
		defer timer.Stop()
		select {
		case ack := <-fut.Ok():
			if ack.Duplicate {
				return ack.Sequence, &events.AlreadyLanded{Seq: ack.Sequence}
			}
			return ack.Sequence, nil
		case err := <-fut.Err():
			var ae *jetstream.APIError
			if errors.As(err, &ae) && (ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
				ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant || ae.ErrorCode == 10070) {
				return 0, events.ErrConflict
			}
			return 0, fmt.Errorf("natslog: publish: %w", err)
		case <-timer.C:
			return 0, fmt.Errorf("natslog: no acknowledgement for %s within %s", id, l.Timeout)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, nil
}

// hashed makes the message for a record, with its content hash in the
// Ledger-Hash header.
func hashed(subject string, data []byte) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(events.HashHeader, events.HashBytes(data))
	return m
}

// Msg is a stored record with its sequence and the content hash its
// Ledger-Hash header claims ("" when it has none).
type Msg = replay.Msg

// ReadMsgs returns the stored records from sequence from to the head, in
// order, with their hash headers. Unlike Read it does not stop at a gap:
// a missing sequence is for the caller to notice (verify names it).
func (l *Log) ReadMsgs(ctx context.Context, from uint64) ([]Msg, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("natslog: stream info: %w", err)
	}
	if info.State.Msgs == 0 || from > info.State.LastSeq {
		return nil, nil
	}
	cons, err := l.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   max(from, 1),
	})
	if err != nil {
		return nil, fmt.Errorf("natslog: consumer: %w", err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(512))
	if err != nil {
		return nil, fmt.Errorf("natslog: consumer: %w", err)
	}
	defer it.Stop()
	var out []Msg
	for {
		m, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("natslog: reading the stream: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return nil, err
		}
		out = append(out, Msg{Seq: md.Sequence.Stream, Data: m.Data(), Hash: m.Headers().Get(events.HashHeader)})
		if md.NumPending == 0 || md.Sequence.Stream >= info.State.LastSeq {
			return out, nil
		}
	}
}
