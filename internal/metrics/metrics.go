// Package metrics is a minimal Prometheus instrumentation library: counters,
// gauges and histograms, optionally split by labels, exposed over HTTP in the
// Prometheus text exposition format 0.0.4.
//
// Its job is to let the ledger's serve command publish a handful of numbers —
// append rate and latency by outcome, conflicts, projection lag and applied
// position, query latency by endpoint — so that a Prometheus server can scrape
// them. It exists only to avoid a dependency: prometheus/client_golang and its
// dependency tree are a lot to take on for a few metrics, and this package uses
// nothing but the standard library.
//
// Usage: create a Registry, register each metric once at start-up (Counter,
// Gauge, Histogram), obtain series with With and keep them, then update them on
// the hot path. Updating an obtained *Counter, *Gauge or *Histogram takes no
// lock and allocates nothing; With looks the series up under a read lock.
//
// Misuse is a programming error and panics with a message starting with
// "metrics:": an invalid metric or label name, a name registered twice, the
// wrong number of label values, a label value that is not valid UTF-8, a
// negative or NaN counter increment, badly ordered histogram buckets.
package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// ContentType is the Content-Type of the text exposition format 0.0.4, as
// served by Registry.Handler.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

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

// The name grammars of the Prometheus data model.
var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRE  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// Registry holds registered metrics and writes them out. It is safe for
// concurrent use. The zero value is not usable; use NewRegistry.
type Registry struct {
	mu       sync.Mutex
	families map[string]family // by metric name
	samples  map[string]string // every sample name a family emits -> family name
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{families: map[string]family{}, samples: map[string]string{}}
}

// family is one registered metric with all its series.
type family interface {
	meta() *desc
	write(w *textWriter)
}

// desc describes a metric family.
type desc struct {
	name   string
	help   string
	typ    string // counter, gauge, histogram
	labels []string
}

func (d *desc) meta() *desc { return d }

// register validates d and adds f under its name, panicking on any problem.
// sampleNames are the names f's sample lines use (a histogram's _bucket, _sum
// and _count), which must not collide with another family's.
func (r *Registry) register(f family, sampleNames ...string) {
	d := f.meta()
	if !metricNameRE.MatchString(d.name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q: must match %s", d.name, metricNameRE))
	}
	if !utf8.ValidString(d.help) {
		panic(fmt.Sprintf("metrics: help text of %s is not valid UTF-8", d.name))
	}
	for i, l := range d.labels {
		switch {
		case !labelNameRE.MatchString(l):
			panic(fmt.Sprintf("metrics: %s: invalid label name %q: must match %s", d.name, l, labelNameRE))
		case strings.HasPrefix(l, "__"):
			panic(fmt.Sprintf("metrics: %s: label name %q: names starting with __ are reserved", d.name, l))
		case d.typ == "histogram" && l == "le":
			panic(fmt.Sprintf("metrics: %s: label name \"le\" is reserved for histogram buckets", d.name))
		case slices.Contains(d.labels[:i], l):
			panic(fmt.Sprintf("metrics: %s: duplicate label name %q", d.name, l))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.families[d.name]; ok {
		panic(fmt.Sprintf("metrics: %s registered twice", d.name))
	}
	for _, s := range sampleNames {
		if other, ok := r.samples[s]; ok {
			panic(fmt.Sprintf("metrics: %s %s emits samples named %s, which %s already uses", d.typ, d.name, s, other))
		}
	}
	r.families[d.name] = f
	for _, s := range sampleNames {
		r.samples[s] = d.name
	}
}

// Counter registers a counter: a value that only goes up, such as a number of
// requests. Counter names conventionally end in _total. With no labels the
// single series exists (at 0) from registration on.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	v := &CounterVec{newVec[Counter](name, help, "counter", labels, nil)}
	r.register(v, name)
	v.eager()
	return v
}

// Gauge registers a gauge: a value that goes up and down, such as a lag. With
// no labels the single series exists (at 0) from registration on.
func (r *Registry) Gauge(name, help string, labels ...string) *GaugeVec {
	v := &GaugeVec{newVec[Gauge](name, help, "gauge", labels, nil)}
	r.register(v, name)
	v.eager()
	return v
}

// Histogram registers a histogram with the given bucket upper bounds, which
// must be strictly increasing and not NaN; a final +Inf is implied and may be
// omitted. Nil buckets mean LatencyBuckets. The slice is copied. With no
// labels the single series exists from registration on.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if buckets == nil {
		buckets = LatencyBuckets
	}
	bounds := slices.Clone(buckets)
	if n := len(bounds); n > 0 && math.IsInf(bounds[n-1], +1) {
		bounds = bounds[:n-1]
	}
	for i, b := range bounds {
		if math.IsNaN(b) || math.IsInf(b, 0) || (i > 0 && b <= bounds[i-1]) {
			panic(fmt.Sprintf("metrics: histogram %s: buckets must be finite and strictly increasing, got %v", name, buckets))
		}
	}
	v := &HistogramVec{newVec[Histogram](name, help, "histogram", labels, func(h *Histogram) {
		h.bounds = bounds
		h.counts = make([]atomic.Uint64, len(bounds)+1)
	})}
	r.register(v, name+"_bucket", name+"_sum", name+"_count")
	v.eager()
	return v
}

