package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/wire"
)

func hostnameOr(def string) string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return def
}

// serveAbout is the description 'serve --help' prints.
const serveAbout = "Runs the ledger: the embedded NATS server with JetStream (unless --nats names one), the\n" +
	"LEDGER stream, and the bbolt projection, kept up to date with every record any writer appends.\n" +
	"Stop it with Ctrl-C (SIGINT) or SIGTERM; a restart resumes from the projection's checkpoint."

// serveFlags are serve's flags: the ledger's, the console's (--http), the
// hooks server's (--hooks), the MCP gateway's (--mcp), serve's own, and --gen-auth's.
type serveFlags struct {
	lf    ledgerFlags
	web   httpServer
	hooks hookServer
	mcp   mcpFront

	insecure, noAPI          bool
	level, name, metricsAddr string
	maxWait                  time.Duration
	maxPolls                 int
	limitsFile               string

	genAuth, svcUsers, orchUsers, opUsers, audUsers, scopeSpec string

	// api is the API this process serves (nil with --no-api), set by
	// addAPI: the front ends' requests go to it directly.
	api *api.Server
}

func (f *serveFlags) register(fl *flag.FlagSet) {
	f.lf.register(fl)
	f.lf.create, f.lf.persistProjection = true, true
	fl.StringVar(&f.lf.listen, "listen", "", "embedded server only: also accept NATS clients on this address (host:port), so other\nprocesses can use --nats nats://host:port; without --nats-config (authentication) only a loopback host\nis accepted (':PORT' binds 127.0.0.1) unless --insecure")
	fl.BoolVar(&f.insecure, "insecure", false, "let --listen accept unauthenticated NATS clients on a non-loopback address: anyone who reaches it\nmay append, set policy and rewrite the stream")
	fl.StringVar(&f.level, "log-level", "info", "structured JSON logs on stderr at this level: debug, info, warn, error")
	fl.StringVar(&f.name, "name", hostnameOr("ledger"), "this replica's name, shown by 'nats micro info ledger'")
	fl.DurationVar(&f.maxWait, "max-wait", 2*time.Second, "how long a query with min_seq waits for this replica to catch up before answering not_caught_up,\nand a watch or denials long poll waits for something new before answering with nothing")
	fl.IntVar(&f.maxPolls, "max-polls", 256, "how many long polls (watches, denials with wait) of one owner may wait at once; one more that finds\nnothing is answered at once with nothing, and the client pauses before asking again")
	fl.BoolVar(&f.noAPI, "no-api", false, "do not serve the ledger micro service (only keep the projection current)")
	fl.StringVar(&f.metricsAddr, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics (for example :9090)")
	f.web.register(fl)
	f.hooks.register(fl)
	f.mcp.register(fl)
	fl.StringVar(&f.genAuth, "gen-auth", "", "write a NATS authorization block for the roles below to FILE ('-' for stdout) and exit; include it\nin the NATS server configuration (or pass it to --nats-config)")
	fl.StringVar(&f.svcUsers, "service-users", "ledger", "with --gen-auth: the ledger service's users, name[:password],...")
	fl.StringVar(&f.orchUsers, "orchestrators", "", "with --gen-auth: orchestrator users (each name is its owner token), name[:password],...")
	fl.StringVar(&f.opUsers, "operators", "", "with --gen-auth: operator users (policy and grants), name[:password],...")
	fl.StringVar(&f.audUsers, "auditors", "", "with --gen-auth: auditor users (read and replay only), name[:password],...")
	fl.StringVar(&f.scopeSpec, "scopes", "", "with --gen-auth: limit operators and orchestrators to scopes, user=scope+scope,... (\"default\" names\nthe default scope; a user not listed is not limited); written to FILE.scopes.json for --scope-limits")
	fl.StringVar(&f.limitsFile, "scope-limits", "", "limit operators and orchestrators to scopes as this JSON file says ({\"users\": {\"alice\": [\"cc:a\"]}},\nwhat --gen-auth --scopes writes): an operator changes policy, grants and revocations of its scopes only,\nan orchestrator starts roots in its scopes only")
}

// prepare checks the flags, in the order the errors are reported, reads
// --scope-limits, and sets the ledger's logger and listen address.
func (f *serveFlags) prepare(stderr io.Writer) (*api.ScopeLimits, error) {
	if f.scopeSpec != "" {
		return nil, usageError("--scopes goes with --gen-auth; to serve with scope limits, give --scope-limits FILE")
	}
	limits, err := readScopeLimits(f.limitsFile)
	if err != nil {
		return nil, err
	}
	if err := f.hooks.check(); err != nil {
		return nil, err
	}
	if err := f.mcp.check(); err != nil {
		return nil, err
	}
	if err := f.web.check(); err != nil {
		return nil, err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(f.level)); err != nil {
		return nil, usageError("--log-level %q: use debug, info, warn or error", f.level)
	}
	f.lf.logger = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: lv}))
	if err := bindListen(&f.lf, f.insecure); err != nil {
		return nil, err
	}
	return limits, nil
}

