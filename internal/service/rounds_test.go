package service_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
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

func (l *gatedLog) AppendAsync(ctx context.Context, subject, id string, data []byte, expected uint64, prevID string) (func() (uint64, error), error) {
	l.mu.Lock()
	drop := l.drop
	l.mu.Unlock()
	if drop {
		return func() (uint64, error) {
			<-l.open
			return 0, errors.New("gatedLog: the server died before it stored the record")
		}, nil
	}
	wait, err := l.Log.AppendAsync(ctx, subject, id, data, expected, prevID)
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
