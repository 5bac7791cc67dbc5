package mcpgw

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// extraGateway runs f's gateway in front of the test upstream with its
// extra tools (hang, big), allowed by a policy at turn 2, with opts.
func (f *fixture) extraGateway(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	cat := append([]string{"mcp__t__hang", "mcp__t__big"}, testCatalogue...)
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: policyDoc(), Catalogue: cat})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 2)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f.gateway(t, fmt.Appendf(nil, `{"servers": {"t": {"command": [%q], "env": {%q: "1", %q: "1"}}}}`, exe, upstreamEnv, extraEnv), opts)
	return f.dial(t, f.key)
}

// TestUpstreamCallDeadline: an upstream call that never answers ends at
// the gateway's deadline (Options.CallTimeout) with a tool error naming
// it; the upstream is not restarted for it, and its next call answers.
func TestUpstreamCallDeadline(t *testing.T) {
	f := start(t)
	cs := f.extraGateway(t, Options{CallTimeout: 500 * time.Millisecond})
	pid, err := call(t, cs, "t__pid", nil)
	if err != nil || pid.IsError {
		t.Fatalf("pid = %v, %v", pid, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	began := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t__hang", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("hang: %v after %v, want a tool error at the deadline", err, time.Since(began))
	}
	if txt := resultText(res); !res.IsError || !strings.Contains(txt, "did not answer tools/call hang within the gateway's deadline of 500ms") {
		t.Fatalf("hang = %v %q", res.IsError, txt)
	}
	again, err := call(t, cs, "t__pid", nil)
	if err != nil || again.IsError || resultText(again) != resultText(pid) {
		t.Fatalf("pid after the deadline = %q, %v; want the same upstream, %q", resultText(again), err, resultText(pid))
	}
}

// TestOversizedResult: an upstream answer over the gateway's limit on one
// result (Options.MaxResultBytes, default the SDK's 16 MiB) is a tool
// error naming the limit, not an upstream that could not be reached; the
// upstream keeps running and answers the next call.
func TestOversizedResult(t *testing.T) {
	f := start(t)
	cs := f.extraGateway(t, Options{})
	pid, err := call(t, cs, "t__pid", nil)
	if err != nil || pid.IsError {
		t.Fatalf("pid = %v, %v", pid, err)
	}
	n := DefaultMaxResultBytes + 1<<20
	res, err := call(t, cs, "t__big", map[string]any{"text": strconv.Itoa(n)})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("over the gateway's limit of %d bytes on one result", DefaultMaxResultBytes)
	if txt := resultText(res); !res.IsError || !strings.Contains(txt, want) || strings.Contains(txt, "could not reach") {
		t.Fatalf("big = %v %.300q; want a tool error saying %q", res.IsError, txt, want)
	}
	res, err = call(t, cs, "t__big", map[string]any{"text": "1000"})
	if err != nil || res.IsError || len(resultText(res)) != 1000 {
		t.Fatalf("a small big = %v %.100q, %v", res.IsError, resultText(res), err)
	}
	again, err := call(t, cs, "t__pid", nil)
	if err != nil || again.IsError || resultText(again) != resultText(pid) {
		t.Fatalf("pid after the oversized answer = %q, %v; want the same upstream, %q", resultText(again), err, resultText(pid))
	}
}

// TestOversizedHTTPResult: an HTTP upstream's answer over the limit is a
// tool error naming it too, and the upstream answers the next call.
func TestOversizedHTTPResult(t *testing.T) {
	f := start(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "http-upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Text string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		n, _ := strconv.Atoi(a.Text)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", n)}}}, nil
	})
	addr := ledgertest.ServeHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	f.webGateway(t, addr)
	f.gateway(t, fmt.Appendf(nil, `{"servers": {"web": {"url": "http://%s/mcp"}}}`, addr), Options{MaxResultBytes: 1 << 20})
	cs := f.dial(t, f.key)
	res, err := call(t, cs, "web__hello", map[string]any{"text": strconv.Itoa(2 << 20)})
	if err != nil {
		t.Fatal(err)
	}
	if txt := resultText(res); !res.IsError || !strings.Contains(txt, "over the gateway's limit of 1048576 bytes") {
		t.Fatalf("big = %v %.300q", res.IsError, txt)
	}
	res, err = call(t, cs, "web__hello", map[string]any{"text": "10"})
	if err != nil || res.IsError || resultText(res) != "xxxxxxxxxx" {
		t.Fatalf("a small answer after the big one = %v %.300q, %v", res.IsError, resultText(res), err)
	}
}
