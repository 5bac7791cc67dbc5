package natslog

// This file is where a read gets a segment's messages from: an ordered
// consumer (the default) or batched direct gets (StreamConfig.DirectReads,
// direct.go). Follow, Read, ReadMsgs and FindID are written once against
// source, so both ways share their gap, damage and seal-marker handling.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// stored is one message of a segment as a read receives it: a record, or
// the seal marker (isMarker(subject); then nothing else is set).
type stored struct {
	subject string
	seq     uint64 // stream sequence
	// pending is how many messages the stream holds after this one (the
	// seal marker among them) as the server counted them.
	pending uint64
	header  nats.Header
	data    []byte
}

// source delivers one segment's messages in stream order from the stream
// sequence it was opened at; a deleted or lost message is skipped, so the
// caller sees a gap in the sequences. next's local is the stream sequence
// the caller expects next. While the stream reports local but the source
// gets nothing, next asks the stream for it (missing) and answers a
// *DamagedError when the record is lost, or, after stallAfter, errStalled
// (then the caller opens a new source from local). Past the stream's last
// sequence next waits until ctx ends. Its errors are ctx.Err(), a
// *DamagedError, or wrapped with what failed.
type source interface {
	next(ctx context.Context, local uint64) (stored, error)
	close()
}

// openSource opens the source the log reads seg with from stream sequence
// start. end, when not 0, is the last stream sequence the caller reads: a
// direct read asks for no more (an ordered consumer pulls 512 regardless).
//
// A read of at most smallRead records is direct whatever DirectReads says:
// one batch costs a round trip where a consumer costs its creation and
// deletion too (the served watch reads the few records after the last one
// it answered, at every wake). Both sources deliver the same records
// (TestDirectReadsMatchConsumers).
func (l *Log) openSource(ctx context.Context, seg *segment, start, end uint64) (source, error) {
	if l.cfg.DirectReads || end != 0 && end >= start && end-start < smallRead {
		return l.openDirect(seg, start, end)
	}
	return openConsumer(ctx, seg, start)
}

// smallRead is the most records a read takes with a direct batch however
// the log is configured.
const smallRead = 64

// consumerSource reads a segment with an ordered consumer, which it
// deletes when closed (dropConsumer). The consumer delivers with Consume,
// into a channel: each message is made a stored on the client's delivery
// goroutine, beside the reader, and a read costs no timer of its own (the
// iterator's Next made two a message, its wait's and the heartbeat
// check's; docs/bench.md, "the read of a rebuild").
type consumerSource struct {
	ctx     context.Context
	seg     *segment
	cons    jetstream.Consumer
	cc      jetstream.ConsumeContext
	msgs    chan delivered
	stopped chan struct{}
	wait    *time.Timer // next's, made at its first wait
}

// delivered is one message the consumer delivered, or the error that
// ended its delivery.
type delivered struct {
	m   stored
	err error
}

// consumeBuffer is how many delivered messages wait for the reader: the
// consumer pulls 512 at a time.
const consumeBuffer = 512

func openConsumer(ctx context.Context, seg *segment, start uint64) (*consumerSource, error) {
	cons, err := seg.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   start,
	})
	if err != nil {
		return nil, fmt.Errorf("natslog: consumer: %w", err)
	}
	c := &consumerSource{ctx: ctx, seg: seg, cons: cons, msgs: make(chan delivered, consumeBuffer), stopped: make(chan struct{})}
	cc, err := cons.Consume(c.deliver, jetstream.PullMaxMessages(512), jetstream.ConsumeErrHandler(c.failed))
	if err != nil {
		dropConsumer(ctx, seg, cons)
		return nil, fmt.Errorf("natslog: consumer: %w", err)
	}
	c.cc = cc
	return c, nil
}

// deliver is the consumer's handler: it hands m to next, waiting while the
// reader is behind (the consumer then pulls no more), until the source is
// closed.
func (c *consumerSource) deliver(m jetstream.Msg) {
	var d delivered
	if isMarker(m.Subject()) {
		d.m = stored{subject: m.Subject()}
	} else if md, err := m.Metadata(); err != nil {
		d.err = fmt.Errorf("natslog: message metadata: %w", err)
	} else {
		d.m = stored{subject: m.Subject(), seq: md.Sequence.Stream, pending: md.NumPending, header: m.Headers(), data: m.Data()}
	}
	c.send(d)
}

// failed is the consumer's error handler. The ordered consumer recovers
// from the rest by itself (a new consumer from the next sequence); a
// closed connection ends the delivery, and next answers it.
func (c *consumerSource) failed(_ jetstream.ConsumeContext, err error) {
	if errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, jetstream.ErrConnectionClosed) {
		c.send(delivered{err: fmt.Errorf("natslog: reading the stream: %w", err)})
	}
}

func (c *consumerSource) send(d delivered) {
	select {
	case c.msgs <- d:
	case <-c.stopped:
	}
}

func (c *consumerSource) next(ctx context.Context, local uint64) (stored, error) {
	select {
	case d := <-c.msgs:
		return d.m, d.err
	default:
	}
	d, err := c.await(ctx, local)
	if err != nil {
		return stored{}, readError(ctx, err)
	}
	return d.m, d.err
}

// await waits for the next message delivered, whose stream sequence should
// be local. While the stream reports local it waits at most stallAfter in
// all, asking the stream for the record every readWait (see missing);
// past the stream's last sequence it waits until ctx ends.
func (c *consumerSource) await(ctx context.Context, local uint64) (delivered, error) {
	var waited time.Duration
	for {
		if c.wait == nil {
			c.wait = time.NewTimer(readWait)
		} else {
			c.wait.Reset(readWait)
		}
		select {
		case d := <-c.msgs:
			c.wait.Stop()
			return d, nil
		case <-ctx.Done():
			c.wait.Stop()
			return delivered{}, ctx.Err()
		case <-c.wait.C:
		}
		reported, err := missing(ctx, c.seg, local)
		if err != nil {
			return delivered{}, err
		}
		if !reported {
			waited = 0
			continue
		}
		if waited += readWait; waited >= stallAfter {
			return delivered{}, fmt.Errorf("%w: stream %s holds sequence %d but delivered nothing for %s", errStalled, c.seg.name, local, waited)
		}
	}
}

func (c *consumerSource) close() {
	close(c.stopped)
	c.cc.Stop()
	dropConsumer(c.ctx, c.seg, c.cons)
}

// readError is what a source answers for err: ctx's own error once it
// ended, a *DamagedError as it is, anything else (errStalled among them)
// wrapped as a failed read.
func readError(ctx context.Context, err error) error {
	var de *DamagedError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &de):
		return err
	default:
		return fmt.Errorf("natslog: reading the stream: %w", err)
	}
}
