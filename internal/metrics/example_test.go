package metrics_test

import (
	"fmt"
	"net/http"
	"os"

	"github.com/sessionledger/ledger/internal/metrics"
)

// The serve command's use: register each metric once, obtain the series and
// keep them, update them on the hot path, serve the registry on /metrics.
func Example() {
	reg := metrics.NewRegistry()
	appends := reg.Counter("ledger_appends_total", "Appends by result.", "result")
	appendSeconds := reg.Histogram("ledger_append_duration_seconds", "Append latency in seconds.",
		[]float64{0.001, 0.01, 0.1})
	lag := reg.Gauge("ledger_projection_lag", "Stream head minus applied position.")

	// Obtained series take no lock and allocate nothing when updated.
	accepted, refused := appends.With("accepted"), appends.With("refused")
	appendLatency := appendSeconds.With()

	accepted.Inc()
	appendLatency.Observe(0.004) // in the serve command: time.Since(start).Seconds()
	refused.Inc()
	lag.With().Set(2)

	mux := http.NewServeMux()
	mux.Handle("GET /metrics", reg.Handler())

	reg.WriteText(os.Stdout)
	fmt.Printf("p50 append latency ≈ %.4fs\n", appendLatency.Quantile(0.5))
	// Output:
	// # HELP ledger_append_duration_seconds Append latency in seconds.
	// # TYPE ledger_append_duration_seconds histogram
	// ledger_append_duration_seconds_bucket{le="0.001"} 0
	// ledger_append_duration_seconds_bucket{le="0.01"} 1
	// ledger_append_duration_seconds_bucket{le="0.1"} 1
	// ledger_append_duration_seconds_bucket{le="+Inf"} 1
	// ledger_append_duration_seconds_sum 0.004
	// ledger_append_duration_seconds_count 1
	// # HELP ledger_appends_total Appends by result.
	// # TYPE ledger_appends_total counter
	// ledger_appends_total{result="accepted"} 1
	// ledger_appends_total{result="refused"} 1
	// # HELP ledger_projection_lag Stream head minus applied position.
	// # TYPE ledger_projection_lag gauge
	// ledger_projection_lag 2
	// p50 append latency ≈ 0.0055s
}
