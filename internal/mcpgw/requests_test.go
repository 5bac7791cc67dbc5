package mcpgw

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// ledgerRequests counts the requests sent to the ledger's API, by
// endpoint, through a plain synchronous subscription beside the API's own
// (it sees every request and answers none).
type ledgerRequests struct {
	nc  *nats.Conn
	sub *nats.Subscription
}

func countLedgerRequests(t *testing.T, nc *nats.Conn) *ledgerRequests {
	t.Helper()
	sub, err := nc.SubscribeSync(wire.Prefix + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &ledgerRequests{nc: nc, sub: sub}
}

// take returns the requests sent since the last take, by endpoint. Every
// request sent before take was called has been routed to the subscription
// before the server answers take's flush, and a synchronous
// subscription's messages are queued as they are read.
func (c *ledgerRequests) take(t *testing.T) map[string]int {
	t.Helper()
	if err := c.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for {
		m, err := c.sub.NextMsg(10 * time.Millisecond)
		if err != nil {
			return n
		}
		endpoint, _, _ := strings.Cut(strings.TrimPrefix(m.Subject, wire.Prefix+"."), ".")
		n[endpoint]++
	}
}

// TestOneLedgerRequestPerCall: an allowed tools/call through the gateway
// costs the ledger exactly one request, the recorded check that starts it
// (check with record and effect): no tool-set read, no session view, no
// why, no separate effect append, and the session's watch is not woken by
// the call's own record (it waits for the ledger's MaxWait, 3 s here,
// under the client's 5 s request timeout). The 64-session bench row counts the watches under load
// ('ledger bench --only mcp').
func TestOneLedgerRequestPerCall(t *testing.T) {
	f := startWith(t, apitest.Options{API: api.Config{MaxWait: 3 * time.Second}})
	reqs := countLedgerRequests(t, f.l.Connect())
	// The first call joins the session (its views, its watch).
	if res, err := call(t, f.cs, "t__echo", map[string]any{"text": "warm"}); err != nil || res.IsError {
		t.Fatalf("warm-up call: %v %v", resultText(res), err)
	}
	reqs.take(t)
	const calls = 20
	for i := 0; i < calls; i++ {
		res, err := call(t, f.cs, "t__echo", map[string]any{"text": "x"})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %v", i, resultText(res), err)
		}
	}
	got := reqs.take(t)
	// The watch's long poll may end (MaxWait) once or twice meanwhile; a
	// watch woken by every call's record would ask about once a call.
	watches := got[wire.EndpointWatch]
	delete(got, wire.EndpointWatch)
	if want := (map[string]int{wire.EndpointCheck: calls}); !maps.Equal(got, want) || watches > 2 {
		t.Errorf("ledger requests during %d calls: %v and %d watch requests, want %v and at most 2 (one recorded check a call, nothing else)", calls, got, watches, want)
	}
}
