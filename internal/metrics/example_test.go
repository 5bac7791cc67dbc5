package metrics_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/sessionledger/ledger/internal/metrics"
)

// The serve command's use: make the ledger's metrics, update them on the hot
// path, serve the registry on /metrics.
func Example() {
	m := metrics.NewLedger()

	start := time.Now()
	m.Appends.WithLabelValues("accepted").Inc()
	m.AppendDuration.WithLabelValues("accepted").Observe(time.Since(start).Seconds())
	m.Lag.Set(2)

	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "ledger_appends_total") || strings.HasPrefix(line, "ledger_projection_lag") ||
			strings.HasPrefix(line, "go_goroutines ") {
			fmt.Println(strings.Fields(line)[0])
		}
	}
	// Output:
	// go_goroutines
	// ledger_appends_total{result="accepted"}
	// ledger_projection_lag
}
