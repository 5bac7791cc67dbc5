package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// The i24 pass's MCP probes: `ledger mcp --listen` (the built binary) in
// front of an upstream served by the test over streamable HTTP on
// loopback, joined to sessions of owner gw on a `ledger serve`.

const (
	tokA = "i24-client-a-token-0123456789abcdef0123"
	tokB = "i24-client-b-token-0123456789abcdef0123"
)

// i24Upstream is an MCP server with the tools echo, secret, hang (answers
// only when cancelled), big (answers as many bytes as its "n" says) and
// flood (sends list_changed notifications), served on loopback.
func i24Upstream(t *testing.T) (url string, floods *atomic.Int32) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "i24-upstream", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("echo:" + string(r.Params.Arguments)), nil
	})
	s.AddTool(&mcp.Tool{Name: "secret", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("THE SECRET RAN"), nil
	})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: obj}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ N int }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		return text(strings.Repeat("b", a.N)), nil
	})
	floods = &atomic.Int32{}
	s.AddTool(&mcp.Tool{Name: "flood", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ N int }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		for i := range a.N {
			name := fmt.Sprintf("tmp%d", i%2)
			s.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("tmp"), nil })
			s.RemoveTools(name)
			floods.Add(1)
		}
		return text("flooded"), nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp", floods
}

// mcpGateway is a `ledger mcp --listen` process.
type mcpGateway struct {
	url    string
	stderr *lockedBuffer
}

var mcpServing = regexp.MustCompile(`serving MCP on (http://[^ ]+/mcp)`)

// startMCP runs `ledger mcp` with config doc against the ledger at natsURL
// as owner gw; it returns nil and the output when the process exits
// within 20 s before it serves.
func startMCP(t *testing.T, natsURL, doc string, args ...string) (*mcpGateway, string) {
	t.Helper()
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, doc, 0o600)
	cmd := exec.Command(bin, append([]string{"mcp", "--config", cfg, "--nats", natsURL, "--owner", "gw"}, args...)...)
	cmd.Env = i24Env(dir)
	g := &mcpGateway{stderr: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = io.Discard, g.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	var m []string
	defer func() {
		if m == nil && t.Failed() {
			t.Logf("ledger mcp's stderr: %s", g.stderr.String())
		}
	}()
	gone := false
	ledgertest.WaitFor(t, 20*time.Second, "ledger mcp serving (its address on stderr) or exiting", func() bool {
		if m = mcpServing.FindStringSubmatch(g.stderr.String()); m != nil {
			return true
		}
		select {
		case <-exited:
			gone = true
		default:
		}
		return gone
	})
	if gone {
		return nil, g.stderr.String()
	}
	g.url = m[1]
	return g, g.stderr.String()
}

// mcpLedger is a ledger with a claude-code policy allowing server t's
// tools but secret, and sessions s1 and s2 of owner gw at turn 1.
type mcpLedger struct {
	nats string
	orch *client.Client
	nc   *nats.Conn
}

func startMCPLedger(t *testing.T) *mcpLedger {
	t.Helper()
	url, _, stderr := serveProcess(t, "--name", "i24mcp")
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ops := client.New(nc, client.Options{})
	doc, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"mcp__t"}, "deny": []string{"mcp__t__secret"}}})
	cat := []string{"mcp__t__echo", "mcp__t__secret", "mcp__t__hang", "mcp__t__big", "mcp__t__flood", "mcp__t__tmp0", "mcp__t__tmp1"}
	// The API registers after serve prints its address: set the policy
	// once it answers.
	var last error
	defer func() {
		if last != nil && t.Failed() {
			t.Logf("policy: %v: %s", last, stderr.String())
		}
	}()
	ledgertest.WaitFor(t, 60*time.Second, "the policy set", func() bool {
		_, last = ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: doc, Catalogue: cat}))
		return last == nil
	})
	orch := client.New(nc, client.Options{Owner: "gw"})
	for _, k := range []events.SessionKey{"s1", "s2"} {
		if _, err := orch.Append(ctx, client.Start(k, events.StartedData{Agent: "main"})); err != nil {
			t.Fatal(err)
		}
		if _, err := orch.Append(ctx, client.Turn(k, events.TurnData{Turn: 1})); err != nil {
			t.Fatal(err)
		}
	}
	return &mcpLedger{nats: url, orch: orch, nc: nc}
}

