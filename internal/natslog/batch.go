package natslog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

// MaxBatch is the most records one atomic batch carries (the server's
// limit is 1000).
const MaxBatch = 1000

// AppendBatch appends msgs as one atomic batch (ADR-50): either all land,
// at expected+1 onwards, or none does. Only the first message carries
// Nats-Expected-Last-Sequence, so the whole batch is validated against one
// head; every message carries its Nats-Msg-Id, Ledger-Hash and the
// segment it is meant for (Nats-Expected-Stream). It returns the first
// record's sequence, or events.ErrConflict when the head moved (or an id
// in the batch had already landed: the caller catches up, and its index
// of ids answers those). A batch the log rolled under is sent again to the
// next segment.
func (l *Log) AppendBatch(ctx context.Context, msgs []events.Message, expected uint64) (uint64, error) {
	if len(msgs) == 0 {
		return expected + 1, nil
	}
	if len(msgs) > MaxBatch {
		return 0, fmt.Errorf("natslog: a batch of %d records; at most %d", len(msgs), MaxBatch)
	}
	var first uint64
	seg, err := l.onLive(ctx, expected, func(seg *segment, local uint64) error {
		var err error
		first, err = l.appendBatch(ctx, seg.name, msgs, local)
		return err
	})
	if err != nil {
		return 0, unreceived(err)
	}
	l.landed(ctx, seg, first+uint64(len(msgs))-1)
	if err := l.durable(ctx, l.syncsBegun(), seg.name); err != nil {
		return 0, err
	}
	return seg.base + first, nil
}

// appendBatch sends the batch to the stream named stream, expecting its
// last sequence to be expected, and returns the stream sequence of the
// first record.
func (l *Log) appendBatch(ctx context.Context, stream string, msgs []events.Message, expected uint64) (uint64, error) {
	batchID := "b" + msgs[0].ID
	last := len(msgs) - 1
	for i, bm := range msgs {
		m := batchMsg(bm, stream, batchID, i, expected)
		if i == last {
			m.Header.Set(batchCommitHeader, "1")
		}
		switch {
		case i == last:
			resp, err := l.request(ctx, m)
			if err != nil {
				return 0, err
			}
			return commitAnswer(resp, len(msgs))
		case i == 0:
			// The first message is a request: the server opens the batch
			// or refuses it at once.
			resp, err := l.request(ctx, m)
			if err != nil {
				return 0, err
			}
			if len(resp.Data) > 0 {
				var e struct {
					Error *struct {
						ErrCode     int    `json:"err_code"`
						Description string `json:"description"`
					} `json:"error"`
				}
				if json.Unmarshal(resp.Data, &e) == nil && e.Error != nil {
					return 0, batchError(e.Error.ErrCode, e.Error.Description)
				}
			}
		default:
			if err := l.nc.PublishMsg(m); err != nil {
				return 0, fmt.Errorf("natslog: batch publish: %w", err)
			}
		}
	}
	return 0, nil // unreachable: the last message returns
}

const (
	batchIDHeader     = "Nats-Batch-Id"
	batchSeqHeader    = "Nats-Batch-Sequence"
	batchCommitHeader = "Nats-Batch-Commit"
)

// batchMsg is the i-th message of the batch batchID for stream, which
// expects the stream's last sequence to be expected (only the first
// message says so).
func batchMsg(bm events.Message, stream, batchID string, i int, expected uint64) *nats.Msg {
	m := hashedWith(bm.Subject, bm.Data, bm.Hash)
	m.Header.Set(jetstream.MsgIDHeader, bm.ID)
	m.Header.Set(jetstream.ExpectedStreamHeader, stream)
	m.Header.Set(batchIDHeader, batchID)
	m.Header.Set(batchSeqHeader, strconv.Itoa(i+1))
	if i == 0 {
		m.Header.Set(jetstream.ExpectedLastSeqHeader, strconv.FormatUint(expected, 10))
	}
	return m
}

