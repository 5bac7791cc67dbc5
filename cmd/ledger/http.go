package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/console"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/safefile"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// httpServer is what 'ledger serve --http' serves: the live console
// (internal/console) at /, the audit report of the running ledger at
// /report (?session=ROOT for one tree, ?to=SEQ for an earlier position),
// and GET /healthz, which answers "ok" with the projection's position.
type httpServer struct {
	addr, viewersFile string
	viewers           *console.Viewers
}

func (s *httpServer) register(fs interface {
	StringVar(*string, string, string, string)
}) {
	fs.StringVar(&s.addr, "http", "", "serve the live console at http://`ADDR`/ (sessions by scope and identity, denials as they land with their\n"+
		"why trace), the audit report at /report and /healthz (for example 127.0.0.1:8080); ':PORT' binds 127.0.0.1.\n"+
		"Without --http-viewers it takes no credentials and shows every tenant, so only a loopback host is accepted")
	fs.StringVar(&s.viewersFile, "http-viewers", "", "with --http: let in only the viewers this JSON `FILE` lists, each with a bearer token and the orchestrator\n"+
		"whose sessions it sees, or \"all\" ({\"viewers\": [{\"name\": \"acme-ops\", \"owner\": \"acme\", \"token\": \"...\"}]}); required\n"+
		"for a non-loopback --http address")
}

// check validates the flags before the ledger opens: a non-loopback
// address needs viewers, and their file must be sound.
func (s *httpServer) check() error {
	if s.viewersFile != "" {
		if s.addr == "" {
			return usageError("--http-viewers goes with --http ADDR")
		}
		b, err := safefile.ReadFile(s.viewersFile, 1<<20)
		if err != nil {
			return fmt.Errorf("--http-viewers: %w", err)
		}
		if s.viewers, err = console.ParseViewers(b); err != nil {
			return usageError("--http-viewers %s: %v", s.viewersFile, err)
		}
	}
	if s.addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(s.addr)
	if err != nil {
		return usageError("--http %q: want host:port (%v)", s.addr, err)
	}
	if s.viewers == nil && host != "" && !isLoopback(host) {
		return usageError("--http %s: without credentials the console and the report show every tenant's sessions to whoever reaches them, "+
			"so they are served on a loopback host only; add --http-viewers FILE (a bearer token per viewer, each seeing one "+
			"orchestrator's sessions or \"all\"; docs/operations.md#the-live-console) to serve them on %s", s.addr, host)
	}
	s.addr = loopbackUnlessHost(s.addr)
	return nil
}

// serve binds the console, the report and the health check to the
// address, for serve's run group to run. The console reads through the
// ledger's API on nc, as each viewer's scope; where are the flags 'ledger
// why' finds this ledger with.
func (s *httpServer) serve(svc *service.Service, nc client.Requester, where ledgercmd.Conn, logger *slog.Logger) (*httpActor, error) {
	c, err := console.New(console.Config{
		Client: func(owner string) *client.Client {
			if owner == wire.ScopeAll {
				owner = "" // the client's auditor scope
			}
			return client.NewOn(nc, client.Options{Owner: owner})
		},
		Head: svc.Position, Viewers: s.viewers, Report: reportHandler(svc, where), Where: where.Flags(), Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "ok %d\n", svc.Position())
	})
	mux.Handle("/", c)
	viewers := 0
	if s.viewers != nil {
		viewers = s.viewers.Len()
	}
	logger.Info("console", "addr", ln.Addr().String(), "path", "/", "report", "/report", "viewers", viewers)
	if s.viewers == nil {
		logger.Warn("the console and the report at --http take no credentials and show every tenant's sessions to any loopback client; give --http-viewers FILE to require tokens", "addr", ln.Addr().String())
	}
	// The console's streams last as long as their viewers look: they end
	// with base, which stop cancels before Shutdown, so that Shutdown
	// finds the connections idle and returns once their handlers have.
	base, cancel := context.WithCancel(context.Background())
	// No write timeout: a stream writes for as long as its viewer looks.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10,
		BaseContext: func(net.Listener) context.Context { return base }}
	return &httpActor{name: "console", srv: srv, ln: ln, cancel: cancel}, nil
}

// httpActor is an HTTP server bound to its listener, an actor of serve's
// run group: run serves until stop shuts the server down, so the goroutine
// that serves is the group's and is joined on stop
// (TestServeLeavesNoGoroutines). A server that fails on its own ends run
// with the error, which stops the ledger rather than leaving it half
// served.
type httpActor struct {
	name string
	srv  *http.Server
	ln   net.Listener
	// cancel, when set, ends the requests under way (long-lived ones) at
	// stop.
	cancel context.CancelFunc
}

func (a *httpActor) run() error {
	if err := a.srv.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("the %s server stopped: %w", a.name, err)
	}
	return nil
}

// stop shuts the server down, waiting up to a second for requests under
// way, and closes its listener if run never started.
func (a *httpActor) stop() {
	if a.cancel != nil {
		a.cancel()
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = a.srv.Shutdown(sctx)
	_ = a.ln.Close()
}

// reportHandler serves the audit report at the head (?session=ROOT for one
// tree, ?to=SEQ for an earlier position, ?scope=, ?user=, ?project=,
// ?runtime= to select trees).
func reportHandler(svc *service.Service, where ledgercmd.Conn) http.Handler {
	// A report reads the whole log and folds it: one at a time, so a burst
	// of requests cannot take a serving replica's memory and CPU.
	busy := make(chan struct{}, 1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var to uint64
		if s := q.Get("to"); s != "" {
			var err error
			if to, err = strconv.ParseUint(s, 10, 64); err != nil {
				http.Error(w, "to: a sequence number, for example ?to=42", http.StatusBadRequest)
				return
			}
		}
		select {
		case busy <- struct{}{}:
			defer func() { <-busy }()
		case <-r.Context().Done():
			return
		}
		f := wire.Filter{Scope: q.Get("scope"), User: q.Get("user"), Project: q.Get("project"), Runtime: q.Get("runtime")}
		rep, err := buildReport(r.Context(), svc, report.Options{Root: events.SessionKey(q.Get("session")), Filter: f, Where: where}, to, nil)
		if err != nil {
			http.Error(w, err.Error(), httpStatus(err))
			return
		}
		var page bytes.Buffer
		if err := report.Render(&page, rep); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", report.ContentSecurityPolicy(page.Bytes()))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(page.Bytes())
	})
}

// httpStatus maps the ledger's error codes to HTTP statuses.
func httpStatus(err error) int {
	switch events.CodeOf(err) {
	case events.CodeUnknownSession:
		return http.StatusNotFound
	case events.CodeNotCaughtUp, events.CodeInvalidEvent:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