// readScopeLimits reads --scope-limits; nil (no limits) without one.
func readScopeLimits(file string) (*api.ScopeLimits, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--scope-limits: %w", err)
	}
	limits, err := api.DecodeScopeLimits(b)
	if err != nil {
		return nil, fmt.Errorf("--scope-limits %s: %w", file, err)
	}
	return limits, nil
}

// where says where the ledger runs, for the line serve prints first.
func (f *serveFlags) where(h *ledgerHandle) string {
	switch {
	case f.lf.natsURL != "":
		return "NATS at " + f.lf.natsURL
	case f.lf.listen != "":
		return "embedded NATS server, data in " + f.lf.data + ", clients on " + h.ns.ClientURL()
	}
	return "embedded NATS server, data in " + f.lf.data
}

// addActors adds serve's actors to g in the order runServe's comment
// explains (they stop in the reverse order); on a failure it stops those
// already added (g.abort).
func (f *serveFlags) addActors(ctx context.Context, g *runGroup, h *ledgerHandle, m *ledgerMetrics, limits *api.ScopeLimits) error {
	base := context.WithoutCancel(ctx)
	if err := f.addMetrics(g, base, h, m); err != nil {
		return g.abort(err)
	}
	addFollower(g, base, h)
	if err := f.addAPI(g, base, h, m, limits); err != nil {
		return g.abort(err)
	}
	if err := f.addFrontEnds(g, h); err != nil {
		return g.abort(err)
	}
	quit := make(chan struct{})
	g.add(func() error {
		select {
		case <-ctx.Done(): // SIGINT or SIGTERM
		case <-quit:
		}
		return nil
	}, func() { close(quit) })
	return nil
}

// addMetrics adds, with --metrics, the metrics server and the lag
// sampler.
func (f *serveFlags) addMetrics(g *runGroup, base context.Context, h *ledgerHandle, m *ledgerMetrics) error {
	if m == nil {
		return nil
	}
	metrics, err := m.serve(f.metricsAddr, f.lf.logger)
	if err != nil {
		return fmt.Errorf("--metrics %s: %w", f.metricsAddr, err)
	}
	g.add(metrics.run, metrics.stop)
	sctx, stopSampler := context.WithCancel(base)
	g.add(func() error { m.sampleLag(sctx, h.svc, h.log, time.Second); return nil }, stopSampler)
	return nil
}

// addFollower adds the follower, which keeps the projection current.
func addFollower(g *runGroup, base context.Context, h *ledgerHandle) {
	fctx, stopFollower := context.WithCancel(base)
	g.add(func() error {
		err := h.svc.Run(fctx)
		if fctx.Err() != nil && errors.Is(err, context.Canceled) {
			err = nil // stopped by g, on SIGINT or SIGTERM
		}
		return err
	}, stopFollower)
}

