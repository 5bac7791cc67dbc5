package service_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// gatedLog is a JetStream log whose acknowledgements are held until open
// is closed. When drop is set, the publishes of the round it names are
// not sent at all: their acknowledgement, once open, is a failure, as
// when the server died before it stored them.
type gatedLog struct {
	*natslog.Log
	open chan struct{}
	mu   sync.Mutex
	drop bool
}

func (l *gatedLog) AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (func() (uint64, error), error) {
	l.mu.Lock()
	drop := l.drop
	l.mu.Unlock()
	if drop {
		return func() (uint64, error) {
			<-l.open
			return 0, errors.New("gatedLog: the server died before it stored the record")
		}, nil
	}
	wait, err := l.Log.AppendAsync(ctx, subject, id, data, hash, expected, prevID)
	if err != nil {
		return nil, err
	}
	return func() (uint64, error) {
		<-l.open
		return wait()
	}, nil
}

func (l *gatedLog) setDrop(v bool) {
	l.mu.Lock()
	l.drop = v
	l.mu.Unlock()
}

// pipelinedNode is a service in the pipelined mode over a real embedded
// JetStream and a bbolt projection, its log gated, with the policy.
func pipelinedNode(t *testing.T) (*service.Service, *gatedLog) {
	t.Helper()
	return pipelinedNodeLogging(t, nil)
}

// pipelinedNodeLogging is pipelinedNode with the service's logger.
func pipelinedNodeLogging(t *testing.T, logger *slog.Logger) (*service.Service, *gatedLog) {
	t.Helper()
	dir := t.TempDir()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), SyncInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := natslog.ConnectEmbedded(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	inner, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := &gatedLog{Log: inner, open: make(chan struct{})}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store, Pipeline: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = svc.Flush(context.Background())
		store.Close()
		nc.Close()
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	if !svc.Pipelined() {
		t.Fatal("the service is not pipelined")
	}
	// The policy goes in as a single append, which the gate does not
	// hold (only AppendAsync's acknowledgements wait for it).
	if _, err := svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	return svc, log
}

func parsed(t *testing.T, raws [][]byte) []*events.Event {
	t.Helper()
	evs := make([]*events.Event, len(raws))
	for i, raw := range raws {
		ev, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		evs[i] = ev
	}
	return evs
}

// blockedQuery asks for key's tool set on another goroutine and waits
// until the query waits for the rounds in flight; the channel gets its
// answer.
func blockedQuery(t *testing.T, svc *service.Service, key events.SessionKey, waiting int) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, _, err := svc.Tools(context.Background(), key, projection.Position{})
		done <- err
	}()
	ledgertest.WaitFor(t, 10*time.Second, "the query waits for the rounds in flight", func() bool { return svc.WaitingForRounds() >= waiting })
	select {
	case err := <-done:
		t.Fatalf("the query answered (%v) while its records were not acknowledged", err)
	default:
	}
	return done
}

// TestOverlappedRoundsHideSpeculativeRecords: round 2 is decided on top of
// round 1's records before they are acknowledged (its turn needs round
// 1's session), and no query answers, nor does Position count them, until
// both rounds have ended.
func TestOverlappedRoundsHideSpeculativeRecords(t *testing.T) {
	svc, log := pipelinedNode(t)
	before := svc.Position()
	life := parsed(t, workload.Session(1))
	key := events.SessionKey("agent:main:w1")

	rs := service.NewRounds[int](svc)
	rs.Submit(t.Context(), life[:1], nil, 1)  // session.started
	rs.Submit(t.Context(), life[1:2], nil, 2) // turn.started: needs the session
	if got := svc.Position(); got != before {
		t.Fatalf("Position %d with two rounds in flight, want %d: it counts unacknowledged records", got, before)
	}
	q := blockedQuery(t, svc, key, 1)
	close(log.open)
	e1, _ := rs.Next(t.Context())
	e2, _ := rs.Next(t.Context())
	if e1.Tag != 1 || e2.Tag != 2 || e1.Err != nil || e2.Err != nil || len(e1.Redo) != 0 || len(e2.Redo) != 0 {
		t.Fatalf("rounds failed: %+v %+v", e1, e2)
	}
	if e1.Outs[0].Err != nil || e2.Outs[0].Err != nil || e2.Outs[0].Result.Seq != e1.Outs[0].Result.Seq+1 {
		t.Fatalf("outcomes %+v %+v: the turn was not decided on top of the start", e1.Outs, e2.Outs)
	}
	if err := <-q; err != nil {
		t.Fatalf("the query after the rounds ended: %v", err)
	}
	if got := svc.Position(); got != before+2 {
		t.Fatalf("Position %d, want %d", got, before+2)
	}
	sameAsRebuild(t, svc, log.Log)
}

