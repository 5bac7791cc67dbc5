package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	osuser "os/user"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/mcpgw"
	"github.com/sessionledger/ledger/wire"
)

// runMCP is 'ledger mcp': the MCP gateway of internal/mcpgw
// (docs/mcp-gateway.md), on standard input and output (stdio, one session)
// or on streamable HTTP (--listen).
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("mcp", "--config FILE (--session KEY | --listen ADDR)",
		"Runs the MCP gateway: an MCP server to its clients and an MCP client to the upstream servers of\n"+
			"the config file (stdio commands, streamable-HTTP URLs). tools/list answers the session's tool\n"+
			"set in the ledger at its current turn (server S's tool T is S__T, or T with \"expose\": \"bare\");\n"+
			"every tools/call is checked and recorded (tool.checked, then tool.effect_started) before it is\n"+
			"forwarded, and a denial answers a tool error with the reason code, the rule and the 'ledger why'\n"+
			"command. A new turn whose tool set changes what a client sees sends\n"+
			"notifications/tools/list_changed.\n\n"+
			"Without --listen the gateway serves one client on standard input and output as ledger session\n"+
			"--session KEY (what an MCP client's stdio server entry runs). With --listen it serves\n"+
			"streamable HTTP at http://ADDR/mcp, each MCP session naming its ledger session as the config's\n"+
			"session.from says (the "+mcpgw.DefaultHeader+" header by default, or its initialize request's\n"+
			"_meta[\""+mcpgw.SessionMeta+"\"]), or every one being --session KEY when given.\n"+
			"The gateway is an orchestrator of the ledger (owner --owner, default --user) and talks to it\n"+
			"through its API on --nats. A session it starts (--start) is bound to its scope: --scope, else\n"+
			"the config's \"scope\", else mcp:<the config file's base name>; the operator's policy.set must\n"+
			"name that scope. See docs/mcp-gateway.md for the config file.", stderr)
	config := fl.String("config", "", "the gateway's config `FILE` (JSON: servers, session mapping; required)")
	sessionKey := fl.String("session", "", "the ledger session `KEY` the client's session maps to (required without --listen)")
	listen := fl.String("listen", "", "serve streamable HTTP on this `ADDR` (host:port) instead of standard input and output")
	natsURL := fl.String("nats", envOr("NATS_URL", nats.DefaultURL), "the `URL` of the NATS server the ledger serves its API on (env NATS_URL)")
	creds := fl.String("creds", os.Getenv("NATS_CREDS"), "NATS credentials `FILE` (env NATS_CREDS)")
	user := fl.String("user", os.Getenv("NATS_USER"), "NATS user `NAME` (env NATS_USER); with the roles of 'ledger serve --gen-auth', an orchestrator")
	password := fl.String("password", os.Getenv("NATS_PASSWORD"), "NATS password (env NATS_PASSWORD)")
	owner := fl.String("owner", os.Getenv("LEDGER_OWNER"), "the orchestrator `NAME` whose sessions the gateway serves (env LEDGER_OWNER; default: --user, else mcp)")
	start := fl.String("start", "", "start a session the ledger does not know (session.started with this `AGENT`, then turn.started 1)\ninstead of refusing it; without it the gateway only joins sessions the owner has started")
	scope := fl.String("scope", "", "the ledger `SCOPE` the sessions the gateway starts are bound to\n(default: the config's \"scope\", else mcp:<config file base name>)")
	identity := fl.String("identity", "", "who the sessions the gateway starts run for, recorded as session.started's user\n(default: the OS user the gateway runs as)")
	timeout := fl.Duration("timeout", 5*time.Second, "bound on each request to the ledger")
	why := fl.String("why", "", "the `COMMAND` a denial tells to run to explain it, as words separated by spaces\n(default: ledger why with the gateway's --nats, --creds and --user, so that it reaches the same ledger)")
	idle := fl.Duration("idle-timeout", mcpgw.DefaultIdleTimeout, "close an HTTP MCP session after this long without a request, and forget a ledger session with no MCP session as long")
	insecure := fl.Bool("insecure", false, "with --listen beyond loopback: serve without client tokens (any client that reaches it may name any session of the owner)")
	callTimeout := fl.Duration("call-timeout", mcpgw.DefaultCallTimeout, "bound on each upstream tools/call; past it the call is cancelled and answered a tool error")
	maxResult := fl.Int("max-result-bytes", mcpgw.DefaultMaxResultBytes, "bound on one upstream answer, in `BYTES`; a larger one is dropped and answered a tool error")
	maxStarted := fl.Int("max-started", mcpgw.DefaultMaxStarted, "with --start: bound on the live sessions the gateway has started; past it a new session is refused")
	genToken := fl.Bool("gen-token", false, "print a new client token (for the config's \"clients\") and exit")
	verbose := fl.Bool("verbose", false, "log upstream and ledger trouble on standard error (always logged: upstream restarts)")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 0 {
		return usageError("mcp takes no arguments (got %q)", pos[0])
	}
	if *genToken {
		fmt.Fprintln(stdout, mcpgw.NewToken())
		return nil
	}
	if *callTimeout <= 0 || *maxResult <= 0 || *maxStarted <= 0 {
		return usageError("mcp: --call-timeout, --max-result-bytes and --max-started must be positive")
	}
	if *config == "" {
		return usageError("mcp: --config FILE is required")
	}
	if *listen == "" && *sessionKey == "" {
		return usageError("mcp: --session KEY is required on standard input and output (or serve HTTP with --listen ADDR)")
	}
	cfg, err := mcpgw.LoadConfig(*config)
	if err != nil {
		return usageError("mcp: %v", err)
	}
	if *listen != "" && *sessionKey == "" && cfg.Session.From == mcpgw.FromKey {
		return usageError("mcp: the config maps every session to one key (session.from \"key\"): give it with --session KEY")
	}
	name := *owner
	if name == "" {
		name = *user
	}
	if name == "" {
		name = "mcp"
	}
	if !wire.ValidOwner(name) {
		return usageError("mcp: owner %q is not a valid orchestrator name ([A-Za-z0-9_-]{1,64}, not %q)", name, wire.ScopeAll)
	}
	sc, err := mcpgw.ScopeOf(*scope, cfg, *config)
	if err != nil {
		return usageError("mcp: --%v", err)
	}
	who := *identity
	if who == "" {
		if u, err := osuser.Current(); err == nil {
			who = u.Username
		}
	}
	if len(who) > events.MaxIdentityLen {
		return usageError("mcp: --identity is %d bytes; the limit is %d", len(who), events.MaxIdentityLen)
	}
	host, _ := os.Hostname()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	opts := []nats.Option{nats.Name("ledger mcp"), nats.Timeout(connectTimeout), nats.MaxReconnects(-1)}
	if *creds != "" {
		opts = append(opts, nats.UserCredentials(*creds))
	}
	if *user != "" {
		opts = append(opts, nats.UserInfo(*user, *password), nats.CustomInboxPrefix(client.InboxPrefix(*user)))
	}
	nc, err := nats.Connect(*natsURL, opts...)
	if err != nil {
		return fmt.Errorf("connecting to NATS at %s as %q: %w", redactURL(*natsURL), *user, err)
	}
	defer nc.Close()
	whyWords := strings.Fields(*why)
	if len(whyWords) == 0 {
		whyWords = ledgercmd.Conn{NATS: *natsURL, Creds: *creds, User: *user}.Words("why")
	}
	gw, err := mcpgw.New(cfg, mcpgw.Options{
		Ledger:         client.New(nc, client.Options{Owner: name, Timeout: *timeout}),
		Start:          *start,
		Scope:          sc,
		User:           who,
		Host:           host,
		Why:            whyWords,
		Logger:         logger,
		IdleTimeout:    *idle,
		CallTimeout:    *callTimeout,
		MaxResultBytes: *maxResult,
		MaxStarted:     *maxStarted,
	})
	if err != nil {
		return err
	}
	defer gw.Close()

	if *listen == "" {
		err := gw.ServeStdio(ctx, events.SessionKey(*sessionKey), io.NopCloser(stdin), nopWriteCloser{stdout})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageError("mcp: --listen %s: %v", *listen, err)
	}
	warning, err := mcpgw.CheckListen(ln.Addr(), cfg, *insecure)
	if err != nil {
		ln.Close()
		return usageError("%v", err)
	}
	if warning != "" {
		fmt.Fprintln(stderr, warning)
	}
	srv := &http.Server{Handler: gw.Handler(events.SessionKey(*sessionKey)), ReadHeaderTimeout: 10 * time.Second}
	starting := ""
	if *start != "" {
		starting = fmt.Sprintf(", starting sessions as %s in scope %s", *start, sc)
	}
	fmt.Fprintf(stderr, "ledger mcp: serving MCP on http://%s/mcp as orchestrator %s%s\n", ln.Addr(), name, starting)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	}
}

// nopWriteCloser is standard output as the MCP transport takes it: the
// gateway does not close the process's standard output.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
