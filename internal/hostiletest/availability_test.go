package hostiletest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/natslog"
)

// The availability cases (issue 15): one orchestrator's waiting queries or
// flood of bad appends must not keep another's requests from an answer.
// They run in-process whatever the race detector says, since they inject
// the API's logger and configuration.

// availLedger is an in-process ledger with the API configured by cfg and a
// second connection per extra client.
type availLedger struct {
	*apiLedger
	// connect opens another client connection.
	connect func(t *testing.T, name string) *nats.Conn
}

func startAvailability(t *testing.T, cfg api.Config) *availLedger {
	t.Helper()
	base, ns := startInProcessWith(t, cfg, "acme")
	connect := func(t *testing.T, name string) *nats.Conn {
		t.Helper()
		nc, err := natslog.ConnectEmbedded(ns, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	l := &availLedger{apiLedger: base, connect: connect}
	// A policy and acme's session, which acme's requests use.
	for _, line := range []string{
		ev(id(1), "policy.set", "", ops, `{"dialect":"openclaw","document":`+ocDoc1+`,"catalogue":`+ocCatalogue+`}`),
		ev(id(2), "session.started", ocMain, acme, `{"agent":"main"}`),
	} {
		if r := l.request(t, subjectFor(line, acme), []byte(line)); r.code != "" {
			t.Fatalf("setup: %s: %s", r.code, r.message)
		}
	}
	return l
}

// collect subscribes to a fresh inbox on nc and returns it with a channel
// of every answer that comes to it (no pending limit: the test, not the
// client library, must see every answer).
func collect(t *testing.T, nc *nats.Conn) (string, chan *nats.Msg) {
	t.Helper()
	inbox := nc.NewRespInbox()
	ch := make(chan *nats.Msg, 1<<16)
	sub, err := nc.Subscribe(inbox, func(m *nats.Msg) { ch <- m })
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return inbox, ch
}

// TestWaitingQueriesHoldNoEndpoint: 20 queries of globex for a sequence the
// ledger never reaches wait (up to MaxWait) without holding the tools
// endpoint: acme's tools query, sent after them, is answered while they
// all still wait. Beyond the per-owner bound globex's excess is answered at
// once with not_caught_up. Before: acme's answer came after every one of
// globex's waits ended, one after the other (issue 15: 40 s).
func TestWaitingQueriesHoldNoEndpoint(t *testing.T) {
	t.Parallel()
	// MaxWait is long enough that no wait can end while the test runs (the
	// waits end at the cleanup); acme's request is bounded by reqTimeout.
	l := startAvailability(t, api.Config{MaxWait: time.Minute})
	gnc := l.connect(t, "globex")
	inbox, answers := collect(t, gnc)
	const waiting = 20
	for range waiting {
		if err := gnc.PublishRequest("ledger.v1.tools.globex", inbox, []byte(`{"session":"agent:main:globex","min_seq":1000000}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := gnc.Flush(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := l.request(t, "ledger.v1.tools.acme", []byte(`{"session":"agent:main:main"}`))
	took := time.Since(start)
	if r.code != "" {
		t.Fatalf("acme's tools: %s: %s", r.code, r.message)
	}
	// Every answer globex has had by now is a refusal at once (over the
	// bound), none the end of a wait.
	refused := 0
	for {
		select {
		case m := <-answers:
			g := decodeReply(t, m)
			if g.code != events.CodeNotCaughtUp || !strings.Contains(g.message, "waiting") {
				t.Fatalf("globex's query was answered before acme's ended its wait: %s %q", g.code, g.message)
			}
			refused++
			continue
		default:
		}
		break
	}
	t.Logf("acme answered in %v while globex's queries waited (%d of %d refused at once over the bound)", took, refused, waiting)
	if refused == waiting {
		t.Fatalf("all %d of globex's waiting queries were refused; the bound should let some wait", waiting)
	}
}

// countingHandler counts the log records the API writes.
type countingHandler struct {
	n   atomic.Int64
	mu  sync.Mutex
	msg map[string]int
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.n.Add(1)
	h.mu.Lock()
	h.msg[r.Message]++
	h.mu.Unlock()
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// TestFloodDropsNoOtherRequest: globex sends 20,000 invalid appends as fast
// as it can from 8 goroutines; acme's appends and queries sent meanwhile
// are all answered (none dropped, none timed out), every one of globex's
// gets an answer too (its refusal, or not_caught_up once its lane is full:
// shed, not dropped), and the API writes a bounded number of log lines.
// Before: about half of the flood was dropped unanswered by the append
// subscription (a drop takes whatever request comes next, whoever sent
// it), and nats.go printed a line on stderr for each drop.
func TestFloodDropsNoOtherRequest(t *testing.T) {
	t.Parallel()
	logs := &countingHandler{msg: map[string]int{}}
	l := startAvailability(t, api.Config{Logger: slog.New(logs)})
	gnc := l.connect(t, "globex")
	inbox, answers := collect(t, gnc)
	// Each flood append is a valid JSON event of 8 KiB the ledger must
	// parse in full to refuse (an unknown type): 160 MB in all, more than
	// a subscription's default pending limit (64 MB) holds.
	pad := strings.Repeat("x", 8192)
	bad := []byte(ev("", "session.flooded", "agent:main:flood", globex, `{"pad":"`+pad+`"}`))
	const flood, senders = 20000, 8
	var wg sync.WaitGroup
	floodStart := time.Now()
	quarter := make(chan struct{})
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range flood / senders {
				_ = gnc.PublishRequest(fmt.Sprintf("ledger.v1.append.%s", globex), inbox, bad)
				if s == 0 && i == flood/senders/4 {
					close(quarter)
				}
			}
		}()
	}
	// acme meanwhile, from a quarter into the flood: 50 appends (each a
	// new session) from 10 goroutines and 50 queries from one, each sent
	// as the one before it is answered.
	<-quarter
	const acmeN = 50
	var (
		mu      sync.Mutex
		acmeErr []string
		acmeOK  int
		awg     sync.WaitGroup
	)
	ask := func(subj, body string) {
		msg, err := l.nc.Request(subj, []byte(body), reqTimeout)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			acmeErr = append(acmeErr, fmt.Sprintf("%s: %v", subj, err))
			return
		}
		if r := decodeReply(t, msg); r.code != "" {
			acmeErr = append(acmeErr, fmt.Sprintf("%s: %s %s", subj, r.code, r.message))
			return
		}
		acmeOK++
	}
	const acmeWriters = 10
	awg.Add(acmeWriters + 1)
	for w := range acmeWriters {
		go func() {
			defer awg.Done()
			for i := range acmeN / acmeWriters {
				ask("ledger.v1.append.acme", ev("", "session.started", fmt.Sprintf("agent:main:acme%d-%d", w, i), acme, `{"agent":"main"}`))
			}
		}()
	}
	go func() {
		defer awg.Done()
		for range acmeN {
			ask("ledger.v1.tools.acme", `{"session":"agent:main:main"}`)
		}
	}()
	wg.Wait()
	if err := gnc.Flush(); err != nil {
		t.Fatal(err)
	}
	// Every flood append is answered: count them, bounded by a deadline
	// that only keeps a lost answer from hanging the test.
	codes := map[events.Code]int{}
	deadline := time.After(30 * time.Second)
	for got := 0; got < flood; got++ {
		select {
		case m := <-answers:
			codes[decodeReply(t, m).code]++
		case <-deadline:
			t.Errorf("globex had %d answers of %d (%v); the rest were dropped", got, flood, codes)
			got = flood
		}
	}
	awg.Wait()
	took := time.Since(floodStart)
	lines := logs.n.Load()
	logs.mu.Lock()
	t.Logf("flood of %d in %v: globex's answers %v; acme's %d requests: %d answered, %d failed; %d log lines %v", flood, took, codes, 2*acmeN, acmeOK, len(acmeErr), lines, logs.msg)
	logs.mu.Unlock()
	if len(acmeErr) > 0 {
		t.Errorf("acme's requests during the flood were not all answered: %d failed, first: %s", len(acmeErr), acmeErr[0])
	}
	// One line per cause per second at most: a few causes over the
	// flood's seconds.
	if lines > 100 {
		t.Errorf("the API wrote %d log lines during the flood; want them rate-limited", lines)
	}
}
