package mcpgw

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// getListing GETs the gateway's listing at mcpURL with headers.
func getListing(t *testing.T, mcpURL string, headers map[string]string) (int, Listing, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, mcpURL+ListingPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var l Listing
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("the listing is not JSON: %v: %s", err, b)
		}
	}
	return res.StatusCode, l, string(b)
}

// closedURL is an HTTP URL on loopback where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/mcp"
}

// TestListing: a GET of the MCP URL followed by ListingPath answers every
// upstream tool whatever the policy allows (the denied secret too), with
// the names clients see in each expose mode, and the servers it could not
// list; with client tokens it needs one, as every other request does.
func TestListing(t *testing.T) {
	f := start(t)
	own := []string{"die", "echo", "fail", "grow", "pid", "rpcerr", "secret"}
	exposed := func(l Listing) (servers, tools, names []string) {
		for _, x := range l.Tools {
			servers, tools, names = append(servers, x.Server), append(tools, x.Tool), append(names, x.Exposed)
		}
		return
	}
	for _, c := range []struct {
		name, more string
		names      []string
	}{
		{"prefixed", "", []string{"t__die", "t__echo", "t__fail", "t__grow", "t__pid", "t__rpcerr", "t__secret"}},
		{"bare", `, "expose": "bare"`, own},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.gateway(t, testUpstream(t, c.more), Options{})
			url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
			status, l, body := getListing(t, url, nil)
			_, tools, names := exposed(l)
			if status != http.StatusOK || l.Format != ListingFormat || !slices.Equal(tools, own) || !slices.Equal(names, c.names) || len(l.Unlisted) != 0 {
				t.Fatalf("listing: %d %s; want the tools %v exposed as %v", status, body, own, c.names)
			}
		})
	}
	t.Run("a server down", func(t *testing.T) {
		exe := testUpstream(t, "")
		doc := strings.Replace(string(exe), `{"servers": {`, fmt.Sprintf(`{"servers": {"web": {"url": %q}, `, closedURL(t)), 1)
		f.gateway(t, []byte(doc), Options{})
		url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
		status, l, body := getListing(t, url, nil)
		servers, _, _ := exposed(l)
		if status != http.StatusOK || len(l.Tools) != len(own) || slices.Contains(servers, "web") || len(l.Unlisted) != 1 || l.Unlisted[0].Server != "web" || l.Unlisted[0].Error == "" {
			t.Fatalf("listing with web down: %d %s; want t's tools and web unlisted", status, body)
		}
	})
	t.Run("client tokens", func(t *testing.T) {
		tok := NewToken()
		f.gateway(t, testUpstream(t, fmt.Sprintf(`, "clients": {"alice": {"token": %q, "sessions": ["s1"]}}`, tok)), Options{})
		url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
		if status, _, body := getListing(t, url, nil); status != http.StatusUnauthorized {
			t.Errorf("listing without a token: %d %s; want 401", status, body)
		}
		if status, l, body := getListing(t, url, map[string]string{"Authorization": "Bearer " + tok}); status != http.StatusOK || len(l.Tools) != len(own) {
			t.Errorf("listing with alice's token: %d %s", status, body)
		}
	})
}

// TestHookListsTheGateway: Claude Code's hook (cchook.MCPTools) reads a
// project's .mcp.json that names this gateway over HTTP, with its token
// from the environment, and gets every upstream tool under the name Claude
// Code gives it and under the gateway's own claude-code name; so the
// listing's format is the one the hook reads.
func TestHookListsTheGateway(t *testing.T) {
	f := start(t)
	tok := NewToken()
	f.gateway(t, testUpstream(t, fmt.Sprintf(`, "clients": {"cc": {"token": %q, "sessions": ["*"]}}`, tok)), Options{})
	url := "http://" + ledgertest.ServeHTTP(t, f.gw.Handler("")) + "/mcp"
	dir := t.TempDir()
	mcpJSON := fmt.Sprintf(`{"mcpServers": {"ledger": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${GW_TOKEN}", "Ledger-Session": "${LEDGER_SESSION}"}}}}`, url)
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(mcpJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		if k == "GW_TOKEN" {
			return tok, true
		}
		return "", false
	}
	got, warns := cchook.MCPTools(t.Context(), dir, "", nil, env)
	var want []string
	for _, tool := range []string{"die", "echo", "fail", "grow", "pid", "rpcerr", "secret"} {
		want = append(want, "mcp__ledger__t__"+tool, "mcp__t__"+tool)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) || len(warns) != 0 {
		t.Fatalf("the hook's MCP tools: %v, warnings %v; want %v", got, warns, want)
	}
	// Without the token the gateway refuses the listing, and the hook
	// knows no tool of it, saying so.
	got, warns = cchook.MCPTools(t.Context(), dir, "", nil, func(string) (string, bool) { return "", false })
	if len(got) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "401") {
		t.Fatalf("the hook's MCP tools without the token: %v, warnings %v", got, warns)
	}
}
