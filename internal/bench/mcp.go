package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/mcpgw"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// The upstream the mcp section measures: server "echo" with one tool,
// "echo", which the gateway exposes as "echo__echo" and the ledger
// (claude-code dialect) knows as "mcp__echo__echo".
const (
	mcpServer     = "echo"
	mcpTool       = "echo"
	mcpExposed    = mcpServer + "__" + mcpTool
	mcpLedgerName = "mcp__" + mcpServer + "__" + mcpTool
	// mcpOwner is the gateway's orchestrator (the Owner of its client).
	mcpOwner = "mcp-bench"
	// mcpSessions is how many client sessions the throughput rows run at
	// once.
	mcpSessions = 64
)

// mcpBench measures 'ledger mcp' (internal/mcpgw) against the same MCP
// requests sent straight to the upstream server. The upstream is a Go SDK
// MCP server in this process with one trivial tool (echo) served over
// streamable HTTP on loopback; the Go SDK client reaches it the same way
// directly, and reaches the gateway (mcpgw.Gateway.Handler on its own
// loopback HTTP server) the same way too, the gateway being configured
// with the upstream's URL as `ledger mcp --config` would be. The gateway
// talks to the bench's embedded ledger over NATS on loopback TCP, as a
// `ledger mcp` process does to `ledger serve`, under group sync (serve's
// default): every call through it is one record, the check that
// starts it (tool.checked with effect: true), durable before it is
// forwarded. Gateway and direct requests alternate one by
// one (the throughput rounds alternate), so drift cancels. One more row
// runs the calls against a ledger that fsyncs every second.
//
// The goroutines of each part carry a pprof label "mcp" (client-direct,
// client-gateway, upstream, gateway, ledger), by which a --cpuprofile can
// be read (`go tool pprof -tagfocus mcp=gateway`); the embedded NATS
// server's own goroutines carry its labels instead.
func mcpBench(ctx context.Context, cfg *Config, rep *Report) error {
	calls, lists, perSession, rounds := 2000, 2000, 30, 3
	if cfg.Quick {
		calls, lists, perSession, rounds = 200, 200, 4, 2
	}
	d := dir(cfg, "mcp")
	up, err := startEchoUpstream()
	if err != nil {
		return err
	}
	defer up.close()
	g, err := startMCPGateway(ctx, natslog.EmbeddedConfig{Dir: filepath.Join(d, "fsync", "nats"), Listen: "127.0.0.1:-1"}, filepath.Join(d, "fsync"), up.url, mcpSessions)
	if err != nil {
		return err
	}
	defer g.close()
	direct, err := dialMCP(ctx, up.url, "", "direct")
	if err != nil {
		return fmt.Errorf("the upstream: %w", err)
	}
	defer direct.Close()
	via, err := dialMCP(ctx, g.url, mcpKey(0), "gateway")
	if err != nil {
		return fmt.Errorf("the gateway: %w", err)
	}
	defer via.Close()

	px, err := startProxy(ctx, up.url)
	if err != nil {
		return err
	}
	defer px.close()
	pub, err := newRawPublisher(ctx, g)
	if err != nil {
		return err
	}
	defer pub.close()

	cfg.logf("bench: mcp: %d calls and %d lists each way, %d client sessions × %d calls × %d rounds each way", calls, lists, mcpSessions, perSession, rounds)
	g.steps.reset()
	cr, err := mcpCallFloorRuns(ctx, via, px.via, direct, pub, calls)
	if err != nil {
		return err
	}
	// Before quantile sorts them: the proxy's call and the publish of
	// each iteration, summed.
	paired := cr.paired()
	floor50 := quantile(cr.proxy, 0.5) + quantile(cr.publish, 0.5)
	floor99 := quantile(cr.proxy, 0.99) + quantile(cr.publish, 0.99)
	row := ratioRow("mcp", "tools/call through the gateway (check, record, forward): p50", quantile(cr.via, 0.5), floor50, "µs", "≤ 1.3x bare SDK proxy + one raw durable publish", func(r float64) bool { return r <= 1.3 })
	row.Note = fmt.Sprintf("raw = the floor, composed in this run: the bare SDK proxy's p50 %.0f µs + one raw durable JetStream publish's p50 %.0f µs (a %d-byte call record, over the gateway's kind of connection, to a server that fsyncs every write; the ledger's own runs under group sync); the four kinds interleaved; straight to the upstream %.0f µs. Go SDK client, loopback streamable HTTP", quantile(cr.proxy, 0.5), quantile(cr.publish, 0.5), len(pub.body), quantile(cr.direct, 0.5))
	rep.add(row)
	row = ratioRow("mcp", "tools/call through the gateway (check, record, forward): p99", quantile(cr.via, 0.99), floor99, "µs", "", nil)
	row.Note = "raw = the bare proxy's p99 + the raw durable publish's p99"
	rep.add(row)
	row = ratioRow("mcp", "tools/call through the gateway, against the paired floor: p50", quantile(cr.via, 0.5), quantile(paired, 0.5), "µs", "", nil)
	row.Note = "raw = the p50 of the floor summed per iteration (the proxy's call plus the raw publish of the same iteration), not the sum of the two p50s: a call's time is a sum, and the p50 of a sum of right-skewed times is above the sum of their p50s"
	rep.add(row)
	row = ratioRow("mcp", "tools/call through the gateway, against straight to the upstream: p50", quantile(cr.via, 0.5), quantile(cr.direct, 0.5), "µs", "", nil)
	row.Note = "the comparison of the earlier runs (docs/bench.md)"
	rep.add(row)
	row = ratioRow("mcp", "tools/call through a bare MCP proxy (no ledger): p50", quantile(cr.proxy, 0.5), quantile(cr.direct, 0.5), "µs", "", nil)
	row.Note = "raw = straight to the upstream; the bare proxy is an SDK server on loopback HTTP that forwards the call over one SDK client session, nothing checked or recorded"
	rep.add(row)
	row = absRow("mcp", "raw durable JetStream publish of a call record: p50", quantile(cr.publish, 0.5), "µs", "", nil)
	row.Note = fmt.Sprintf("p99 %.0f µs; jetstream.Publish with a message id, acknowledged, to a file stream on an embedded server of its own that fsyncs every write (the ledger's runs under group sync, as serve's does), over TCP loopback as the gateway reaches the ledger", quantile(cr.publish, 0.99))
	rep.add(row)
	g.steps.rows(rep, "", true)

	lvia, err := dialMCP(ctx, g.localURL, mcpLocalKey(0), "gateway-local")
	if err != nil {
		return fmt.Errorf("the gateway in the ledger's process: %w", err)
	}
	defer lvia.Close()
	g.localSteps.reset()
	lr, err := mcpLocalCallRuns(ctx, lvia, px, up.url, g.n, pub.body, calls)
	if err != nil {
		return err
	}
	lpaired := lr.paired()
	lfloor := quantile(lr.proxy, 0.5) + quantile(lr.publish, 0.5)
	row = ratioRow("mcp", "tools/call through the gateway in the ledger's process (serve --mcp): p50", quantile(lr.via, 0.5), lfloor, "µs", "≤ 1.3x bare SDK proxy + one raw durable publish", func(r float64) bool { return r <= 1.3 })
	row.Note = fmt.Sprintf("raw = the floor, composed in this phase: the bare SDK proxy's p50 %.0f µs + one raw durable JetStream publish's p50 %.0f µs on an in-process connection, as the ledger's to its server, to a server that fsyncs every write (the ledger's runs under group sync, as serve's does); the gateway asks the API in its process (api.Server.RequestWithContext), no NATS hop; the four kinds (with the bare proxy that publishes, below) through their 24 orders", quantile(lr.proxy, 0.5), quantile(lr.publish, 0.5))
	rep.add(row)
	row = ratioRow("mcp", "tools/call through the gateway in the ledger's process (serve --mcp), against the paired floor: p50", quantile(lr.via, 0.5), quantile(lpaired, 0.5), "µs", "", nil)
	row.Note = "raw = the p50 of the floor summed per iteration, as for the gateway over NATS"
	rep.add(row)
	rep.add(ratioRow("mcp", "tools/call through the gateway in the ledger's process (serve --mcp): p99", quantile(lr.via, 0.99), quantile(lr.proxy, 0.99)+quantile(lr.publish, 0.99), "µs", "", nil))
	row = ratioRow("mcp", "tools/call through the gateway in the ledger's process (serve --mcp), against the bare proxy that publishes before it forwards: p50", quantile(lr.via, 0.5), quantile(lr.inline, 0.5), "µs", "", nil)
	row.Note = fmt.Sprintf("raw = the bare proxy making the floor's raw durable publish inside the call, before it forwards (p50 %.0f µs against the floor's sum %.0f µs): no target's floor, it shows what waiting for the publish in the middle of one call costs beyond its two parts measured apart; the four kinds through their 24 orders", quantile(lr.inline, 0.5), lfloor)
	rep.add(row)
	g.localSteps.rows(rep, ", serve --mcp", true)

	viaList, directList, err := listRuns(ctx, via, direct, mcpExposed, lists)
	if err != nil {
		return fmt.Errorf("through the gateway: %w", err)
	}
	row = ratioRow("mcp", "tools/list through the gateway: p50", quantile(viaList, 0.5), quantile(directList, 0.5), "µs", "≤ 1.2x straight to the upstream", func(r float64) bool { return r <= 1.2 })
	row.Note = "the gateway reads the session's tool set at the ledger's head (no append) and answers from the upstream's tool list it keeps; the direct list is the upstream's own answer"
	rep.add(row)
	rep.add(ratioRow("mcp", "tools/list through the gateway: p99", quantile(viaList, 0.99), quantile(directList, 0.99), "µs", "", nil))

	lList, directList, err := listRuns(ctx, lvia, direct, mcpExposed, lists)
	if err != nil {
		return fmt.Errorf("through the gateway in the ledger's process: %w", err)
	}
	row = ratioRow("mcp", "tools/list through the gateway in the ledger's process (serve --mcp): p50", quantile(lList, 0.5), quantile(directList, 0.5), "µs", "≤ 1.2x straight to the upstream", func(r float64) bool { return r <= 1.2 })
	row.Note = "as the row above, the tool set read through the API in the gateway's process"
	rep.add(row)

	pxList, directList, err := listRuns(ctx, px.via, direct, mcpTool, lists)
	if err != nil {
		return fmt.Errorf("through the proxy: %w", err)
	}
	row = ratioRow("mcp", "tools/list through a bare MCP proxy (no ledger): p50", quantile(pxList, 0.5), quantile(directList, 0.5), "µs", "", nil)
	row.Note = "the proxy answers its own list (one tool), as the gateway answers from the list it keeps"
	rep.add(row)

	g.steps.reset()
	// The gateway's watch requests (one Watch per ledger session) during
	// the 64-session rounds, counted by a plain subscription beside the
	// API's queue group: each is a long poll, so they should be about one
	// per change (turn start) or per --max-wait, not one per append.
	var watches atomic.Int64
	wsub, err := g.n.nc.Subscribe(wire.Subject(wire.EndpointWatch, mcpOwner), func(*nats.Msg) { watches.Add(1) })
	if err != nil {
		return err
	}
	if err := g.n.nc.Flush(); err != nil {
		return err
	}
	phase := time.Now()
	tp, err := mcpThroughput(ctx, cfg, up.url, g.url, g.localURL, px.url, perSession, rounds)
	_ = wsub.Unsubscribe()
	phaseTook := time.Since(phase)
	if err != nil {
		return err
	}
	steps := g.steps.snapshot()
	row = ratioRow("mcp", fmt.Sprintf("tools/call, %d concurrent client sessions: throughput", mcpSessions), tp.via, tp.proxy, "calls/s", fmt.Sprintf("≥ 0.7x bare SDK proxy, %d sessions", mcpSessions), func(r float64) bool { return r >= 0.7 })
	row.Note = fmt.Sprintf("raw = the bare SDK proxy with %d client sessions, measured in this run; %d MCP client sessions each way (one ledger session each through the gateway), %d calls each a round, %d rounds, the four ways (with the gateway in the ledger's process) taking turns; straight to the upstream %.0f calls/s; the ledger under group sync, as serve runs by default", mcpSessions, mcpSessions, perSession, rounds, tp.direct)
	if tp.use.ok {
		row.Note += cpuNote(tp.use.via, tp.use.proxy)
	}
	rep.add(row)
	row = ratioRow("mcp", fmt.Sprintf("tools/call, %d concurrent client sessions, through the gateway in the ledger's process (serve --mcp): throughput", mcpSessions), tp.local, tp.proxy, "calls/s", fmt.Sprintf("≥ 0.7x bare SDK proxy, %d sessions", mcpSessions), func(r float64) bool { return r >= 0.7 })
	row.Note = "raw = the bare SDK proxy with as many client sessions, measured in the same rounds; the gateway asks the API in its process, no NATS hop; the four ways taking turns"
	if tp.use.ok {
		row.Note += cpuNote(tp.use.local, tp.use.proxy)
	}
	rep.add(row)
	row = ratioRow("mcp", fmt.Sprintf("tools/call, %d concurrent client sessions, against straight to the upstream", mcpSessions), tp.via, tp.direct, "calls/s", "", nil)
	row.Note = "the comparison of the earlier runs (docs/bench.md)"
	rep.add(row)
	steps.rows(rep, fmt.Sprintf(", %d sessions", mcpSessions), false)
	row = absRow("mcp", fmt.Sprintf("tools/call, %d concurrent client sessions: the gateway's watch requests per call", mcpSessions), float64(watches.Load())/tp.calls, "", "", nil)
	row.Note = fmt.Sprintf("%d watch requests (one Watch per ledger session, a long poll each) in the %.1f s of the 64-session phase (sessions dialled, the three ways' rounds), %.0f a second; %.0f calls through the gateway (each one record, the recorded check) in %.1f s of it", watches.Load(), phaseTook.Seconds(), float64(watches.Load())/phaseTook.Seconds(), tp.calls, tp.viaTook.Seconds())
	rep.add(row)

	// The same calls against a ledger that fsyncs every second (serve
	// --sync-interval 1s): how much of the call row is the durable
	// append of its one record. The first ledger and gateway (and the watches of its 64
	// sessions) are stopped first.
	g.close()
	gi, err := startMCPGateway(ctx, natslog.EmbeddedConfig{Dir: filepath.Join(d, "interval", "nats"), Listen: "127.0.0.1:-1", SyncInterval: time.Second}, filepath.Join(d, "interval"), up.url, 1)
	if err != nil {
		return err
	}
	defer gi.close()
	ivia, err := dialMCP(ctx, gi.url, mcpKey(0), "gateway")
	if err != nil {
		return fmt.Errorf("the gateway (--sync-interval): %w", err)
	}
	defer ivia.Close()
	viaCall, directCall, err := mcpCallRuns(ctx, ivia, direct, calls, mcpExposed)
	if err != nil {
		return fmt.Errorf("--sync-interval: %w", err)
	}
	row = ratioRow("mcp", "tools/call through the gateway, --sync-interval 1s: p50", quantile(viaCall, 0.5), quantile(directCall, 0.5), "µs", "", nil)
	row.Note = "the ledger fsyncs every second rather than every call's record"
	rep.add(row)
	gi.steps.rows(rep, ", --sync-interval 1s", true)
	return nil
}

