package main

// runGroup runs a process's actors together and stops them in a set
// order. An actor is an execute function, which runs until the actor is
// done, and an interrupt, which makes execute return.
//
// run starts every execute in a goroutine of its own and waits for the
// first to return. It then interrupts the actors from the last added to
// the first, one at a time, each only after the execute of the one added
// after it has returned, and returns the first execute's error once every
// execute has returned: no goroutine the group started outlives run
// (TestRunGroupStopsInReverseOrder, TestRunGroupFirstErrorStopsAll).
type runGroup struct {
	actors []actor
}

type actor struct {
	execute   func() error
	interrupt func()
}

// add adds an actor.
func (g *runGroup) add(execute func() error, interrupt func()) {
	g.actors = append(g.actors, actor{execute, interrupt})
}

// addStop adds something already running that stop ends, returning only
// once it has ended: its execute waits for the group to stop, and its
// interrupt calls stop.
func (g *runGroup) addStop(stop func()) {
	done := make(chan struct{})
	g.add(func() error { <-done; return nil }, func() { stop(); close(done) })
}

// abort is for a failure before run: it interrupts the actors added, from
// the last to the first, without running them (so each addStop's stop
// runs), and returns err.
func (g *runGroup) abort(err error) error {
	for i := len(g.actors) - 1; i >= 0; i-- {
		g.actors[i].interrupt()
	}
	return err
}

// run runs the actors until the first returns, then stops them all.
func (g *runGroup) run() error {
	if len(g.actors) == 0 {
		return nil
	}
	type result struct {
		i   int
		err error
	}
	results := make(chan result, len(g.actors))
	for i, a := range g.actors {
		go func() { results <- result{i, a.execute()} }()
	}
	first := <-results
	returned := make([]bool, len(g.actors))
	returned[first.i] = true
	for i := len(g.actors) - 1; i >= 0; i-- {
		g.actors[i].interrupt()
		for !returned[i] {
			r := <-results
			returned[r.i] = true
		}
	}
	return first.err
}
