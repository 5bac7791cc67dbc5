package natslog

// This file reads a segment with JetStream's batched direct gets
// (StreamConfig.DirectReads): a reader that creates no consumer, so an
// auditor's permissions need grant no consumer API at all.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// directBatch and directMaxBytes bound one batch: the server stops at
	// whichever it reaches first (a record larger than directMaxBytes
	// still comes, alone).
	directBatch    = 512
	directMaxBytes = 4 << 20
	// pollMin and pollMax bound the pause between two batches of a read
	// waiting at the live head for a record to land (TestDirectFollow).
	pollMin = 10 * time.Millisecond
	pollMax = 250 * time.Millisecond
)

// batchWait bounds one batch, from its request to its end-of-batch status:
// a stream that answers part of a batch and then nothing fails the read
// instead of hanging it (TestDirectBatchWithoutEnd).
var batchWait = 10 * time.Second

// errNoneStored is the answer (404) to a batch when the stream holds no
// message at or after the batch's first sequence.
var errNoneStored = errors.New("natslog: the stream holds no message from that sequence on")

// directRequest is the body of a batched direct get (nats-server's
// JSApiMsgGetRequest, 2.11 and later).
type directRequest struct {
	Seq      uint64 `json:"seq"`
	Batch    int    `json:"batch"`
	MaxBytes int    `json:"max_bytes"`
}

// directSource reads a segment batch by batch. One subscription serves
// every batch; each batch has its own reply subject under it, so a late
// answer to a batch that timed out is never taken for the next one's. As
// soon as a batch has ended the next is asked for (while the caller works
// through the one at hand), unless the caller reads no further.
type directSource struct {
	nc       *nats.Conn
	seg      *segment
	sub      *nats.Subscription
	inbox    string
	asked    int    // batches asked so far, which names the next one's reply subject
	inflight string // the reply subject of the batch asked and not yet read, or ""
	from     uint64 // the stream sequence the next batch starts at
	end      uint64 // the last stream sequence the caller reads, 0 for no end
	buf      []stored
}

func (l *Log) openDirect(seg *segment, start, end uint64) (*directSource, error) {
	// NewInbox, not NewRespInbox: a response inbox lies under the
	// connection's request mux subscription, which would receive every
	// batch a second time. Both honour nats.CustomInboxPrefix.
	inbox := l.nc.NewInbox()
	sub, err := l.nc.SubscribeSync(inbox + ".*")
	if err != nil {
		return nil, fmt.Errorf("natslog: subscribing to direct get replies: %w", err)
	}
	return &directSource{nc: l.nc, seg: seg, sub: sub, inbox: inbox, from: max(start, 1), end: end}, nil
}

func (d *directSource) close() { _ = d.sub.Unsubscribe() }

// next returns the next message from the current batch, asking for the
// next batch when it is used up. A batch answered with nothing stored is
// either the live head (the read polls, pollMin doubling to pollMax, until
// ctx ends) or a lost record, which missing tells apart.
func (d *directSource) next(ctx context.Context, _ uint64) (stored, error) {
	var pause, stalled time.Duration
	for len(d.buf) == 0 {
		if d.inflight == "" {
			if err := d.ask(); err != nil {
				return stored{}, readError(ctx, err)
			}
		}
		batch, err := d.receive(ctx)
		if err == nil {
			d.buf, d.from = batch, batch[len(batch)-1].seq+1
			if d.end == 0 || d.from <= d.end {
				_ = d.ask() // a failure shows when the batch is needed
			}
			break
		}
		if !errors.Is(err, errNoneStored) {
			return stored{}, readError(ctx, err)
		}
		reported, err := missing(ctx, d.seg, d.from)
		if err != nil {
			return stored{}, readError(ctx, err)
		}
		pause = min(max(2*pause, pollMin), pollMax)
		if reported {
			// The stream returns the record when asked for it alone
			// (a replica behind its leader answered the batch).
			if stalled += pause; stalled >= stallAfter {
				return stored{}, readError(ctx, fmt.Errorf("%w: stream %s holds sequence %d but its direct gets returned nothing for %s",
					errStalled, d.seg.name, d.from, stalled))
			}
		}
		if err := sleep(ctx, pause); err != nil {
			return stored{}, err
		}
	}
	m := d.buf[0]
	d.buf = d.buf[1:]
	return m, nil
}