// TestOverlappedRoundLostToAKilledServer: round 1's record never reaches
// the log (the server died before storing it) and round 2 was decided on
// top of it. A query asked meanwhile waits, and answers from the log
// without either record; both rounds' events come back to decide again,
// and do land then.
func TestOverlappedRoundLostToAKilledServer(t *testing.T) {
	svc, log := pipelinedNode(t)
	before := svc.Position()
	life := parsed(t, workload.Session(1))
	key := events.SessionKey("agent:main:w1")

	rs := service.NewRounds[int](svc)
	log.setDrop(true)
	rs.Submit(t.Context(), life[:1], nil, 1)
	log.setDrop(false)
	rs.Submit(t.Context(), life[1:2], nil, 2) // sent, expecting round 1's record
	q := blockedQuery(t, svc, key, 1)
	close(log.open)
	lostRoundsRedone(t, svc, log.Log, rs, q, before, life)
}

// lostRoundsRedone ends two rounds of rs whose records did not land (the
// second decided on the first's): both are to be decided again in full,
// the query q asked while they were in flight answers that the session
// does not exist, the log and the position are still at before, and
// life's first two events, decided again, land.
func lostRoundsRedone(t *testing.T, svc *service.Service, log service.Log, rs *service.Rounds[int], q <-chan error, before uint64, life []*events.Event) {
	t.Helper()
	e1, _ := rs.Next(t.Context())
	e2, _ := rs.Next(t.Context())
	if e1.Err != nil || e2.Err != nil {
		t.Fatalf("ending the rounds: %v %v", e1.Err, e2.Err)
	}
	if len(e1.Redo) != 1 || len(e2.Redo) != 1 {
		t.Fatalf("redo %v and %v: every event of both rounds is to be decided again", e1.Redo, e2.Redo)
	}
	if err := <-q; events.CodeOf(err) != events.CodeUnknownSession {
		t.Fatalf("the query answered %v: it saw a record that was lost", err)
	}
	if head, err := log.Head(t.Context()); err != nil || head != before || svc.Position() != before {
		t.Fatalf("log head %d (%v), position %d, want %d: nothing of either round landed", head, err, svc.Position(), before)
	}
	// The first round submitted after a failure is skipped: it may have
	// been put together before the events handed back could go in front.
	rs.Submit(t.Context(), life[:2], nil, 3)
	if e3, _ := rs.Next(t.Context()); !e3.Skipped || len(e3.Redo) != 2 || e3.Outs[0].Result.Seq != 0 {
		t.Fatalf("the round submitted after the failure: %+v, want it skipped", e3)
	}
	rs.Submit(t.Context(), life[:2], nil, 4)
	e3, _ := rs.Next(t.Context())
	if e3.Err != nil || len(e3.Redo) != 0 {
		t.Fatalf("deciding again: %v, redo %v", e3.Err, e3.Redo)
	}
	checkOutcomes(t, e3.Outs)
	sameAsRebuild(t, svc, log)
}

// proxy is a TCP proxy in front of a NATS server whose client-to-server
// bytes can be held (pause) and then thrown away with every connection
// (cut): what a server that is killed before it reads them loses.
type proxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	mu     sync.Mutex
	paused bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// retarget makes the connections from now on go to target.
func (p *proxy) retarget(target string) {
	p.mu.Lock()
	p.target = target
	p.mu.Unlock()
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		target := p.target
		p.mu.Unlock()
		s, err := net.DialTimeout("tcp", target, time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					p.mu.Lock()
					paused := p.paused
					p.mu.Unlock()
					if !paused {
						if _, err := s.Write(buf[:n]); err != nil {
							return
						}
					}
				}
				if err != nil {
					s.Close()
					return
				}
			}
		}()
	}
}