// bareProxy is the floor of any MCP gateway on this machine: an SDK MCP
// server on loopback HTTP whose echo tool only forwards the call to the
// upstream over one SDK client session and whose list is its own (as the
// gateway answers from the list it keeps). No ledger, no check, nothing
// recorded: one more hop and the SDK's encoding on it.
type bareProxy struct {
	url  string
	toUp *mcp.ClientSession
	srv  *http.Server
	// via is a client session to the proxy (the latency rows').
	via *mcp.ClientSession
}

func startProxy(ctx context.Context, upURL string) (p *bareProxy, err error) {
	return startProxyWith(ctx, upURL, nil, "proxy")
}

// startProxyWith is startProxy whose proxy calls before, when set, inside
// each call before it forwards it (the floor's raw durable publish: see
// mcpLocalCallRuns), its goroutines labelled label.
func startProxyWith(ctx context.Context, upURL string, before func() error, label string) (p *bareProxy, err error) {
	p = &bareProxy{}
	defer func() {
		if err != nil {
			p.close()
			p = nil
		}
	}()
	// The proxy's own client session: its goroutines are the proxy's,
	// as the gateway's to the upstream are the gateway's.
	if p.toUp, err = dialMCPAs(ctx, upURL, "", label); err != nil {
		return nil, fmt.Errorf("the proxy's upstream: %w", err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-proxy", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	s.AddTool(&mcp.Tool{Name: mcpTool, Description: "echoes text", InputSchema: schema}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if before != nil {
			if err := before(); err != nil {
				return nil, err
			}
		}
		return p.toUp.CallTool(ctx, &mcp.CallToolParams{Name: mcpTool, Arguments: r.Params.Arguments})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.url = "http://" + ln.Addr().String() + "/mcp"
	p.srv = &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), ReadHeaderTimeout: mcpHeaderTimeout}
	labelled(label, func() { go func() { _ = p.srv.Serve(ln) }() })
	if p.via, err = dialMCP(ctx, p.url, "", label); err != nil {
		return nil, fmt.Errorf("the proxy: %w", err)
	}
	return p, nil
}

