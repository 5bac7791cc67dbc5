package cchook

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// goroutineID is the calling goroutine's number, as runtime.Stack names it.
func goroutineID() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// TestWithinReusesRunners: a Within's run after another has returned runs
// on the goroutine the other ran on (a runner, its stack grown already),
// and a run that never returns holds no later run back: that one runs on
// another goroutine, and its answer is Within's.
func TestWithinReusesRunners(t *testing.T) {
	// Runners other tests left idle end first.
	for drained := false; !drained; {
		select {
		case r := <-idleRunners:
			close(r)
		default:
			drained = true
		}
	}
	never := func() uint64 { return 0 }
	panicked := func(any, []byte) uint64 { return 3 }
	first := Within(t.Context(), time.Minute, goroutineID, never, panicked)
	waitIdle(t)
	second := Within(t.Context(), time.Minute, goroutineID, never, panicked)
	if first == 0 || second != first {
		t.Fatalf("the second run ran on goroutine %d, the first on %d: the runner was not reused", second, first)
	}

	// A run that does not return: Within answers overdue's (its context
	// is done, no grace), and its runner stays with it.
	waitIdle(t)
	block := make(chan struct{})
	stuck := make(chan uint64, 1)
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if got := Within(ended, 0, func() uint64 { stuck <- goroutineID(); <-block; return 1 }, func() uint64 { return 2 }, panicked); got != 2 {
		t.Fatalf("a run that never returns: Within answered %d, want overdue's 2", got)
	}
	held := <-stuck
	if held != first {
		t.Fatalf("the stuck run ran on goroutine %d, not on the idle runner %d", held, first)
	}
	next := Within(t.Context(), time.Minute, goroutineID, never, panicked)
	if next == 0 || next == held {
		t.Fatalf("the run after a stuck one ran on goroutine %d (the stuck run's is %d)", next, held)
	}
	// Both runners go idle once the stuck run returns, so none is left
	// running for a later test.
	close(block)
	for len(idleRunners) < 2 {
		runtime.Gosched()
	}
}

// waitIdle waits until a runner is idle (a runner goes idle just after its
// run's answer is handed over).
func waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(idleRunners) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no runner went idle after its run returned")
		}
		runtime.Gosched()
	}
}
