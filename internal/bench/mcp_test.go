package bench

import (
	"testing"
	"time"
)

// TestPairedFloorSumsIterations: the paired floor sums the proxy call and
// the raw publish of the same iteration, and its p50 is not the sum of
// the two p50s when the slow ones fall in different iterations.
func TestPairedFloorSumsIterations(t *testing.T) {
	ms := time.Millisecond
	r := callRuns{
		proxy:   []time.Duration{1 * ms, 1 * ms, 9 * ms},
		publish: []time.Duration{9 * ms, 1 * ms, 1 * ms},
	}
	got := r.paired()
	want := []time.Duration{10 * ms, 2 * ms, 10 * ms}
	if len(got) != len(want) {
		t.Fatalf("paired %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("paired %v, want %v", got, want)
		}
	}
	if p50, sum := quantile(got, 0.5), quantile(r.proxy, 0.5)+quantile(r.publish, 0.5); p50 != 10000 || sum != 2000 {
		t.Errorf("p50 of the paired floor %v µs, sum of the p50s %v µs; want 10000 and 2000", p50, sum)
	}
}
