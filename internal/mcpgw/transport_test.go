package mcpgw

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// httpUpstream serves an SDK MCP server with one tool, hello, over
// streamable HTTP on addr (127.0.0.1), until the returned stop.
func httpUpstream(t *testing.T, addr string) (string, func()) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "http-upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello over http"}}}, nil
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	stop := func() { srv.Close() }
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// TestHTTPUpstreamFailureIsReported: a streamable-HTTP upstream that goes
// away makes its calls fail with a tool error naming it, the gateway
// keeps serving, and once the server is back the next call reaches it.
func TestHTTPUpstreamFailureIsReported(t *testing.T) {
	f := start(t)
	addr, stop := httpUpstream(t, "127.0.0.1:0")
	f.webGateway(t, addr)
	cs := f.dial(t, f.key)
	if got := listed(t, cs); !slices.Equal(got, []string{"web__hello"}) {
		t.Fatalf("tools/list = %v", got)
	}
	res, err := call(t, cs, "web__hello", nil)
	if err != nil || res.IsError || resultText(res) != "hello over http" {
		t.Fatalf("hello = %v, %v", res, err)
	}
	stop()
	res, err = call(t, cs, "web__hello", nil)
	if err != nil {
		t.Fatalf("hello with the upstream down: %v", err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "upstream server web") {
		t.Fatalf("hello with the upstream down = %v %q", res.IsError, resultText(res))
	}
	if got := listed(t, cs); !slices.Equal(got, []string{"web__hello"}) {
		t.Fatalf("tools/list with the upstream down = %v (the last known list is kept)", got)
	}
	httpUpstream(t, addr)
	ledgertest.WaitFor(t, 15*time.Second, "a call of web__hello that succeeds once the upstream is back", func() bool {
		res, err = call(t, cs, "web__hello", nil)
		if err != nil {
			t.Fatal(err)
		}
		return !res.IsError
	})
	if resultText(res) != "hello over http" {
		t.Fatalf("hello after the restart = %q", resultText(res))
	}
}

// TestServeStdio: the stdio gateway ('ledger mcp --session KEY') serves
// one client on a pipe pair as that ledger session.
func TestServeStdio(t *testing.T) {
	f := start(t)
	cr, gw := io.Pipe()
	gr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.gw.ServeStdio(ctx, f.key, gr, gw) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "1"}, nil)
	cctx, ccancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer ccancel()
	cs, err := c.Connect(cctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := listed(t, cs)
	if want := ledgerListed(t, f); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("tools/list over stdio = %v, want %v", got, want)
	}
	res, err := call(t, cs, "t__echo", map[string]any{"text": "pipe"})
	if err != nil || resultText(res) != "echo: pipe" {
		t.Fatalf("echo over stdio = %v, %v", res, err)
	}
	cs.Close()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not end when its client and context did")
	}
	if err := f.gw.ServeStdio(t.Context(), "", gr, gw); err == nil {
		t.Fatal("ServeStdio took an empty session key")
	}
}

// TestSessionFromInitialize: with session.from "initialize" a new MCP
// session names its ledger session in its initialize request's _meta
// (SessionMeta); one that names none is refused.
func TestSessionFromInitialize(t *testing.T) {
	f := start(t)
	f.gateway(t, testUpstream(t, `, "session": {"from": "initialize"}`), Options{})
	addr := ledgertest.ServeHTTP(t, f.gw.Handler(""))
	connect := func(key string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "init-client", Version: "1"}, nil)
		if key != "" {
			c.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if p, ok := req.GetParams().(*mcp.InitializeParams); ok {
						p.SetMeta(map[string]any{SessionMeta: key})
					}
					return next(ctx, method, req)
				}
			})
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}
	cs, err := connect(string(f.key))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, want := listed(t, cs), ledgerListed(t, f); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	if cs, err := connect(""); err == nil {
		cs.Close()
		t.Fatal("a session naming no ledger session was served")
	} else if !strings.Contains(err.Error(), "Bad Request") {
		t.Fatalf("a session naming no ledger session: %v, want a 400", err)
	}
}

// TestIdleSessionsAreForgotten: a ledger session whose clients are all
// gone is forgotten after IdleTimeout (its watch ends), one with a client
// is kept, and a client that comes back joins it again, list_changed
// included.
func TestIdleSessionsAreForgotten(t *testing.T) {
	f := start(t)
	f.gateway(t, testUpstream(t, ""), Options{IdleTimeout: 300 * time.Millisecond})
	cs := f.dial(t, f.key)
	for range 15 {
		listed(t, cs)
		// Not a wait for an event: 15 x 60 ms is three IdleTimeouts of
		// a session with a client, the time that must not forget it.
		time.Sleep(60 * time.Millisecond)
	}
	if f.gw.session(f.key) == nil {
		t.Fatal("a session with a client was forgotten")
	}
	cs.Close()
	ledgertest.WaitFor(t, 10*time.Second, "a session with no client forgotten", func() bool { return f.gw.session(f.key) == nil })
	cs = f.dial(t, f.key)
	if got := listed(t, cs); !slices.Contains(got, "t__echo") {
		t.Fatalf("tools/list after coming back = %v", got)
	}
	before := f.changed.Load()
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: policyDoc("mcp__t__echo")})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 2)
	ledgertest.WaitFor(t, 10*time.Second, "a list_changed after coming back", func() bool { return f.changed.Load() != before })
	if got := listed(t, cs); slices.Contains(got, "t__echo") {
		t.Fatalf("tools/list after the revocation = %v", got)
	}
}

