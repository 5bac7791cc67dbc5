package org

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// partTB is the testing.TB of one part run by together. The runtimes'
// helpers end a test with Fatal; from a goroutine that is not the test's
// that is not allowed, so here it reports through Errorf (safe from any
// goroutine), cancels the parts' shared context and ends this goroutine
// only. Parallel subtests would do it too, but under -parallel 2 (two
// cores) the third part would wait for the first two, which wait for it.
type partTB struct {
	testing.TB
	name   string
	cancel context.CancelFunc
}

func (p partTB) stop() {
	p.cancel()
	runtime.Goexit()
}

func (p partTB) Fatal(args ...any) {
	p.TB.Helper()
	p.TB.Error(append([]any{p.name + ":"}, args...)...)
	p.stop()
}

func (p partTB) Fatalf(format string, args ...any) {
	p.TB.Helper()
	p.TB.Errorf(p.name+": "+format, args...)
	p.stop()
}

func (p partTB) FailNow() {
	p.TB.Fail()
	p.stop()
}

// Skipping one part would leave the others waiting: the runtimes are
// required before the parts start, so a skip here is a failure.
func (p partTB) Skip(args ...any) {
	p.TB.Helper()
	p.Fatal(append([]any{"skipped:"}, args...)...)
}

func (p partTB) Skipf(format string, args ...any) {
	p.TB.Helper()
	p.Fatalf("skipped: "+format, args...)
}

func (p partTB) SkipNow() { p.Fatal("skipped") }

// together runs every part at once, each on its own goroutine with its
// partTB, and returns when all have returned. Its parts stop calls stop
// as soon as one part stops on a fatal error, so that the others' waits
// (wait, on the context stop cancels) end early.
func together(t *testing.T, stop context.CancelFunc, parts map[string]func(t testing.TB)) {
	t.Helper()
	var wg sync.WaitGroup
	for name, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part(partTB{TB: t, name: name, cancel: stop})
		}()
	}
	wg.Wait()
}

// wait waits for ch to be closed, for at most d: a part waiting for what
// another part does. It reports an error naming what and returns false
// when that does not happen in time or the parts were stopped.
func wait(ctx context.Context, t testing.TB, ch <-chan struct{}, d time.Duration, what string) bool {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		t.Errorf("stopped waiting for %s: %v", what, context.Cause(ctx))
	case <-timer.C:
		t.Errorf("%s did not happen within %v", what, d)
	}
	return false
}

// signal is a channel closed once.
type signal struct {
	once sync.Once
	ch   chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

func (s *signal) fire()                 { s.once.Do(func() { close(s.ch) }) }
func (s *signal) done() <-chan struct{} { return s.ch }
