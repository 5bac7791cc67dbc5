//go:build race

package natslog

// raceEnabled: the race detector's build, whose sync.Pool drops some of
// what it is given.
const raceEnabled = true
