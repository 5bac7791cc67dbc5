package mcpgw

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/wire"
)

// send sends one request of method to the gateway at url with headers and
// body, and returns the status and the body.
func send(t *testing.T, method, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	code, _, b := request(t, method, url, body, headers)
	return code, b
}

// TestMadeUpMcpSessionStartsNothing: a request naming an Mcp-Session-Id
// the gateway never gave (POST, GET, DELETE), with a Ledger-Session
// header its client may not name, starts and joins no ledger session and
// uses none of Options.MaxStarted; the client's own session is then
// started and served.
func TestMadeUpMcpSessionStartsNothing(t *testing.T) {
	f := start(t)
	tok := NewToken()
	f.gateway(t, testUpstream(t, fmt.Sprintf(`, "clients": {"ci": {"token": %q, "sessions": ["ci-*"]}}`, tok)), Options{Start: "main", MaxStarted: 1})
	url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
	auth := "Bearer " + tok
	if status, body := send(t, http.MethodPost, url, initialize, map[string]string{DefaultHeader: "victim", "Authorization": auth}); status != http.StatusForbidden {
		t.Fatalf("initialize naming victim: %d %q; want 403", status, body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, c := range []struct {
		method, key string
	}{
		{http.MethodPost, "victim"},
		{http.MethodGet, "junk1"},
		{http.MethodDelete, "junk2"},
		{http.MethodPost, "ci-junk"}, // a key the client may name: still not on a made-up MCP session
	} {
		status, body := send(t, c.method, url, list, map[string]string{DefaultHeader: c.key, "Mcp-Session-Id": "made-up", "Authorization": auth})
		if status != http.StatusNotFound {
			t.Errorf("%s on a made-up MCP session naming %s: %d %q; want 404", c.method, c.key, status, body)
		}
		if _, err := f.orch.Session(t.Context(), events.SessionKey(c.key)); events.CodeOf(err) != events.CodeUnknownSession {
			t.Errorf("%s on a made-up MCP session naming %s: the ledger has it (%v); want unknown_session", c.method, c.key, err)
		}
		if f.gw.session(events.SessionKey(c.key)) != nil {
			t.Errorf("%s on a made-up MCP session naming %s: the gateway made a session of it", c.method, c.key)
		}
	}
	// MaxStarted is 1: the client's own session is still started.
	sdk := mcp.NewClient(&mcp.Implementation{Name: "ci", Version: "1"}, nil)
	hc := &http.Client{Transport: authRT{key: "ci-1", token: tok}}
	cs, err := sdk.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := listed(t, cs); !slices.Contains(got, "t__echo") {
		t.Fatalf("ci-1's tools/list = %v; want the session started and served", got)
	}
}

// checkAnswers is a Requester that passes every request to the ledger but
// a check, which it answers itself when answer is set: a ledger answering
// oddly.
type checkAnswers struct {
	nc     *nats.Conn
	answer atomic.Pointer[func(wire.Query) wire.CheckResult]
}

func (c *checkAnswers) RequestWithContext(ctx context.Context, subject string, data []byte) (*nats.Msg, error) {
	if a := c.answer.Load(); a != nil && subject == wire.SubjectUnder(wire.Prefix, wire.EndpointCheck, "gw") {
		var q wire.Query
		if err := json.Unmarshal(data, &q); err != nil {
			return nil, err
		}
		b, err := json.Marshal((*a)(q))
		if err != nil {
			return nil, err
		}
		return &nats.Msg{Subject: subject, Data: b, Header: nats.Header{}}, nil
	}
	return c.nc.RequestWithContext(ctx, subject, data)
}

// TestUnrecordedAllowIsRefused: a check answer that says allow but was
// not recorded (no recorded sequence), or that names another session or
// another tool, is refused as a tool error, as a denial is, saying the
// ledger's answer was not a recorded allow; nothing is forwarded. The
// same answer recorded for the session and tool is forwarded (the control).
func TestUnrecordedAllowIsRefused(t *testing.T) {
	f := start(t)
	ca := &checkAnswers{nc: f.l.Connect()}
	f.gateway(t, testUpstream(t, ""), Options{Ledger: client.NewOn(ca, client.Options{Owner: "gw"})})
	cs := f.dial(t, f.key)
	// The policy denies mcp__t__secret: only the answers below allow it.
	for _, c := range []struct {
		name    string
		answer  func(wire.Query) wire.CheckResult
		refused bool
	}{
		{"a bare allow", func(wire.Query) wire.CheckResult { return wire.CheckResult{Decision: envelope.Allow} }, true},
		{"an allow with no recorded sequence", func(q wire.Query) wire.CheckResult {
			return wire.CheckResult{Session: q.Session, Tool: q.Tool, Decision: envelope.Allow}
		}, true},
		{"an allow of another session", func(q wire.Query) wire.CheckResult {
			return wire.CheckResult{Session: "other", Tool: q.Tool, Decision: envelope.Allow, Recorded: 99}
		}, true},
		{"an allow of another tool", func(q wire.Query) wire.CheckResult {
			return wire.CheckResult{Session: q.Session, Tool: "mcp__t__echo", Decision: envelope.Allow, Recorded: 99}
		}, true},
		{"a recorded allow of the session and tool (control)", func(q wire.Query) wire.CheckResult {
			return wire.CheckResult{Session: q.Session, Tool: q.Tool, Decision: envelope.Allow, Recorded: 99}
		}, false},
	} {
		ca.answer.Store(&c.answer)
		res, err := call(t, cs, "t__secret", map[string]any{})
		if err != nil {
			t.Fatalf("%s: a JSON-RPC error %v; want a tool result", c.name, err)
		}
		text := resultText(res)
		if !c.refused {
			if res.IsError || text != "the secret" {
				t.Fatalf("%s: %q (isError %v); want it forwarded", c.name, text, res.IsError)
			}
			continue
		}
		if !res.IsError || !strings.Contains(text, "was not a recorded allow") || strings.Contains(text, "the secret") {
			t.Errorf("%s: %q (isError %v); want a refusal saying the answer was not a recorded allow, nothing forwarded", c.name, text, res.IsError)
		}
	}
}

// TestOversizedFirstPostIs413: a new MCP session's first POST over
// mcp.DefaultMaxRequestBodyBytes is answered 413, naming the limit, as
// the SDK answers one on an existing session; without a client token the
// same request is 401, the token being checked before the body is read.
func TestOversizedFirstPostIs413(t *testing.T) {
	f := start(t)
	tok := NewToken()
	f.gateway(t, testUpstream(t, fmt.Sprintf(`, "clients": {"ci": {"token": %q, "sessions": ["*"]}}`, tok)), Options{})
	url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"},"_meta":{"pad":"` +
		strings.Repeat("x", mcp.DefaultMaxRequestBodyBytes+1<<20) + `"}}}`
	status, body := send(t, http.MethodPost, url, big, map[string]string{DefaultHeader: "s1", "Authorization": "Bearer " + tok})
	if want := fmt.Sprintf("request body exceeds %d bytes", mcp.DefaultMaxRequestBodyBytes); status != http.StatusRequestEntityTooLarge || !strings.Contains(body, want) {
		t.Errorf("an oversized initialize: %d %q; want 413 saying %q", status, body, want)
	}
	if status, body := send(t, http.MethodPost, url, big, map[string]string{DefaultHeader: "s1"}); status != http.StatusUnauthorized {
		t.Errorf("an oversized initialize without a token: %d %q; want 401", status, body)
	}
}
