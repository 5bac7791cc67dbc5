package natslog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
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
	sync  func(streams []string) error
	close func() error

	mu      sync.Mutex
	started uint64     // syncs begun
	cur     *syncRound // the sync running, nil when none
	next    *syncRound // the one to begin when cur ends: its waiters came during cur
	err     error      // the first failure; every later Sync returns it
	syncs   uint64     // syncs ended, for Count
	// synced is, for each stream, the number of the last sync that
	// covered it.
	synced map[string]uint64
}

type syncRound struct {
	n       uint64
	streams []string // what the sync covers ("" is the whole store)
	done    chan struct{}
	err     error
}

func (r *syncRound) covers(stream string) bool {
	for _, s := range r.streams {
		if s == stream || s == "" {
			return true
		}
	}
	return false
}

func (r *syncRound) add(stream string) {
	if !r.covers(stream) {
		r.streams = append(r.streams, stream)
	}
}

// NewGroupSync is a GroupSync that syncs with fn, which makes durable what
// the server wrote for the streams it is given ("" standing for the whole
// store); close, when not nil, is called by Close.
func NewGroupSync(fn func(streams []string) error, close func() error) *GroupSync {
	return &GroupSync{sync: fn, close: close, synced: map[string]uint64{}}
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

// Sync waits until a sync numbered above after that covers stream has
// ended, beginning one when none is running, and returns its error. It
// returns ctx's error when ctx ends first: the record is then neither
// known durable nor lost, as after a publish that timed out.
func (g *GroupSync) Sync(ctx context.Context, after uint64, stream string) error {
	return g.wait(ctx, after, stream, 0)
}

// SyncWithin is Sync bounded by timeout as well as ctx. The bound applies
// to waiting for a sync another caller runs: a caller that runs the sync
// itself (none was running) waits for its own fsync, which nothing can
// cut short, and takes no timer.
func (g *GroupSync) SyncWithin(ctx context.Context, after uint64, stream string, timeout time.Duration) error {
	return g.wait(ctx, after, stream, timeout)
}

// wait is Sync, and SyncWithin when timeout is above 0.
func (g *GroupSync) wait(ctx context.Context, after uint64, stream string, timeout time.Duration) error {
	g.mu.Lock()
	if g.err != nil {
		g.mu.Unlock()
		return g.err
	}
	var r *syncRound
	switch {
	case g.covered(stream, after):
		g.mu.Unlock()
		return nil
	case g.cur == nil:
		// No sync runs: this caller runs one itself, on its goroutine
		// (no hand-off on the path of a lone append); the syncs its
		// waiters ask for meanwhile run on a goroutine of their own.
		r = g.begin(&syncRound{streams: []string{stream}, done: make(chan struct{})})
		g.mu.Unlock()
		if next := g.end(r, g.sync(r.streams)); next != nil {
			go g.run(next)
		}
		return r.err
	case g.cur.n > after && g.cur.covers(stream):
		r = g.cur
	default:
		// The sync running began before this record was acknowledged,
		// or covers other streams.
		if g.next == nil {
			g.next = &syncRound{done: make(chan struct{})}
		}
		g.next.add(stream)
		r = g.next
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	default:
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return fmt.Errorf("natslog: the store's sync did not end within %s: the record may not be on disk yet", timeout)
	}
}

// covered reports whether a sync numbered above after that covered stream
// has ended. The caller holds mu.
func (g *GroupSync) covered(stream string, after uint64) bool {
	return g.synced[stream] > after || g.synced[""] > after
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
		r = g.end(r, g.sync(r.streams))
	}
}

// end records the end of r's sync, which returned err, and begins the
// next sync when callers wait for one: the caller runs it.
func (g *GroupSync) end(r *syncRound, err error) (next *syncRound) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.syncs++
	if err == nil {
		for _, s := range r.streams {
			g.synced[s] = r.n
		}
	}
	if err != nil && g.err == nil {
		g.err = fmt.Errorf("natslog: syncing the log's store failed, so no record appended since the last sync is known to be on disk: %w (check the disk and restart the ledger; it answers no append until then)", err)
	}
	r.err = g.err
	close(r.done)
	g.cur = nil
	nx := g.next
	if nx == nil {
		return nil
	}
	g.next = nil
	if g.err != nil {
		nx.err = g.err
		close(nx.done)
		return nil
	}
	return g.begin(nx)
}

// Close releases what the sync holds (the store's directory).
func (g *GroupSync) Close() error {
	if g.close == nil {
		return nil
	}
	return g.close()
}

// GroupSyncSubject is where the logs opened with a GroupSync answer the
// other writers of their server: a log on a server started for group sync
// (EmbeddedConfig.GroupSync, named with GroupSyncNameSuffix) that cannot
// sync the store itself (another process's, over --listen; one opened
// without StreamConfig.Sync) asks here, after each acknowledgement, for a
// sync begun since, and answers its append only once it is told the sync
// ended (TestGroupSyncAppends, the writers over TCP and without Sync).
const GroupSyncSubject = "_LEDGER.SYNC"

