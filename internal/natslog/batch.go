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
	if errors.Is(err, nats.ErrNoResponders) {
		// Not a roll: the stream is unreachable. The caller catches up.
		return 0, fmt.Errorf("%w: batch request: %v", events.ErrConflict, err)
	}
	if err != nil {
		return 0, err
	}
	l.landed(ctx, seg, first+uint64(len(msgs))-1)
	return seg.base + first, nil
}

// appendBatch sends the batch to the stream named stream, expecting its
// last sequence to be expected, and returns the stream sequence of the
// first record.
func (l *Log) appendBatch(ctx context.Context, stream string, msgs []events.Message, expected uint64) (uint64, error) {
	batchID := "b" + msgs[0].ID
	last := len(msgs) - 1
	for i, bm := range msgs {
		m := hashed(bm.Subject, bm.Data)
		m.Header.Set(jetstream.MsgIDHeader, bm.ID)
		m.Header.Set(jetstream.ExpectedStreamHeader, stream)
		m.Header.Set("Nats-Batch-Id", batchID)
		m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		if i == 0 {
			m.Header.Set(jetstream.ExpectedLastSeqHeader, strconv.FormatUint(expected, 10))
		}
		if i == last {
			m.Header.Set("Nats-Batch-Commit", "1")
		}
		switch {
		case i == last:
			resp, err := l.request(ctx, m)
			if err != nil {
				return 0, err
			}
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
			return ack.Seq - uint64(len(msgs)) + 1, nil
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
		return nil, fmt.Errorf("%w: batch request: %v", events.ErrConflict, err)
	}
	return resp, nil
}

func batchError(code int, desc string) error {
	switch code {
	case int(jetstream.JSErrCodeStreamWrongLastSequence), int(jetstream.JSErrCodeStreamWrongLastSequenceConstant),
		10201: // an id in the batch had already landed
		return events.ErrConflict
	}
	// Typed, so that a batch sent to a segment that was sealed under it
	// (10060, 10109) is told apart.
	return fmt.Errorf("natslog: batch refused: %w", &jetstream.APIError{Code: 400, ErrorCode: jetstream.ErrorCode(code), Description: desc})
}
