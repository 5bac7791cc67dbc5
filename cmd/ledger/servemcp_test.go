package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/mcpgw"
)

// echoUpstream serves an MCP server on loopback streamable HTTP with two
// tools, echo (answers "echo: TEXT") and secret, and returns its URL.
func echoUpstream(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	for _, name := range []string{"echo", "secret"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &args)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ": " + args.Text}}}, nil
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// headerRT adds the gateway's ledger session header.
type headerRT struct{ key string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(mcpgw.DefaultHeader, h.key)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeMCP: 'serve --mcp FILE --mcp-listen ADDR' runs the MCP gateway
// in the ledger's process. Sessions it starts are bound to the config's
// scope (mcp:gw for gw.json); an allowed call is forwarded and recorded as
// one tool.checked that starts its effect, a denied one refused with the
// reason; sixteen sessions calling at once each get their own answers
// (the in-process requests share the API's pooled answer buffers:
// api.TestLocalAnswersAreTheirOwn). Its usage errors come before the
// ledger opens.
func TestServeMCP(t *testing.T) {
	up := echoUpstream(t)
	cfg := filepath.Join(t.TempDir(), "gw.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"servers": {"t": {"url": %q}}}`, up), 0o644); err != nil {
		t.Fatal(err)
	}
	natsURL, mcpURL := serveLedgerFor(t, "mcp", "--mcp", cfg, "--mcp-listen", "127.0.0.1:0", "--mcp-owner", "gw", "--mcp-start", "main", "--mcp-identity", "ada")
	if !strings.HasPrefix(mcpURL, "http://127.0.0.1:") {
		t.Fatalf("serve logged the gateway at %q", mcpURL)
	}
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := t.Context()
	doc := json.RawMessage(`{"permissions": {"allow": ["mcp__t"], "deny": ["mcp__t__secret"]}}`)
	if _, err := client.New(nc, client.Options{}).Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Scope: "mcp:gw",
		Document: doc, Catalogue: []string{"mcp__t__echo", "mcp__t__secret"}})); err != nil {
		t.Fatal(err)
	}
	dial := func(key string) *mcp.ClientSession {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "serve-mcp-test", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: mcpURL, HTTPClient: &http.Client{Transport: headerRT{key}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	callText := func(cs *mcp.ClientSession, tool, text string) (string, bool) {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": text}})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var out []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				out = append(out, tc.Text)
			}
		}
		return strings.Join(out, ""), res.IsError
	}
	cs := dial("serve-mcp-1")
	if got, isErr := callText(cs, "t__echo", "hi"); isErr || got != "echo: hi" {
		t.Fatalf("t__echo answered %q (error %v), want the upstream's echo", got, isErr)
	}
	if got, isErr := callText(cs, "t__secret", "x"); !isErr || !strings.Contains(got, "denied mcp__t__secret") {
		t.Fatalf("t__secret answered %q (error %v), want a denial", got, isErr)
	}
	// The session was started in the config's scope, as the gateway's
	// orchestrator, for --mcp-identity; each call is one record, a
	// tool.checked that starts its effect.
	view, err := client.New(nc, client.Options{Owner: "gw"}).Session(ctx, "serve-mcp-1")
	if err != nil {
		t.Fatal(err)
	}
	if view.Scope != "mcp:gw" || view.Identity == nil || view.Identity.User != "ada" {
		t.Errorf("the started session: scope %q, identity %+v; want mcp:gw and user ada", view.Scope, view.Identity)
	}
	out, errOut, err := runCLI(t, "", "log", "--nats", natsURL, "--json")
	if err != nil {
		t.Fatalf("log: %v %s", err, errOut)
	}
	var checked, effects int
	for line := range strings.Lines(out) {
		var r struct {
			Type    string
			Session string
			Data    struct{ Effect bool }
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Session != "serve-mcp-1" {
			continue
		}
		switch r.Type {
		case string(events.ToolChecked):
			checked++
			if r.Data.Effect {
				effects++
			}
		case string(events.EffectStarted):
			t.Errorf("a tool.effect_started of its own: %s", line)
		}
	}
	if checked != 2 || effects != 2 {
		t.Errorf("the two calls made %d tool.checked, %d starting their effect; want 2 and 2:\n%s", checked, effects, out)
	}

	const n, each = 16, 10
	sessions := make([]*mcp.ClientSession, n)
	for i := range sessions {
		sessions[i] = dial(fmt.Sprintf("serve-mcp-c%02d", i))
	}
	var wg sync.WaitGroup
	errs := make(chan string, n*each)
	for i, cs := range sessions {
		wg.Go(func() {
			for j := range each {
				text := fmt.Sprintf("%d-%d", i, j)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t__echo", Arguments: map[string]any{"text": text}})
				if err != nil {
					errs <- err.Error()
					return
				}
				if len(res.Content) != 1 || res.IsError || res.Content[0].(*mcp.TextContent).Text != "echo: "+text {
					errs <- fmt.Sprintf("session %d call %d answered %+v", i, j, res.Content)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	for _, u := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--mcp", cfg}, "--mcp needs --mcp-listen ADDR"},
		{[]string{"--mcp-listen", "127.0.0.1:0"}, "--mcp-listen goes with --mcp FILE"},
		{[]string{"--mcp", filepath.Join(t.TempDir(), "none.json"), "--mcp-listen", "127.0.0.1:0"}, "no such file"},
		{[]string{"--mcp", cfg, "--mcp-listen", "127.0.0.1:0", "--mcp-owner", "all"}, `--mcp-owner "all"`},
		{[]string{"--mcp", cfg, "--mcp-listen", "127.0.0.1:0", "--mcp-scope", "a b"}, `--mcp-scope "a b"`},
		{[]string{"--mcp", cfg, "--mcp-listen", "127.0.0.1:0", "--mcp-call-timeout", "0s"}, "must be positive"},
	} {
		_, errOut, err := runCLI(t, "", append([]string{"serve", "--data", filepath.Join(t.TempDir(), "d")}, u.args...)...)
		if err == nil || !strings.Contains(err.Error()+errOut, u.msg) {
			t.Errorf("serve %s: %v %q; want an error saying %q", strings.Join(u.args, " "), err, errOut, u.msg)
		}
	}
}
