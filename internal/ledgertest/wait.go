package ledgertest

import (
	"testing"
	"time"
)

// WaitFor waits until cond holds, asking it every 5ms, and fails the test
// (naming what) when it does not within timeout or the test's context
// ends first. It is for a condition nothing signals, such as a count a
// test reads through an export_test.go accessor; wait on a channel where
// there is one. Call it on the test's goroutine (it may call t.Fatalf).
// In a synctest bubble its timers are the bubble's.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if cond() {
		return
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("%s: not within %s", what, timeout)
		case <-t.Context().Done():
			t.Fatalf("%s: the test ended first", what)
		case <-tick.C:
		}
	}
}
