package mcpgw

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// initialize is a raw initialize request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one MCP request to the gateway at url with headers, and
// returns the status, the MCP session id and the body.
func post(t *testing.T, url, body string, headers map[string]string) (int, string, string) {
	t.Helper()
	return request(t, http.MethodPost, url, body, headers)
}

// request is post with another method.
func request(t *testing.T, method, url, body string, headers map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(b)
}

// TestClientTokens: a gateway whose config names clients serves only
// requests carrying one's token, lets each client name only the ledger
// sessions its config allows (a key, a prefix), and keeps each MCP session
// to the client that made it.
func TestClientTokens(t *testing.T) {
	f := start(t)
	alice, bob := NewToken(), NewToken()
	f.gateway(t, testUpstream(t, fmt.Sprintf(`, "clients": {"alice": {"token": %q, "sessions": ["s1"]}, "bob": {"token": %q, "sessions": ["team-*"]}}`, alice, bob)), Options{})
	url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
	for _, c := range []struct {
		name    string
		headers map[string]string
		status  int
		says    string
	}{
		{"no token", map[string]string{DefaultHeader: "s1"}, http.StatusUnauthorized, "needs a client token"},
		{"an unknown token", map[string]string{DefaultHeader: "s1", "Authorization": "Bearer " + NewToken()}, http.StatusUnauthorized, "needs a client token"},
		{"a session the client may not name", map[string]string{DefaultHeader: "s2", "Authorization": "Bearer " + alice}, http.StatusForbidden, `client alice may not name ledger session "s2"`},
		{"another client's session", map[string]string{DefaultHeader: "s1", "Authorization": "Bearer " + bob}, http.StatusForbidden, `client bob may not name ledger session "s1"`},
		{"its own session", map[string]string{DefaultHeader: "s1", "Authorization": "Bearer " + alice}, http.StatusOK, ""},
		{"a session under its prefix", map[string]string{DefaultHeader: "team-x", "Authorization": "Bearer " + bob}, http.StatusOK, ""},
	} {
		status, _, body := post(t, url, initialize, c.headers)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %q; want %d saying %q", c.name, status, body, c.status, c.says)
		}
	}
	// An MCP session is its client's: bob may not use alice's.
	status, sid, _ := post(t, url, initialize, map[string]string{DefaultHeader: "s1", "Authorization": "Bearer " + alice})
	if status != http.StatusOK || sid == "" {
		t.Fatalf("alice's initialize: %d, session %q", status, sid)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if status, _, body := post(t, url, list, map[string]string{"Mcp-Session-Id": sid, "Authorization": "Bearer " + bob}); status != http.StatusForbidden {
		t.Errorf("bob on alice's MCP session: %d %q; want 403", status, body)
	}
	// The SDK's client with alice's token is served as ever.
	c := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, nil)
	hc := &http.Client{Transport: authRT{key: "s1", token: alice}}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, want := listed(t, cs), ledgerListed(t, f); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("alice's tools/list = %v, want %v", got, want)
	}
	for _, doc := range []string{
		`{"servers": {"a": {"command": ["x"]}}, "clients": {"c": {"token": "short", "sessions": ["*"]}}}`,
		`{"servers": {"a": {"command": ["x"]}}, "clients": {"c": {"token": "` + alice + `"}}}`,
		`{"servers": {"a": {"command": ["x"]}}, "clients": {"c": {"token": "` + alice + `", "sessions": ["*"]}, "d": {"token": "` + alice + `", "sessions": ["*"]}}}`,
	} {
		if _, err := ParseConfig([]byte(doc)); err == nil {
			t.Errorf("%s: taken", doc)
		}
	}
}

// authRT adds the ledger session header and a client token.
type authRT struct{ key, token string }