// vec is the label-values-to-series map shared by the three kinds of metric.
type vec[T any] struct {
	desc
	init   func(*T) // prepares a new series; nil if the zero T is ready
	mu     sync.RWMutex
	series map[string]*series[T] // by key(label values)
}

type series[T any] struct {
	values []string
	m      T
}

func newVec[T any](name, help, typ string, labels []string, init func(*T)) vec[T] {
	return vec[T]{
		desc:   desc{name: name, help: help, typ: typ, labels: slices.Clone(labels)},
		init:   init,
		series: map[string]*series[T]{},
	}
}

// eager creates the one series of a metric without labels, so that it is
// exposed before its first update.
func (v *vec[T]) eager() {
	if len(v.labels) == 0 {
		v.with(nil)
	}
}

// appendKey appends the map key of a series: each value followed by 0xff.
// 0xff never occurs in valid UTF-8, so keys of valid values are unambiguous,
// and a lookup with invalid values can only miss (its key holds more 0xff
// bytes than any stored key) and then panic in create.
func appendKey(b []byte, values []string) []byte {
	for _, s := range values {
		b = append(b, s...)
		b = append(b, 0xff)
	}
	return b
}

// with returns the series for the label values, creating it on first use.
func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %s has %d label(s) [%s], With got %d value(s)",
			v.name, len(v.labels), strings.Join(v.labels, " "), len(values)))
	}
	var buf [128]byte
	key := appendKey(buf[:0], values)
	v.mu.RLock()
	s := v.series[string(key)]
	v.mu.RUnlock()
	if s != nil {
		return &s.m
	}
	return v.create(string(key), values)
}

func (v *vec[T]) create(key string, values []string) *T {
	for i, val := range values {
		if !utf8.ValidString(val) {
			panic(fmt.Sprintf("metrics: %s: value %q of label %s is not valid UTF-8", v.name, val, v.labels[i]))
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.series[key]; s != nil {
		return &s.m
	}
	s := &series[T]{values: slices.Clone(values)}
	if v.init != nil {
		v.init(&s.m)
	}
	v.series[key] = s
	return &s.m
}

// sorted returns the series ordered by label values.
func (v *vec[T]) sorted() []*series[T] {
	v.mu.RLock()
	out := make([]*series[T], 0, len(v.series))
	for _, s := range v.series {
		out = append(out, s)
	}
	v.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return slices.Compare(out[i].values, out[j].values) < 0 })
	return out
}

// CounterVec is a registered counter, one series per combination of label
// values.
type CounterVec struct{ vec[Counter] }

// With returns the series for the label values, given in the order the labels
// were registered. It panics if the number of values is wrong. Keep the result
// for hot paths.
func (v *CounterVec) With(labelValues ...string) *Counter { return v.with(labelValues) }

func (v *CounterVec) write(w *textWriter) {
	w.header(&v.desc)
	for _, s := range v.sorted() {
		w.sample(v.name, "", v.labels, s.values, "", s.m.Value())
	}
}

// Counter is one counter series. Its methods are safe for concurrent use and
// take no locks.
type Counter struct {
	whole atomic.Uint64 // integral increments
	frac  atomic.Uint64 // float64 bits of all other increments
}

// Inc adds 1.
func (c *Counter) Inc() { c.whole.Add(1) }

// Add adds v, which must not be negative or NaN (a counter never goes down);
// otherwise Add panics.
func (c *Counter) Add(v float64) {
	if v < 0 || math.IsNaN(v) {
		panic(fmt.Sprintf("metrics: counter increment %v: counters never decrease", v))
	}
	if v < 1<<53 && v == math.Trunc(v) {
		c.whole.Add(uint64(v))
		return
	}
	addFloat(&c.frac, v)
}

