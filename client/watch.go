package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// WatchOptions say what to watch and from where. Exactly one of Session,
// Root and All.
type WatchOptions struct {
	// Session watches one session.
	Session events.SessionKey
	// Root watches a spawn tree: the root and every session spawned under
	// it, including those spawned after the watch started.
	Root events.SessionKey
	// All watches every session.
	All bool
	// From is the first stream sequence to deliver (1 for the beginning;
	// resume with the last delivered Change.Seq + 1).
	From uint64
}

// Change is a change of a session's effective tool set: the tool set
// resolved at the start of a turn (wire.Change).
type Change = wire.Change

// Watch delivers every change to the watched sessions' tool sets from
// opts.From on, in stream order, until ctx ends or fn returns an error.
// The ledger serves it (its watch endpoint, a long poll from the sequence
// after the last change delivered), so no change is skipped, none is
// delivered twice, and the caller needs no JetStream permission: an
// orchestrator sees its own sessions only. A Session or Root another
// orchestrator owns fails as one that does not exist (unknown_session).
func (c *Client) Watch(ctx context.Context, opts WatchOptions, fn func(Change) error) error {
	if c.invalid != nil {
		return c.invalid
	}
	n := 0
	if opts.Session != "" {
		n++
	}
	if opts.Root != "" {
		n++
	}
	if opts.All {
		n++
	}
	if n != 1 {
		return errors.New("client: watch exactly one of Session, Root and All")
	}
	req := wire.WatchQuery{Session: opts.Session, Root: opts.Root, All: opts.All, From: max(opts.From, 1), Wait: true}
	subject := wire.SubjectUnder(c.opts.Prefix, wire.EndpointWatch, c.scope())
	return follow(ctx, "watch", req.From, func(from uint64) ([]Change, uint64, error) {
		req.From = from
		body, err := json.Marshal(req)
		if err != nil {
			return nil, 0, err
		}
		var res wire.WatchResult
		err = c.request(ctx, subject, body, &res)
		return res.Changes, res.Next, err
	}, fn)
}

// Changes is Watch as an iterator: the changes to the watched sessions'
// tool sets from opts.From on, in stream order, each with a nil error,
// until ctx ends or the loop breaks. A break stops the watch (no request
// is sent after it). What ends the watch otherwise (ctx's error, a
// refusal such as unknown_session or behind_retention, a connection
// that failed) is yielded once, with a zero Change, as the last pair:
//
//	for ch, err := range c.Changes(ctx, client.WatchOptions{Root: root, From: from}) {
//		if err != nil {
//			return err // resume later from the last ch.Seq + 1
//		}
//		// ch.Seq, ch.Session, ch.Turn, ch.Tools
//	}
//
// The iterator may be ranged over more than once: each range is a watch
// of its own from opts.From.
func (c *Client) Changes(ctx context.Context, opts WatchOptions) iter.Seq2[Change, error] {
	return feed(func(fn func(Change) error) error { return c.Watch(ctx, opts, fn) })
}

// feed makes a callback feed (Watch, FollowDenials) an iterator: each item
// with a nil error; a break makes the callback return errBreak, which ends
// the feed before it asks again and is never yielded; what ends the feed
// otherwise is yielded once, with a zero item, as the last pair
// (TestChanges, TestDenied).
func feed[T any](run func(fn func(T) error) error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		broke := false
		err := run(func(it T) error {
			if !yield(it, nil) {
				broke = true
				return errBreak
			}
			return nil
		})
		if !broke && err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

// errBreak ends a feed under a range loop that broke; it never leaves
// Changes or Denied.
var errBreak = errors.New("client: the range loop over the feed ended")

// follow pages a long-polled feed (watch, denials) from from: ask answers
// the items after a position and the next one, fn is called on each item
// in order. An answer with nothing new that came back at once, without
// waiting (the replica had its most waiting requests of this owner), is
// followed by a pause before asking again, longer each time, up to 0.8 s.
// A next before the position asked is an error: the feed never goes back.
func follow[T any](ctx context.Context, what string, from uint64, ask func(from uint64) ([]T, uint64, error), fn func(T) error) error {
	for idle := 0; ; {
		asked := time.Now()
		items, next, err := ask(from)
		if err != nil {
			return fmt.Errorf("client: %s: %w", what, err)
		}
		for _, it := range items {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(it); err != nil {
				return err
			}
		}
		if next < from {
			return fmt.Errorf("client: %s: the ledger answered next %d, before %d", what, next, from)
		}
		if len(items) == 0 && next == from && time.Since(asked) < 100*time.Millisecond {
			idle++
			backoff(ctx, min(idle, 5))
		} else {
			idle = 0
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		from = next
	}
}