func (p *bareProxy) close() {
	if p.via != nil {
		p.via.Close()
	}
	if p.srv != nil {
		_ = p.srv.Close()
	}
	if p.toUp != nil {
		p.toUp.Close()
	}
}

// rawPublisher is the ledger half of the tools/call floor: one durable
// JetStream publish, acknowledged, of a record the size of a call's
// tool.checked, to the node's raw stream (a server that fsyncs every write
// unless the node syncs at an interval: node), over a TCP connection as
// the gateway's to the ledger.
type rawPublisher struct {
	js   jetstream.JetStream
	nc   *nats.Conn
	body []byte
	n    int
}

func newRawPublisher(ctx context.Context, g *mcpGateway) (*rawPublisher, error) {
	nc, err := nats.Connect(g.n.rawURL(), nats.Name("bench raw publisher"))
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	// A call record: the tool.checked the ledger wrote for a call
	// through the gateway (one is made here if none was yet).
	body, err := callRecord(ctx, g)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &rawPublisher{js: js, nc: nc, body: body}, nil
}

func (p *rawPublisher) publish(ctx context.Context) (time.Duration, error) {
	p.n++
	id := fmt.Sprintf("mcp-raw-%d", p.n)
	start := time.Now()
	_, err := p.js.Publish(ctx, "raw.mcp", p.body, jetstream.WithMsgID(id))
	return time.Since(start), err
}

