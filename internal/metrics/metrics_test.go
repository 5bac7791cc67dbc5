package metrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestWriteText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(r *Registry)
		want  string
	}{{
		name:  "empty registry",
		setup: func(r *Registry) {},
		want:  "",
	}, {
		name: "counter without labels is exposed at zero",
		setup: func(r *Registry) {
			r.Counter("ledger_conflicts_total", "Appends that lost an expected-head race.")
		},
		want: `# HELP ledger_conflicts_total Appends that lost an expected-head race.
# TYPE ledger_conflicts_total counter
ledger_conflicts_total 0
`,
	}, {
		name: "counter with labels, series sorted by value, fractional adds",
		setup: func(r *Registry) {
			v := r.Counter("appends_total", "Appends by result.", "result")
			v.With("refused").Inc()
			v.With("accepted").Add(3)
			v.With("duplicate").Add(0.5)
			v.With("duplicate").Add(2)
			v.With("error") // exists at zero once obtained
		},
		want: `# HELP appends_total Appends by result.
# TYPE appends_total counter
appends_total{result="accepted"} 3
appends_total{result="duplicate"} 2.5
appends_total{result="error"} 0
appends_total{result="refused"} 1
`,
	}, {
		name: "escaping of HELP and label values; two labels sorted by first then second",
		setup: func(r *Registry) {
			v := r.Counter("esc_total", "Back\\slash, \"quotes\" stay,\nnew line.", "a", "b")
			v.With(`q"uote`, "x").Inc()
			v.With(`back\slash`, "line\nfeed").Inc()
			v.With(`back\slash`, "").Inc()
			v.With("ünï", "☃").Inc()
		},
		want: `# HELP esc_total Back\\slash, "quotes" stay,\nnew line.
# TYPE esc_total counter
esc_total{a="back\\slash",b=""} 1
esc_total{a="back\\slash",b="line\nfeed"} 1
esc_total{a="q\"uote",b="x"} 1
esc_total{a="ünï",b="☃"} 1
`,
	}, {
		name: "gauges: set, add, negative, special values; no HELP when help is empty",
		setup: func(r *Registry) {
			r.Gauge("projection_lag", "").With().Set(42)
			g := r.Gauge("g", "Values.", "k")
			g.With("neg").Set(-3)
			g.With("neg").Add(0.25)
			g.With("nan").Set(math.NaN())
			g.With("inf").Set(math.Inf(1))
			g.With("minf").Set(math.Inf(-1))
			g.With("big").Set(1e20)
			g.With("int").Set(1 << 53)
			g.With("tiny").Set(1e-7)
			g.With("negzero").Set(math.Copysign(0, -1))
		},
		want: `# HELP g Values.
# TYPE g gauge
g{k="big"} 1e+20
g{k="inf"} +Inf
g{k="int"} 9007199254740992
g{k="minf"} -Inf
g{k="nan"} NaN
g{k="neg"} -2.75
g{k="negzero"} -0
g{k="tiny"} 1e-07
# TYPE projection_lag gauge
projection_lag 42
`,
	}, {
		name: "histogram with labels: cumulative buckets, +Inf, sum, count; families sorted by name",
		setup: func(r *Registry) {
			r.Gauge("zzz", "Last.")
			h := r.Histogram("query_seconds", "Query latency.", []float64{0.001, 0.01, 0.1}, "endpoint")
			for _, v := range []float64{0.0005, 0.001, 0.005, 0.05, 0.5} {
				h.With("tools").Observe(v)
			}
			h.With("check").Observe(0.25)
			h.With("why")
			r.Counter("aaa_total", "First.")
		},
		want: `# HELP aaa_total First.
# TYPE aaa_total counter
aaa_total 0
# HELP query_seconds Query latency.
# TYPE query_seconds histogram
query_seconds_bucket{endpoint="check",le="0.001"} 0
query_seconds_bucket{endpoint="check",le="0.01"} 0
query_seconds_bucket{endpoint="check",le="0.1"} 0
query_seconds_bucket{endpoint="check",le="+Inf"} 1
query_seconds_sum{endpoint="check"} 0.25
query_seconds_count{endpoint="check"} 1
query_seconds_bucket{endpoint="tools",le="0.001"} 2
query_seconds_bucket{endpoint="tools",le="0.01"} 3
query_seconds_bucket{endpoint="tools",le="0.1"} 4
query_seconds_bucket{endpoint="tools",le="+Inf"} 5
query_seconds_sum{endpoint="tools"} 0.5565
query_seconds_count{endpoint="tools"} 5
query_seconds_bucket{endpoint="why",le="0.001"} 0
query_seconds_bucket{endpoint="why",le="0.01"} 0
query_seconds_bucket{endpoint="why",le="0.1"} 0
query_seconds_bucket{endpoint="why",le="+Inf"} 0
query_seconds_sum{endpoint="why"} 0
query_seconds_count{endpoint="why"} 0
# HELP zzz Last.
# TYPE zzz gauge
zzz 0
`,
	}, {
		name: "histogram without labels, explicit +Inf bound dropped, integer bounds",
		setup: func(r *Registry) {
			h := r.Histogram("batch_size", "Events per batch.", []float64{1, 10, math.Inf(1)})
			h.With().Observe(1)
			h.With().Observe(7)
			h.With().Observe(100)
		},
		want: `# HELP batch_size Events per batch.
# TYPE batch_size histogram
batch_size_bucket{le="1"} 1
batch_size_bucket{le="10"} 2
batch_size_bucket{le="+Inf"} 3
batch_size_sum 108
batch_size_count 3
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry()
			tc.setup(r)
			var b strings.Builder
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if problems := checkExposition(b.String()); len(problems) > 0 {
				t.Errorf("output is not valid exposition format:\n%s", strings.Join(problems, "\n"))
			}
		})
	}
}

// ledgerRegistry registers the metrics the serve command exposes, with some
// of every kind of value, for the exposition check.
func ledgerRegistry() *Registry {
	r := NewRegistry()
	appends := r.Counter("ledger_appends_total", "Appends by result.", "result")
	latency := r.Histogram("ledger_append_duration_seconds", "Append latency.", LatencyBuckets)
	conflicts := r.Counter("ledger_conflicts_total", "Append conflicts.")
	lag := r.Gauge("ledger_projection_lag", "Stream head minus applied position.")
	applied := r.Gauge("ledger_projection_applied_position", "Last applied stream sequence.")
	query := r.Histogram("ledger_query_duration_seconds", "Query latency by endpoint.", nil, "endpoint")
	for i, res := range []string{"accepted", "refused", "duplicate", "error"} {
		appends.With(res).Add(float64(10 * (i + 1)))
	}
	for i := range 1000 {
		latency.With().Observe(float64(i) * 1e-5)
	}
	conflicts.With().Inc()
	lag.With().Set(3)
	applied.With().Set(12345)
	for i, ep := range []string{"tools", "check", "why", "session", "tree"} {
		for j := range 10 * i {
			query.With(ep).Observe(float64(j) * 0.003)
		}
	}
	query.With("tools").Observe(math.NaN())
	query.With("tree").Observe(20) // beyond the last bound
	return r
}

func TestExpositionGrammar(t *testing.T) {
	var b strings.Builder
	if err := ledgerRegistry().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if problems := checkExposition(out); len(problems) > 0 {
		t.Fatalf("invalid exposition:\n%s\n\n%s", strings.Join(problems, "\n"), out)
	}
	// 4 appends + 22 latency + 1 conflicts + 1 lag + 1 applied + 5×22 query,
	// plus HELP and TYPE for 6 families.
	if got, want := strings.Count(out, "\n"), 4+22+1+1+1+5*22+12; got != want {
		t.Errorf("%d lines, want %d:\n%s", got, want, out)
	}
	// Deterministic: a second write is identical.
	var again strings.Builder
	ledgerRegistry().WriteText(&again)
	if again.String() != out {
		t.Error("two writes of equal registries differ")
	}
}

func TestHandler(t *testing.T) {
	r := NewRegistry()
	r.Counter("x_total", "X.").With().Add(2)
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if want := "# HELP x_total X.\n# TYPE x_total counter\nx_total 2\n"; string(body) != want {
		t.Errorf("body %q, want %q", body, want)
	}

	resp, err = http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", resp.StatusCode)
	}

	req, _ := http.NewRequest(http.MethodHead, srv.URL, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ContentType {
		t.Errorf("HEAD: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

func TestWriteTextError(t *testing.T) {
	if err := ledgerRegistry().WriteText(failWriter{}); err != io.ErrShortWrite {
		t.Errorf("WriteText to a failing writer: %v", err)
	}
}

func TestPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(r *Registry)
		want string // part of the panic message
	}{
		{"bad metric name", func(r *Registry) { r.Counter("1abc", "") }, `invalid metric name "1abc"`},
		{"metric name with dash", func(r *Registry) { r.Gauge("a-b", "") }, `invalid metric name "a-b"`},
		{"empty metric name", func(r *Registry) { r.Gauge("", "") }, `invalid metric name ""`},
		{"bad label name", func(r *Registry) { r.Counter("a", "", "a:b") }, `invalid label name "a:b"`},
		{"reserved label name", func(r *Registry) { r.Counter("a", "", "__x") }, `reserved`},
		{"le on histogram", func(r *Registry) { r.Histogram("h", "", nil, "le") }, `"le" is reserved`},
		{"duplicate label", func(r *Registry) { r.Gauge("a", "", "x", "x") }, `duplicate label name "x"`},
		{"help not UTF-8", func(r *Registry) { r.Gauge("a", "\xff") }, "not valid UTF-8"},
		{"registered twice", func(r *Registry) { r.Counter("a", ""); r.Gauge("a", "") }, "a registered twice"},
		{"histogram suffix clash", func(r *Registry) { r.Counter("h_count", ""); r.Histogram("h", "", nil) }, "h_count"},
		{"histogram suffix clash, other order", func(r *Registry) { r.Histogram("h", "", nil); r.Gauge("h_sum", "") }, "h_sum"},
		{"buckets not increasing", func(r *Registry) { r.Histogram("h", "", []float64{1, 1}) }, "strictly increasing"},
		{"NaN bucket", func(r *Registry) { r.Histogram("h", "", []float64{math.NaN()}) }, "strictly increasing"},
		{"too few label values", func(r *Registry) { r.Counter("a", "", "x", "y").With("1") }, "a has 2 label(s) [x y], With got 1 value(s)"},
		{"too many label values", func(r *Registry) { r.Histogram("h", "", nil).With("1") }, "With got 1 value(s)"},
		{"gauge label count", func(r *Registry) { r.Gauge("g", "", "x").With() }, "With got 0 value(s)"},
		{"label value not UTF-8", func(r *Registry) { r.Counter("a", "", "x").With("\xff") }, "not valid UTF-8"},
		{"negative counter add", func(r *Registry) { r.Counter("a", "").With().Add(-1) }, "counters never decrease"},
		{"NaN counter add", func(r *Registry) { r.Counter("a", "").With().Add(math.NaN()) }, "counters never decrease"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "metrics: ") || !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want one containing %q", msg, tc.want)
				}
			}()
			tc.f(NewRegistry())
		})
	}
}

// A failed registration leaves the registry as it was.
func TestFailedRegistrationRegistersNothing(t *testing.T) {
	r := NewRegistry()
	func() {
		defer func() { recover() }()
		r.Counter("ok_total", "", "bad-label")
	}()
	r.Counter("ok_total", "") // must not panic as a duplicate
}

// The caller's bucket slice is copied.
func TestBucketsCopied(t *testing.T) {
	b := []float64{1, 2}
	h := NewRegistry().Histogram("h", "", b).With()
	b[0] = 100
	h.Observe(1)
	if _, _, cum := h.Snapshot(); cum[0] != 1 {
		t.Errorf("buckets %v after changing the caller's slice", cum)
	}
}

func TestConcurrent(t *testing.T) {
	const goroutines, perG = 32, 2000
	r := NewRegistry()
	appends := r.Counter("appends_total", "", "result")
	results := []string{"accepted", "refused", "duplicate", "error"}
	g := r.Gauge("g", "").With()
	hv := r.Histogram("h", "", []float64{0.25, 0.5, 1}, "endpoint")
	hot := hv.With("tools")

	var wg sync.WaitGroup
	stop := make(chan struct{})
	scrapes := make(chan int)
	go func() { // scrape while writers run, for the race detector
		n := 0
		for {
			select {
			case <-stop:
				scrapes <- n
				return
			default:
				if err := r.WriteText(io.Discard); err != nil {
					t.Error(err)
				}
				n++
			}
		}
	}()
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := appends.With(results[i%len(results)]) // obtained once
			for j := range perG {
				appends.With(results[j%len(results)]).Inc() // looked up every time
				mine.Add(2)
				g.Add(1)
				g.Add(-0.5)
				hot.Observe(0.125 * float64(j%8+1)) // 0.125 … 1: exactly representable
				hv.With(fmt.Sprint("ep", j%3)).Observe(2)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-scrapes

	for k, res := range results {
		// perG/4 lookups per result per goroutine, plus 2×perG from the
		// goroutines whose own series it is.
		owners := 0
		for i := range goroutines {
			if i%len(results) == k {
				owners++
			}
		}
		want := float64(goroutines*perG/4 + owners*2*perG)
		if got := appends.With(res).Value(); got != want {
			t.Errorf("appends{%s} = %v, want %v", res, got, want)
		}
	}
	if got, want := g.Value(), float64(goroutines*perG)*0.5; got != want {
		t.Errorf("gauge = %v, want %v", got, want)
	}
	count, sum, cum := hot.Snapshot()
	n := uint64(goroutines * perG)
	if count != n || sum != float64(n)*0.5625 { // mean of 0.125…1
		t.Errorf("histogram count %d sum %v, want %d and %v", count, sum, n, float64(n)*0.5625)
	}
	if want := []uint64{n / 4, n / 2, n}; fmt.Sprint(cum) != fmt.Sprint(want) {
		t.Errorf("histogram buckets %v, want %v", cum, want)
	}
	var total uint64
	for e := range 3 {
		c, s, _ := hv.With(fmt.Sprint("ep", e)).Snapshot()
		total += c
		if s != 2*float64(c) {
			t.Errorf("ep%d: sum %v for count %d", e, s, c)
		}
	}
	if total != n {
		t.Errorf("created-on-the-fly series counted %d, want %d", total, n)
	}
	var b strings.Builder
	r.WriteText(&b)
	if problems := checkExposition(b.String()); len(problems) > 0 {
		t.Errorf("invalid exposition: %v", problems)
	}
}

func TestHotPathAllocations(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "", "result").With("accepted")
	g := r.Gauge("g", "").With()
	h := r.Histogram("h", "", LatencyBuckets, "endpoint").With("tools")
	cv := r.Counter("cv_total", "", "a", "b")
	cv.With("x", "y")
	for name, f := range map[string]func(){
		"Counter.Inc":       func() { c.Inc() },
		"Counter.Add":       func() { c.Add(1.5) },
		"Gauge.Set":         func() { g.Set(3) },
		"Gauge.Add":         func() { g.Add(-1) },
		"Histogram.Observe": func() { h.Observe(0.0123) },
		"With existing":     func() { cv.With("x", "y").Inc() },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
}

func TestCounterValue(t *testing.T) {
	c := NewRegistry().Counter("c_total", "").With()
	c.Inc()
	c.Add(0)
	c.Add(0.25)
	c.Add(1e6)
	c.Add(0.5)
	if got := c.Value(); got != 1000001.75 {
		t.Errorf("Value() = %v", got)
	}
}

func TestObserveBoundaries(t *testing.T) {
	h := NewRegistry().Histogram("h", "", []float64{-1, 0, 1}).With()
	for _, v := range []float64{-2, -1, -0.5, 0, 0.5, 1, 1.5, math.Inf(1), math.Inf(-1)} {
		h.Observe(v)
	}
	// le is inclusive: -1 falls in le="-1", 0 in le="0", 1 in le="1".
	count, _, cum := h.Snapshot()
	if want := "[3 5 7]"; fmt.Sprint(cum) != want || count != 9 {
		t.Errorf("buckets %v count %d, want %s and 9", cum, count, want)
	}
}

func TestQuantile(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	uniform := func() *Histogram { // 100 observations in each of (0,1] … (9,10]
		h := NewRegistry().Histogram("h", "", ten).With()
		for i := range 1000 {
			h.Observe(float64(i)/100 + 0.005)
		}
		return h
	}()
	allIn := func(v float64, n int) *Histogram {
		h := NewRegistry().Histogram("h", "", ten).With()
		for range n {
			h.Observe(v)
		}
		return h
	}
	empty := NewRegistry().Histogram("h", "", ten).With()
	negative := NewRegistry().Histogram("h", "", []float64{-2, -1, 0}).With()
	negative.Observe(-3)
	negative.Observe(-1.5)
	noBuckets := NewRegistry().Histogram("h", "", []float64{}).With()
	noBuckets.Observe(1)

	for _, tc := range []struct {
		name string
		h    *Histogram
		q    float64
		want float64
	}{
		{"uniform median", uniform, 0.5, 5},
		{"uniform p25", uniform, 0.25, 2.5},
		{"uniform p90", uniform, 0.9, 9},
		{"uniform p99", uniform, 0.99, 9.9},
		{"uniform p0: lower bound of first bucket", uniform, 0, 0},
		{"uniform max", uniform, 1, 10},
		{"point mass at 2.5: interpolated over (2,3]", allIn(2.5, 10), 0.5, 2.5},
		{"point mass at 2.5: p0 is the bucket's lower bound", allIn(2.5, 10), 0, 2},
		{"point mass at 2.5: p100 is the bucket's upper bound", allIn(2.5, 10), 1, 3},
		{"all beyond the last bound", allIn(50, 3), 0.5, 10},
		{"all in the first bucket", allIn(0.1, 4), 0.5, 0.5},
		{"first bound not positive", negative, 0.25, -2},
		{"negative bounds interpolate", negative, 1, -1},
		{"empty", empty, 0.5, math.NaN()},
		{"only +Inf bucket", noBuckets, 0.5, math.NaN()},
		{"q below 0", uniform, -0.1, math.Inf(-1)},
		{"q above 1", uniform, 1.1, math.Inf(1)},
		{"q NaN", uniform, math.NaN(), math.NaN()},
	} {
		got := tc.h.Quantile(tc.q)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want) || math.Abs(got-tc.want) < 1e-9) {
			t.Errorf("%s: Quantile(%v) = %v, want %v", tc.name, tc.q, got, tc.want)
		}
	}

	// Against a known continuous distribution: with observations spread
	// evenly over [0, 1s), the estimate of every quantile with LatencyBuckets
	// must lie in the same bucket as the true value, and close to it where
	// buckets are narrow relative to the spread.
	h := NewRegistry().Histogram("h", "", LatencyBuckets).With()
	const n = 100000
	for i := range n {
		h.Observe(float64(i) / n)
	}
	for _, q := range []float64{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99} {
		got := h.Quantile(q)
		if math.Abs(got-q) > 1e-4 {
			t.Errorf("uniform[0,1): Quantile(%v) = %v", q, got)
		}
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
	c := NewRegistry().Counter("c_total", "").With()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
		}
	})
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := NewRegistry().Histogram("h", "", LatencyBuckets).With()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.Observe(0.0042)
		}
	})
}

func BenchmarkWith(b *testing.B) {
	v := NewRegistry().Counter("c_total", "", "result")
	v.With("accepted")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.With("accepted").Inc()
		}
	})
}
