//go:build race

package hostile

// raceEnabled is true when the race detector is on.
const raceEnabled = true
