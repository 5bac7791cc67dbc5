package api

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestFillLingers: the batcher's linger (fill) on the bubble's clock. A
// round waits for the writers the last round answered, no longer than
// Linger nor a quarter of the last round's time, and not at all after a
// lone writer's round, after a round that was not one atomic batch
// (pipelined, or single appends) or with Linger disabled; it stops waiting as soon as
// they are all in, or the round is full.
func TestFillLingers(t *testing.T) {
	const linger = 2 * time.Millisecond
	for _, tc := range []struct {
		name   string
		linger time.Duration
		batch  int
		last   roundStats
		// arrive are the times, from fill's start, at which lone appends
		// come.
		arrive []time.Duration
		// want is how many appends the round takes, and waited for how
		// long.
		want   int
		waited time.Duration
	}{
		{"a lone writer never waits", linger, 8, roundStats{batch: true, writers: 1, took: time.Second}, []time.Duration{time.Millisecond}, 1, 0},
		{"waits until the last round's writers are in", linger, 8, roundStats{batch: true, writers: 3, took: time.Second},
			[]time.Duration{time.Millisecond, 1500 * time.Microsecond, 1800 * time.Microsecond}, 3, 1500 * time.Microsecond},
		{"no longer than Linger", linger, 8, roundStats{batch: true, writers: 3, took: time.Second}, []time.Duration{time.Millisecond, 3 * time.Millisecond}, 2, linger},
		{"no longer than a quarter of the last round", linger, 8, roundStats{batch: true, writers: 3, took: 4 * time.Millisecond}, []time.Duration{1500 * time.Microsecond}, 1, time.Millisecond},
		{"not when Linger is disabled", -1, 8, roundStats{batch: true, writers: 3, took: time.Second}, []time.Duration{time.Millisecond}, 1, 0},
		{"not after a round that was not one atomic batch", linger, 8, roundStats{writers: 3, took: time.Second}, []time.Duration{time.Millisecond}, 1, 0},
		{"not past a full round", linger, 2, roundStats{batch: true, writers: 3, took: time.Second}, []time.Duration{time.Millisecond, 1500 * time.Microsecond}, 2, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &Server{appends: make(chan *pendingAppend, len(tc.arrive)), cfg: Config{Batch: tc.batch, Linger: tc.linger}}
				start := time.Now()
				go func() {
					for _, at := range tc.arrive {
						time.Sleep(at - time.Since(start)) // the arrival schedule, on the bubble's clock
						s.appends <- &pendingAppend{}
					}
				}()
				got := s.fill([]*pendingAppend{{}}, tc.last)
				if waited := time.Since(start); len(got) != tc.want || waited != tc.waited {
					t.Errorf("took %d appends after %s, want %d after %s", len(got), waited, tc.want, tc.waited)
				}
				// The appends that come late end up in the channel (it
				// holds them all), and the sender ends.
				time.Sleep(tc.arrive[len(tc.arrive)-1]) // past the schedule's end, on the bubble's clock
				synctest.Wait()
			})
		})
	}
}
