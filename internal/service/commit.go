package service

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/sessionledger/ledger/projection"
)

// commitPolicy decides when and how the projection file is committed. The
// log is the truth: a projection file behind it is caught up at the next
// Open, so commits are made in groups (at most one per CommitInterval on
// the append paths) and in the background, off every append's path, and
// a commit that fails never fails an append that landed.
//
// States:
//
//   - off: there is no store (the projection lives in memory only).
//   - background: commits are written in the background (Store.CommitAsync);
//     the last one may still be writing, and the next action of any kind
//     first waits for it (Store.Settle).
//   - foreground: a background write failed; the head was replaced by the
//     file's projection, caught up from the log, and commits are made in
//     the foreground (Store.Commit), where a failure leaves the state as it
//     was, until one succeeds.
//
// A commit is due when the last one is CommitInterval old or more. Events,
// each a method, all called with the service's mu held: fold (records that
// landed were folded: folded), chunk (a catch-up folded a chunk: chunk),
// flush (Service.Flush, and Run's ticker every CommitInterval and at its
// end: flush), settle (a roll-back is about to load the file: settle), and
// overlap (a round asks whether it may begin on top of rounds in flight,
// whose speculative records a commit must not write: mayOverlap).
//
//	state       event    guard                       action                                      next
//	off         any      -                           nothing (overlap: yes)                      off
//	background  fold     not due                     nothing                                     background
//	background  fold     due                         as chunk                                    as chunk
//	background  chunk    last write ok               CommitAsync; last commit = now              background
//	background  flush    last write ok               Commit; ok: last commit = now, else error   background
//	background  settle   last write ok               nothing                                     background
//	background  chunk,   last write failed           log; load the file's projection as the      foreground
//	            flush,                               head and catch up from the log (its chunks
//	            settle                               commit in the foreground); flush then
//	                                                 commits that head, as in foreground
//	background  overlap  -                           yes when not due (a due commit goes first)  background
//	foreground  fold     not due                     nothing                                     foreground
//	foreground  fold     due                         as chunk                                    as chunk
//	foreground  chunk    Commit ok                   last commit = now                           background
//	foreground  chunk    Commit fails                log it; the log holds the records           foreground
//	foreground  flush    -                           Commit; ok: last commit = now, else error   foreground
//	foreground  settle   -                           nothing                                     foreground
//	foreground  overlap  -                           yes (no background write to hold back)      foreground
//
// A flush leaves the foreground state as it is: the next due fold or
// chunk commits once more in the foreground and, when that succeeds,
// returns to the background. Guards: TestFullDiskDoesNotFailAppends,
// TestCommitPolicy.
type commitPolicy struct {
	store    *projection.Store
	dialects projection.Dialects
	interval time.Duration
	log      *slog.Logger
	target   commitTarget
	state    commitState
	// last is when the projection file was last committed.
	last time.Time
}

// commitTarget is what the policy commits and reloads: the service's
// head.
type commitTarget interface {
	// current is the head.
	current() *projection.State
	// replaceHead makes st, loaded from the file, the head and catches it
	// up from the log.
	replaceHead(ctx context.Context, st *projection.State) error
}

// commitState is a state of commitPolicy; it lives in memory only.
type commitState uint8

const (
	commitOff commitState = iota
	commitBackground
	commitForeground
)

func (c commitState) String() string {
	switch c {
	case commitOff:
		return "off"
	case commitBackground:
		return "background"
	case commitForeground:
		return "foreground"
	}
	return fmt.Sprintf("commitState(%d)", uint8(c))
}

// newCommitPolicy is the policy of a service with cfg (its defaults
// applied) that commits target's head: off without a store, else
// background.
func newCommitPolicy(cfg Config, logger *slog.Logger, target commitTarget) commitPolicy {
	p := commitPolicy{store: cfg.Store, dialects: cfg.Dialects, interval: cfg.CommitInterval, log: logger, target: target}
	if cfg.Store != nil {
		p.state = commitBackground
	}
	return p
}

// due reports whether the last commit is CommitInterval old or more.
func (p *commitPolicy) due() bool { return time.Since(p.last) >= p.interval }

// folded is the fold event: records that landed were folded into the head.
func (p *commitPolicy) folded(ctx context.Context) error {
	if p.state == commitOff || !p.due() {
		return nil
	}
	_, err := p.chunk(ctx)
	return err
}

// chunk is the chunk event (and a due fold's): it commits the head in the
// background, or in the foreground after a failed background write.
// reloaded reports that the last background write had failed and the
// head was reloaded and caught up (the caller's catch-up is then done).
func (p *commitPolicy) chunk(ctx context.Context) (reloaded bool, err error) {
	if p.state == commitOff {
		return false, nil
	}
	if reloaded, err := p.settle(ctx); reloaded || err != nil {
		return reloaded, err
	}
	if p.state == commitForeground {
		// The records are in the log already: a file that cannot be
		// written (a full disk) must not turn an append that landed into
		// an error. The head stays in memory and the commit is tried
		// again; a restart catches up from the last commit.
		if err := p.commit(ctx); err != nil {
			p.log.Error("committing the projection file failed; it will be retried, and a restart catches up from the log", "err", err)
			return false, nil
		}
		p.state = commitBackground
		return false, nil
	}
	if err := p.store.CommitAsync(p.target.current()); err != nil {
		return false, err // the previous write was settled: not a write error
	}
	p.last = time.Now()
	return false, nil
}

// flush is the flush event: it commits the head in the foreground, after
// the background write, if any, and answers the commit's error.
func (p *commitPolicy) flush(ctx context.Context) error {
	if p.state == commitOff {
		return nil
	}
	return p.commit(ctx)
}

// commit settles the background write and commits the head in the
// foreground.
func (p *commitPolicy) commit(ctx context.Context) error {
	if _, err := p.settle(ctx); err != nil {
		return err
	}
	if err := p.store.Commit(p.target.current()); err != nil {
		return err
	}
	p.last = time.Now()
	return nil
}

// settle is the settle event, and the first step of every other: it waits
// for the background write, if one is being written. When that write
// failed (a full disk, say) the head refuses to go on: it is replaced by
// the projection as the file holds it, caught up from the log, which has
// every record (reloaded is then true), and the policy moves to the
// foreground.
func (p *commitPolicy) settle(ctx context.Context) (reloaded bool, err error) {
	if p.state == commitOff {
		return false, nil
	}
	serr := p.store.Settle(p.target.current())
	if serr == nil {
		return false, nil
	}
	p.log.Error("committing the projection file failed; reloading it and catching up from the log", "err", serr)
	p.state = commitForeground
	st, err := p.store.Load(p.dialects)
	if err != nil {
		return true, fmt.Errorf("service: reloading the projection after a failed commit: %w", err)
	}
	return true, p.target.replaceHead(ctx, st)
}

// mayOverlap is the overlap event: whether a round may begin on top of the
// rounds in flight as far as commits go. A due background commit goes
// first: it writes only acknowledged records, so it waits for the rounds
// to end, and a round begun on top of them would hold it back.
func (p *commitPolicy) mayOverlap() bool {
	return p.state != commitBackground || !p.due()
}
