package api

import (
	"sync"

	"github.com/nats-io/nats.go/micro"
)

// lanes hands requests from the subscriptions' delivery goroutines to a
// pool of workers, fairly between owners: every endpoint and owner (the
// subject's last token) has its own lane, a bounded queue; a worker takes
// one request from the lane that has waited longest and puts the lane back
// at the end of the line if it holds more. So a flood on one lane costs
// another lane's request at most one request per worker before its turn,
// and the delivery goroutine only ever appends to a lane, never waits for
// the service, so the subscription's pending limit is not reached by a
// flood the ledger is slow to refuse.
//
// Caveats: a lane is served by one worker at a time, so one owner's
// requests on one endpoint are handled in the order they arrived (appends
// reach the batcher in order, as before); requests on different lanes have
// no order between them, as they had none between endpoints before.
type lanes struct {
	mu      sync.Mutex
	wake    *sync.Cond
	byKey   map[string]*lane
	ready   []*lane // lanes with requests and no worker, longest waiting first
	limit   int     // requests per lane
	bytes   int     // request bytes per lane
	stopped bool
}

type lane struct {
	key   string
	reqs  []job
	bytes int
	// scheduled: in ready or being served by a worker.
	scheduled bool
}

type job struct {
	r micro.Request
	h micro.HandlerFunc
}

func newLanes(limit, bytes int) *lanes {
	l := &lanes{byKey: map[string]*lane{}, limit: limit, bytes: bytes}
	l.wake = sync.NewCond(&l.mu)
	return l
}

// push queues r for h on lane key; false when the lane holds its limit of
// requests or bytes already (the caller answers r at once).
func (l *lanes) push(key string, r micro.Request, h micro.HandlerFunc) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.byKey[key]
	if ln == nil {
		ln = &lane{key: key}
		l.byKey[key] = ln
	}
	n := len(r.Data())
	if len(ln.reqs) >= l.limit || (len(ln.reqs) > 0 && ln.bytes+n > l.bytes) {
		return false
	}
	ln.reqs = append(ln.reqs, job{r: r, h: h})
	ln.bytes += n
	if !ln.scheduled {
		ln.scheduled = true
		l.ready = append(l.ready, ln)
		l.wake.Signal()
	}
	return true
}

// serve runs requests until stop.
func (l *lanes) serve() {
	for {
		l.mu.Lock()
		for len(l.ready) == 0 && !l.stopped {
			l.wake.Wait()
		}
		if l.stopped {
			l.mu.Unlock()
			return
		}
		ln := l.ready[0]
		l.ready[0] = nil
		l.ready = l.ready[1:]
		j := ln.reqs[0]
		ln.reqs[0] = job{}
		ln.reqs = ln.reqs[1:]
		ln.bytes -= len(j.r.Data())
		l.mu.Unlock()

		j.h(j.r)

		l.mu.Lock()
		if len(ln.reqs) > 0 {
			l.ready = append(l.ready, ln)
			l.wake.Signal()
		} else {
			ln.scheduled = false
			delete(l.byKey, ln.key)
		}
		l.mu.Unlock()
	}
}

// stop ends every serve once its current request is done; queued requests
// are left unanswered (the service is going away).
func (l *lanes) stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	l.wake.Broadcast()
}

// waiters counts the queries waiting for min_seq, per owner.
type waiters struct {
	mu    sync.Mutex
	n     map[string]int
	limit int
}

// acquire takes a waiting slot of owner; false when it holds its limit.
func (w *waiters) acquire(owner string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n[owner] >= w.limit {
		return false
	}
	w.n[owner]++
	return true
}

func (w *waiters) release(owner string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n[owner]--; w.n[owner] <= 0 {
		delete(w.n, owner)
	}
}
