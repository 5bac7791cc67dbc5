package mcpgw

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/sessionledger/ledger/events"
)

// NewToken is a new client token (Config.Clients): 32 random bytes,
// base64url ('ledger mcp --gen-token').
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// client is the configured client whose token a request carries: its
// name, and ok false when the gateway has clients and the request names
// none of them. A gateway without clients serves every request as "".
func (g *Gateway) client(r *http.Request) (name string, ok bool) {
	if len(g.cfg.Clients) == 0 {
		return "", true
	}
	tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found {
		return "", false
	}
	// Every token is compared, in constant time, so that the answer's
	// time tells nothing of which one came close.
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	for _, n := range sortedKeys(g.cfg.Clients) {
		want := sha256.Sum256([]byte(g.cfg.Clients[n].Token))
		if subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
			name, ok = n, true
		}
	}
	return name, ok
}

// authorize answers a request the configured clients do not allow (and
// reports false): no token or an unknown one (401), a new MCP session
// naming a ledger session its client may not (403), or another client's
// MCP session (403). key is the ledger session a new MCP session names.
func (g *Gateway) authorize(w http.ResponseWriter, r *http.Request, key events.SessionKey) (client string, ok bool) {
	client, ok = g.client(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ledger mcp"`)
		http.Error(w, "the ledger MCP gateway needs a client token: send Authorization: Bearer TOKEN, a token of its config's \"clients\"", http.StatusUnauthorized)
		return "", false
	}
	if len(g.cfg.Clients) == 0 {
		return "", true
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		g.mu.Lock()
		owner, known := g.mcpClients[sid]
		g.mu.Unlock()
		if known && owner != client {
			http.Error(w, fmt.Sprintf("client %s may not use another client's MCP session", client), http.StatusForbidden)
			return "", false
		}
		return client, true
	}
	if key != "" && !g.cfg.Clients[client].allows(key) {
		http.Error(w, fmt.Sprintf("client %s may not name ledger session %q (its config's sessions: %s)", client, key, strings.Join(g.cfg.Clients[client].Sessions, ", ")), http.StatusForbidden)
		return "", false
	}
	return client, true
}

// ErrInsecureListen is CheckListen's refusal.
var ErrInsecureListen = errors.New("mcp: listening beyond loopback without client tokens")

// CheckListen says whether the gateway may serve HTTP on addr, where it
// listens, with config c: on a loopback address always; beyond loopback
// (a routable address, or every address: 0.0.0.0, [::]) only when the
// config names clients (Config.Clients: every request must carry a
// token) or insecure is set, else an error wrapping ErrInsecureListen
// that says what to do. warning, when not empty, is to be shown whenever
// the gateway serves beyond loopback (TestListenBeyondLoopback).
func CheckListen(addr net.Addr, c *Config, insecure bool) (warning string, err error) {
	tcp, ok := addr.(*net.TCPAddr)
	if ok && tcp.IP.IsLoopback() {
		return "", nil
	}
	switch {
	case len(c.Clients) > 0:
		return fmt.Sprintf("ledger mcp: warning: serving MCP beyond loopback on %s: every client must send one of the config's %d client tokens", addr, len(c.Clients)), nil
	case insecure:
		return fmt.Sprintf("ledger mcp: warning: serving MCP beyond loopback on %s with --insecure: any client that reaches it may name any session of the gateway's owner", addr), nil
	}
	return "", fmt.Errorf("%w: --listen %s is reachable beyond this host and the config names no \"clients\", so any client that reaches it could name any session of the gateway's owner; give each client a token in the config (docs/mcp-gateway.md, Clients), listen on 127.0.0.1, or pass --insecure", ErrInsecureListen, addr)
}
