package metrics

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// scrape serves l's handler and GETs it, returning the body and the
// response's Content-Type.
func scrape(t testing.TB, l *Ledger) (body, contentType string) {
	t.Helper()
	srv := httptest.NewServer(l.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return string(b), resp.Header.Get("Content-Type")
}

// ledgerLines returns the lines of an exposition about the ledger's own
// metrics (HELP, TYPE and samples), in order.
func ledgerLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "ledger_") || strings.HasPrefix(line, "# HELP ledger_") || strings.HasPrefix(line, "# TYPE ledger_") {
			out = append(out, line)
		}
	}
	return out
}

// The ledger's metrics keep the names, types, labels and help texts they had
// with the hand-written exposition this package replaced (README, "Metrics
// and logs", and the serve test rely on them).
func TestLedgerMetrics(t *testing.T) {
	l := NewLedger()
	fresh := strings.Join(ledgerLines(func() string { b, _ := scrape(t, l); return b }()), "\n")
	if want := `# HELP ledger_append_conflicts_total Appends that lost a race to another writer and were decided again.
# TYPE ledger_append_conflicts_total counter
ledger_append_conflicts_total 0
` + roundRecords() + `# HELP ledger_projection_lag Records in the stream this replica has not applied yet.
# TYPE ledger_projection_lag gauge
ledger_projection_lag 0
# HELP ledger_projection_position The last stream sequence this replica has applied.
# TYPE ledger_projection_position gauge
ledger_projection_position 0`; fresh != want {
		t.Errorf("before any update (metrics without labels at 0, the others absent):\n%s\nwant:\n%s", fresh, want)
	}

	l.Appends.WithLabelValues("accepted").Inc()
	l.Appends.WithLabelValues("accepted").Inc()
	l.Appends.WithLabelValues("refused").Inc()
	l.AppendDuration.WithLabelValues("accepted").Observe(0.004)
	l.AppendDuration.WithLabelValues("accepted").Observe(20) // beyond the last bound
	l.Conflicts.Inc()
	l.RoundRecords.Observe(1)
	l.RoundRecords.Observe(24)
	l.QueryDuration.WithLabelValues("check").Observe(0.0003)
	l.Position.Set(12345)
	l.Lag.Set(3)

	body, _ := scrape(t, l)
	var want strings.Builder
	want.WriteString("# HELP ledger_append_conflicts_total Appends that lost a race to another writer and were decided again.\n")
	want.WriteString("# TYPE ledger_append_conflicts_total counter\n")
	want.WriteString("ledger_append_conflicts_total 1\n")
	histogram := func(name, label, value string, obs ...float64) {
		var sum float64
		for _, b := range LatencyBuckets {
			n := 0
			for _, o := range obs {
				if o <= b {
					n++
				}
			}
			fmt.Fprintf(&want, "%s_bucket{%s=%q,le=%q} %d\n", name, label, value, strconv.FormatFloat(b, 'g', -1, 64), n)
		}
		for _, o := range obs {
			sum += o
		}
		fmt.Fprintf(&want, "%s_bucket{%s=%q,le=\"+Inf\"} %d\n", name, label, value, len(obs))
		fmt.Fprintf(&want, "%s_sum{%s=%q} %s\n", name, label, value, strconv.FormatFloat(sum, 'g', -1, 64))
		fmt.Fprintf(&want, "%s_count{%s=%q} %d\n", name, label, value, len(obs))
	}
	want.WriteString("# HELP ledger_append_duration_seconds Time from receiving an append to answering it.\n")
	want.WriteString("# TYPE ledger_append_duration_seconds histogram\n")
	histogram("ledger_append_duration_seconds", "result", "accepted", 0.004, 20)
	want.WriteString(roundRecords(1, 24))
	want.WriteString("# HELP ledger_appends_total Appends answered, by result: accepted, refused, duplicate or error.\n")
	want.WriteString("# TYPE ledger_appends_total counter\n")
	want.WriteString("ledger_appends_total{result=\"accepted\"} 2\n")
	want.WriteString("ledger_appends_total{result=\"refused\"} 1\n")
	want.WriteString("# HELP ledger_projection_lag Records in the stream this replica has not applied yet.\n")
	want.WriteString("# TYPE ledger_projection_lag gauge\n")
	want.WriteString("ledger_projection_lag 3\n")
	want.WriteString("# HELP ledger_projection_position The last stream sequence this replica has applied.\n")
	want.WriteString("# TYPE ledger_projection_position gauge\n")
	want.WriteString("ledger_projection_position 12345\n")
	want.WriteString("# HELP ledger_query_duration_seconds Time to answer a query, by endpoint.\n")
	want.WriteString("# TYPE ledger_query_duration_seconds histogram\n")
	histogram("ledger_query_duration_seconds", "endpoint", "check", 0.0003)
	if got := strings.Join(ledgerLines(body), "\n") + "\n"; got != want.String() {
		t.Errorf("got:\n%s\nwant:\n%s", got, want.String())
	}
}

