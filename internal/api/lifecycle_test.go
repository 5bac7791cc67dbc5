package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/wire"
)

// apiGoroutines lists the goroutines running in the api package's
// Server or lanes code.
func apiGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "internal/api.(*Server).") || strings.Contains(g, "internal/api.(*lanes).serve") {
			out = append(out, g)
		}
	}
	return out
}

// TestStopWaitsForItsGoroutines: with Start's context still alive, Stop
// returns only once the batcher, the workers and the queries and watches
// waiting for a sequence have ended, and does not wait out their MaxWait.
func TestStopWaitsForItsGoroutines(t *testing.T) {
	const workers, maxWait = 3, 30 * time.Second
	l := apitest.Start(t, apitest.Options{API: api.Config{Workers: workers, MaxWait: maxWait}})
	srv := l.API
	if n := api.Running(srv); n != workers+2 {
		t.Fatalf("%d goroutines after Start, want %d: the workers, the batcher and the lanes' stopper", n, workers+2)
	}
	nc := l.Connect()
	// A query and a watch that wait for a sequence the ledger never
	// reaches; their answers are not waited for.
	q, _ := json.Marshal(wire.Query{Session: "agent:main:main", MinSeq: 1 << 40})
	w, _ := json.Marshal(wire.WatchQuery{All: true, From: 1, Wait: true})
	for subj, body := range map[string][]byte{wire.Subject(wire.EndpointTools, wire.ScopeAll): q, wire.Subject(wire.EndpointWatch, wire.ScopeAll): w} {
		if err := nc.PublishRequest(subj, nats.NewInbox(), body); err != nil {
			t.Fatal(err)
		}
	}
	ledgertest.WaitFor(t, 10*time.Second, fmt.Sprintf("%d goroutines with a query and a watch waiting", workers+4),
		func() bool { return api.Running(srv) >= workers+4 })
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(maxWait / 2):
		t.Fatalf("Stop has not returned after %v: it waits out the waiting queries, or for a goroutine that does not end:\n%s", maxWait/2, strings.Join(apiGoroutines(), "\n\n"))
	}
	if n := api.Running(srv); n != 0 {
		t.Errorf("%d goroutines of the server run after Stop", n)
	}
	if gs := apiGoroutines(); len(gs) > 0 {
		t.Errorf("after Stop, %d goroutines run api code:\n%s", len(gs), strings.Join(gs, "\n\n"))
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

// TestFailedStartLeavesNothing: a Start that fails after registering the
// micro service (an endpoint cannot be added) leaves no service
// registered, no subscription on its connection and the connection's
// error handler as it was.
func TestFailedStartLeavesNothing(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	nc := l.Connect()
	var handled atomic.Int64
	nc.SetErrorHandler(func(*nats.Conn, *nats.Subscription, error) { handled.Add(1) })
	boom := errors.New("boom")
	defer api.FailEndpoint(wire.EndpointWatch, boom)()
	srv, err := api.Start(context.Background(), nc, api.Config{Service: l.Service, Instance: "failed"})
	if !errors.Is(err, boom) || srv != nil {
		t.Fatalf("Start: %v %v, want the endpoint's error", srv, err)
	}
	ledgertest.WaitFor(t, 5*time.Second, "no subscription left on the connection", func() bool { return nc.NumSubscriptions() == 0 })
	nc.ErrorHandler()(nc, nil, boom)
	if handled.Load() != 1 {
		t.Error("the connection's error handler was not put back")
	}
	// The only ledger service that answers a ping is the one apitest runs.
	inbox := nats.NewInbox()
	ids := make(chan string, 16)
	sub, err := nc.Subscribe(inbox, func(m *nats.Msg) {
		var p micro.Ping
		_ = json.Unmarshal(m.Data, &p)
		ids <- p.ID
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest("$SRV.PING."+wire.ServiceName, inbox, nil); err != nil {
		t.Fatal(err)
	}
	want := l.API.Info().ID
	// Not a wait for an event: nothing marks the last answer to a
	// broadcast ping, so a second service gets 500 ms to answer.
	timeout := time.After(500 * time.Millisecond)
	for got := 0; ; {
		select {
		case id := <-ids:
			got++
			if id != want {
				t.Errorf("service %s answers a ping after its Start failed", id)
			}
		case <-timeout:
			if got != 1 {
				t.Errorf("%d services answered a ping, want 1", got)
			}
			return
		}
	}
}
