package client

import (
	"bytes"
	"context"
	"fmt"

	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// Session appends made at the same moment by a client's goroutines share
// requests: the ledger's API takes a JSON array of events on the append
// subject, decides them in order (each against the state that includes
// the ones before it, a refusal not stopping the rest) and answers the
// array of their outcomes. One round trip then carries many appends, as
// the ledger's rounds already group appends into one write.
//
// At most inFlight() requests are out at once; whoever appends while
// fewer are out sends what waits (its own append among it), and a sender
// that finds more waiting when its request is answered leaves them to a
// goroutine of their own, so no caller waits for others' appends.

// inFlight is how many append requests a client has out at once. One,
// unless the ledger's last append answer said its rounds overlap
// (wire.RoundsHeader): then two, so that it decides the second request's
// events while the first's round is acknowledged. A ledger that appends
// each round as one atomic batch gains nothing from a second request and
// loses by it: its next round is split in two (the figures are in
// docs/bench.md, "Append, issue 17"). TestInFlightFollowsTheLedgersRounds
// guards it.
func (c *Client) inFlight() int {
	if c.overlap.Load() {
		return 2
	}
	return 1
}

// coalescer holds the appends waiting to be sent.
type coalescer struct {
	mu       sync.Mutex
	waiting  []*pendingAppend
	inFlight int
	// arrived, when not nil, is closed at the next append (see await).
	arrived chan struct{}
}

// maxLinger bounds how long a sender waits for the callers its last
// request answered (see sendWaiting).
const maxLinger = 2 * time.Millisecond

// pendingAppend is one append waiting for its outcome. The sender sets
// out and then signals done, once; the caller reads out only after done
// (a channel of struct{} is one allocation, of appendOutcome two). A
// caller that got its outcome puts its pendingAppend back in the pool
// (the sender touches it no more after done); one whose context ended
// leaves it to the collector, since the sender may still finish it.
type pendingAppend struct {
	ctx  context.Context
	body []byte
	out  appendOutcome
	done chan struct{}
}

// finish gives p its outcome.
func (p *pendingAppend) finish(o appendOutcome) {
	p.out = o
	p.done <- struct{}{}
}

type appendOutcome struct {
	res AppendResult
	err error
}

var pendingPool = sync.Pool{New: func() any { return &pendingAppend{done: make(chan struct{}, 1)} }}

func (c *Client) appendCoalesced(ctx context.Context, subject string, body []byte) (AppendResult, error) {
	p := pendingPool.Get().(*pendingAppend)
	p.ctx, p.body = ctx, body
	q := &c.appends
	q.mu.Lock()
	q.waiting = append(q.waiting, p)
	if q.arrived != nil {
		close(q.arrived)
		q.arrived = nil
	}
	lead := q.inFlight < c.inFlight()
	if lead {
		q.inFlight++
	}
	q.mu.Unlock()
	if lead {
		c.sendWaiting(subject)
	}
	select {
	case <-p.done:
		out := p.out
		*p = pendingAppend{done: p.done}
		pendingPool.Put(p)
		return out.res, out.err
	case <-ctx.Done():
		// It may still be sent, or have landed: the ledger answers a
		// re-send of its id with the first outcome.
		return AppendResult{}, ctx.Err()
	}
}

// sendWaiting sends one request with what waits, then hands what waits
// after it to another goroutine. The caller holds one of the in-flight
// places; it is given back when nothing waits.
func (c *Client) sendWaiting(subject string) {
	q := &c.appends
	q.mu.Lock()
	n := min(len(q.waiting), c.opts.Coalesce)
	if n == 0 {
		q.inFlight--
		q.mu.Unlock()
		return
	}
	batch := append([]*pendingAppend(nil), q.waiting[:n]...)
	q.waiting = append(q.waiting[:0], q.waiting[n:]...)
	q.mu.Unlock()

	t0 := time.Now()
	c.send(subject, batch)
	if n > 1 {
		// The callers just answered usually append again at once: wait a
		// little for them (at most a quarter of the request's time), so
		// that they go together instead of split between this request and
		// the next, one half sent while the other is still on its way.
		go func() {
			c.await(n, min(maxLinger, time.Since(t0)/4))
			c.sendWaiting(subject)
		}()
		return
	}
	q.mu.Lock()
	more := len(q.waiting) > 0
	if !more {
		q.inFlight--
	}
	q.mu.Unlock()
	if more {
		go c.sendWaiting(subject)
	}
}

// await waits until n appends wait, or d has passed, or none has come
// for lingerGap: callers woken together append within microseconds of
// each other, and a writer that does not append again is not waited for.
func (c *Client) await(n int, d time.Duration) {
	q := &c.appends
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	gap := time.NewTimer(lingerGap)
	defer gap.Stop()
	for {
		q.mu.Lock()
		if len(q.waiting) >= n {
			q.mu.Unlock()
			return
		}
		if q.arrived == nil {
			q.arrived = make(chan struct{})
		}
		arrived := q.arrived
		q.mu.Unlock()
		select {
		case <-arrived:
			gap.Reset(lingerGap)
		case <-gap.C:
			return
		case <-deadline.C:
			return
		}
	}
}

// lingerGap is how long a sender that waits for its callers waits for
// the next of them.
const lingerGap = 100 * time.Microsecond

// send sends appends whose callers still wait: one alone as a plain
// append, several as a batch; events that met a conflict are sent again,
// as a plain append would be.
func (c *Client) send(subject string, batch []*pendingAppend) {
	live := batch[:0]
	for _, p := range batch {
		if p.ctx.Err() == nil {
			live = append(live, p)
		}
	}
	batch = live
	if len(batch) == 1 {
		var res AppendResult
		err := c.requestHdr(batch[0].ctx, subject, batch[0].body, &res, c.noteRounds)
		batch[0].finish(appendOutcome{res, err})
		return
	}
	for attempt := 0; len(batch) > 0; attempt++ {
		var body bytes.Buffer
		body.WriteByte('[')
		for i, p := range batch {
			if i > 0 {
				body.WriteByte(',')
			}
			body.Write(p.body)
		}
		body.WriteByte(']')
		var outs []wire.AppendOutcome
		// The callers' contexts differ; each request attempt is bounded
		// by Timeout, and the retries by Retries.
		if err := c.requestHdr(context.Background(), subject, body.Bytes(), &outs, c.noteRounds); err != nil {
			for _, p := range batch {
				p.finish(appendOutcome{err: err})
			}
			return
		}
		if len(outs) != len(batch) {
			err := fmt.Errorf("client: %s: %d outcomes for a batch of %d appends", subject, len(outs), len(batch))
			for _, p := range batch {
				p.finish(appendOutcome{err: err})
			}
			return
		}
		var again []*pendingAppend
		for i, o := range outs {
			res := o.Result()
			if o.Error == nil {
				batch[i].finish(appendOutcome{res: res})
				continue
			}
			err := &events.Error{Code: o.Error.Code, Msg: o.Error.Message}
			if (err.Code == events.CodeConflict || err.Code == events.CodeNotCaughtUp) && attempt < c.opts.Retries {
				again = append(again, batch[i])
				continue
			}
			batch[i].finish(appendOutcome{res: res, err: err})
		}
		if len(again) > 0 {
			backoff(context.Background(), attempt)
		}
		batch = again
	}
}

// noteRounds keeps what the ledger's last append answer said of its
// rounds (wire.RoundsHeader).
func (c *Client) noteRounds(h nats.Header) {
	c.overlap.Store(h.Get(wire.RoundsHeader) == wire.RoundsOverlap)
}