// pause holds (here: drops) what clients send from now on.
func (p *proxy) pause() {
	p.mu.Lock()
	p.paused = true
	p.mu.Unlock()
}

// cut closes every connection and forwards again for the next ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns, p.paused = nil, false
}

// serverAddr is the address ns accepts clients on (it bound a port of its
// own: Listen "127.0.0.1:-1").
func serverAddr(t *testing.T, ns *server.Server) string {
	t.Helper()
	addr := ns.Addr()
	if addr == nil {
		t.Fatal("the server accepts no clients over TCP")
	}
	return addr.String()
}

// TestOverlappedRoundsKilledServer kills the JetStream server between two
// overlapping rounds' publishes and their acknowledgements: the proxy in
// front of it holds what the ledger sends, so the killed server never read
// the rounds' records, and a new server starts on the same store. A query
// asked while the rounds were in flight waits, and answers from the log,
// which holds neither record; both rounds' events are decided again and
// land on the new server.
func TestOverlappedRoundsKilledServer(t *testing.T) {
	dir := t.TempDir()
	// Each server binds a port of its own (-1) and the proxy forwards to
	// the one that runs.
	ec := natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), SyncInterval: time.Minute, Listen: "127.0.0.1:-1"}
	ns, err := natslog.StartEmbedded(ec)
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, serverAddr(t, ns))
	nc, err := nats.Connect("nats://"+px.addr(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond), nats.ReconnectBufSize(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	log.Timeout = time.Second
	store, err := projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store, Pipeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	before := svc.Position()
	life := parsed(t, workload.Session(1))
	key := events.SessionKey("agent:main:w1")

	px.pause()
	rs := service.NewRounds[int](svc)
	rs.Submit(t.Context(), life[:1], nil, 1)
	rs.Submit(t.Context(), life[1:2], nil, 2)
	q := blockedQuery(t, svc, key, 1)
	ns.Shutdown()
	ns.WaitForShutdown()
	if ns, err = natslog.StartEmbedded(ec); err != nil {
		t.Fatal(err)
	}
	px.retarget(serverAddr(t, ns))
	px.cut()
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	// The roll-back reads the log: let the client reconnect first.
	ledgertest.WaitFor(t, 10*time.Second, "a reconnection to the new server", nc.IsConnected)

	lostRoundsRedone(t, svc, log, rs, q, before, life)
	if err := svc.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// caughtUp is a log handler that sends the position of every "caught up"
// the service logs.
type caughtUp chan uint64

func (c caughtUp) Enabled(context.Context, slog.Level) bool { return true }
func (c caughtUp) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c caughtUp) WithGroup(string) slog.Handler            { return c }
func (c caughtUp) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "caught up" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "position" {
			select {
			case c <- a.Value.Uint64():
			default:
			}
		}
		return true
	})
	return nil
}

// TestFollowerLetsRoundsOverlap: the follower (Run) reads the service's
// own records of a round still in flight from the log and passes them
// without waiting for the round to end, so the next round still begins on
// top of it. A follower that waited would hold every round back until the
// one before had ended.
func TestFollowerLetsRoundsOverlap(t *testing.T) {
	seen := make(caughtUp, 64)
	svc, log := pipelinedNodeLogging(t, slog.New(seen))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	waitSeen := func(want uint64, what string) bool {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case pos := <-seen:
				if pos >= want {
					return true
				}
			case <-deadline:
				t.Errorf("the follower never logged caught up at %d: %s", want, what)
				return false
			}
		}
	}
	rs := service.NewRounds[int](svc)
	rounds := 0 // submitted and not ended
	// However the test ends, the rounds end (Run's last commit waits for
	// them) and the follower stops.
	defer func() {
		select {
		case <-log.open:
		default:
			close(log.open)
		}
		for ; rounds > 0; rounds-- {
			_, _ = rs.Next(context.Background())
		}
		cancel()
		<-done
	}()
	if !waitSeen(svc.Position(), "following before any round") {
		return
	}
	life := parsed(t, workload.Session(1))
	want := svc.Position() + 1 // r1's record
	rs.Submit(t.Context(), life[:1], nil, 1)
	rounds++
	if !waitSeen(want, "it waited for the round to end before passing its record") {
		return
	}
	began := make(chan struct{})
	go func() { rs.Submit(context.Background(), life[1:2], nil, 2); close(began) }()
	select {
	case <-began:
		rounds++
	case <-time.After(10 * time.Second):
		t.Error("the second round did not begin on top of the first: something waits for it to end")
		close(log.open)
		<-began
		rounds++
		return
	}
	close(log.open)
	for ; rounds > 0; rounds-- {
		if e, _ := rs.Next(t.Context()); e.Err != nil || len(e.Redo) != 0 || e.Outs[0].Err != nil {
			rounds--
			t.Fatalf("ending a round: %+v", e)
		}
	}
}

