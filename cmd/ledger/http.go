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

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// serveReport binds the audit report of the running ledger to addr, for
// serve's run group to run: GET / is the page at the head (?session=ROOT
// for one tree, ?to=SEQ for an earlier position), GET /healthz answers
// "ok" with the projection's position.
func serveReport(addr string, svc *service.Service, logger *slog.Logger) (*httpActor, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	logger.Info("report", "addr", ln.Addr().String(), "path", "/")
	return &httpActor{name: "report", srv: &http.Server{Handler: reportMux(svc), ReadHeaderTimeout: 5 * time.Second}, ln: ln}, nil
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
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = a.srv.Shutdown(sctx)
	_ = a.ln.Close()
}

func reportMux(svc *service.Service) *http.ServeMux {
	// A report reads the whole log and folds it: one at a time, so a burst
	// of requests cannot take a serving replica's memory and CPU.
	busy := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
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
		rep, err := buildReport(r.Context(), svc, report.Options{Root: events.SessionKey(q.Get("session")), Filter: f}, to, nil)
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
		w.Write(page.Bytes())
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "ok %d\n", svc.Position())
	})
	return mux
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
