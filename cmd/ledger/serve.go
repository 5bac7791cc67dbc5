package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/wire"
)

func hostnameOr(def string) string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return def
}

func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("serve", "", "Runs the ledger: the embedded NATS server with JetStream (unless --nats names one), the\n"+
		"LEDGER stream, and the bbolt projection, kept up to date with every record any writer appends.\n"+
		"Stop it with Ctrl-C (SIGINT) or SIGTERM; a restart resumes from the projection's checkpoint.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	lf.create, lf.persistProjection = true, true
	fl.StringVar(&lf.listen, "listen", "", "embedded server only: also accept NATS clients on this address (host:port), so other\nprocesses can use --nats nats://host:port; without --nats-config (authentication) only a loopback host\nis accepted (':PORT' binds 127.0.0.1) unless --insecure")
	insecure := fl.Bool("insecure", false, "let --listen accept unauthenticated NATS clients on a non-loopback address: anyone who reaches it\nmay append, set policy and rewrite the stream")
	level := fl.String("log-level", "info", "structured JSON logs on stderr at this level: debug, info, warn, error")
	name := fl.String("name", hostnameOr("ledger"), "this replica's name, shown by 'nats micro info ledger'")
	maxWait := fl.Duration("max-wait", 2*time.Second, "how long a query with min_seq waits for this replica to catch up before answering not_caught_up")
	noAPI := fl.Bool("no-api", false, "do not serve the ledger micro service (only keep the projection current)")
	metricsAddr := fl.String("metrics", "", "serve Prometheus metrics at http://ADDR/metrics (for example :9090)")
	var web httpServer
	web.register(fl)
	var hooks hookServer
	hooks.register(fl)
	genAuth := fl.String("gen-auth", "", "write a NATS authorization block for the roles below to FILE ('-' for stdout) and exit; include it\nin the NATS server configuration (or pass it to --nats-config)")
	svcUsers := fl.String("service-users", "ledger", "with --gen-auth: the ledger service's users, name[:password],...")
	orchUsers := fl.String("orchestrators", "", "with --gen-auth: orchestrator users (each name is its owner token), name[:password],...")
	opUsers := fl.String("operators", "", "with --gen-auth: operator users (policy and grants), name[:password],...")
	audUsers := fl.String("auditors", "", "with --gen-auth: auditor users (read and replay only), name[:password],...")
	scopeSpec := fl.String("scopes", "", "with --gen-auth: limit operators and orchestrators to scopes, user=scope+scope,... (\"default\" names\nthe default scope; a user not listed is not limited); written to FILE.scopes.json for --scope-limits")
	limitsFile := fl.String("scope-limits", "", "limit operators and orchestrators to scopes as this JSON file says ({\"users\": {\"alice\": [\"cc:a\"]}},\nwhat --gen-auth --scopes writes): an operator changes policy, grants and revocations of its scopes only,\nan orchestrator starts roots in its scopes only")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if *genAuth != "" {
		return writeAuth(*genAuth, lf.stream, *svcUsers, *orchUsers, *opUsers, *audUsers, *scopeSpec, stdout)
	}
	if *scopeSpec != "" {
		return usageError("--scopes goes with --gen-auth; to serve with scope limits, give --scope-limits FILE")
	}
	var limits *api.ScopeLimits
	if *limitsFile != "" {
		b, err := os.ReadFile(*limitsFile)
		if err != nil {
			return fmt.Errorf("--scope-limits: %w", err)
		}
		if limits, err = api.DecodeScopeLimits(b); err != nil {
			return fmt.Errorf("--scope-limits %s: %w", *limitsFile, err)
		}
	}
	if err := hooks.check(); err != nil {
		return err
	}
	if err := web.check(); err != nil {
		return err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return usageError("--log-level %q: use debug, info, warn or error", *level)
	}
	lf.logger = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: lv}))
	if err := bindListen(&lf, *insecure); err != nil {
		return err
	}
	var m *ledgerMetrics
	if *metricsAddr != "" {
		m = newLedgerMetrics()
		lf.onConflict = m.conflicts.Inc
	}
	lf.checkStore = true
	h, err := lf.open(ctx)
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
	where := "embedded NATS server, data in " + lf.data
	if lf.natsURL != "" {
		where = "NATS at " + lf.natsURL
	} else if lf.listen != "" {
		where += ", clients on " + h.ns.ClientURL()
	}
	fmt.Fprintf(stdout, "ledger serving: stream %s on %s; projection at sequence %d\n", h.log.Name(), where, h.svc.Position())
	// Every goroutine serve starts runs as an actor of g, and g.run returns
	// only once each has ended (TestServeLeavesNoGoroutines); the HTTP
	// servers' goroutines are their helpers', whose stop returns once
	// Serve has (http.Server.Shutdown). The actors stop in the reverse of
	// the order they are added here: on SIGINT or SIGTERM (or when the
	// follower fails) first the front ends that take requests, the hooks
	// server, the console (whose streams read through the API), the API,
	// then the follower, then the lag sampler and the metrics server, so
	// that /metrics answers to the end; the NATS connection and the embedded server close after g.run
	// (h.Close). Each actor's context is its own, not ctx: the signal ends
	// them only through g, in that order.
	var g runGroup
	base := context.WithoutCancel(ctx)
	if m != nil {
		metrics, err := m.serve(*metricsAddr, lf.logger)
		if err != nil {
			return g.abort(fmt.Errorf("--metrics %s: %w", *metricsAddr, err))
		}
		g.add(metrics.run, metrics.stop)
		sctx, stopSampler := context.WithCancel(base)
		g.add(func() error { m.sampleLag(sctx, h.svc, h.log, time.Second); return nil }, stopSampler)
	}
	fctx, stopFollower := context.WithCancel(base)
	g.add(func() error {
		err := h.svc.Run(fctx)
		if fctx.Err() != nil && errors.Is(err, context.Canceled) {
			err = nil // stopped by g, on SIGINT or SIGTERM
		}
		return err
	}, stopFollower)
	if !*noAPI {
		cfg := api.Config{Service: h.svc, Instance: *name, MaxWait: *maxWait, Logger: lf.logger, ScopeLimits: limits}
		if m != nil {
			cfg.Observer = m
		}
		actx, stopBatcher := context.WithCancel(base)
		srv, err := api.Start(actx, h.nc, cfg)
		if err != nil {
			stopBatcher()
			return g.abort(err)
		}
		// The batcher ends with actx, and Stop waits for it.
		g.addStop(func() { stopBatcher(); _ = srv.Stop() })
		lf.logger.Info("api", "service", wire.ServiceName, "version", wire.ServiceVersion, "subjects", wire.Prefix+".>", "instance", *name)
	}
	// why is where 'ledger why' finds this ledger, for the hooks' answers
	// and the console's denials: serve's own connection, or the embedded
	// server's client URL when it listens.
	why := lf.conn()
	if lf.natsURL == "" && lf.listen != "" {
		why.NATS, why.Data = h.ns.ClientURL(), ""
	}
	if web.addr != "" {
		site, err := web.serve(h.svc, h.nc, why, lf.logger)
		if err != nil {
			return g.abort(fmt.Errorf("--http %s: %w", web.addr, err))
		}
		g.add(site.run, site.stop)
		if *noAPI {
			lf.logger.Warn("the console at --http reads through the ledger's API, which --no-api does not serve here: it needs another replica serving it on the same NATS", "addr", web.addr)
		}
	}
	if hooks.addr != "" {
		hooksActor, err := hooks.serve(h.nc, why, lf.logger)
		if err != nil {
			return g.abort(fmt.Errorf("--hooks %s: %w", hooks.addr, err))
		}
		g.add(hooksActor.run, hooksActor.stop)
	}
	quit := make(chan struct{})
	g.add(func() error {
		select {
		case <-ctx.Done(): // SIGINT or SIGTERM
		case <-quit:
		}
		return nil
	}, func() { close(quit) })
	lf.logger.Info("serving", "stream", h.log.Name(), "position", h.svc.Position())
	err = g.run()
	fmt.Fprintf(stdout, "ledger stopped at sequence %d\n", h.svc.Position())
	lf.logger.Info("stopped", "position", h.svc.Position())
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