// TestUnlistedUpstreamIsListedWhenBack: an HTTP upstream that is down
// when the gateway first lists the session's tools contributes none, and
// a later tools/list at the same head, with the same tool set, lists it
// once it answers: a list that left an upstream out is not taken as the
// session's registered tools (session.apply registers again only after
// a complete one).
func TestUnlistedUpstreamIsListedWhenBack(t *testing.T) {
	f := start(t)
	addr, stop := httpUpstream(t, "127.0.0.1:0")
	stop()
	f.webGateway(t, addr)
	cs := f.dial(t, f.key)
	if got := listed(t, cs); len(got) != 0 {
		t.Fatalf("tools/list with the upstream down = %v, want none", got)
	}
	httpUpstream(t, addr)
	ledgertest.WaitFor(t, 15*time.Second, "tools/list = [web__hello] once the upstream is back", func() bool {
		return slices.Equal(listed(t, cs), []string{"web__hello"})
	})
}

// TestHTTPUpstreamConnectionsAreReused: calls running at once through
// the gateway to an HTTP upstream keep their connections open for the
// next ones (upstreamHTTP): 8 rounds of 16 calls, which the upstream holds
// until all 16 of a round are in flight, open at most one connection to
// the upstream for every two calls. (With http.DefaultTransport's 2 idle
// connections a host, every round closed all but two and dialled again.)
func TestHTTPUpstreamConnectionsAreReused(t *testing.T) {
	const concurrent, rounds = 16, 8
	f := start(t)
	var mu sync.Mutex
	arrived, all := 0, make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "http-upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		if arrived++; arrived == concurrent {
			close(all)
		}
		ch := all
		mu.Unlock()
		select { // bounded: a round that never fills answers anyway
		case <-ch:
		case <-time.After(10 * time.Second):
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello over http"}}}, nil
	})
	var conns, closed atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				conns.Add(1)
			case http.StateClosed:
				closed.Add(1)
			}
		}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	f.webGateway(t, ln.Addr().String())
	cs := f.dial(t, f.key)
	for range rounds {
		mu.Lock()
		arrived, all = 0, make(chan struct{})
		mu.Unlock()
		var wg sync.WaitGroup
		errs := make(chan error, concurrent)
		for range concurrent {
			wg.Go(func() {
				res, err := call(t, cs, "web__hello", nil)
				if err == nil && (res.IsError || resultText(res) != "hello over http") {
					err = fmt.Errorf("hello = %q", resultText(res))
				}
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	// The pool keeps the connections for the next round, so a round
	// dials few; without it every round dialled all but two again (116
	// opened in a run, 113 of them closed). With it some are still
	// closed and dialled again under -race (6 to 23 closed, 23 to 37
	// opened in runs; why was not looked into); a bound of one
	// connection for every two calls keeps the two apart.
	n, c := conns.Load(), closed.Load()
	t.Logf("%d rounds of %d concurrent calls: %d connections to the upstream opened, %d closed", rounds, concurrent, n, c)
	if limit := int32(rounds * concurrent / 2); n > limit {
		t.Fatalf("%d rounds of %d concurrent calls opened %d connections to the upstream (%d closed); want at most %d", rounds, concurrent, n, c, limit)
	}
}

// webGateway allows the HTTP upstream "web" at addr (its tool hello) by a
// claude-code policy, starts turn 2 and runs the gateway in front of it.
func (f *fixture) webGateway(t *testing.T, addr string) {
	t.Helper()
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code",
		Document: json.RawMessage(`{"permissions": {"allow": ["mcp__web"]}}`), Catalogue: []string{"mcp__web__hello"}})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 2)
	f.gateway(t, fmt.Appendf(nil, `{"servers": {"web": {"url": "http://%s/mcp"}}}`, addr), Options{})
}

// TestUpstreamsAreOpenedAtStart: New opens every upstream in the
// background (upstream.open), so a client's first call finds its session
// open; one that cannot be opened then (an HTTP upstream that is down) is
// left with no backoff and no error, and is reached on first use once it
// answers.
func TestUpstreamsAreOpenedAtStart(t *testing.T) {
	f := start(t)
	f.gateway(t, testUpstream(t, ""), Options{})
	u := f.gw.ups["t"]
	deadline := time.Now().Add(20 * time.Second)
	for {
		u.mu.Lock()
		open := u.sess != nil
		u.mu.Unlock()
		if open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stdio upstream was not opened within 20s of New, with no client")
		}
		time.Sleep(10 * time.Millisecond)
	}

	addr, stop := httpUpstream(t, "127.0.0.1:0")
	stop()
	f.webGateway(t, addr)
	w := f.gw.ups["web"]
	time.Sleep(300 * time.Millisecond) // the open fails meanwhile
	w.mu.Lock()
	sess, notBefore, lastErr := w.sess, w.notBefore, w.lastErr
	w.mu.Unlock()
	if sess != nil || !notBefore.IsZero() || lastErr != nil {
		t.Fatalf("an upstream down at New: session %v, next restart %v, error %v; want none of them", sess, notBefore, lastErr)
	}
	httpUpstream(t, addr)
	cs := f.dial(t, f.key)
	res, err := call(t, cs, "web__hello", nil)
	if err != nil || res.IsError || resultText(res) != "hello over http" {
		t.Fatalf("first call once the upstream answers = %v, %v", res, err)
	}
}