func (p *rawPublisher) close() { p.nc.Close() }

// callRecord is the bytes of the last tool.checked in the gateway's
// ledger, after one call through a fresh client session.
func callRecord(ctx context.Context, g *mcpGateway) ([]byte, error) {
	cs, err := dialMCP(ctx, g.url, mcpKey(0), "gateway")
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	if _, err := callEcho(ctx, cs, mcpExposed); err != nil {
		return nil, err
	}
	head := g.n.svc.Position()
	recs, err := service.ReadRecords(ctx, g.n.log, max(head, 4)-3, head)
	if err != nil {
		return nil, err
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Type == events.ToolChecked {
			return recs[i].Encode()
		}
	}
	return nil, fmt.Errorf("no tool.checked among the last records")
}

// callRuns are the round trips of the interleaved tools/call runs.
type callRuns struct{ via, proxy, direct, publish, inline []time.Duration }

// paired is the floor of each iteration: its proxy call plus its raw
// publish (call it before quantile sorts them).
func (r callRuns) paired() []time.Duration {
	out := make([]time.Duration, min(len(r.proxy), len(r.publish)))
	for i := range out {
		out[i] = r.proxy[i] + r.publish[i]
	}
	return out
}

// mcpCallFloorRuns makes n echo calls through the gateway session via,
// through the bare proxy's session px, straight to the upstream session
// direct, and n raw durable publishes, the four in turn, going through
// their 24 orders (orders), so that drift reaches them alike and each is
// measured as often after any of the others (in a rotation of one order,
// the gateway's call followed the raw publish three times in four and the
// proxy's call the gateway's: the order BenchmarkHTTPRunsOrder shows
// matters), after a few of each unmeasured.
func mcpCallFloorRuns(ctx context.Context, via, px, direct *mcp.ClientSession, pub *rawPublisher, n int) (r callRuns, err error) {
	return r, interleaved([]timedKind{
		{"client-gateway", &r.via, func() (time.Duration, error) { return callEcho(ctx, via, mcpExposed) }},
		{"client-proxy", &r.proxy, func() (time.Duration, error) { return callEcho(ctx, px, mcpTool) }},
		{"client-direct", &r.direct, func() (time.Duration, error) { return callEcho(ctx, direct, mcpTool) }},
		{"raw-publish", &r.publish, func() (time.Duration, error) { return pub.publish(ctx) }},
	}, n)
}