// rpc POSTs one JSON-RPC message to the gateway with headers (name, value
// pairs) and returns the status, the Mcp-Session-Id and the body.
func rpc(t *testing.T, url, body string, headers ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"i24","version":"1"}}}`

// mcpClient connects a Go SDK client to the gateway as ledger session key
// with bearer token tok ("" for none).
func mcpClient(t *testing.T, url, key, tok string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "i24-client", Version: "1"}, nil)
	hc := &http.Client{Transport: addHeaders{"Ledger-Session": key, "Authorization": "Bearer " + tok}, Timeout: 60 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

type addHeaders map[string]string

func (h addHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		if v != "" && v != "Bearer " {
			r.Header.Set(k, v)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// callTool calls name with args and _meta, bounded by d, and returns the
// result's text, whether it is a tool error, and the JSON-RPC error.
func callTool(t *testing.T, cs *mcp.ClientSession, name, args string, meta map[string]any, d time.Duration) (string, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	p := &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)}
	if meta != nil {
		p.Meta = mcp.Meta(meta)
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// effectsHaveOwnChecks checks, over the whole log, that every
// tool.effect_started was prepared (decided.prepared_at) by a tool.checked
// of the same session, tool and call, which decided allow.
func effectsHaveOwnChecks(t *testing.T, l *mcpLedger) {
	t.Helper()
	res := runLedger(t, "log", "--nats", l.nats, "--data", t.TempDir(), "--json")
	if res.exit != 0 {
		t.Fatalf("ledger log: %s", res.stderr)
	}
	type rec struct {
		Seq     uint64
		Type    string
		Session string
		Data    struct {
			Tool, Call string
			Prepared   uint64 `json:"prepared_at"`
		}
		Decided struct {
			Decision string
			Seq      uint64
			Prepared uint64 `json:"prepared_at"`
		}
	}
	bySeq := map[uint64]rec{}
	var effects []rec
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		r.Seq = r.Decided.Seq
		bySeq[r.Seq] = r
		if r.Type == "tool.effect_started" {
			effects = append(effects, r)
		}
	}
	for _, e := range effects {
		c, ok := bySeq[e.Decided.Prepared]
		if !ok || c.Type != "tool.checked" || c.Session != e.Session || c.Data.Tool != e.Data.Tool || c.Data.Call != e.Data.Call || c.Decided.Decision != "allow" {
			t.Errorf("effect of %s %s call %s (seq %d) prepared at %d by %+v", e.Session, e.Data.Tool, e.Data.Call, e.Seq, e.Decided.Prepared, c)
		}
	}
	t.Logf("%d effects, each with its own allowed check", len(effects))
}

// TestI24MCPClientTokensHeld: with two clients in the config (a may name
// s1, b may name s2), requests in other forms never reach a session the
// client may not name: no token, a lower-case scheme, a token with a
// suffix, the other client's session by header, two Ledger-Session
// headers, two Authorization headers (a foreign token first), b using a's
// MCP session id, an unknown MCP session id with a foreign key.
func TestI24MCPClientTokensHeld(t *testing.T) {
	l := startMCPLedger(t)
	up, _ := i24Upstream(t)
	doc := fmt.Sprintf(`{"servers":{"t":{"url":%q}},"clients":{"a":{"token":%q,"sessions":["s1"]},"b":{"token":%q,"sessions":["s2"]}}}`, up, tokA, tokB)
	g, out := startMCP(t, l.nats, doc, "--listen", "127.0.0.1:0")
	if g == nil {
		t.Fatalf("ledger mcp: %s", out)
	}
	for _, c := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"no token", []string{"Ledger-Session", "s1"}, 401},
		{"bearer lower-case", []string{"Ledger-Session", "s1", "Authorization", "bearer " + tokA}, 401},
		{"token with a suffix", []string{"Ledger-Session", "s1", "Authorization", "Bearer " + tokA + "x"}, 401},
		{"token prefix", []string{"Ledger-Session", "s1", "Authorization", "Bearer " + tokA[:31]}, 401},
		{"a names s2", []string{"Ledger-Session", "s2", "Authorization", "Bearer " + tokA}, 403},
		{"a names s1 then s2 (two headers, the first counts)", []string{"Ledger-Session", "s2", "Ledger-Session", "s1", "Authorization", "Bearer " + tokA}, 403},
		{"a names S1", []string{"Ledger-Session", "S1", "Authorization", "Bearer " + tokA}, 403},
		{"a names s1:child", []string{"Ledger-Session", "s1:child", "Authorization", "Bearer " + tokA}, 403},
		{"foreign token first, a's second, names s2", []string{"Ledger-Session", "s2", "Authorization", "Bearer " + tokB + "x", "Authorization", "Bearer " + tokA}, 401},
		{"Basic", []string{"Ledger-Session", "s1", "Authorization", "Basic " + basic("a", tokA)}, 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, sid, body := rpc(t, g.url, initBody, c.headers...)
			if code != c.want || sid != "" {
				t.Errorf("answered %d (session %q) %.200s, want %d and no session", code, sid, body, c.want)
			}
		})
	}
	// a's own session, then b with a's MCP session id.
	code, sidA, body := rpc(t, g.url, initBody, "Ledger-Session", "s1", "Authorization", "Bearer "+tokA)
	if code != 200 || sidA == "" {
		t.Fatalf("a's initialize: %d %q %.200s", code, sidA, body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t__echo","arguments":{}}}`
	for _, c := range []struct {
		name    string
		headers []string
	}{
		{"b with a's MCP session", []string{"Mcp-Session-Id", sidA, "Authorization", "Bearer " + tokB}},
		{"b with a's MCP session naming s2", []string{"Mcp-Session-Id", sidA, "Ledger-Session", "s2", "Authorization", "Bearer " + tokB}},
		{"no token with a's MCP session", []string{"Mcp-Session-Id", sidA}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, b := range []string{list, call} {
				code, _, body := rpc(t, g.url, b, c.headers...)
				if code == 200 || strings.Contains(body, "echo:") {
					t.Errorf("answered %d %.200s, want a refusal", code, body)
				}
			}
		})
	}
	t.Run("a with an unknown MCP session naming s2", func(t *testing.T) {
		code, _, body := rpc(t, g.url, call, "Mcp-Session-Id", "NOT-A-SESSION", "Ledger-Session", "s2", "Authorization", "Bearer "+tokA)
		if code == 200 || strings.Contains(body, "echo:") {
			t.Errorf("answered %d %.200s, want a refusal", code, body)
		}
	})
	effectsHaveOwnChecks(t, l)
}