// Value returns the current value.
func (c *Counter) Value() float64 {
	return float64(c.whole.Load()) + math.Float64frombits(c.frac.Load())
}

// GaugeVec is a registered gauge, one series per combination of label values.
type GaugeVec struct{ vec[Gauge] }

// With returns the series for the label values, given in the order the labels
// were registered. It panics if the number of values is wrong. Keep the result
// for hot paths.
func (v *GaugeVec) With(labelValues ...string) *Gauge { return v.with(labelValues) }

func (v *GaugeVec) write(w *textWriter) {
	w.header(&v.desc)
	for _, s := range v.sorted() {
		w.sample(v.name, "", v.labels, s.values, "", s.m.Value())
	}
}

// Gauge is one gauge series. Its methods are safe for concurrent use and take
// no locks.
type Gauge struct{ bits atomic.Uint64 }

// Set sets the value.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Add adds v, which may be negative.
func (g *Gauge) Add(v float64) { addFloat(&g.bits, v) }

// Value returns the current value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// addFloat adds v to the float64 stored as bits in a.
func addFloat(a *atomic.Uint64, v float64) {
	for {
		old := a.Load()
		if a.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// HistogramVec is a registered histogram, one series per combination of label
// values.
type HistogramVec struct{ vec[Histogram] }

// With returns the series for the label values, given in the order the labels
// were registered. It panics if the number of values is wrong. Keep the result
// for hot paths.
func (v *HistogramVec) With(labelValues ...string) *Histogram { return v.with(labelValues) }

func (v *HistogramVec) write(w *textWriter) {
	w.header(&v.desc)
	for _, s := range v.sorted() {
		h := &s.m
		count, sum, cum := h.Snapshot()
		for i, b := range h.bounds {
			w.sample(v.name, "_bucket", v.labels, s.values, formatFloat(b), float64(cum[i]))
		}
		w.sample(v.name, "_bucket", v.labels, s.values, "+Inf", float64(count))
		w.sample(v.name, "_sum", v.labels, s.values, "", sum)
		w.sample(v.name, "_count", v.labels, s.values, "", float64(count))
	}
}

// Histogram is one histogram series: observations counted into buckets by
// upper bound (le, "less than or equal"), with their count and sum. Its
// methods are safe for concurrent use and take no locks. Obtain it from
// HistogramVec.With; the zero value is not usable.
type Histogram struct {
	bounds []float64       // finite upper bounds, shared by the family
	counts []atomic.Uint64 // per bucket, not cumulative; last is (max bound, +Inf]
	sum    atomic.Uint64   // float64 bits
}

// Observe records one observation, for latencies in seconds. NaN is counted
// in the +Inf bucket and makes the sum NaN, as in Prometheus' own client.
func (h *Histogram) Observe(seconds float64) {
	// The first bucket whose bound is >= seconds; len(bounds) is +Inf.
	lo, hi := 0, len(h.bounds)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if h.bounds[mid] < seconds {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	h.counts[lo].Add(1)
	addFloat(&h.sum, seconds)
}

// UpperBounds returns the finite bucket upper bounds, in increasing order; the
// +Inf bucket is implied. The caller must not modify the slice.
func (h *Histogram) UpperBounds() []float64 { return h.bounds }

// Snapshot returns the number of observations, their sum, and for each finite
// upper bound (see UpperBounds) the cumulative number of observations less
// than or equal to it; count is the +Inf bucket. count always equals the sum
// of all bucket counts, even while other goroutines observe; sum may then
// include an observation or two more or fewer than count.
func (h *Histogram) Snapshot() (count uint64, sum float64, buckets []uint64) {
	buckets = make([]uint64, len(h.bounds))
	for i := range h.counts {
		count += h.counts[i].Load()
		if i < len(buckets) {
			buckets[i] = count
		}
	}
	return count, math.Float64frombits(h.sum.Load()), buckets
}

// Quantile estimates the q-quantile (0 <= q <= 1) of the observations from
// the buckets, the way Prometheus' histogram_quantile does: it finds the
// bucket holding the rank q·count and interpolates linearly inside it. The
// lowest bucket's lower bound is taken as 0 (or, if its upper bound is not
// positive, its upper bound is returned); a rank in the +Inf bucket yields the
// highest finite bound. With no observations or no finite bucket the result is
// NaN; q < 0 gives -Inf and q > 1 gives +Inf. Meant for reports, not for
// exact answers: the error is up to the width of the bucket.
func (h *Histogram) Quantile(q float64) float64 {
	count, _, cum := h.Snapshot()
	return quantile(q, h.bounds, cum, count)
}

func quantile(q float64, bounds []float64, cum []uint64, count uint64) float64 {
	switch {
	case math.IsNaN(q):
		return math.NaN()
	case q < 0:
		return math.Inf(-1)
	case q > 1:
		return math.Inf(+1)
	case count == 0 || len(bounds) == 0:
		return math.NaN()
	}
	rank := q * float64(count)
	// The first non-empty bucket whose cumulative count reaches the rank.
	i := sort.Search(len(cum), func(i int) bool { return cum[i] > 0 && float64(cum[i]) >= rank })
	if i == len(cum) {
		return bounds[len(bounds)-1] // in the +Inf bucket
	}
	var lower float64
	var below uint64
	if i > 0 {
		lower, below = bounds[i-1], cum[i-1]
	} else if bounds[0] <= 0 {
		return bounds[0]
	}
	upper := bounds[i]
	in := float64(cum[i] - below) // > 0: cum[i-1] < rank or cum[i-1] == 0 < cum[i]
	return lower + (upper-lower)*(rank-float64(below))/in
}

// WriteText writes every metric in the Prometheus text exposition format
// 0.0.4: families sorted by name, each with its HELP (if any) and TYPE lines,
// then its series sorted by label values. It returns the first write error.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	fams := make([]family, 0, len(r.families))
	for _, f := range r.families {
		fams = append(fams, f)
	}
	r.mu.Unlock()
	sort.Slice(fams, func(i, j int) bool { return fams[i].meta().name < fams[j].meta().name })
	tw := &textWriter{w: bufio.NewWriter(w)}
	for _, f := range fams {
		f.write(tw)
	}
	return tw.w.Flush()
}

// Handler returns an HTTP handler serving WriteText for GET and HEAD with
// Content-Type ContentType.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "metrics: use GET", http.StatusMethodNotAllowed)
			return
		}
		var buf bytes.Buffer
		if err := r.WriteText(&buf); err != nil { // cannot happen with a bytes.Buffer
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		if req.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(buf.Bytes())
	})
}

