package mcpgw

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/wire"
)

// The tests here probe the gateway's fail-closed promise (docs/mcp-gateway.md,
// package doc "Invariants") as a conformance suite would: a ledger that is
// slow, silent or gone, names that are not quite a tool's, sessions that
// are not the gateway's, and count what reached the upstream.

// countingUpstream is an HTTP MCP upstream, server "t" of the fixture's
// policy (mcp__t allowed, mcp__t__secret denied), whose tools echo and
// secret count their runs. lenient makes it look tools up as many servers
// do, trimmed and case-folded, so that "Secret " runs secret.
type countingUpstream struct {
	addr string
	runs sync.Map // tool name -> *atomic.Int32
}

func (u *countingUpstream) count(tool string) int32 {
	v, _ := u.runs.LoadOrStore(tool, new(atomic.Int32))
	return v.(*atomic.Int32).Load()
}

func (u *countingUpstream) total() int32 { return u.count("echo") + u.count("secret") }

func newCountingUpstream(t *testing.T, lenient bool) *countingUpstream {
	t.Helper()
	u := &countingUpstream{}
	s := mcp.NewServer(&mcp.Implementation{Name: "counting-upstream", Version: "1"}, nil)
	for _, name := range []string{"echo", "secret"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, _ := u.runs.LoadOrStore(name, new(atomic.Int32))
			v.(*atomic.Int32).Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil
		})
	}
	if lenient {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
					r.Params.Name = strings.ToLower(strings.TrimSpace(r.Params.Name))
				}
				return next(ctx, method, req)
			}
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	u.addr = ln.Addr().String()
	return u
}

// ledgerLink carries the gateway's requests to the ledger over a real
// NATS connection, but can make its checks slow (answered only after the
// gateway's wait, as a ledger that is overloaded), silent (never
// answered), or cut the connection when a check arrives (the ledger going
// away mid-call).
type ledgerLink struct {
	nc     *nats.Conn
	mode   atomic.Int32
	checks atomic.Int32
}

const (
	linkNormal = iota
	linkSlow   // the ledger answers, but after the request's wait
	linkSilent // no answer: the request waits for its deadline
	linkCut    // the connection closes as the check is sent
)

func (l *ledgerLink) RequestWithContext(ctx context.Context, subject string, data []byte) (*nats.Msg, error) {
	if !strings.HasPrefix(subject, wire.Prefix+"."+wire.EndpointCheck) {
		return l.nc.RequestWithContext(ctx, subject, data)
	}
	l.checks.Add(1)
	switch l.mode.Load() {
	case linkSlow:
		// The ledger gets the check and answers it, but the answer
		// comes after the requester's wait: it is lost.
		go func() { _, _ = l.nc.Request(subject, data, 5*time.Second) }()
		<-ctx.Done()
		return nil, ctx.Err()
	case linkSilent:
		<-ctx.Done()
		return nil, ctx.Err()
	case linkCut:
		l.nc.Close()
	}
	return l.nc.RequestWithContext(ctx, subject, data)
}

// countingGateway runs f's gateway in front of a counting upstream, its
// ledger client on link with a short request timeout, and dials it.
func countingGateway(t *testing.T, f *fixture, lenient bool, link *ledgerLink) (*countingUpstream, *mcp.ClientSession) {
	t.Helper()
	u := newCountingUpstream(t, lenient)
	opts := Options{}
	if link != nil {
		opts.Ledger = client.NewOn(link, client.Options{Owner: "gw", Timeout: 300 * time.Millisecond, Retries: 1})
	}
	f.gateway(t, fmt.Appendf(nil, `{"servers": {"t": {"url": "http://%s/mcp"}}}`, u.addr), opts)
	return u, f.dial(t, f.key)
}

// refused fails unless a call's answer is a refusal (a tool error or a
// JSON-RPC error) that did not come from the upstream.
func refused(t *testing.T, what string, res *mcp.CallToolResult, err error) {
	t.Helper()
	if err != nil {
		return
	}
	if !res.IsError || strings.Contains(resultText(res), "ran ") {
		t.Errorf("%s: answered %v %q, want a refusal", what, res.IsError, resultText(res))
	}
}

// TestGatewayAdversarialLedgerTrouble: a check the ledger answers after the
// gateway's wait, never answers, or whose connection goes as it is sent,
// refuses the call within a bounded time, and nothing reaches the
// upstream.
func TestGatewayAdversarialLedgerTrouble(t *testing.T) {
	for _, mode := range []struct {
		name string
		mode int32
	}{{"slow", linkSlow}, {"silent", linkSilent}, {"cut", linkCut}} {
		t.Run(mode.name, func(t *testing.T) {
			f := start(t)
			link := &ledgerLink{nc: f.l.Connect()}
			u, cs := countingGateway(t, f, false, link)
			res, err := call(t, cs, "t__echo", nil)
			if err != nil || res.IsError || u.count("echo") != 1 {
				t.Fatalf("echo with the ledger well: %v %v %q (%d runs)", err, res.IsError, resultText(res), u.count("echo"))
			}
			link.mode.Store(mode.mode)
			began := time.Now()
			res, err = call(t, cs, "t__echo", nil)
			refused(t, "echo", res, err)
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("the refusal took %v", took)
			}
			if n := u.count("echo"); n != 1 {
				t.Errorf("a call the ledger did not decide in time reached the upstream (%d runs)", n)
			}
			if link.checks.Load() < 2 {
				t.Errorf("the check was not sent (%d checks)", link.checks.Load())
			}
			// (A check the ledger decided in time but whose answer was
			// lost stays recorded as started, as docs/claude-code-hooks.md
			// says of the hook; in the slow mode the client's retry of the
			// same call id is recorded a second time.)
			for _, r := range starts(t, f) {
				t.Logf("%s: recorded as started: %s", mode.name, r.Data)
			}
			// Still refused on the next call, the upstream still idle.
			res, err = call(t, cs, "t__echo", nil)
			refused(t, "echo again", res, err)
			if n := u.count("echo"); n != 1 {
				t.Errorf("the second call reached the upstream (%d runs)", n)
			}
		})
	}
}

