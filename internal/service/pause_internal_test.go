package service

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestPauseBackoff: the back-off between attempts after a lost race
// (catchUpAfterConflict) on the bubble's clock: a random pause, more than
// nothing and at most 1ms doubled per attempt up to 50ms, and none once
// the context has ended.
func TestPauseBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for attempt, limit := range []time.Duration{1, 2, 4, 8, 16, 32, 50, 50, 50} {
			limit *= time.Millisecond
			for range 20 {
				start := time.Now()
				pause(t.Context(), attempt)
				if d := time.Since(start); d <= 0 || d > limit {
					t.Fatalf("attempt %d paused %s, want (0, %s]", attempt, d, limit)
				}
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		start := time.Now()
		pause(ctx, 6)
		if d := time.Since(start); d != 0 {
			t.Fatalf("with its context ended it paused %s", d)
		}
	})
}