// commitAnswer reads the answer to a batch's commit of n records: the
// stream sequence of the first, or why the batch did not land.
func commitAnswer(resp *nats.Msg, n int) (uint64, error) {
	var ack struct {
		Seq   uint64 `json:"seq"`
		Count int    `json:"count"`
		Error *struct {
			ErrCode     int    `json:"err_code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp.Data, &ack); err != nil {
		return 0, fmt.Errorf("natslog: batch commit answer: %w", err)
	}
	if ack.Error != nil {
		return 0, batchError(ack.Error.ErrCode, ack.Error.Description)
	}
	return ack.Seq - uint64(n) + 1, nil
}

// AppendBatchStream is AppendBatch for a batch still being decided: fill
// calls add with each record in order, and each is published at once, so
// the server stages the batch (for a standalone server: creates its
// staging files and syncs them) while the caller decides the rest. An
// end-of-batch message (Nats-Batch-Commit: eob, not stored) commits it
// when fill returns. It returns the first record's sequence and how many
// records fill added; with none, nothing is sent and first is
// expected+1. When fill fails, the server is told to drop what it staged
// and fill's error is returned. A batch the log rolled under is sent again
// whole, as AppendBatch sends it.
func (l *Log) AppendBatchStream(ctx context.Context, expected uint64, fill func(add func(events.Message)) error) (uint64, int, error) {
	seg := l.live()
	st := &streamed{l: l, stream: seg.name, expected: expected - seg.base, open: expected >= seg.base}
	if err := fill(st.add); err != nil {
		st.abandon()
		return 0, len(st.msgs), err
	}
	n := len(st.msgs)
	switch {
	case n == 0:
		return expected + 1, 0, nil
	case n > MaxBatch:
		st.abandon()
		return 0, n, fmt.Errorf("natslog: a batch of %d records; at most %d", n, MaxBatch)
	case !st.open:
		// The log rolled past expected: the caller is behind.
		st.abandon()
		return 0, n, events.ErrConflict()
	case st.err != nil:
		st.abandon()
		return 0, n, st.err
	}
	first, err := st.commit(ctx)
	if err == nil {
		l.landed(ctx, seg, first+uint64(n)-1)
		if err := l.durable(ctx, l.syncsBegun(), seg.name); err != nil {
			return 0, n, err
		}
		return seg.base + first, n, nil
	}
	if errors.Is(err, events.ErrConflict()) {
		return 0, n, err
	}
	// A segment sealed under the batch refuses its first record, and the
	// rest then fail as an incomplete batch: send it whole to the live one.
	if moved, _ := l.checkRolled(ctx, seg); moved {
		first, err := l.AppendBatch(ctx, st.msgs, expected)
		return first, n, err
	}
	return 0, n, unreceived(err)
}

// unreceived is the error of a batch request that failed and was not a
// roll: one that nothing received (no responders: the stream is
// unreachable, or a replicated segment just created whose subjects'
// interest has not reached this server yet) committed nothing, so it is a
// conflict, after which the caller catches up and sends the batch again;
// any other error is returned as it is (TestBatchWithNoResponders,
// TestRollingOnACluster).
func unreceived(err error) error {
	if errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w: batch request: %v", events.ErrConflict(), err)
	}
	return err
}

// streamed is a batch being published as it is built.
type streamed struct {
	l        *Log
	stream   string
	expected uint64 // the stream's last sequence, expected
	open     bool   // expected is in the live segment
	msgs     []events.Message
	err      error // the first publish failure; nothing is sent after it
}

func (st *streamed) add(bm events.Message) {
	st.msgs = append(st.msgs, bm)
	i := len(st.msgs) - 1
	if !st.open || st.err != nil || i >= MaxBatch {
		return
	}
	if err := st.l.nc.PublishMsg(batchMsg(bm, st.stream, st.batchID(), i, st.expected)); err != nil {
		st.err = fmt.Errorf("natslog: batch publish: %w", err)
	}
}

func (st *streamed) batchID() string { return "b" + st.msgs[0].ID }

// commit ends the batch with the end-of-batch message and reads the answer.
func (st *streamed) commit(ctx context.Context) (uint64, error) {
	m := nats.NewMsg(st.msgs[0].Subject)
	m.Header.Set(batchIDHeader, st.batchID())
	m.Header.Set(batchSeqHeader, strconv.Itoa(len(st.msgs)+1))
	m.Header.Set(batchCommitHeader, "eob")
	resp, err := st.l.request(ctx, m)
	if err != nil {
		return 0, err
	}
	return commitAnswer(resp, len(st.msgs))
}

// abandon makes the server drop what it staged (a gap in the batch's
// sequence does), rather than hold it until the batch times out.
func (st *streamed) abandon() {
	if len(st.msgs) == 0 || !st.open {
		return
	}
	m := nats.NewMsg(st.msgs[0].Subject)
	m.Header.Set(batchIDHeader, st.batchID())
	m.Header.Set(batchSeqHeader, strconv.Itoa(len(st.msgs)+2))
	_ = st.l.nc.PublishMsg(m) // best effort: the server times the batch out anyway
}

// syncsBegun is the syncs begun so far by the log's GroupSync, 0 without
// one.
func (l *Log) syncsBegun() uint64 {
	if l.cfg.Sync == nil {
		return 0
	}
	return l.cfg.Sync.Started()
}

func (l *Log) request(ctx context.Context, m *nats.Msg) (*nats.Msg, error) {
	rctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	resp, err := l.nc.RequestMsgWithContext(rctx, m)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, nats.ErrNoResponders) {
			// Nothing received it: the caller looks for a roll.
			return nil, err
		}
		// Ambiguous: the batch may have committed; the caller catches up.
		return nil, fmt.Errorf("%w: batch request: %v", events.ErrConflict(), err)
	}
	return resp, nil
}

// batchError translates the error a batch was refused with: a wrong last
// sequence, an id in the batch that landed already (10201) or one another
// writer is landing (10158, on a clustered stream: a replica sending the
// same record) are conflicts, after which the caller catches up and
// decides again; nothing of the batch landed.
func batchError(code int, desc string) error {
	switch code {
	case int(jetstream.JSErrCodeStreamWrongLastSequence), int(jetstream.JSErrCodeStreamWrongLastSequenceConstant),
		int(errCodeBatchDuplicate), int(errCodeDuplicateInProcess):
		return events.ErrConflict()
	}
	// Typed, so that a batch sent to a segment that was sealed under it
	// (10060, 10109) is told apart.
	return fmt.Errorf("natslog: batch refused: %w", &jetstream.APIError{Code: 400, ErrorCode: jetstream.ErrorCode(code), Description: desc})
}
