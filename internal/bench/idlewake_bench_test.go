package bench

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkIdleWake times a keep-alive loopback HTTP round trip in three
// settings, taken in turn: right after the one before (hot), after the
// process has slept about as long as a durable publish waits for its
// fsync (time.Sleep of 300 µs, which may sleep longer: idle, its threads
// park), and after it has spun 300 µs (busy). It
// reports each p50 in µs: what a call that waits for an fsync in its
// middle pays to wake again, which a floor composed of parts measured
// apart leaves out (the hooks and mcp sections' rows against a raw server
// or proxy that publishes inside the call; docs/bench.md).
//
//	go test ./internal/bench -run XXX -bench IdleWake -benchtime 3000x
func BenchmarkIdleWake(b *testing.B) {
	url, stop, err := serveHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte("{}"))
	}))
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	rtt := func() time.Duration {
		t0 := time.Now()
		resp, err := hc.Post(url, "application/json", strings.NewReader(`{"a":1}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	const wait = 300 * time.Microsecond // about a durable publish's p50 here
	for range 100 {
		rtt()
	}
	var hot, idle, busy []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hot = append(hot, rtt())
		time.Sleep(wait)
		idle = append(idle, rtt())
		for t := time.Now(); time.Since(t) < wait; {
		}
		busy = append(busy, rtt())
	}
	b.StopTimer()
	b.ReportMetric(quantile(hot, 0.5), "hot-p50-µs")
	b.ReportMetric(quantile(idle, 0.5), "after-sleep-p50-µs")
	b.ReportMetric(quantile(busy, 0.5), "after-spin-p50-µs")
}
