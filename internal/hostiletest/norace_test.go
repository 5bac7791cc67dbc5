//go:build !race

package hostiletest

// raceEnabled is true when the race detector is on.
const raceEnabled = false