// addAPI starts the ledger's API (unless --no-api) and adds its stop.
func (f *serveFlags) addAPI(g *runGroup, base context.Context, h *ledgerHandle, m *ledgerMetrics, limits *api.ScopeLimits) error {
	if f.noAPI {
		return nil
	}
	cfg := api.Config{Service: h.svc, Instance: f.name, MaxWait: f.maxWait, MaxPolls: f.maxPolls, Logger: f.lf.logger, ScopeLimits: limits}
	if m != nil {
		cfg.Observer = m
	}
	actx, stopBatcher := context.WithCancel(base)
	srv, err := api.Start(actx, h.nc, cfg)
	if err != nil {
		stopBatcher()
		return err
	}
	// The batcher ends with actx, and Stop waits for it.
	g.addStop(func() { stopBatcher(); _ = srv.Stop() })
	f.api = srv
	f.lf.logger.Info("api", "service", wire.ServiceName, "version", wire.ServiceVersion, "subjects", wire.Prefix+".>", "instance", f.name)
	return nil
}

// addFrontEnds adds the console (--http), the hooks server (--hooks),
// then the MCP gateway (--mcp).
func (f *serveFlags) addFrontEnds(g *runGroup, h *ledgerHandle) error {
	// why is where 'ledger why' finds this ledger, for the hooks' answers
	// and the console's denials: serve's own connection, or the embedded
	// server's client URL when it listens.
	why := f.lf.conn()
	if f.lf.natsURL == "" && f.lf.listen != "" {
		why.NATS, why.Data = h.ns.ClientURL(), ""
	}
	// The front ends ask this process's API without the NATS server when
	// it serves here (api.Server.RequestWithContext), else the replicas
	// serving it on the same NATS.
	var req client.Requester = h.nc
	if f.api != nil {
		req = f.api
	}
	if f.web.addr != "" {
		site, err := f.web.serve(h.svc, req, why, f.lf.logger)
		if err != nil {
			return fmt.Errorf("--http %s: %w", f.web.addr, err)
		}
		g.add(site.run, site.stop)
		if f.noAPI {
			f.lf.logger.Warn("the console at --http reads through the ledger's API, which --no-api does not serve here: it needs another replica serving it on the same NATS", "addr", f.web.addr)
		}
	}
	if f.hooks.addr != "" {
		hooksActor, err := f.hooks.serve(req, why, f.lf.logger)
		if err != nil {
			return fmt.Errorf("--hooks %s: %w", f.hooks.addr, err)
		}
		g.add(hooksActor.run, hooksActor.stop)
	}
	if f.mcp.cfg != nil {
		mcpActor, err := f.mcp.serve(req, why, f.lf.logger)
		if err != nil {
			return fmt.Errorf("--mcp %s: %w", f.mcp.flags.config, err)
		}
		g.add(mcpActor.run, mcpActor.stop)
	}
	return nil
}

