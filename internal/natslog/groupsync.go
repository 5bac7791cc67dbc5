package natslog

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// GroupSync makes the appends of a log durable on a server that does not
// fsync every write (EmbeddedConfig.GroupSync): the log answers an append
// only once a sync of the server's store that began after the server
// acknowledged the record has ended. Appends acknowledged while a sync runs
// share the next one (group commit), so many writers pay one fsync between
// them where a server that syncs every write pays one each, in sequence.
//
// Invariant: Sync(ctx, after) returns nil only once a sync numbered above
// after (begun after Started returned after) has ended without error; one
// sync runs at a time; after a failed sync every Sync fails
// (TestGroupSyncWaitsForALaterSync, TestGroupSyncCoalesces,
// TestGroupSyncErrorSticks).
type GroupSync struct {
	sync  func() error
	close func() error

	mu      sync.Mutex
	started uint64     // syncs begun
	done    uint64     // the number of the last sync ended
	cur     *syncRound // the sync running, nil when none
	next    *syncRound // the one to begin when cur ends: its waiters came during cur
	err     error      // the first failure; every later Sync returns it
	syncs   uint64     // syncs ended, for Count
}

type syncRound struct {
	n    uint64
	done chan struct{}
	err  error
}

// NewGroupSync is a GroupSync that syncs with fn; close, when not nil, is
// called by Close.
func NewGroupSync(fn, close func() error) *GroupSync {
	return &GroupSync{sync: fn, close: close}
}

// Started is the number of syncs begun so far. A record acknowledged
// before Started returned n is durable once Sync(ctx, n) returns nil.
func (g *GroupSync) Started() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started
}

// Count is the number of syncs ended, for tests and the bench.
func (g *GroupSync) Count() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.syncs
}

// Sync waits until a sync numbered above after has ended, beginning one
// when none is running, and returns its error. It returns ctx's error when
// ctx ends first: the record is then neither known durable nor lost, as
// after a publish that timed out.
func (g *GroupSync) Sync(ctx context.Context, after uint64) error {
	g.mu.Lock()
	if g.err != nil {
		g.mu.Unlock()
		return g.err
	}
	var r *syncRound
	switch {
	case g.done > after:
		g.mu.Unlock()
		return nil
	case g.cur == nil:
		r = g.begin(&syncRound{done: make(chan struct{})})
		go g.run(r)
	case g.cur.n > after:
		r = g.cur
	default:
		// The sync running began before this record was acknowledged.
		if g.next == nil {
			g.next = &syncRound{done: make(chan struct{})}
		}
		r = g.next
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	default:
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SyncWithin is Sync bounded by timeout as well as ctx.
func (g *GroupSync) SyncWithin(ctx context.Context, after uint64, timeout time.Duration) error {
	g.mu.Lock()
	ready := g.err == nil && g.done > after
	g.mu.Unlock()
	if ready {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := g.Sync(sctx, after)
	if err != nil && ctx.Err() == nil && sctx.Err() != nil {
		return fmt.Errorf("natslog: the store's sync did not end within %s: the record may not be on disk yet", timeout)
	}
	return err
}

// begin makes r the sync running. The caller holds mu.
func (g *GroupSync) begin(r *syncRound) *syncRound {
	g.started++
	r.n = g.started
	g.cur = r
	return r
}

// run runs r's sync, then the next one while waiters came for it.
func (g *GroupSync) run(r *syncRound) {
	for r != nil {
		err := g.sync()
		g.mu.Lock()
		g.syncs++
		if err != nil && g.err == nil {
			g.err = fmt.Errorf("natslog: syncing the log's store failed, so no record appended since the last sync is known to be on disk: %w (check the disk and restart the ledger; it answers no append until then)", err)
		}
		r.err = g.err
		g.done = r.n
		close(r.done)
		g.cur, r = nil, nil
		if nx := g.next; nx != nil {
			g.next = nil
			if g.err != nil {
				nx.err = g.err
				close(nx.done)
			} else {
				r = g.begin(nx)
			}
		}
		g.mu.Unlock()
	}
}

// Close releases what the sync holds (the store's directory).
func (g *GroupSync) Close() error {
	if g.close == nil {
		return nil
	}
	return g.close()
}
