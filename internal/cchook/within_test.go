package cchook

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
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

// TestAnswerWithin: AnswerWithin runs on the calling goroutine and writes
// exactly one answer: the run's; overdue's, while the run goes on, once
// its context is done and grace has passed (and returns only when the run
// has); panicked's for a run that panics. A run that returns as the bound
// passes is answered once either way (the race detector watches the
// write), and a panic in the overdue answer is raised on the caller.
func TestAnswerWithin(t *testing.T) {
	panicked := func(v any, _ []byte) string { return "panicked" }
	overdue := func() string { return "overdue" }
	type wrote struct {
		res     string
		overdue bool
		g       uint64
	}
	writes := func() (*[]wrote, func(string, bool)) {
		var w []wrote
		return &w, func(res string, o bool) { w = append(w, wrote{res, o, goroutineID()}) }
	}

	t.Run("the run's answer, on the caller", func(t *testing.T) {
		w, write := writes()
		me := goroutineID()
		var ranOn uint64
		got := AnswerWithin(t.Context(), time.Minute, func() string { ranOn = goroutineID(); return "ran" }, overdue, panicked, write)
		if got != "ran" || len(*w) != 1 || (*w)[0] != (wrote{"ran", false, me}) || ranOn != me {
			t.Fatalf("got %q, writes %+v, ran on %d, caller %d", got, *w, ranOn, me)
		}
	})

	t.Run("overdue while the run goes on", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		release := make(chan struct{})
		answered := make(chan wrote, 2)
		done := make(chan string, 1)
		go func() {
			done <- AnswerWithin(ctx, 10*time.Millisecond, func() string { <-release; return "ran" }, overdue, panicked,
				func(res string, o bool) { answered <- wrote{res, o, 0} })
		}()
		select {
		case a := <-answered:
			if a != (wrote{"overdue", true, 0}) {
				t.Fatalf("answered %+v, want overdue's", a)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no answer while the run is held")
		}
		select {
		case got := <-done:
			t.Fatalf("returned %q before the run did", got)
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		if got := <-done; got != "overdue" {
			t.Fatalf("returned %q, want the answer written (overdue)", got)
		}
		if len(answered) != 0 {
			t.Fatalf("a second answer: %+v", <-answered)
		}
	})

	t.Run("a run that panics", func(t *testing.T) {
		w, write := writes()
		got := AnswerWithin(t.Context(), time.Minute, func() string { panic("boom") }, overdue, panicked, write)
		if got != "panicked" || len(*w) != 1 || (*w)[0].res != "panicked" || (*w)[0].overdue {
			t.Fatalf("got %q, writes %+v", got, *w)
		}
	})

	t.Run("at the bound, one answer", func(t *testing.T) {
		for i := range 300 {
			ctx, cancel := context.WithCancel(t.Context())
			var n atomic.Int32
			var last atomic.Value
			got := AnswerWithin(ctx, time.Duration(i%3)*time.Microsecond, func() string {
				cancel()
				runtime.Gosched()
				return "ran"
			}, overdue, panicked, func(res string, _ bool) { n.Add(1); last.Store(res) })
			cancel()
			if n.Load() != 1 || last.Load() != got {
				t.Fatalf("iteration %d: %d answers, the last %v, returned %q", i, n.Load(), last.Load(), got)
			}
		}
	})

	t.Run("a panic in the overdue answer", func(t *testing.T) {
		ended, cancel := context.WithCancel(t.Context())
		cancel()
		release := make(chan struct{})
		time.AfterFunc(20*time.Millisecond, func() { close(release) })
		defer func() {
			if v := recover(); v != "overdue broke" {
				t.Fatalf("recovered %v, want the overdue answer's panic", v)
			}
		}()
		AnswerWithin(ended, 0, func() string { <-release; return "ran" }, func() string { panic("overdue broke") }, panicked, func(string, bool) {})
		t.Fatal("returned without the panic")
	})
}