// The registry also holds the Go and the process collector.
func TestCollectors(t *testing.T) {
	body, _ := scrape(t, NewLedger())
	want := []string{
		"# TYPE go_goroutines gauge", "go_goroutines ",
		"# TYPE go_gc_duration_seconds summary", "go_memstats_alloc_bytes ", "go_threads ", `go_info{version="` + runtime.Version() + `"} 1`,
	}
	if runtime.GOOS == "linux" { // the process collector reads /proc
		want = append(want, "# TYPE process_cpu_seconds_total counter", "process_cpu_seconds_total ",
			"process_resident_memory_bytes ", "process_open_fds ", "process_max_fds ", "process_start_time_seconds ")
	}
	for _, w := range want {
		if !strings.Contains(body, "\n"+w) {
			t.Errorf("/metrics lacks %q", w)
		}
	}
}

// What the handler serves, collectors included, is valid text exposition
// format by a checker independent of client_golang.
func TestExpositionGrammar(t *testing.T) {
	l := NewLedger()
	for i, res := range []string{"accepted", "refused", "duplicate", "error"} {
		l.Appends.WithLabelValues(res).Add(float64(10 * (i + 1)))
		for j := range 100 {
			l.AppendDuration.WithLabelValues(res).Observe(float64(j) * 1e-4)
		}
	}
	for i, ep := range []string{"tools", "check", "why", "session", "tree"} {
		for j := range 10 * i {
			l.QueryDuration.WithLabelValues(ep).Observe(float64(j) * 0.003)
		}
	}
	l.Conflicts.Inc()
	l.Position.Set(1 << 40)
	l.Lag.Set(7)
	body, _ := scrape(t, l)
	if problems := checkExposition(body); len(problems) > 0 {
		t.Fatalf("invalid exposition:\n%s\n\n%s", strings.Join(problems, "\n"), body)
	}
}

