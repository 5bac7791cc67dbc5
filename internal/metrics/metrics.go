// Package metrics defines the Prometheus metrics `ledger serve --metrics`
// publishes, on a registry of github.com/prometheus/client_golang, and
// serves them at /metrics with promhttp.
//
// The ledger's own metrics (see Ledger) are
//
//	ledger_appends_total{result}                    counter
//	ledger_append_duration_seconds{result}          histogram, LatencyBuckets
//	ledger_append_conflicts_total                   counter
//	ledger_query_duration_seconds{endpoint}         histogram, LatencyBuckets
//	ledger_projection_position                      gauge
//	ledger_projection_lag                           gauge
//
// with result one of accepted, refused, duplicate and error, and endpoint a
// query's name. Beside them the registry holds client_golang's Go collector
// (go_goroutines, go_memstats_*, go_gc_duration_seconds, …) and process
// collector (process_cpu_seconds_total, process_resident_memory_bytes,
// process_open_fds, …; on Linux, read from /proc).
//
// Metrics with labels have a series from its first update on; the others
// exist, at 0, from NewLedger on. Updating a series that exists allocates
// nothing.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// LatencyBuckets are histogram upper bounds in seconds for latencies, from
// 10µs to 10s in 1–2.5–5 steps (about ×2.15 each on average).
var LatencyBuckets = []float64{
	0.00001, 0.000025, 0.00005,
	0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005,
	0.01, 0.025, 0.05,
	0.1, 0.25, 0.5,
	1, 2.5, 5,
	10,
}

// Ledger is the ledger's metrics, registered on Registry with the Go and
// process collectors.
type Ledger struct {
	Registry *prometheus.Registry

	// Appends counts appends answered, by result.
	Appends *prometheus.CounterVec
	// AppendDuration is the time from receiving an append to answering
	// it, by result.
	AppendDuration *prometheus.HistogramVec
	// Conflicts counts appends that lost a race to another writer and
	// were decided again.
	Conflicts prometheus.Counter
	// RoundRecords observes, for each round of appends that landed, how
	// many records it wrote in its one durable write of the log: its count
	// is the rounds, its sum the records, so sum over count is the group
	// commit the appends got.
	RoundRecords prometheus.Histogram
	// QueryDuration is the time to answer a query, by endpoint.
	QueryDuration *prometheus.HistogramVec
	// Position is the last stream sequence the replica has applied.
	Position prometheus.Gauge
	// Lag is the number of records in the stream the replica has not
	// applied yet.
	Lag prometheus.Gauge
}

// NewLedger returns the ledger's metrics on a new registry, with the Go and
// process collectors.
func NewLedger() *Ledger {
	l := &Ledger{
		Registry: prometheus.NewRegistry(),
		Appends: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_appends_total",
			Help: "Appends answered, by result: accepted, refused, duplicate or error.",
		}, []string{"result"}),
		AppendDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ledger_append_duration_seconds",
			Help:    "Time from receiving an append to answering it.",
			Buckets: LatencyBuckets,
		}, []string{"result"}),
		Conflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ledger_append_conflicts_total",
			Help: "Appends that lost a race to another writer and were decided again.",
		}),
		RoundRecords: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "ledger_append_round_records",
			Help:    "Records written by each round of appends that landed (one durable write of the log each).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11),
		}),
		QueryDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ledger_query_duration_seconds",
			Help:    "Time to answer a query, by endpoint.",
			Buckets: LatencyBuckets,
		}, []string{"endpoint"}),
		Position: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ledger_projection_position",
			Help: "The last stream sequence this replica has applied.",
		}),
		Lag: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ledger_projection_lag",
			Help: "Records in the stream this replica has not applied yet.",
		}),
	}
	l.Registry.MustRegister(
		l.Appends, l.AppendDuration, l.Conflicts, l.RoundRecords, l.QueryDuration, l.Position, l.Lag,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return l
}

// Handler serves the registry in the Prometheus exposition formats (the
// text format 0.0.4 unless the scraper asks for another) for GET and HEAD,
// and answers other methods 405.
func (l *Ledger) Handler() http.Handler {
	h := promhttp.HandlerFor(l.Registry, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "metrics: use GET", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, req)
	})
}
