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
//
// A lane that empties is kept for the next one to open, and both queues
// reuse their arrays, so a request on an idle owner's lane allocates
// nothing here (TestLanesReuse).
type lanes struct {
	mu      sync.Mutex
	wake    *sync.Cond
	byKey   map[string]*lane
	ready   fifo[*lane] // lanes with requests and no worker, longest waiting first
	idle    []*lane     // emptied lanes, for reuse
	limit   int         // requests per lane
	bytes   int         // request bytes per lane
	stopped bool
}

// maxIdleLanes bounds how many emptied lanes are kept.
const maxIdleLanes = 64

type lane struct {
	key   string
	reqs  fifo[job]
	bytes int
	// scheduled: in ready or being served by a worker.
	scheduled bool
}

// fifo is a queue that reuses its array: from the start once it empties,
// and by moving what it holds to the front once the part taken is the
// larger (so each push and pop costs a constant amortized).
type fifo[T any] struct {
	items []T
	head  int // items[head:] are queued
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }

func (q *fifo[T]) push(v T) {
	if len(q.items) == cap(q.items) && q.head >= len(q.items)/2 && q.head > 0 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, v)
}

// pop takes the first item; the queue must hold one.
func (q *fifo[T]) pop() T {
	v := q.items[q.head]
	var zero T
	q.items[q.head] = zero
	if q.head++; q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v
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
		ln = l.open(key)
	}
	n := len(r.Data())
	if ln.reqs.len() >= l.limit || (ln.reqs.len() > 0 && ln.bytes+n > l.bytes) {
		return false
	}
	ln.reqs.push(job{r: r, h: h})
	ln.bytes += n
	if !ln.scheduled {
		ln.scheduled = true
		l.ready.push(ln)
		l.wake.Signal()
	}
	return true
}

// run runs r with h on the caller's goroutine when lane key is idle
// (nothing queued on it, no worker serving it): the lane is held as a
// worker holds it, so requests that come meanwhile queue behind r and a
// worker takes them once r is done. On a busy lane r is queued as push
// queues it. Only a request whose handler does not wait for the service
// belongs here (a local append or check, parsed and queued for the
// batcher or decided at once: see Server.RequestWithContext), since the
// caller cannot give up on it while it runs. TestLanesRunInline.
func (l *lanes) run(key string, r micro.Request, h micro.HandlerFunc) bool {
	l.mu.Lock()
	if l.byKey[key] != nil || l.stopped {
		l.mu.Unlock()
		return l.push(key, r, h)
	}
	ln := l.open(key)
	ln.scheduled = true
	l.mu.Unlock()
	h(r)
	l.release(ln)
	return true
}

// open makes the lane of key, reusing an emptied one. The caller holds mu.
func (l *lanes) open(key string) *lane {
	var ln *lane
	if n := len(l.idle); n > 0 {
		ln = l.idle[n-1]
		l.idle[n-1] = nil
		l.idle = l.idle[:n-1]
	} else {
		ln = &lane{}
	}
	ln.key = key
	l.byKey[key] = ln
	return ln
}

// release ends the serving of one request of ln: the lane goes back in
// line when it holds more, else it is emptied.
func (l *lanes) release(ln *lane) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ln.reqs.len() > 0 {
		l.ready.push(ln)
		l.wake.Signal()
		return
	}
	ln.scheduled = false
	delete(l.byKey, ln.key)
	if len(l.idle) < maxIdleLanes {
		ln.key = ""
		l.idle = append(l.idle, ln)
	}
}

// serve runs requests until stop.
func (l *lanes) serve() {
	for {
		l.mu.Lock()
		for l.ready.len() == 0 && !l.stopped {
			l.wake.Wait()
		}
		if l.stopped {
			l.mu.Unlock()
			return
		}
		ln := l.ready.pop()
		j := ln.reqs.pop()
		ln.bytes -= len(j.r.Data())
		l.mu.Unlock()

		j.h(j.r)
		l.release(ln)
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