// GroupSyncNameSuffix ends the name of a server started for group sync,
// which every client reads when it connects: a log connected to such a
// server without a GroupSync of its own confirms each append with the
// process that runs the server (GroupSyncSubject). The name is the
// server's only mark that a client can read before it writes, so the
// mark is there from the server's first connection on.
const GroupSyncNameSuffix = "+group-sync"

// groupSyncQueue is the queue group of the answering logs: one of them
// answers each request.
const groupSyncQueue = "ledger-sync"

// syncedReply is the answer to a request on GroupSyncSubject whose sync
// ended well; any other answer is the error that failed it.
const syncedReply = "synced"

// serve answers, on nc, the sync requests of the server's other writers:
// each with a sync of the named stream begun after the request came,
// bounded by timeout. One goroutine answers them all (syncServer).
func (g *GroupSync) serve(nc *nats.Conn, timeout time.Duration) error {
	s := &syncServer{g: g, timeout: timeout}
	if _, err := nc.QueueSubscribe(GroupSyncSubject, groupSyncQueue, s.handle); err != nil {
		return fmt.Errorf("natslog: answering the group sync requests of the server's other writers: %w", err)
	}
	return nil
}

// maxSyncRequests bounds the sync requests waiting for an answer; past
// it a request is answered at once with an error (its append fails, and
// its writer sends it again), so a flood of requests holds bounded memory
// (TestGroupSyncRequestsBounded).
var maxSyncRequests = 1 << 16

// syncServer answers sync requests: the ones that came while it synced
// wait together for the next sync, which one goroutine runs and answers.
type syncServer struct {
	g       *GroupSync
	timeout time.Duration

	mu      sync.Mutex
	pending []*nats.Msg
	running bool
}

func (s *syncServer) handle(m *nats.Msg) {
	if stream := string(m.Data); !syncableName(stream) {
		// A stream's name is a directory of the store: nothing else is
		// opened for a client.
		_ = m.Respond([]byte(fmt.Sprintf("natslog: %q is not a stream's name", stream)))
		return
	}
	s.mu.Lock()
	if len(s.pending) >= maxSyncRequests {
		s.mu.Unlock()
		_ = m.Respond([]byte(fmt.Sprintf("natslog: the ledger has %d sync requests waiting already; send the append again", maxSyncRequests)))
		return
	}
	s.pending = append(s.pending, m)
	if s.running {
		s.mu.Unlock()
		return
	}
	s.running = true
	s.mu.Unlock()
	go s.run()
}

// run answers the waiting requests, a batch at a time, until none wait.
func (s *syncServer) run() {
	for {
		s.mu.Lock()
		batch := s.pending
		s.pending = nil
		if len(batch) == 0 {
			s.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		// Every request of batch came, after its record was written,
		// before this: a sync numbered above after began after them all.
		after := s.g.Started()
		errs := map[string]error{}
		for _, m := range batch {
			stream := string(m.Data)
			if _, done := errs[stream]; !done {
				errs[stream] = s.g.SyncWithin(context.Background(), after, stream, s.timeout)
			}
		}
		for _, m := range batch {
			reply := []byte(syncedReply)
			if err := errs[string(m.Data)]; err != nil {
				reply = []byte(err.Error())
			}
			_ = m.Respond(reply)
		}
	}
}

// syncableName reports whether a sync request names a stream as the
// server would let one be named ("" is the whole store): no path
// separator, dot, wildcard, space or control character, at most 255 bytes.
func syncableName(name string) bool {
	if len(name) > 255 {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("./\\*>", r) {
			return false
		}
	}
	return true
}

// isGroupSyncServer reports whether a server of this name was started for
// group sync: "" (a server never seen) counts as one, so that a log that
// cannot tell is answered only by a sync it was told about.
func isGroupSyncServer(name string) bool {
	return name == "" || strings.HasSuffix(name, GroupSyncNameSuffix)
}

// askSync asks the process that runs the log's server (a server started
// for group sync) for a sync of stream begun after now, and waits for its
// answer within the log's Timeout. Until that process answers for the
// first time (it is starting), no one responds; the request is sent again.
func (l *Log) askSync(ctx context.Context, stream string) error {
	where := func() string {
		if u := l.nc.ConnectedUrlRedacted(); u != "" {
			return u
		}
		return "(not connected now)"
	}
	actx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	for {
		m, err := l.nc.RequestWithContext(actx, GroupSyncSubject, []byte(stream))
		switch {
		case err == nil && string(m.Data) == syncedReply:
			return nil
		case err == nil:
			return fmt.Errorf("natslog: the ledger that runs the server %s could not make the record durable: %s", where(), m.Data)
		case errors.Is(err, nats.ErrNoResponders) && actx.Err() == nil:
			if sleep(actx, askSyncRetry) == nil {
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("natslog: the server %s syncs its store only when the ledger that runs it is asked (its group sync), and that ledger did not answer (%v; the log waits %s): the record may not be on disk; append it again with the same id once that ledger answers (a re-sent id is answered with its record), or run that ledger with --server-fsync",
			where(), err, l.Timeout)
	}
}

// askSyncRetry is how long askSync waits before it asks again a server
// whose ledger does not answer yet.
const askSyncRetry = 50 * time.Millisecond
