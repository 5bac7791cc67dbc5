package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sessionledger/ledger/internal/metrics"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
)

// ledgerMetrics are the numbers `ledger serve --metrics` publishes.
type ledgerMetrics struct {
	reg       *metrics.Registry
	appends   *metrics.CounterVec
	appendLat *metrics.HistogramVec
	conflicts *metrics.Counter
	queryLat  *metrics.HistogramVec
	applied   *metrics.Gauge
	lag       *metrics.Gauge
}

func newLedgerMetrics() *ledgerMetrics {
	r := metrics.NewRegistry()
	return &ledgerMetrics{
		reg:       r,
		appends:   r.Counter("ledger_appends_total", "Appends answered, by result: accepted, refused, duplicate or error.", "result"),
		appendLat: r.Histogram("ledger_append_duration_seconds", "Time from receiving an append to answering it.", metrics.LatencyBuckets, "result"),
		conflicts: r.Counter("ledger_append_conflicts_total", "Appends that lost a race to another writer and were decided again.").With(),
		queryLat:  r.Histogram("ledger_query_duration_seconds", "Time to answer a query, by endpoint.", metrics.LatencyBuckets, "endpoint"),
		applied:   r.Gauge("ledger_projection_position", "The last stream sequence this replica has applied.").With(),
		lag:       r.Gauge("ledger_projection_lag", "Records in the stream this replica has not applied yet.").With(),
	}
}

// Append implements api.Observer.
func (m *ledgerMetrics) Append(result string, d time.Duration) {
	m.appends.With(result).Inc()
	m.appendLat.With(result).Observe(d.Seconds())
}

// Query implements api.Observer.
func (m *ledgerMetrics) Query(endpoint string, d time.Duration) {
	m.queryLat.With(endpoint).Observe(d.Seconds())
}

// sampleLag updates the projection gauges every interval until ctx ends.
func (m *ledgerMetrics) sampleLag(ctx context.Context, svc *service.Service, log *natslog.Log, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		pos := svc.Position()
		m.applied.Set(float64(pos))
		if head, err := log.Head(ctx); err == nil && head >= pos {
			m.lag.Set(float64(head - pos))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// serveMetrics serves /metrics on addr until ctx ends.
func (m *ledgerMetrics) serve(ctx context.Context, addr string, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.reg.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server stopped", "err", err)
		}
	}()
	logger.Info("metrics", "addr", ln.Addr().String(), "path", "/metrics")
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}, nil
}