// mcpLocalCallRuns is mcpCallFloorRuns for the gateway in the ledger's
// process (via, its session): n calls through it, n through the bare
// proxy px, n raw durable publishes of body on the node's raw connection
// (in process, as the ledger's to its server), and n calls through a second bare proxy (to the upstream at
// upURL) that makes such a publish inside each call before it forwards,
// through their 24 orders.
func mcpLocalCallRuns(ctx context.Context, via *mcp.ClientSession, px *bareProxy, upURL string, n *node, body []byte, calls int) (r callRuns, err error) {
	i := 0
	var j atomic.Uint64 // the proxy's handler runs on the SDK's goroutines
	ppx, err := startProxyWith(ctx, upURL, func() error {
		_, err := rawPublish(ctx, n, body, fmt.Sprintf("mcp-local-inline-%d", j.Add(1)))
		return err
	}, "proxy-published")
	if err != nil {
		return r, fmt.Errorf("the bare proxy that publishes: %w", err)
	}
	defer ppx.close()
	return r, interleaved([]timedKind{
		{"client-gateway-local", &r.via, func() (time.Duration, error) { return callEcho(ctx, via, mcpExposed) }},
		{"client-proxy", &r.proxy, func() (time.Duration, error) { return callEcho(ctx, px.via, mcpTool) }},
		{"raw-publish", &r.publish, func() (time.Duration, error) {
			i++
			return rawPublish(ctx, n, body, fmt.Sprintf("mcp-local-raw-%d", i))
		}},
		{"client-proxy-published", &r.inline, func() (time.Duration, error) { return callEcho(ctx, ppx.via, mcpTool) }},
	}, calls)
}

// timedKind is one kind of measurement that interleaved takes in turn:
// do times one, kept in out, its goroutine labelled label.
type timedKind struct {
	label string
	out   *[]time.Duration
	do    func() (time.Duration, error)
}

// interleaved measures each kind 10+n times, the kinds going through all
// their orders (orders), and keeps the last n of each.
func interleaved(kinds []timedKind, n int) error {
	perms := orders(len(kinds))
	for i := 0; i < 10+n; i++ {
		for _, k := range perms[i%len(perms)] {
			kd := kinds[k]
			var d time.Duration
			var err error
			labelled(kd.label, func() { d, err = kd.do() })
			if err != nil {
				return fmt.Errorf("%s: %w", kd.label, err)
			}
			if i >= 10 {
				*kd.out = append(*kd.out, d)
			}
		}
	}
	return nil
}

// listRuns makes n tools/list requests on via (which lists viaTool) and
// as many straight to the upstream session direct, in turn, and returns
// the round trips of each.
func listRuns(ctx context.Context, via, direct *mcp.ClientSession, viaTool string, n int) (viaList, directList []time.Duration, err error) {
	for i := 0; i < n; i++ {
		dd, err := listTools(ctx, direct, mcpTool)
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list straight to the upstream: %w", err)
		}
		directList = append(directList, dd)
		if dd, err = listTools(ctx, via, viaTool); err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		viaList = append(viaList, dd)
	}
	return viaList, directList, nil
}

// mcpCallRuns makes n echo calls through the gateway session via and as
// many straight to the upstream session direct, in turn, after a few of
// each unmeasured, and returns the round trips of each.
func mcpCallRuns(ctx context.Context, via, direct *mcp.ClientSession, n int, viaTool string) (viaCall, directCall []time.Duration, err error) {
	for i := 0; i < 10; i++ {
		if _, err := callEcho(ctx, direct, mcpTool); err != nil {
			return nil, nil, fmt.Errorf("tools/call straight to the upstream: %w", err)
		}
		if _, err := callEcho(ctx, via, viaTool); err != nil {
			return nil, nil, fmt.Errorf("tools/call through the gateway: %w", err)
		}
	}
	for i := 0; i < n; i++ {
		var d time.Duration
		labelled("client-direct", func() { d, err = callEcho(ctx, direct, mcpTool) })
		if err != nil {
			return nil, nil, fmt.Errorf("tools/call straight to the upstream: %w", err)
		}
		directCall = append(directCall, d)
		labelled("client-gateway", func() { d, err = callEcho(ctx, via, viaTool) })
		if err != nil {
			return nil, nil, fmt.Errorf("tools/call through the gateway: %w", err)
		}
		viaCall = append(viaCall, d)
	}
	return viaCall, directCall, nil
}

// throughput is the calls per second of each way of the 64-session rows.
type throughput struct {
	via, proxy, direct float64
	// local is the gateway in the ledger's process (serve --mcp).
	local float64
	// calls is how many calls each way made in the timed rounds; viaTook
	// is the gateway's rounds' time.
	calls   float64
	viaTook time.Duration
	// use is what each way's timed bursts cost the process (see
	// cpuUse); ok false where the bench cannot read the process's CPU.
	use struct {
		via, proxy, local cpuUse
		ok                bool
	}
}

// cpuUse is the process's CPU time over some bursts of one way, and their
// wall time and calls: the client sessions and the in-process upstream
// are in it too, the same for every way.
type cpuUse struct {
	cpu, wall time.Duration
	calls     float64
}

// share is the part of the process's CPUs (GOMAXPROCS) the bursts kept
// busy.
func (u cpuUse) share() float64 {
	return u.cpu.Seconds() / u.wall.Seconds() / float64(runtime.GOMAXPROCS(0))
}

// perCall is the process's CPU time a call, in µs.
func (u cpuUse) perCall() float64 { return float64(u.cpu.Microseconds()) / u.calls }