// textWriter writes exposition lines. bufio.Writer errors are sticky, so only
// the final Flush is checked.
type textWriter struct {
	w   *bufio.Writer
	num []byte
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func (t *textWriter) header(d *desc) {
	if d.help != "" {
		t.w.WriteString("# HELP ")
		t.w.WriteString(d.name)
		t.w.WriteByte(' ')
		helpEscaper.WriteString(t.w, d.help)
		t.w.WriteByte('\n')
	}
	t.w.WriteString("# TYPE ")
	t.w.WriteString(d.name)
	t.w.WriteByte(' ')
	t.w.WriteString(d.typ)
	t.w.WriteByte('\n')
}

// sample writes one sample line; le, if not empty, is added as a last label.
func (t *textWriter) sample(name, suffix string, labels, values []string, le string, v float64) {
	t.w.WriteString(name)
	t.w.WriteString(suffix)
	if len(labels) > 0 || le != "" {
		t.w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				t.w.WriteByte(',')
			}
			t.w.WriteString(l)
			t.w.WriteString(`="`)
			labelEscaper.WriteString(t.w, values[i])
			t.w.WriteByte('"')
		}
		if le != "" {
			if len(labels) > 0 {
				t.w.WriteByte(',')
			}
			t.w.WriteString(`le="`)
			t.w.WriteString(le)
			t.w.WriteByte('"')
		}
		t.w.WriteByte('}')
	}
	t.w.WriteByte(' ')
	t.num = appendFloat(t.num[:0], v)
	t.w.Write(t.num)
	t.w.WriteByte('\n')
}

// appendFloat formats a sample value or bucket bound: integers up to 2^53 as
// integers, other values as Go's shortest 'g' form, and NaN, +Inf and -Inf as
// the format spells them.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, +1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case v == math.Trunc(v) && math.Abs(v) <= 1<<53 && !(v == 0 && math.Signbit(v)):
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func formatFloat(v float64) string { return string(appendFloat(nil, v)) }
