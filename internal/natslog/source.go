package natslog

// This file is where a read gets a segment's messages from: an ordered
// consumer (the default) or batched direct gets (StreamConfig.DirectReads,
// direct.go). Follow, Read, ReadMsgs and FindID are written once against
// source, so both ways share their gap, damage and seal-marker handling.

import (
	"context"
	"errors"
	"fmt"

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
// deletes when closed (dropConsumer).
type consumerSource struct {
	ctx     context.Context
	seg     *segment
	cons    jetstream.Consumer
	it      jetstream.MessagesContext
	stopped chan struct{}
}

func openConsumer(ctx context.Context, seg *segment, start uint64) (*consumerSource, error) {
	cons, err := seg.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   start,
	})
	if err != nil {
		return nil, fmt.Errorf("natslog: consumer: %w", err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(512))
	if err != nil {
		dropConsumer(ctx, seg, cons)
		return nil, fmt.Errorf("natslog: consumer: %w", err)
	}
	c := &consumerSource{ctx: ctx, seg: seg, cons: cons, it: it, stopped: make(chan struct{})}
	// The iterator waits up to readWait per call; ctx ends it at once.
	go func() {
		select {
		case <-ctx.Done():
			it.Stop()
		case <-c.stopped:
		}
	}()
	return c, nil
}

func (c *consumerSource) next(ctx context.Context, local uint64) (stored, error) {
	m, err := nextMsg(ctx, c.it, c.seg, local, stallAfter)
	if err != nil {
		return stored{}, readError(ctx, err)
	}
	if isMarker(m.Subject()) {
		return stored{subject: m.Subject()}, nil
	}
	md, err := m.Metadata()
	if err != nil {
		return stored{}, fmt.Errorf("natslog: message metadata: %w", err)
	}
	return stored{subject: m.Subject(), seq: md.Sequence.Stream, pending: md.NumPending, header: m.Headers(), data: m.Data()}, nil
}

func (c *consumerSource) close() {
	close(c.stopped)
	c.it.Stop()
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
