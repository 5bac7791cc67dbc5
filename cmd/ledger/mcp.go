package main

import (
	"context"
	"errors"
	"flag"
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

// mcpAbout is the description 'mcp --help' prints.
const mcpAbout = "Runs the MCP gateway: an MCP server to its clients and an MCP client to the upstream servers of\n" +
	"the config file (stdio commands, streamable-HTTP URLs). tools/list answers the session's tool\n" +
	"set in the ledger at its current turn (server S's tool T is S__T, or T with \"expose\": \"bare\");\n" +
	"every tools/call is checked and recorded (tool.checked, then tool.effect_started) before it is\n" +
	"forwarded, and a denial answers a tool error with the reason code, the rule and the 'ledger why'\n" +
	"command. A new turn whose tool set changes what a client sees sends\n" +
	"notifications/tools/list_changed.\n\n" +
	"Without --listen the gateway serves one client on standard input and output as ledger session\n" +
	"--session KEY (what an MCP client's stdio server entry runs). With --listen it serves\n" +
	"streamable HTTP at http://ADDR/mcp, each MCP session naming its ledger session as the config's\n" +
	"session.from says (the " + mcpgw.DefaultHeader + " header by default, or its initialize request's\n" +
	"_meta[\"" + mcpgw.SessionMeta + "\"]), or every one being --session KEY when given.\n" +
	"The gateway is an orchestrator of the ledger (owner --owner, default --user) and talks to it\n" +
	"through its API on --nats. A session it starts (--start) is bound to its scope: --scope, else\n" +
	"the config's \"scope\", else mcp:<the config file's base name>; the operator's policy.set must\n" +
	"name that scope. See docs/mcp-gateway.md for the config file."

// mcpFlags are mcp's flags.
type mcpFlags struct {
	config, sessionKey, listen         string
	natsURL, creds, user, password     string
	owner, start, scope, identity, why string
	timeout, idle, callTimeout         time.Duration
	maxResult, maxStarted              int
	insecure, genToken, verbose        bool
}

func (f *mcpFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&f.config, "config", "", "the gateway's config `FILE` (JSON: servers, session mapping; required)")
	fl.StringVar(&f.sessionKey, "session", "", "the ledger session `KEY` the client's session maps to (required without --listen)")
	fl.StringVar(&f.listen, "listen", "", "serve streamable HTTP on this `ADDR` (host:port) instead of standard input and output")
	fl.StringVar(&f.natsURL, "nats", envOr("NATS_URL", nats.DefaultURL), "the `URL` of the NATS server the ledger serves its API on (env NATS_URL)")
	fl.StringVar(&f.creds, "creds", os.Getenv("NATS_CREDS"), "NATS credentials `FILE` (env NATS_CREDS)")
	fl.StringVar(&f.user, "user", os.Getenv("NATS_USER"), "NATS user `NAME` (env NATS_USER); with the roles of 'ledger serve --gen-auth', an orchestrator")
	fl.StringVar(&f.password, "password", os.Getenv("NATS_PASSWORD"), "NATS password (env NATS_PASSWORD)")
	fl.StringVar(&f.owner, "owner", os.Getenv("LEDGER_OWNER"), "the orchestrator `NAME` whose sessions the gateway serves (env LEDGER_OWNER; default: --user, else mcp)")
	fl.StringVar(&f.start, "start", "", "start a session the ledger does not know (session.started with this `AGENT`, then turn.started 1)\ninstead of refusing it; without it the gateway only joins sessions the owner has started")
	fl.StringVar(&f.scope, "scope", "", "the ledger `SCOPE` the sessions the gateway starts are bound to\n(default: the config's \"scope\", else mcp:<config file base name>)")
	fl.StringVar(&f.identity, "identity", "", "who the sessions the gateway starts run for, recorded as session.started's user\n(default: the OS user the gateway runs as)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "bound on each request to the ledger")
	fl.StringVar(&f.why, "why", "", "the `COMMAND` a denial tells to run to explain it, as words separated by spaces\n(default: ledger why with the gateway's --nats, --creds and --user, so that it reaches the same ledger)")
	fl.DurationVar(&f.idle, "idle-timeout", mcpgw.DefaultIdleTimeout, "close an HTTP MCP session after this long without a request, and forget a ledger session with no MCP session as long")
	fl.BoolVar(&f.insecure, "insecure", false, "with --listen beyond loopback: serve without client tokens (any client that reaches it may name any session of the owner)")
	fl.DurationVar(&f.callTimeout, "call-timeout", mcpgw.DefaultCallTimeout, "bound on each upstream tools/call; past it the call is cancelled and answered a tool error")
	fl.IntVar(&f.maxResult, "max-result-bytes", mcpgw.DefaultMaxResultBytes, "bound on one upstream answer, in `BYTES`; a larger one is dropped and answered a tool error")
	fl.IntVar(&f.maxStarted, "max-started", mcpgw.DefaultMaxStarted, "with --start: bound on the live sessions the gateway has started; past it a new session is refused")
	fl.BoolVar(&f.genToken, "gen-token", false, "print a new client token (for the config's \"clients\") and exit")
	fl.BoolVar(&f.verbose, "verbose", false, "log upstream and ledger trouble on standard error (always logged: upstream restarts)")
}

// validate checks the flags that need no config file, in the order the
// errors are reported.
func (f *mcpFlags) validate() error {
	if f.callTimeout <= 0 || f.maxResult <= 0 || f.maxStarted <= 0 {
		return usageError("mcp: --call-timeout, --max-result-bytes and --max-started must be positive")
	}
	if f.config == "" {
		return usageError("mcp: --config FILE is required")
	}
	if f.listen == "" && f.sessionKey == "" {
		return usageError("mcp: --session KEY is required on standard input and output (or serve HTTP with --listen ADDR)")
	}
	return nil
}

// loadConfig reads --config; a config mapping every session to one key
// needs that key (--session) even with --listen.
func (f *mcpFlags) loadConfig() (*mcpgw.Config, error) {
	cfg, err := mcpgw.LoadConfig(f.config)
	if err != nil {
		return nil, usageError("mcp: %v", err)
	}
	if f.listen != "" && f.sessionKey == "" && cfg.Session.From == mcpgw.FromKey {
		return nil, usageError("mcp: the config maps every session to one key (session.from \"key\"): give it with --session KEY")
	}
	return cfg, nil
}

// ownerName is the orchestrator the gateway serves: --owner, else --user,
// else mcp.
func (f *mcpFlags) ownerName() (string, error) {
	name := f.owner
	if name == "" {
		name = f.user
	}
	if name == "" {
		name = "mcp"
	}
	if !wire.ValidOwner(name) {
		return "", usageError("mcp: owner %q is not a valid orchestrator name ([A-Za-z0-9_-]{1,64}, not %q)", name, wire.ScopeAll)
	}
	return name, nil
}

// identityName is whom the sessions the gateway starts run for:
// --identity, else the OS user.
func (f *mcpFlags) identityName() (string, error) {
	who := f.identity
	if who == "" {
		if u, err := osuser.Current(); err == nil {
			who = u.Username
		}
	}
	if len(who) > events.MaxIdentityLen {
		return "", usageError("mcp: --identity is %d bytes; the limit is %d", len(who), events.MaxIdentityLen)
	}
	return who, nil
}

// logger logs warnings on stderr, and with --verbose information too.
func (f *mcpFlags) logger(stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// connect connects to the ledger's NATS server, reconnecting for ever.
func (f *mcpFlags) connect() (*nats.Conn, error) {
	opts := []nats.Option{nats.Name("ledger mcp"), nats.Timeout(connectTimeout), nats.MaxReconnects(-1)}
	if f.creds != "" {
		opts = append(opts, nats.UserCredentials(f.creds))
	}
	if f.user != "" {
		opts = append(opts, nats.UserInfo(f.user, f.password), nats.CustomInboxPrefix(client.InboxPrefix(f.user)))
	}
	nc, err := nats.Connect(f.natsURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s as %q: %w", redactURL(f.natsURL), f.user, err)
	}
	return nc, nil
}

// whyWords is the command a denial tells to run: --why, else ledger why
// reaching the same ledger as the gateway.
func (f *mcpFlags) whyWords() []string {
	if w := strings.Fields(f.why); len(w) > 0 {
		return w
	}
	return ledgercmd.Conn{NATS: f.natsURL, Creds: f.creds, User: f.user}.Words("why")
}

// serveStdio serves one client on stdin and stdout until it hangs up or
// ctx ends, neither of which is an error.
func (f *mcpFlags) serveStdio(ctx context.Context, gw *mcpgw.Gateway, stdin io.Reader, stdout io.Writer) error {
	err := gw.ServeStdio(ctx, events.SessionKey(f.sessionKey), io.NopCloser(stdin), nopWriteCloser{stdout})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// serveHTTP serves streamable HTTP on --listen until ctx ends.
func (f *mcpFlags) serveHTTP(ctx context.Context, gw *mcpgw.Gateway, cfg *mcpgw.Config, name, sc string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageError("mcp: --listen %s: %v", f.listen, err)
	}
	warning, err := mcpgw.CheckListen(ln.Addr(), cfg, f.insecure)
	if err != nil {
		ln.Close()
		return usageError("%v", err)
	}
	if warning != "" {
		fmt.Fprintln(stderr, warning)
	}
	srv := &http.Server{Handler: gw.Handler(events.SessionKey(f.sessionKey)), ReadHeaderTimeout: 10 * time.Second}
	starting := ""
	if f.start != "" {
		starting = fmt.Sprintf(", starting sessions as %s in scope %s", f.start, sc)
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

// runMCP is 'ledger mcp': the MCP gateway of internal/mcpgw
// (docs/mcp-gateway.md), on standard input and output (stdio, one session)
// or on streamable HTTP (--listen).
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("mcp", "--config FILE (--session KEY | --listen ADDR)", mcpAbout, stderr)
	var f mcpFlags
	f.register(fl)
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 0 {
		return usageError("mcp takes no arguments (got %q)", pos[0])
	}
	if f.genToken {
		fmt.Fprintln(stdout, mcpgw.NewToken())
		return nil
	}
	if err := f.validate(); err != nil {
		return err
	}
	cfg, err := f.loadConfig()
	if err != nil {
		return err
	}
	name, err := f.ownerName()
	if err != nil {
		return err
	}
	sc, err := mcpgw.ScopeOf(f.scope, cfg, f.config)
	if err != nil {
		return usageError("mcp: --%v", err)
	}
	who, err := f.identityName()
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	logger := f.logger(stderr)
	nc, err := f.connect()
	if err != nil {
		return err
	}
	defer nc.Close()
	gw, err := mcpgw.New(cfg, f.gatewayOptions(client.New(nc, client.Options{Owner: name, Timeout: f.timeout}), sc, who, host, f.whyWords(), logger))
	if err != nil {
		return err
	}
	defer gw.Close()
	if f.listen == "" {
		return f.serveStdio(ctx, gw, stdin, stdout)
	}
	return f.serveHTTP(ctx, gw, cfg, name, sc, stderr)
}

// gatewayOptions are the gateway's options as the flags set them, its
// requests to the ledger made through c ('ledger mcp' and 'serve --mcp').
func (f *mcpFlags) gatewayOptions(c *client.Client, scope, who, host string, why []string, logger *slog.Logger) mcpgw.Options {
	return mcpgw.Options{
		Ledger:         c,
		Start:          f.start,
		Scope:          scope,
		User:           who,
		Host:           host,
		Why:            why,
		Logger:         logger,
		IdleTimeout:    f.idle,
		CallTimeout:    f.callTimeout,
		MaxResultBytes: f.maxResult,
		MaxStarted:     f.maxStarted,
	}
}

// nopWriteCloser is standard output as the MCP transport takes it: the
// gateway does not close the process's standard output.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
