package api

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
)

// fakeRequest is a micro.Request that only carries data.
type fakeRequest struct {
	micro.Request
	data []byte
}

func (r fakeRequest) Data() []byte { return r.data }

// TestLanesTakeTurns: a worker takes one request from each lane in turn,
// and each lane's requests in their order; a full lane refuses.
func TestLanesTakeTurns(t *testing.T) {
	l := newLanes(3, 1<<20)
	served := make(chan string, 5)
	h := func(r micro.Request) { served <- string(r.Data()) }
	for _, p := range []struct{ lane, req string }{
		{"append a", "a1"}, {"append a", "a2"}, {"append a", "a3"}, {"append b", "b1"}, {"append b", "b2"},
	} {
		if !l.push(p.lane, fakeRequest{data: []byte(p.req)}, h) {
			t.Fatalf("push %s refused", p.req)
		}
	}
	if l.push("append a", fakeRequest{data: []byte("a4")}, h) {
		t.Fatal("a fourth request in a lane of 3 was taken")
	}
	done := make(chan struct{})
	go func() { l.serve(); close(done) }()
	var got []string
	deadline := time.After(10 * time.Second)
	for len(got) < 5 {
		select {
		case r := <-served:
			got = append(got, r)
		case <-deadline:
			t.Fatalf("served %q of 5", got)
		}
	}
	l.stop()
	<-done
	if want := "a1 b1 a2 b2 a3"; strings.Join(got, " ") != want {
		t.Errorf("served %q, want %q", strings.Join(got, " "), want)
	}
}

// TestLimitedHandler: one line per cause per interval, the next carries
// how many were suppressed, and another cause is not held back.
func TestLimitedHandler(t *testing.T) {
	var buf bytes.Buffer
	h := newLimitedHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}), time.Second)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	log := slog.New(h).With("k", "v")
	for range 1000 {
		log.Warn("flood")
	}
	log.Error("other")
	now = now.Add(time.Second)
	log.Warn("flood")
	want := "level=WARN msg=flood k=v\nlevel=ERROR msg=other k=v\nlevel=WARN msg=flood k=v suppressed=999\n"
	if buf.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestFifo: a fifo gives back what was pushed, in order, through any mix
// of pushes and pops (its array moved to the front and reused).
func TestFifo(t *testing.T) {
	var q fifo[int]
	var model []int
	next := 0
	for i := range 20000 {
		if i%7 < 4 || len(model) == 0 { // mostly pushes, so the queue grows and drains
			q.push(next)
			model = append(model, next)
			next++
		} else {
			if v := q.pop(); v != model[0] {
				t.Fatalf("step %d: popped %d, want %d", i, v, model[0])
			}
			model = model[1:]
		}
		if i%5000 == 4999 {
			for len(model) > 0 {
				if v := q.pop(); v != model[0] {
					t.Fatalf("draining: popped %d, want %d", v, model[0])
				}
				model = model[1:]
			}
		}
		if q.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", i, q.len(), len(model))
		}
	}
	if cap(q.items) > 4096 {
		t.Errorf("the array grew to %d for at most %d queued", cap(q.items), 5000)
	}
}

// TestLanesReuse: a request on a lane that emptied (an owner's next
// request on one endpoint, the common case) allocates nothing in the
// lanes: the emptied lane and its queue are reused.
func TestLanesReuse(t *testing.T) {
	l := newLanes(8, 1<<20)
	served := make(chan struct{}, 1)
	h := func(micro.Request) { served <- struct{}{} }
	done := make(chan struct{})
	go func() { l.serve(); close(done) }()
	defer func() { l.stop(); <-done }()
	var req micro.Request = fakeRequest{data: []byte("x")}
	one := func() {
		if !l.push("check acme", req, h) {
			t.Fatal("push refused")
		}
		<-served
	}
	one()
	if n := testing.AllocsPerRun(200, one); n != 0 {
		t.Errorf("%v allocations a request", n)
	}
}

// TestLanesRunInline: run serves a request on an idle lane on the
// caller's goroutine, holding the lane; a request that comes meanwhile on
// that lane (by push or run) queues behind it and a worker serves it once
// the caller is done; another lane is not held; a full lane refuses run
// as it refuses push.
func TestLanesRunInline(t *testing.T) {
	l := newLanes(1, 1<<20)
	served := make(chan string, 8)
	h := func(r micro.Request) { served <- string(r.Data()) }
	// No worker runs: what is served inline is served by the caller.
	if !l.run("append a", fakeRequest{data: []byte("a1")}, h) {
		t.Fatal("run on an idle lane refused")
	}
	if got := <-served; got != "a1" {
		t.Fatalf("served %q inline", got)
	}
	inA, release := make(chan struct{}), make(chan struct{})
	hold := func(r micro.Request) { close(inA); <-release; h(r) }
	ran := make(chan bool, 1)
	go func() { ran <- l.run("append a", fakeRequest{data: []byte("a2")}, hold) }()
	<-inA
	// The lane is held: these queue (a limit of one request), not run.
	if !l.run("append a", fakeRequest{data: []byte("a3")}, h) {
		t.Fatal("run on a held lane refused")
	}
	if l.run("append a", fakeRequest{data: []byte("a4")}, h) || l.push("append a", fakeRequest{data: []byte("a5")}, h) {
		t.Fatal("a full lane took another request")
	}
	// Another lane runs inline meanwhile.
	if !l.run("append b", fakeRequest{data: []byte("b1")}, h) {
		t.Fatal("run on another idle lane refused")
	}
	if got := <-served; got != "b1" {
		t.Fatalf("served %q, want b1 while a2 holds its lane", got)
	}
	select {
	case got := <-served:
		t.Fatalf("served %q while a2 holds the lane", got)
	default:
	}
	done := make(chan struct{})
	go func() { l.serve(); close(done) }()
	defer func() { l.stop(); <-done }()
	select {
	case got := <-served:
		t.Fatalf("a worker served %q while a2 holds the lane", got)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if !<-ran {
		t.Fatal("run refused")
	}
	for _, want := range []string{"a2", "a3"} {
		select {
		case got := <-served:
			if got != want {
				t.Fatalf("served %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s not served", want)
		}
	}
}