// TestI24MCPListenHeld: without clients, --listen beyond loopback is
// refused in every spelling of "every address" and a routable address.
func TestI24MCPListenHeld(t *testing.T) {
	l := startMCPLedger(t)
	up, _ := i24Upstream(t)
	doc := fmt.Sprintf(`{"servers":{"t":{"url":%q}}}`, up)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "0:0"} {
		t.Run(addr, func(t *testing.T) {
			g, out := startMCP(t, l.nats, doc, "--listen", addr)
			if g != nil {
				t.Errorf("served on %s without clients: %s", g.url, out)
			}
		})
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			g, out := startMCP(t, l.nats, doc, "--listen", addr)
			if g == nil && !strings.Contains(out, "cannot assign") && !strings.Contains(out, "address family") {
				t.Errorf("loopback %s refused: %s", addr, out)
			}
		})
	}
}

// TestI24MCPAdoptionHeld: a tools/call naming a Claude Code tool_use id in
// _meta never rides on a check it does not own: an id checked (allowed)
// for echo, named by a call of secret; an id checked for echo in session
// s2, named by s1; an id checked in s1 for ECHO's case variant; an id
// named twice; an id that is not a string. Every effect in the log is
// prepared by an allowed check of its own session, tool and call, and the
// secret never runs.
func TestI24MCPAdoptionHeld(t *testing.T) {
	l := startMCPLedger(t)
	up, _ := i24Upstream(t)
	doc := fmt.Sprintf(`{"servers":{"t":{"url":%q}}}`, up)
	g, out := startMCP(t, l.nats, doc, "--listen", "127.0.0.1:0")
	if g == nil {
		t.Fatalf("ledger mcp: %s", out)
	}
	ctx := context.Background()
	// As the hook would: allowed checks recorded under call ids.
	for _, c := range []struct{ key, tool, call string }{
		{"s1", "mcp__t__echo", "toolu_A"}, {"s2", "mcp__t__echo", "toolu_B"}, {"s1", "mcp__t__echo", "toolu_C"},
	} {
		r, err := l.orch.CheckAndRecord(ctx, events.SessionKey(c.key), c.tool, c.call)
		if err != nil || r.Decision != "allow" {
			t.Fatalf("check %v: %+v %v", c, r, err)
		}
	}
	cs, err := mcpClient(t, g.url, "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	meta := func(id any) map[string]any { return map[string]any{"claudecode/toolUseId": id} }
	for _, c := range []struct {
		name, tool string
		meta       map[string]any
		runs       bool
	}{
		{"secret under echo's id", "t__secret", meta("toolu_A"), false},
		{"echo under s2's id", "t__echo", meta("toolu_B"), true},
		{"echo under its own id", "t__echo", meta("toolu_C"), true},
		{"echo under the same id again", "t__echo", meta("toolu_C"), true},
		{"secret under the same id", "t__secret", meta("toolu_C"), false},
		{"secret under an id of 300 bytes", "t__secret", meta(strings.Repeat("x", 300)), false},
		{"secret under a numeric id", "t__secret", meta(7), false},
		{"secret under an id with NATS wildcards", "t__secret", meta("a.>"), false},
		{"secret named T__secret", "T__secret", nil, false},
		{"secret named t__SECRET", "t__SECRET", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, isErr, err := callTool(t, cs, c.tool, `{}`, c.meta, 30*time.Second)
			ran := err == nil && !isErr
			if ran != c.runs || strings.Contains(text, "THE SECRET RAN") {
				t.Errorf("ran %v (tool error %v, rpc error %v): %.200s", ran, isErr, err, text)
			}
		})
	}
	effectsHaveOwnChecks(t, l)
}

