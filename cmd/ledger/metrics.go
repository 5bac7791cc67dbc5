package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sessionledger/ledger/internal/metrics"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
)

// ledgerMetrics are the numbers `ledger serve --metrics` publishes (see
// package metrics), with the Go and process collectors.
type ledgerMetrics struct {
	*metrics.Ledger
	conflicts prometheus.Counter
}

func newLedgerMetrics() *ledgerMetrics {
	l := metrics.NewLedger()
	return &ledgerMetrics{Ledger: l, conflicts: l.Conflicts}
}

// Append implements api.Observer.
func (m *ledgerMetrics) Append(result string, d time.Duration) {
	m.Appends.WithLabelValues(result).Inc()
	m.AppendDuration.WithLabelValues(result).Observe(d.Seconds())
}

// Query implements api.Observer.
func (m *ledgerMetrics) Query(endpoint string, d time.Duration) {
	m.QueryDuration.WithLabelValues(endpoint).Observe(d.Seconds())
}

// sampleLag updates the projection gauges every interval until ctx ends.
func (m *ledgerMetrics) sampleLag(ctx context.Context, svc *service.Service, log *natslog.Log, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		pos := svc.Position()
		m.Position.Set(float64(pos))
		if head, err := log.Head(ctx); err == nil && head >= pos {
			m.Lag.Set(float64(head - pos))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// serve binds /metrics to addr, for serve's run group to run.
func (m *ledgerMetrics) serve(addr string, logger *slog.Logger) (*httpActor, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	logger.Info("metrics", "addr", ln.Addr().String(), "path", "/metrics")
	// Bounded as the console's server is: a scraper's idle keep-alive
	// connection is closed after a minute.
	return &httpActor{name: "metrics", srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}, ln: ln}, nil
}