// cpuNote says what the gateway's and the bare proxy's 64-session bursts
// cost the process: the row's ratio is about the proxy's CPU a call over
// the gateway's, times the gateway's share of the CPUs over the proxy's.
func cpuNote(gw, proxy cpuUse) string {
	return fmt.Sprintf("; the bursts kept %.2f of the %d CPUs busy at %.0f µs of the process's CPU a call, the bare proxy's %.2f at %.0f µs (client sessions and upstream included in both)",
		gw.share(), runtime.GOMAXPROCS(0), gw.perCall(), proxy.share(), proxy.perCall())
}

// mcpThroughput connects mcpSessions client sessions straight to the
// upstream, as many to the bare proxy and as many to the gateway (one
// ledger session each), and returns the calls per second of each way over
// rounds rounds of perSession calls on every session at once, the three
// ways taking turns (and turns at going first).
func mcpThroughput(ctx context.Context, cfg *Config, upURL, gwURL, localURL, pxURL string, perSession, rounds int) (tp throughput, err error) {
	var directs, vias, locals, pxs []*mcp.ClientSession
	defer func() {
		for _, cs := range slices.Concat(directs, vias, locals, pxs) {
			cs.Close()
		}
	}()
	for i := 0; i < mcpSessions; i++ {
		cs, err := dialMCP(ctx, upURL, "", "direct")
		if err != nil {
			return tp, fmt.Errorf("the upstream: %w", err)
		}
		directs = append(directs, cs)
		if cs, err = dialMCP(ctx, gwURL, mcpKey(i), "gateway"); err != nil {
			return tp, fmt.Errorf("the gateway: %w", err)
		}
		vias = append(vias, cs)
		if cs, err = dialMCP(ctx, localURL, mcpLocalKey(i), "gateway-local"); err != nil {
			return tp, fmt.Errorf("the gateway in the ledger's process: %w", err)
		}
		locals = append(locals, cs)
		if cs, err = dialMCP(ctx, pxURL, "", "proxy"); err != nil {
			return tp, fmt.Errorf("the proxy: %w", err)
		}
		pxs = append(pxs, cs)
	}
	ways := []struct {
		name, tool, label string
		sessions          []*mcp.ClientSession
		took              time.Duration
		use               cpuUse
	}{
		{name: "straight to the upstream", tool: mcpTool, label: "client-direct", sessions: directs},
		{name: "through the gateway", tool: mcpExposed, label: "client-gateway", sessions: vias},
		{name: "through the proxy", tool: mcpTool, label: "client-proxy", sessions: pxs},
		{name: "through the gateway in the ledger's process", tool: mcpExposed, label: "client-gateway-local", sessions: locals},
	}
	_, cpuOK := processCPU()
	// One call on every session first: the gateway joins each ledger
	// session at its first request.
	for _, w := range ways {
		if _, err := burst(ctx, w.sessions, w.tool, w.label, 1); err != nil {
			return tp, fmt.Errorf("%s: %w", w.name, err)
		}
	}
	for r := 0; r < rounds; r++ {
		for k := range ways {
			w := &ways[(r+k)%len(ways)]
			cpu0, _ := processCPU()
			d, err := burst(ctx, w.sessions, w.tool, w.label, perSession)
			if err != nil {
				return tp, fmt.Errorf("%s: %w", w.name, err)
			}
			cpu1, _ := processCPU()
			w.took += d
			w.use.cpu += cpu1 - cpu0
			w.use.wall += d
			w.use.calls += float64(len(w.sessions) * perSession)
		}
	}
	total := float64(mcpSessions * perSession * rounds)
	cfg.logf("bench: mcp: %d sessions: gateway %v, in the ledger's process %v, proxy %v, direct %v for %.0f calls each", mcpSessions, ways[1].took.Round(time.Millisecond), ways[3].took.Round(time.Millisecond), ways[2].took.Round(time.Millisecond), ways[0].took.Round(time.Millisecond), total)
	tp = throughput{via: total / ways[1].took.Seconds(), proxy: total / ways[2].took.Seconds(), direct: total / ways[0].took.Seconds(), local: total / ways[3].took.Seconds(), calls: total, viaTook: ways[1].took}
	tp.use.via, tp.use.proxy, tp.use.local, tp.use.ok = ways[1].use, ways[2].use, ways[3].use, cpuOK
	return tp, nil
}

// burst makes n calls of tool on every session at once, one goroutine a
// session (labelled way), and returns how long they all took.
func burst(ctx context.Context, sessions []*mcp.ClientSession, tool, way string, n int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, len(sessions))
	start := time.Now()
	for i, cs := range sessions {
		wg.Go(func() {
			labelled(way, func() {
				for j := 0; j < n && errs[i] == nil; j++ {
					_, errs[i] = callEcho(ctx, cs, tool)
				}
			})
		})
	}
	wg.Wait()
	took := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return took, nil
}

// callEcho calls the echo tool as name on cs and times it; the answer
// must be the echo's.
func callEcho(ctx context.Context, cs *mcp.ClientSession, name string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "x"}})
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if t, ok := firstText(res); res.IsError || !ok || t != "echo: x" {
		return 0, fmt.Errorf("%s answered %q (isError %v)", name, t, res.IsError)
	}
	return d, nil
}

func firstText(res *mcp.CallToolResult) (string, bool) {
	if len(res.Content) == 0 {
		return "", false
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", false
	}
	return t.Text, true
}