// TestI24MCPUpstreamBoundsHeld: an upstream call that never answers ends
// at --call-timeout with a tool error; a result over --max-result-bytes is
// a tool error naming the limit; 3000 list_changed from the upstream do
// not stall another session's calls; the gateway serves after each.
func TestI24MCPUpstreamBoundsHeld(t *testing.T) {
	l := startMCPLedger(t)
	up, floods := i24Upstream(t)
	doc := fmt.Sprintf(`{"servers":{"t":{"url":%q}}}`, up)
	g, out := startMCP(t, l.nats, doc, "--listen", "127.0.0.1:0", "--call-timeout", "2s", "--max-result-bytes", "1048576")
	if g == nil {
		t.Fatalf("ledger mcp: %s", out)
	}
	cs1, err := mcpClient(t, g.url, "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	cs2, err := mcpClient(t, g.url, "s2", "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	text, isErr, err := callTool(t, cs1, "t__hang", `{}`, nil, 30*time.Second)
	if took := time.Since(start); err != nil || !isErr || took > 6*time.Second {
		t.Errorf("hang: after %s: error %v, tool error %v: %.200s", took, err, isErr, text)
	}
	text, isErr, err = callTool(t, cs1, "t__big", `{"n":2000000}`, nil, 30*time.Second)
	if err != nil || !isErr || strings.Count(text, "b") > 1<<20 {
		t.Errorf("big: error %v, tool error %v: %.200s", err, isErr, text)
	}
	text, isErr, err = callTool(t, cs1, "t__big", `{"n":1000}`, nil, 30*time.Second)
	if err != nil || isErr || len(text) != 1000 {
		t.Errorf("a small result after the big one: error %v, tool error %v: %.100s", err, isErr, text)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, isErr, err := callTool(t, cs1, "t__flood", `{"n":3000}`, nil, 120*time.Second); err != nil || isErr {
			t.Errorf("flood: %v %v", err, isErr)
		}
	}()
	var worst time.Duration
	for i := 0; i < 20; i++ {
		s := time.Now()
		text, isErr, err := callTool(t, cs2, "t__echo", `{"i":1}`, nil, 30*time.Second)
		if err != nil || isErr || !strings.HasPrefix(text, "echo:") {
			t.Errorf("s2 echo %d during the flood: %v %v %.100s", i, err, isErr, text)
		}
		worst = max(worst, time.Since(s))
	}
	wg.Wait()
	t.Logf("%d list_changed sent; s2's slowest echo during them: %s", floods.Load(), worst)
	if worst > 5*time.Second {
		t.Errorf("s2's echo took %s during the flood", worst)
	}
	if _, _, err := callTool(t, cs2, "t__echo", `{}`, nil, 30*time.Second); err != nil {
		t.Errorf("after: %v", err)
	}
	effectsHaveOwnChecks(t, l)
}
