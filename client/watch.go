package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	for idle := 0; ; {
		body, err := json.Marshal(req)
		if err != nil {
			return err
		}
		var res wire.WatchResult
		asked := time.Now()
		if err := c.request(ctx, subject, body, &res); err != nil {
			return fmt.Errorf("client: watch: %w", err)
		}
		for _, ch := range res.Changes {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(ch); err != nil {
				return err
			}
		}
		if res.Next < req.From {
			return fmt.Errorf("client: watch: the ledger answered next %d, before %d", res.Next, req.From)
		}
		// An answer with nothing new that came back at once, without
		// waiting (the replica had its most waiting requests of this
		// owner): pause before asking again, longer each time, up to
		// 0.8 s.
		if len(res.Changes) == 0 && res.Next == req.From && time.Since(asked) < 100*time.Millisecond {
			idle++
			backoff(ctx, min(idle, 5))
		} else {
			idle = 0
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		req.From = res.Next
	}
}