func TestHandler(t *testing.T) {
	l := NewLedger()
	srv := httptest.NewServer(l.Handler())
	defer srv.Close()

	_, ct := scrape(t, l)
	if !strings.HasPrefix(ct, "text/plain; version=0.0.4; charset=utf-8") {
		t.Errorf("Content-Type %q", ct)
	}

	resp, err := http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: status %d, Allow %q; want 405 and GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}

	req, _ := http.NewRequest(http.MethodHead, srv.URL, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Errorf("HEAD: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// Updates on the hot path, to series obtained once or looked up by label
// value, allocate nothing.
func TestHotPathAllocations(t *testing.T) {
	l := NewLedger()
	accepted := l.Appends.WithLabelValues("accepted")
	h := l.AppendDuration.WithLabelValues("accepted")
	l.QueryDuration.WithLabelValues("tools")
	for name, f := range map[string]func(){
		"Counter.Inc":           func() { accepted.Inc() },
		"Counter.Add":           func() { accepted.Add(1.5) },
		"Gauge.Set":             func() { l.Lag.Set(3) },
		"Histogram.Observe":     func() { h.Observe(0.0123) },
		"WithLabelValues, Inc":  func() { l.Appends.WithLabelValues("accepted").Inc() },
		"WithLabelValues, Obs.": func() { l.QueryDuration.WithLabelValues("tools").Observe(0.001) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
}

// Writers and scrapers at once, for the race detector; the counts add up.
func TestConcurrent(t *testing.T) {
	const goroutines, perG = 16, 1000
	l := NewLedger()
	results := []string{"accepted", "refused", "duplicate", "error"}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		for {
			select {
			case <-stop:
				return
			default:
				if _, err := l.Registry.Gather(); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perG {
				res := results[(i+j)%len(results)]
				l.Appends.WithLabelValues(res).Inc()
				l.AppendDuration.WithLabelValues(res).Observe(0.125 * float64(j%8+1))
				l.Conflicts.Inc()
				l.Lag.Add(1)
				l.Lag.Sub(0.5)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-scraped

	for _, res := range results {
		var m dto.Metric
		if err := l.Appends.WithLabelValues(res).Write(&m); err != nil {
			t.Fatal(err)
		}
		if got, want := m.GetCounter().GetValue(), float64(goroutines*perG/len(results)); got != want {
			t.Errorf("appends{%s} = %v, want %v", res, got, want)
		}
	}
	var m dto.Metric
	if err := l.Conflicts.Write(&m); err != nil || m.GetCounter().GetValue() != goroutines*perG {
		t.Errorf("conflicts = %v (%v), want %d", m.GetCounter().GetValue(), err, goroutines*perG)
	}
	if err := l.Lag.Write(&m); err != nil || m.GetGauge().GetValue() != goroutines*perG/2 {
		t.Errorf("lag = %v (%v), want %d", m.GetGauge().GetValue(), err, goroutines*perG/2)
	}
	body, _ := scrape(t, l)
	if problems := checkExposition(body); len(problems) > 0 {
		t.Errorf("invalid exposition: %v", problems)
	}
}

func TestLatencyBuckets(t *testing.T) {
	b := LatencyBuckets
	if b[0] != 10e-6 || b[len(b)-1] != 10 {
		t.Errorf("LatencyBuckets run from %v to %v, want 10µs to 10s", b[0], b[len(b)-1])
	}
	for i := 1; i < len(b); i++ {
		if r := b[i] / b[i-1]; r < 1.9 || r > 2.6 {
			t.Errorf("step %v -> %v is ×%.2f", b[i-1], b[i], r)
		}
	}
}

func BenchmarkCounterInc(b *testing.B) {
	c := NewLedger().Appends.WithLabelValues("accepted")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
		}
	})
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := NewLedger().AppendDuration.WithLabelValues("accepted")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.Observe(0.0042)
		}
	})
}

func BenchmarkWithLabelValues(b *testing.B) {
	v := NewLedger().Appends
	v.WithLabelValues("accepted")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.WithLabelValues("accepted").Inc()
		}
	})
}

func BenchmarkScrape(b *testing.B) {
	l := NewLedger()
	for _, res := range []string{"accepted", "refused", "duplicate", "error"} {
		l.AppendDuration.WithLabelValues(res).Observe(0.001)
	}
	h := l.Handler()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// roundRecords is the exposition of ledger_append_round_records (no
// labels) after observing obs.
func roundRecords(obs ...float64) string {
	var b strings.Builder
	b.WriteString("# HELP ledger_append_round_records Records written by each round of appends that landed (one durable write of the log each).\n")
	b.WriteString("# TYPE ledger_append_round_records histogram\n")
	var sum float64
	for le := 1.0; le <= 1024; le *= 2 {
		n := 0
		for _, o := range obs {
			if o <= le {
				n++
			}
		}
		fmt.Fprintf(&b, "ledger_append_round_records_bucket{le=%q} %d\n", strconv.FormatFloat(le, 'g', -1, 64), n)
	}
	for _, o := range obs {
		sum += o
	}
	fmt.Fprintf(&b, "ledger_append_round_records_bucket{le=\"+Inf\"} %d\n", len(obs))
	fmt.Fprintf(&b, "ledger_append_round_records_sum %s\n", strconv.FormatFloat(sum, 'g', -1, 64))
	fmt.Fprintf(&b, "ledger_append_round_records_count %d\n", len(obs))
	return b.String()
}