func (a authRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(DefaultHeader, a.key)
	r.Header.Set("Authorization", "Bearer "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestListenBeyondLoopback: 'ledger mcp --listen' on an address beyond
// loopback is refused (exit 2, saying what to do) when the config names
// no clients, and served with a warning on standard error with --insecure
// or client tokens; loopback without tokens is served as before, with no
// warning (CheckListen).
func TestListenBeyondLoopback(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 8931} }
	open, _ := ParseConfig([]byte(`{"servers": {"a": {"command": ["x"]}}}`))
	tokens, _ := ParseConfig([]byte(`{"servers": {"a": {"command": ["x"]}}, "clients": {"c": {"token": "` + NewToken() + `", "sessions": ["*"]}}}`))
	for _, c := range []struct {
		addr     net.Addr
		cfg      *Config
		insecure bool
		warn     bool
		err      bool
	}{
		{tcp("127.0.0.1"), open, false, false, false},
		{tcp("::1"), open, false, false, false},
		{tcp("0.0.0.0"), open, false, false, true},
		{tcp("::"), open, false, false, true},
		{tcp("192.0.2.7"), open, false, false, true},
		{tcp("0.0.0.0"), open, true, true, false},
		{tcp("0.0.0.0"), tokens, false, true, false},
		{tcp("127.0.0.1"), tokens, false, false, false},
	} {
		warn, err := CheckListen(c.addr, c.cfg, c.insecure)
		if (warn != "") != c.warn || (err != nil) != c.err || err != nil && !errors.Is(err, ErrInsecureListen) {
			t.Errorf("CheckListen(%v, %d clients, insecure %v) = %q, %v", c.addr, len(c.cfg.Clients), c.insecure, warn, err)
		}
	}
	if testing.Short() {
		t.Skip("builds the ledger binary")
	}
	bin := ledgertest.BuildLedger(t)
	l := apitest.Start(t, apitest.Options{Listen: true})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"servers": {"a": {"command": ["x"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Refused: it exits, 2, saying what to do.
	rctx, rcancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer rcancel()
	out, err := exec.CommandContext(rctx, bin, "mcp", "--config", cfg, "--nats", l.NS.ClientURL(), "--listen", "0.0.0.0:0").CombinedOutput()
	var ee *exec.ExitError
	switch {
	case rctx.Err() != nil:
		t.Errorf("--listen 0.0.0.0:0 without clients is served (output %q); want it refused", out)
	case !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `names no "clients"`) || !strings.Contains(string(out), "--insecure"):
		t.Errorf("--listen 0.0.0.0:0 without clients: %v, %q; want exit 2 saying to give tokens or --insecure", err, out)
	}
	// Served with --insecure, after a warning.
	cmd := exec.Command(bin, "mcp", "--config", cfg, "--nats", l.NS.ClientURL(), "--listen", "0.0.0.0:0", "--insecure")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(stderr)
	lines := make(chan string, 4)
	go func() {
		defer close(lines)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var got []string
	for !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "serving MCP on") }) {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("--insecure: it ended without serving; stderr %q", got)
			}
			got = append(got, line)
		case <-ctx.Done():
			t.Fatalf("--insecure: no 'serving' line; stderr %q", got)
		}
	}
	if !strings.Contains(strings.Join(got, ""), "warning: serving MCP beyond loopback") {
		t.Errorf("--insecure on 0.0.0.0: stderr %q; want a warning", got)
	}
}

// TestStartIsBounded: a gateway that starts sessions (Options.Start)
// starts at most Options.MaxStarted that are live; past it a new session
// is refused, saying the limit, and nothing is appended for it.
func TestStartIsBounded(t *testing.T) {
	f := start(t)
	f.gateway(t, testUpstream(t, ""), Options{Start: "main", MaxStarted: 2})
	for _, key := range []events.SessionKey{"fresh1", "fresh2"} {
		if got := listed(t, f.dial(t, key)); !slices.Contains(got, "t__echo") {
			t.Fatalf("%s: tools/list = %v", key, got)
		}
	}
	cs := f.dial(t, "fresh3")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "--max-started 2") {
		t.Fatalf("tools/list of a third started session: %v; want a refusal naming the limit", err)
	}
	if res, err := call(t, cs, "t__echo", map[string]any{"text": "x"}); err != nil || !res.IsError || !strings.Contains(resultText(res), "--max-started 2") {
		t.Fatalf("call of a third started session = %v, %v", res, err)
	}
	if _, err := f.orch.Session(t.Context(), "fresh3"); events.CodeOf(err) != events.CodeUnknownSession {
		t.Fatalf("fresh3 in the ledger: %v; want unknown_session", err)
	}
}
