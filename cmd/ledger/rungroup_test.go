package main

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestRunGroupStopsInReverseOrder: once an actor returns, run interrupts
// the others from the last added to the first, each after the one added
// after it has returned, and returns only when every execute has.
func TestRunGroupStopsInReverseOrder(t *testing.T) {
	synctest.Test(t, testRunGroupStopsInReverseOrder)
}

func testRunGroupStopsInReverseOrder(t *testing.T) {
	var mu sync.Mutex
	var events []string
	note := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	var g runGroup
	for _, name := range []string{"a", "b", "c"} {
		stop := make(chan struct{})
		g.add(func() error {
			<-stop
			// Not a wait for an event: a slow stop (the bubble's 10 ms,
			// in which every other goroutine runs until it blocks) must
			// still be waited for.
			time.Sleep(10 * time.Millisecond)
			note(name + " returned")
			return nil
		}, func() { note(name + " interrupted"); close(stop) })
	}
	quit := make(chan struct{})
	g.add(func() error { <-quit; return nil }, func() {})
	close(quit)
	if err := g.run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"c interrupted", "c returned", "b interrupted", "b returned", "a interrupted", "a returned"}
	if !slices.Equal(events, want) {
		t.Fatalf("events %q, want %q", events, want)
	}
}

// TestRunGroupFirstErrorStopsAll: the first actor's error is run's, the
// others are interrupted, and abort stops what was added without running it.
func TestRunGroupFirstErrorStopsAll(t *testing.T) {
	var g runGroup
	boom := errors.New("boom")
	stopped := false
	g.addStop(func() { stopped = true })
	g.add(func() error { return boom }, func() {})
	if err := g.run(); !errors.Is(err, boom) || !stopped {
		t.Fatalf("run: %v, stopped %v", err, stopped)
	}
	var a runGroup
	aborted := false
	a.addStop(func() { aborted = true })
	if err := a.abort(boom); !errors.Is(err, boom) || !aborted {
		t.Fatalf("abort: %v, stopped %v", err, aborted)
	}
}

// ledgerGoroutines returns the stacks of the goroutines running code of the
// ledger's packages, this one's (package main) included, other than the
// caller's and those in before.
func ledgerGoroutines(before map[string]bool) []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 || before[goroutineID(g)] {
			continue // the caller
		}
		if strings.Contains(g, "github.com/sessionledger/ledger/") || strings.Contains(g, "\nmain.") {
			out = append(out, g)
		}
	}
	return out
}

// goroutineID is the "goroutine N" of a stack.
func goroutineID(stack string) string {
	id, _, _ := strings.Cut(stack, " [")
	return id
}

// TestServeLeavesNoGoroutines: serve with every part on (the API, the
// metrics server and its sampler, the report, the hooks server) returns on
// SIGINT or SIGTERM (its context ending) only after stopping all it
// started: no goroutine of the ledger's code is left.
func TestServeLeavesNoGoroutines(t *testing.T) {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	before := map[string]bool{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		before[goroutineID(g)] = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr ledgertest.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--listen", "127.0.0.1:-1",
			"--metrics", "127.0.0.1:0", "--http", "127.0.0.1:0", "--hooks", "127.0.0.1:0", "--hooks-no-import", "--hooks-insecure"}, nil, &stdout, &stderr)
	}()
	started := false
	defer func() {
		if !started && t.Failed() {
			t.Logf("serve's stderr:\n%s", stderr.String())
		}
	}()
	ledgertest.WaitFor(t, 30*time.Second, `serve logging "serving"`, func() bool {
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v", err)
		default:
		}
		started = strings.Contains(stderr.String(), `"msg":"serving"`)
		return started
	})
	if len(ledgerGoroutines(before)) == 0 {
		t.Fatal("no goroutine of serve's found while it serves: the check sees nothing")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	// A goroutine that has sent its last result may still be on its way
	// out; none may still be at work.
	var left []string
	defer func() {
		if len(left) > 0 && t.Failed() {
			t.Logf("%d goroutines left after serve returned:\n%s", len(left), strings.Join(left, "\n\n"))
		}
	}()
	ledgertest.WaitFor(t, time.Second, "no goroutine of serve's left after it returned", func() bool {
		left = ledgerGoroutines(before)
		return len(left) == 0
	})
}