// listTools lists cs's tools and times it; the list must be the one
// tool, named want.
func listTools(ctx context.Context, cs *mcp.ClientSession, want string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.ListTools(ctx, nil)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != want {
		return 0, fmt.Errorf("listed %d tools, want %s alone", len(res.Tools), want)
	}
	return d, nil
}

// mcpSteps collects the gateway's own timing of the steps of its calls
// (mcpgw.Options.Observe): the recorded check and the forward.
type mcpSteps struct {
	mu sync.Mutex
	d  map[string][]time.Duration
}

func (m *mcpSteps) observe(part string, d time.Duration) {
	m.mu.Lock()
	if m.d == nil {
		m.d = map[string][]time.Duration{}
	}
	m.d[part] = append(m.d[part], d)
	m.mu.Unlock()
}

func (m *mcpSteps) reset() {
	m.mu.Lock()
	m.d = nil
	m.mu.Unlock()
}

// snapshot is a copy of what was collected so far.
func (m *mcpSteps) snapshot() *mcpSteps {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &mcpSteps{d: map[string][]time.Duration{}}
	for k, v := range m.d {
		c.d[k] = append([]time.Duration(nil), v...)
	}
	return c
}

// rows adds a p50 row, without a target, for each step: where a call's
// time through the gateway goes (the rows with targets measure the whole
// call).
//
// With sequential (calls made one at a time) it adds the gateway's own
// work, per call the whole call less its steps.
func (m *mcpSteps) rows(rep *Report, suffix string, sequential bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Before the rows: quantile sorts the parts in place.
	var own []time.Duration
	if sequential {
		own = m.own()
	}
	for _, s := range []struct{ part, name, note string }{
		{mcpgw.PartCheck, "the recorded check that starts the call (ledger)", "the ledger's check endpoint recording one tool.checked with effect: true, as the gateway timed it"},
		{mcpgw.PartUpstream, "the forward to the upstream", "the gateway's tools/call to the upstream over loopback HTTP"},
	} {
		if d := m.d[s.part]; len(d) > 0 {
			row := absRow("mcp", "tools/call step"+suffix+": "+s.name+": p50", quantile(d, 0.5), "µs", "", nil)
			row.Note = s.note
			rep.add(row)
		}
	}
	if len(own) > 0 {
		row := absRow("mcp", "tools/call step"+suffix+": the gateway's own work: p50", quantile(own, 0.5), "µs", "", nil)
		row.Note = fmt.Sprintf("per call, the time in the gateway's tools/call middleware less the ledger request and the forward (%d calls; p99 %.0f µs); the SDK's decoding and encoding on the downstream hop is outside it, as it is in the bare proxy", len(own), quantile(own, 0.99))
		rep.add(row)
	}
}

// own is, per call, its whole time in the gateway (PartCall) less its
// steps; nil unless every call's three parts were observed (calls one at a
// time, each allowed: the parts of call i are the i-th of each, in the
// order observed: call it before anything sorts them).
func (m *mcpSteps) own() []time.Duration {
	call := m.d[mcpgw.PartCall]
	parts := [][]time.Duration{m.d[mcpgw.PartCheck], m.d[mcpgw.PartUpstream]}
	for _, p := range parts {
		if len(p) != len(call) {
			return nil
		}
	}
	out := make([]time.Duration, len(call))
	for i, d := range call {
		for _, p := range parts {
			d -= p[i]
		}
		out[i] = d
	}
	return out
}

// mcpKey is the ledger session of the i-th gateway client.
func mcpKey(i int) events.SessionKey { return events.SessionKey(fmt.Sprintf("mcp-bench-%02d", i)) }

// mcpLocalKey is the ledger session of the i-th client of the gateway in
// the ledger's process.
func mcpLocalKey(i int) events.SessionKey {
	return events.SessionKey(fmt.Sprintf("mcp-bench-local-%02d", i))
}

// labelled runs f with its goroutine, and every goroutine it starts,
// labelled mcp=part for the CPU profile.
func labelled(part string, f func()) {
	pprof.Do(context.Background(), pprof.Labels("mcp", part), func(context.Context) { f() })
}

// echoUpstream is the in-process upstream MCP server on loopback.
type echoUpstream struct {
	url string
	srv *http.Server
}

func startEchoUpstream() (*echoUpstream, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-echo", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	s.AddTool(&mcp.Tool{Name: mcpTool, Description: "echoes text", InputSchema: schema}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Text string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	u := &echoUpstream{url: "http://" + ln.Addr().String() + "/mcp"}
	u.srv = &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), ReadHeaderTimeout: mcpHeaderTimeout}
	labelled("upstream", func() { go func() { _ = u.srv.Serve(ln) }() })
	return u, nil
}

func (u *echoUpstream) close() { _ = u.srv.Close() }

// mcpGateway is an embedded ledger with a claude-code policy allowing
// the echo tool, sessions started by the gateway's owner, and a gateway
// in front of the upstream serving streamable HTTP on loopback (the
// ledger session from the Ledger-Session header).
type mcpGateway struct {
	once  sync.Once
	steps mcpSteps
	n     *node
	nc    *nats.Conn
	gw    *mcpgw.Gateway
	srv   *http.Server
	url   string
	// local is the same gateway in the ledger's process, as 'serve --mcp'
	// runs it: its requests go to the API directly (n.srv, a
	// client.Requester), not over the NATS server. Its sessions are
	// mcpLocalKey's.
	local      *mcpgw.Gateway
	localSrv   *http.Server
	localURL   string
	localSteps mcpSteps
}