// runServe is 'ledger serve'.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("serve", "", serveAbout, stderr)
	var f serveFlags
	f.register(fl)
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if f.genAuth != "" {
		return writeAuth(f.genAuth, f.lf.stream, f.svcUsers, f.orchUsers, f.opUsers, f.audUsers, f.scopeSpec, stdout)
	}
	limits, err := f.prepare(stderr)
	if err != nil {
		return err
	}
	var m *ledgerMetrics
	if f.metricsAddr != "" {
		m = newLedgerMetrics()
		f.lf.onConflict = m.conflicts.Inc
		f.lf.onRound = func(n int) { m.RoundRecords.Observe(float64(n)) }
	}
	h, err := f.lf.open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// SIGINT or SIGTERM while starting: a stop, not a failure.
			fmt.Fprintln(stdout, "ledger stopped while starting")
			return nil
		}
		return err
	}
	defer h.Close()
	if err := checkStorage(ctx, h); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ledger serving: stream %s on %s; projection at sequence %d\n", h.log.Name(), f.where(h), h.svc.Position())
	// Every goroutine serve starts runs as an actor of g, and g.run returns
	// only once each has ended (TestServeLeavesNoGoroutines); the HTTP
	// servers' goroutines are their helpers', whose stop returns once
	// Serve has (http.Server.Shutdown). The actors stop in the reverse of
	// the order addActors adds them: on SIGINT or SIGTERM (or when the
	// follower fails) first the front ends that take requests, the hooks
	// server, the console (whose streams read through the API), the API,
	// then the follower, then the lag sampler and the metrics server, so
	// that /metrics answers to the end; the NATS connection and the
	// embedded server close after g.run (h.Close). Each actor's context is
	// its own, not ctx: the signal ends them only through g, in that order.
	var g runGroup
	if err := f.addActors(ctx, &g, h, m, limits); err != nil {
		return err
	}
	f.lf.logger.Info("serving", "stream", h.log.Name(), "position", h.svc.Position(), "durability", f.lf.durability(h))
	err = g.run()
	fmt.Fprintf(stdout, "ledger stopped at sequence %d\n", h.svc.Position())
	f.lf.logger.Info("stopped", "position", h.svc.Position())
	return err
}

// bindListen keeps an unauthenticated --listen on loopback: without
// --nats-config every client of the embedded server may do anything,
// publish records straight onto the stream included. ':PORT' becomes
// 127.0.0.1:PORT; another host needs --nats-config or --insecure.
func bindListen(lf *ledgerFlags, insecure bool) error {
	if lf.listen == "" || lf.natsURL != "" || lf.natsConfig != "" {
		return nil
	}
	if insecure {
		lf.logger.Warn("--insecure: NATS clients on --listen need no authentication; anyone who reaches it may append, set policy and write the stream", "listen", lf.listen)
		return nil
	}
	host, _, err := net.SplitHostPort(lf.listen)
	if err != nil {
		return usageError("--listen %q: want host:port (%v)", lf.listen, err)
	}
	if host != "" && !isLoopback(host) {
		return usageError("--listen %s: without authentication the embedded server accepts clients on loopback only; give --nats-config with the roles 'ledger serve --gen-auth' writes, or --insecure to accept anyone", lf.listen)
	}
	lf.listen = loopbackUnlessHost(lf.listen)
	lf.logger.Warn("NATS clients on --listen need no authentication: listening on loopback only (give --nats-config for other hosts)", "listen", lf.listen)
	return nil
}

// loopbackUnlessHost gives an address without a host (':8080') the
// loopback host: a wider bind must be asked for by name.
func loopbackUnlessHost(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// writeAuth writes the NATS authorization block for the given users;
// passwords left out are generated.
func writeAuth(path, stream, svc, orch, ops, aud, scopes string, stdout io.Writer) error {
	conf, err := api.AuthConfig(&api.Roles{Service: api.ParseUsers(svc), Orchestrators: api.ParseUsers(orch),
		Operators: api.ParseUsers(ops), Auditors: api.ParseUsers(aud)}, stream)
	if err != nil {
		return err
	}
	var limits []byte
	if scopes != "" {
		l, err := api.ParseScopeLimits(scopes)
		if err != nil {
			return usageError("--scopes: %v", err)
		}
		if limits, err = json.MarshalIndent(l, "", "  "); err != nil {
			return err
		}
		limits = append(limits, '\n')
	}
	if path == "-" {
		if limits != nil {
			return usageError("--scopes writes FILE.scopes.json beside the authorization: give --gen-auth a FILE, not -")
		}
		_, err = io.WriteString(stdout, conf)
		return err
	}
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the NATS authorization for the ledger's roles to %s (it holds passwords: keep it private)\n", path)
	if limits != nil {
		if err := os.WriteFile(path+".scopes.json", limits, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the scope limits to %s.scopes.json: serve with --scope-limits %s.scopes.json\n", path, path)
	}
	return nil
}
