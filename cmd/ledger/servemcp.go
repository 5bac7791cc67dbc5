package main

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/mcpgw"
	"github.com/sessionledger/ledger/wire"
)

// mcpFront is 'serve --mcp': the MCP gateway of 'ledger mcp --listen' run
// in the ledger's own process, its requests to the ledger made through
// this process's API (api.Server.RequestWithContext) rather than over the
// NATS server: a call's check is one request that never leaves the
// process (docs/mcp-gateway.md, "In the ledger's process").
type mcpFront struct {
	flags mcpFlags
	cfg   *mcpgw.Config
}

func (m *mcpFront) register(fl *flag.FlagSet) {
	f := &m.flags
	fl.StringVar(&f.config, "mcp", "", "serve the MCP gateway (as 'ledger mcp --listen' does) in this process with the config `FILE`;\nits checks go to this process's API without the NATS server (docs/mcp-gateway.md)")
	fl.StringVar(&f.listen, "mcp-listen", "", "with --mcp: serve streamable HTTP at http://ADDR/mcp (required with --mcp)")
	fl.StringVar(&f.sessionKey, "mcp-session", "", "with --mcp: map every MCP session to the ledger session `KEY` (as 'ledger mcp --session')")
	fl.StringVar(&f.owner, "mcp-owner", "mcp", "with --mcp: the orchestrator `NAME` whose sessions the gateway serves")
	fl.StringVar(&f.start, "mcp-start", "", "with --mcp: start a session the ledger does not know (session.started with this `AGENT`, then\nturn.started 1) instead of refusing it")
	fl.StringVar(&f.scope, "mcp-scope", "", "with --mcp: the ledger `SCOPE` the sessions the gateway starts are bound to\n(default: the config's \"scope\", else mcp:<config file base name>)")
	fl.StringVar(&f.identity, "mcp-identity", "", "with --mcp: who the sessions the gateway starts run for (default: the OS user serve runs as)")
	fl.BoolVar(&f.insecure, "mcp-insecure", false, "with --mcp-listen beyond loopback: serve without client tokens")
	fl.DurationVar(&f.timeout, "mcp-timeout", 5*time.Second, "with --mcp: bound on each request to the ledger")
	fl.DurationVar(&f.idle, "mcp-idle-timeout", mcpgw.DefaultIdleTimeout, "with --mcp: close an MCP session after this long without a request")
	fl.DurationVar(&f.callTimeout, "mcp-call-timeout", mcpgw.DefaultCallTimeout, "with --mcp: bound on each upstream tools/call")
	fl.IntVar(&f.maxResult, "mcp-max-result-bytes", mcpgw.DefaultMaxResultBytes, "with --mcp: bound on one upstream answer, in `BYTES`")
	fl.IntVar(&f.maxStarted, "mcp-max-started", mcpgw.DefaultMaxStarted, "with --mcp-start: bound on the live sessions the gateway has started")
}

// check validates the gateway's flags and reads its config before the
// ledger opens; nothing to do without --mcp.
func (m *mcpFront) check() error {
	f := &m.flags
	if f.config == "" {
		if f.listen != "" {
			return usageError("--mcp-listen goes with --mcp FILE")
		}
		return nil
	}
	if f.listen == "" {
		return usageError("--mcp needs --mcp-listen ADDR: in serve, the gateway serves streamable HTTP (for one client on standard input and output, run 'ledger mcp --session KEY')")
	}
	if f.callTimeout <= 0 || f.maxResult <= 0 || f.maxStarted <= 0 || f.timeout <= 0 {
		return usageError("--mcp-timeout, --mcp-call-timeout, --mcp-max-result-bytes and --mcp-max-started must be positive")
	}
	if len(f.identity) > events.MaxIdentityLen {
		return usageError("--mcp-identity is %d bytes; the limit is %d", len(f.identity), events.MaxIdentityLen)
	}
	if f.scope != "" && !events.ValidScope(f.scope) {
		return usageError("--mcp-scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	if !wire.ValidOwner(f.owner) {
		return usageError("--mcp-owner %q: an owner is [A-Za-z0-9_-]{1,64} and not %q", f.owner, wire.ScopeAll)
	}
	cfg, err := mcpgw.LoadConfig(f.config)
	if err != nil {
		return usageError("--mcp: %v", err)
	}
	if f.sessionKey == "" && cfg.Session.From == mcpgw.FromKey {
		return usageError("--mcp: the config maps every session to one key (session.from \"key\"): give it with --mcp-session KEY")
	}
	m.cfg = cfg
	return nil
}

// serve starts the gateway on req (this process's API, or serve's NATS
// connection with --no-api) and returns its HTTP server, bound; denials
// tell to run 'ledger why' at why.
func (m *mcpFront) serve(req client.Requester, why ledgercmd.Conn, logger *slog.Logger) (*httpActor, error) {
	f := &m.flags
	sc, err := mcpgw.ScopeOf(f.scope, m.cfg, f.config)
	if err != nil {
		return nil, usageError("--mcp-%v", err)
	}
	who, err := f.identityName()
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return nil, usageError("--mcp-listen %s: %v", f.listen, err)
	}
	warning, err := mcpgw.CheckListen(ln.Addr(), m.cfg, f.insecure)
	if err != nil {
		ln.Close()
		return nil, usageError("%v", err)
	}
	if warning != "" {
		logger.Warn(warning, "addr", ln.Addr().String())
	}
	gw, err := mcpgw.New(m.cfg, f.gatewayOptions(client.NewOn(req, client.Options{Owner: f.owner, Timeout: f.timeout}), sc, who, host, why.Words("why"), logger))
	if err != nil {
		ln.Close()
		return nil, err
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	logger.Info("mcp", "addr", ln.Addr().String(), "url", url, "owner", f.owner, "scope", sc, "start", f.start)
	srv := &http.Server{Handler: gw.Handler(events.SessionKey(f.sessionKey)), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	return &httpActor{name: "mcp", srv: srv, ln: ln, cancel: func() { cancel(); gw.Close() }}, nil
}
