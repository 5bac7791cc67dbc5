package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestMetricsEndpoint serves `ledger serve --metrics`'s /metrics and scrapes
// it: the ledger's metrics, as the api.Observer updates them, and the Go and
// process collectors.
func TestMetricsEndpoint(t *testing.T) {
	m := newLedgerMetrics()
	var logs ledgertest.Buffer
	srv, err := m.serve("127.0.0.1:0", slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.run() }()
	defer func() {
		srv.stop()
		if err := <-served; err != nil {
			t.Errorf("the metrics server: %v", err)
		}
	}()
	var addr struct{ Msg, Addr, Path string }
	err = json.Unmarshal([]byte(logs.String()), &addr)
	if err != nil || addr.Msg != "metrics" || addr.Path != "/metrics" {
		t.Fatalf("log %+v (%v)", addr, err)
	}

	m.Append("accepted", 3*time.Millisecond)
	m.Append("accepted", time.Millisecond)
	m.Append("refused", time.Millisecond)
	m.Query("check", 200*time.Microsecond)
	m.conflicts.Inc()
	m.Position.Set(42)

	resp, err := http.Get("http://" + addr.Addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := []string{
		"# TYPE ledger_appends_total counter",
		`ledger_appends_total{result="accepted"} 2`,
		`ledger_appends_total{result="refused"} 1`,
		"# TYPE ledger_append_duration_seconds histogram",
		`ledger_append_duration_seconds_bucket{result="accepted",le="0.001"} 1`,
		`ledger_append_duration_seconds_count{result="accepted"} 2`,
		`ledger_query_duration_seconds_count{endpoint="check"} 1`,
		"ledger_append_conflicts_total 1",
		"ledger_projection_position 42",
		"ledger_projection_lag 0",
		"# TYPE go_goroutines gauge",
		"go_goroutines ",
		"go_memstats_heap_alloc_bytes ",
	}
	if runtime.GOOS == "linux" {
		want = append(want, "process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ")
	}
	for _, w := range want {
		if !strings.Contains(string(body), "\n"+w) {
			t.Errorf("/metrics lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}
