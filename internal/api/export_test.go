package api

import (
	"sync/atomic"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Running is how many of s's goroutines run.
func Running(s *Server) int64 { return s.running.Load() }

// Polling is how many long polls of owner wait.
func Polling(s *Server, owner string) int {
	s.polls.mu.Lock()
	defer s.polls.mu.Unlock()
	return len(s.polls.owners[owner])
}

// FailEndpoint makes adding the endpoint named name fail with err, until
// the returned func is called.
func FailEndpoint(name string, err error) (restore func()) {
	prev := addEndpoint
	addEndpoint = func(g micro.Group, n string, h micro.Handler, opts ...micro.EndpointOpt) error {
		if n == name {
			return err
		}
		return prev(g, n, h, opts...)
	}
	return func() { addEndpoint = prev }
}

// CountTurnReads counts the watches' reads of a session's turn from the
// store, until the returned func is called.
func CountTurnReads(n *atomic.Int64) (restore func()) {
	prev := turnSeq
	turnSeq = func(st *projection.State, key events.SessionKey, turn int) (uint64, bool) {
		n.Add(1)
		return prev(st, key, turn)
	}
	return func() { turnSeq = prev }
}

// PollNext is the sequence owner's first waiting poll waits for (0 when
// none waits): it moves on each time the poll is scanned again.
func PollNext(s *Server, owner string) uint64 {
	s.polls.mu.Lock()
	defer s.polls.mu.Unlock()
	if w := s.polls.owners[owner]; len(w) > 0 {
		return w[0].next.Load()
	}
	return 0
}