// subject is the segment's direct get subject.
func (d *directSource) subject() string {
	return jetstream.DefaultAPIPrefix + "DIRECT.GET." + d.seg.name
}

// ask requests the batch from d.from: directBatch messages, or as many as
// the caller still reads.
func (d *directSource) ask() error {
	n := directBatch
	if d.end >= d.from {
		n = int(min(uint64(n), d.end-d.from+1))
	}
	req, err := json.Marshal(directRequest{Seq: d.from, Batch: n, MaxBytes: directMaxBytes})
	if err != nil {
		return err
	}
	d.asked++
	reply := d.inbox + "." + strconv.Itoa(d.asked)
	if err := d.nc.PublishMsg(&nats.Msg{Subject: d.subject(), Reply: reply, Data: req}); err != nil {
		return fmt.Errorf("direct get of %s from sequence %d: %w", d.seg.name, d.from, err)
	}
	d.inflight = reply
	return nil
}

// receive reads the batch in flight until its end-of-batch status (204
// EOB). It answers errNoneStored for a 404, and an error for every other
// status and for a batch without its end within batchWait.
func (d *directSource) receive(ctx context.Context) ([]stored, error) {
	reply := d.inflight
	d.inflight = "" // whatever comes of it, the next batch is asked anew
	what := fmt.Sprintf("direct get of %s from sequence %d", d.seg.name, d.from)
	bctx, cancel := context.WithTimeout(ctx, batchWait)
	defer cancel()
	var out []stored
	for {
		m, err := d.sub.NextMsgWithContext(bctx)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			return nil, fmt.Errorf("%s: %d messages and no end of batch within %s (may this user publish to %s?)",
				what, len(out), batchWait, d.subject())
		case err != nil:
			return nil, fmt.Errorf("%s: %w", what, err)
		case m.Subject != reply:
			continue // the rest of a batch that timed out
		}
		if status := m.Header.Get("Status"); status != "" {
			switch status {
			case "204":
				if len(out) == 0 {
					return nil, errNoneStored // not sent by the server; handled as if
				}
				return out, nil
			case "404":
				return nil, errNoneStored
			case "503":
				return nil, fmt.Errorf("%s: no responders: the stream does not exist or does not allow direct gets", what)
			default:
				return nil, fmt.Errorf("%s: status %s %s", what, status, m.Header.Get("Description"))
			}
		}
		s, err := directMsg(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, s)
	}
}

// directMsg reads one message of a batch: its headers name its subject,
// sequence and the messages pending behind it.
func directMsg(m *nats.Msg) (stored, error) {
	seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil {
		return stored{}, fmt.Errorf("bad %s header: %w", jetstream.SequenceHeader, err)
	}
	np := m.Header.Get("Nats-Num-Pending")
	if np == "" {
		return stored{}, errors.New("no Nats-Num-Pending header: the server answered a single message, not a batch (batched direct gets need nats-server 2.11 or later)")
	}
	pending, err := strconv.ParseUint(np, 10, 64)
	if err != nil {
		return stored{}, fmt.Errorf("bad Nats-Num-Pending header: %w", err)
	}
	subject := m.Header.Get(jetstream.SubjectHeader)
	if subject == "" {
		return stored{}, fmt.Errorf("no %s header", jetstream.SubjectHeader)
	}
	if isMarker(subject) {
		return stored{subject: subject, seq: seq}, nil
	}
	return stored{subject: subject, seq: seq, pending: pending, header: m.Header, data: m.Data}, nil
}