func startMCPGateway(ctx context.Context, ec natslog.EmbeddedConfig, dir, upURL string, sessions int) (g *mcpGateway, err error) {
	g = &mcpGateway{}
	defer func() {
		if err != nil {
			g.close()
			g = nil
		}
	}()
	labelled("ledger", func() { g.n, err = startNodeWith(ctx, ec, dir) })
	if err != nil {
		return nil, err
	}
	ops := client.New(g.n.nc, client.Options{})
	doc, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"mcp__" + mcpServer}}})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: doc, Catalogue: []string{mcpLedgerName}})); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	orch := client.New(g.n.nc, client.Options{Owner: mcpOwner})
	for i := 0; i < sessions; i++ {
		for _, key := range []events.SessionKey{mcpKey(i), mcpLocalKey(i)} {
			if _, err := orch.Append(ctx, client.Start(key, events.StartedData{Agent: "main"})); err != nil {
				return nil, fmt.Errorf("session %s: %w", key, err)
			}
			if _, err := orch.Append(ctx, client.Turn(key, events.TurnData{Turn: 1})); err != nil {
				return nil, fmt.Errorf("session %s: %w", key, err)
			}
		}
	}
	gcfg, err := mcpgw.ParseConfig(fmt.Appendf(nil, `{"servers": {%q: {"url": %q}}, "session": {"from": "header"}}`, mcpServer, upURL))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g.url = "http://" + ln.Addr().String() + "/mcp"
	labelled("gateway", func() {
		// As 'ledger mcp' connects to 'ledger serve': over TCP.
		if g.nc, err = nats.Connect(g.n.ns.ClientURL(), nats.Name("ledger mcp (bench)")); err != nil {
			return
		}
		if g.gw, err = mcpgw.New(gcfg, mcpgw.Options{Ledger: client.New(g.nc, client.Options{Owner: mcpOwner}), Observe: g.steps.observe}); err != nil {
			return
		}
		g.srv = &http.Server{Handler: g.gw.Handler(""), ReadHeaderTimeout: mcpHeaderTimeout}
		go func() { _ = g.srv.Serve(ln) }()
	})
	if err != nil {
		ln.Close()
		return nil, err
	}
	lln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g.localURL = "http://" + lln.Addr().String() + "/mcp"
	labelled("gateway-local", func() {
		if g.local, err = mcpgw.New(gcfg, mcpgw.Options{Ledger: client.NewOn(g.n.srv, client.Options{Owner: mcpOwner}), Observe: g.localSteps.observe}); err != nil {
			return
		}
		g.localSrv = &http.Server{Handler: g.local.Handler(""), ReadHeaderTimeout: mcpHeaderTimeout}
		go func() { _ = g.localSrv.Serve(lln) }()
	})
	if err != nil {
		lln.Close()
		return nil, err
	}
	return g, nil
}

// close stops it all; a second close does nothing.
func (g *mcpGateway) close() {
	g.once.Do(func() {
		if g.srv != nil {
			_ = g.srv.Close()
		}
		if g.gw != nil {
			g.gw.Close()
		}
		if g.localSrv != nil {
			_ = g.localSrv.Close()
		}
		if g.local != nil {
			g.local.Close()
		}
		if g.nc != nil {
			g.nc.Close()
		}
		if g.n != nil {
			g.n.close()
		}
	})
}

// mcpTransport is the HTTP transport of the bench's MCP clients, both
// ways: keep-alive connections, enough idle ones for every session.
var mcpTransport = &http.Transport{MaxIdleConns: 4 * mcpSessions, MaxIdleConnsPerHost: 4 * mcpSessions, IdleConnTimeout: mcpIdle}

// mcpHeaderTimeout is the bench's MCP servers' ReadHeaderTimeout: longer
// than mcpTransport's IdleConnTimeout. net/http starts it when a
// connection is accepted, and a connection the transport dialed for a
// request that another freed connection then took waits in the pool
// unused: with a shorter timeout the server could close it just as the
// client takes it for a POST, which fails with EOF and is not retried
// (one run of 'ledger bench --only mcp' stopped with "through the proxy:
// ... Post ...: EOF", which this would explain; it did not recur). With
// this one the client drops an idle connection first.
const mcpHeaderTimeout = 2 * mcpIdle

// mcpIdle is mcpTransport's IdleConnTimeout.
const mcpIdle = time.Minute

// sessionHeader adds the gateway's ledger session header.
type sessionHeader struct{ key string }

func (h sessionHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.key != "" {
		r = r.Clone(r.Context())
		r.Header.Set(mcpgw.DefaultHeader, h.key)
	}
	return mcpTransport.RoundTrip(r)
}

// dialMCP connects a Go SDK client over streamable HTTP to url, naming
// ledger session key (when not empty) in every request's header; its
// goroutines are labelled client-<way>.
func dialMCP(ctx context.Context, url string, key events.SessionKey, way string) (cs *mcp.ClientSession, err error) {
	return dialMCPAs(ctx, url, key, "client-"+way)
}

// dialMCPAs is dialMCP with the goroutines labelled label.
func dialMCPAs(ctx context.Context, url string, key events.SessionKey, label string) (cs *mcp.ClientSession, err error) {
	labelled(label, func() {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		hc := &http.Client{Transport: sessionHeader{key: string(key)}}
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "ledger-bench", Version: "1"}, nil).Connect(cctx,
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	})
	return cs, err
}
