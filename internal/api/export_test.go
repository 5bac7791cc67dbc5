package api

import "github.com/nats-io/nats.go/micro"

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