// The pipelined and batched rounds on a real JetStream server (formerly pipeline_test.go).

func checkOutcomes(t *testing.T, outs []service.Outcome) {
	t.Helper()
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("event %d: %v", i, o.Err)
		}
		if i > 0 && o.Result.Seq != outs[i-1].Result.Seq+1 {
			t.Fatalf("event %d at %d after %d", i, o.Result.Seq, outs[i-1].Result.Seq)
		}
	}
}

// sameAsRebuild checks the live state equals a fold of the log.
func sameAsRebuild(t *testing.T, svc *service.Service, log service.Log) {
	t.Helper()
	recs, err := service.ReadRecords(t.Context(), log, 1, svc.Position())
	if err != nil {
		t.Fatal(err)
	}
	want, err := replay.Fold(dialects.All(), recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = svc.View(t.Context(), "", projection.Position{}, func(st *projection.State) error {
		if !bytes.Equal(ledgertest.Dump(t, st), ledgertest.Dump(t, want)) {
			t.Error("live state differs from a fold of the log")
		}
		return nil
	})
}

func TestAppendManyOnJetStream(t *testing.T) {
	n := startNode(t, t.TempDir())
	defer n.stop()
	evs := workload.Sessions(8)
	outs := n.svc.AppendMany(t.Context(), evs)
	checkOutcomes(t, outs)
	if head, _ := n.log.Head(t.Context()); head != uint64(len(evs)) {
		t.Fatalf("head %d, want %d", head, len(evs))
	}
	sameAsRebuild(t, n.svc, n.log)
	// Refusals inside a pipeline are answered and write nothing.
	outs = n.svc.AppendMany(t.Context(), [][]byte{evs[1], workload.Session(100)[0], evs[1]})
	if events.CodeOf(outs[0].Err) != events.CodeDuplicateSession || outs[1].Err != nil || events.CodeOf(outs[2].Err) != events.CodeDuplicateSession {
		t.Fatalf("outcomes %+v", outs)
	}
}

// interfering is a log on which another writer appends just before the
// pipeline's k-th publish.
type interfering struct {
	*service.MemLog
	k, calls int
	other    func()
}

func (l *interfering) AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (func() (uint64, error), error) {
	l.calls++
	if l.calls == l.k {
		l.other()
	}
	return l.MemLog.AppendAsync(ctx, subject, id, data, hash, expected, prevID)
}

func TestAppendManyConflictMidPipeline(t *testing.T) {
	mem := &service.MemLog{}
	log := &interfering{MemLog: mem, k: 5}
	a, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := service.Open(t.Context(), service.Config{Log: mem, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	evs := workload.Sessions(2)
	foreign := workload.Session(50)[0] // another root session, started by b
	log.other = func() {
		if _, err := b.Append(context.Background(), foreign); err != nil {
			t.Errorf("b: %v", err)
		}
	}
	outs := a.AppendMany(t.Context(), evs)
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("event %d: %v", i, o.Err)
		}
	}
	head, _ := mem.Head(t.Context())
	if head != uint64(len(evs))+1 {
		t.Fatalf("head %d, want %d: every event once and b's record", head, len(evs)+1)
	}
	if outs[3].Result.Seq != 4 || outs[4].Result.Seq != 6 {
		t.Fatalf("the events before the conflict keep their place and the rest follow b's record: %d, %d", outs[3].Result.Seq, outs[4].Result.Seq)
	}
	sameAsRebuild(t, a, mem)
}

// interferingBatch is a JetStream log on which another writer appends just
// before the k-th atomic batch (a streamed batch: after its first record
// was sent).
type interferingBatch struct {
	*natslog.Log
	k, calls int
	other    func()
}

func (l *interferingBatch) AppendBatch(ctx context.Context, msgs []events.Message, expected uint64) (uint64, error) {
	l.calls++
	if l.calls == l.k {
		l.other()
	}
	return l.Log.AppendBatch(ctx, msgs, expected)
}

// AppendBatchStream counts a batch when its first record is sent.
func (l *interferingBatch) AppendBatchStream(ctx context.Context, expected uint64, fill func(add func(events.Message)) error) (uint64, int, error) {
	return l.Log.AppendBatchStream(ctx, expected, func(add func(events.Message)) error {
		sent := false
		return fill(func(m events.Message) {
			add(m)
			if !sent {
				sent = true
				l.calls++
				if l.calls == l.k {
					l.other()
				}
			}
		})
	})
}

// classicBatch hides the log's streamed batches: a round goes out as
// AppendBatch, once decided.
type classicBatch struct{ *interferingBatch }

func (l classicBatch) AppendBatchStream() {}

// TestAtomicBatchConflict lets another writer land between a round's
// decisions and its batch's commit: the batch must not land, and the round
// is decided again after the other writer's record, streamed or not.
func TestAtomicBatchConflict(t *testing.T) {
	for _, streamed := range []bool{true, false} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) { testAtomicBatchConflict(t, streamed) })
	}
}