// TestGatewayAdversarialLedgerDown: a gateway whose ledger connection is
// closed before the session is joined refuses tools/list and every call.
func TestGatewayAdversarialLedgerDown(t *testing.T) {
	f := start(t)
	nc := f.l.Connect()
	link := &ledgerLink{nc: nc}
	nc.Close()
	u, cs := countingGateway(t, f, false, link)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if res, err := cs.ListTools(ctx, nil); err == nil && len(res.Tools) > 0 {
		t.Errorf("tools/list with the ledger down listed %d tools", len(res.Tools))
	}
	for _, name := range []string{"t__echo", "t__secret"} {
		res, err := call(t, cs, name, nil)
		refused(t, name, res, err)
	}
	if n := u.total(); n != 0 {
		t.Errorf("%d calls reached the upstream with the ledger down", n)
	}
}

// TestGatewayAdversarialNames: a denied tool is not reached by a name the
// policy's deny rule does not spell exactly (case, spaces, other servers'
// prefixes, empty parts, control characters), even by an upstream that
// looks names up leniently (trimmed, case-folded): the ledger decides the
// name as sent, and one its catalogue does not hold is not allowed by a
// server-wide rule; names of no configured server are invalid params.
func TestGatewayAdversarialNames(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		t.Run(fmt.Sprintf("lenient=%v", lenient), func(t *testing.T) {
			f := start(t)
			u, cs := countingGateway(t, f, lenient, nil)
			for _, name := range []string{
				"t__secret", "t__SECRET", "t__Secret", "t__secret ", " t__secret", "t__ secret", "t__secret\n", "t__secret\t",
				"T__secret", "other__secret", "t___secret", "t____secret", "__secret", "t__", "t", "", "t__secret\x00", "t__sec\u200bret",
				"t__./secret", "t__../secret",
			} {
				res, err := call(t, cs, name, nil)
				refused(t, fmt.Sprintf("%q", name), res, err)
			}
			if n := u.count("secret"); n != 0 {
				t.Errorf("the denied secret ran %d times", n)
			}
			res, err := call(t, cs, "t__echo", nil)
			if err != nil || res.IsError {
				t.Errorf("echo after the odd names: %v %q", err, resultText(res))
			}
		})
	}
}

// TestGatewayAdversarialForeignSession: a session another orchestrator
// owns is not the gateway's: its tools are not listed and its calls are
// refused, none forwarded, even for a tool its policy allows.
func TestGatewayAdversarialForeignSession(t *testing.T) {
	f := start(t)
	other := client.New(f.l.Connect(), client.Options{Owner: "other"})
	const foreign = events.SessionKey("s-foreign")
	if _, err := other.Append(t.Context(), client.Start(foreign, events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Append(t.Context(), client.Turn(foreign, events.TurnData{Turn: 1})); err != nil {
		t.Fatal(err)
	}
	u, _ := countingGateway(t, f, false, nil)
	cs := f.dial(t, foreign)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if res, err := cs.ListTools(ctx, nil); err == nil && len(res.Tools) > 0 {
		t.Errorf("tools/list of another orchestrator's session listed %d tools", len(res.Tools))
	}
	res, err := call(t, cs, "t__echo", nil)
	refused(t, "echo in a foreign session", res, err)
	if n := u.total(); n != 0 {
		t.Errorf("%d calls of another orchestrator's session reached the upstream", n)
	}
	// Nothing was recorded in the foreign session under the gateway's name.
	head, err := f.l.Log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	raws, err := f.l.Log.Read(t.Context(), 1, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range raws {
		if strings.Contains(string(raw), `"s-foreign"`) && strings.Contains(string(raw), `"tool.checked"`) {
			t.Errorf("a check was recorded in the foreign session: %s", raw)
		}
	}
	// The session header missing is a 400.
	code, _, body := post(t, "http://"+ledgertest.ServeHTTP(t, f.gw.Handler(""))+"/mcp", initialize, nil)
	if code != http.StatusBadRequest || !strings.Contains(body, DefaultHeader) {
		t.Errorf("an initialize naming no session: %d %q", code, body)
	}
}

// TestGatewayAdversarialArguments: arguments that are not an object are
// never run as a call of another shape: the gateway keeps serving, and an
// allowed call after them runs once.
func TestGatewayAdversarialArguments(t *testing.T) {
	f := start(t)
	u, cs := countingGateway(t, f, false, nil)
	for _, args := range []any{[]any{1, 2}, "text", 42, true} {
		res, err := call(t, cs, "t__secret", args)
		refused(t, fmt.Sprintf("secret(%v)", args), res, err)
		_, _ = call(t, cs, "t__echo", args)
	}
	if n := u.count("secret"); n != 0 {
		t.Errorf("secret ran %d times", n)
	}
	before := u.count("echo")
	res, err := call(t, cs, "t__echo", map[string]any{})
	if err != nil || res.IsError || u.count("echo") != before+1 {
		t.Errorf("echo after odd arguments: %v %q", err, resultText(res))
	}
}
