//go:build race

package projection_test

// raceEnabled: the race detector's build, whose allocation counts are
// higher (and vary a little: sync.Pool drops some of what it is given),
// so the allocation guards take their race bounds.
const raceEnabled = true