func testAtomicBatchConflict(t *testing.T, streamed bool) {
	n := startNode(t, t.TempDir())
	defer n.stop()
	log := &interferingBatch{Log: n.log, k: 1}
	var sl service.Log = log
	if !streamed {
		sl = classicBatch{log}
	}
	if _, ok := sl.(service.StreamBatchLog); ok != streamed {
		t.Fatalf("the log streams batches: %v", ok)
	}
	a, err := service.Open(t.Context(), service.Config{Log: sl, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	log.other = func() {
		if _, err := n.svc.Append(context.Background(), workload.Session(77)[0]); err != nil {
			t.Errorf("other writer: %v", err)
		}
	}
	evs := workload.Session(1)
	outs := a.AppendMany(t.Context(), evs)
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("event %d: %v", i, o.Err)
		}
	}
	head, _ := n.log.Head(t.Context())
	if head != uint64(2+len(evs)) || outs[0].Result.Seq != 3 {
		t.Fatalf("head %d, first at %d: want the batch after the other writer's record", head, outs[0].Result.Seq)
	}
	if log.calls < 2 {
		t.Fatalf("%d batches: the conflicted batch was not retried", log.calls)
	}
	sameAsRebuild(t, a, n.log)
}

// TestPipelinedWritersRaceOnJetStream runs two writers that pipeline their
// rounds (Config.Pipeline) on one standalone JetStream stream at once:
// every event lands exactly once, in an order both writers agree on, and
// each writer's state equals a fold of the log.
func TestPipelinedWritersRaceOnJetStream(t *testing.T) {
	n := startNode(t, t.TempDir())
	defer n.stop()
	if _, err := n.svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	writers := make([]*service.Service, 2)
	var conflicts atomic.Int64
	for i := range writers {
		svc, err := service.Open(t.Context(), service.Config{Log: n.log, Dialects: dialects.All(), Pipeline: true,
			OnConflict: func() { conflicts.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		writers[i] = svc
	}
	const rounds = 15
	total := 1
	errs := make(chan error, len(writers))
	for w, svc := range writers {
		var batches [][][]byte
		for r := 0; r < rounds; r++ {
			evs := workload.Session(1000*w + r)
			batches = append(batches, evs)
			total += len(evs)
		}
		go func() {
			for _, evs := range batches {
				for i, o := range svc.AppendMany(context.Background(), evs) {
					if o.Err != nil {
						errs <- fmt.Errorf("writer %d event %d: %w", w, i, o.Err)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	head, _ := n.log.Head(t.Context())
	if head != uint64(total) {
		t.Fatalf("head %d, want %d: every event exactly once", head, total)
	}
	t.Logf("%d conflicts between the writers", conflicts.Load())
	for _, svc := range writers {
		if err := svc.WaitApplied(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Append(t.Context(), workload.Session(5000)[0]); err != nil && events.CodeOf(err) != events.CodeDuplicateSession {
			t.Fatal(err) // catches the writer up to the head
		}
		sameAsRebuild(t, svc, n.log)
	}
}
