//go:build race

package claudecode

// raceEnabled: the race detector's build, whose allocation counts differ,
// so the allocation guards take their race bounds.
const raceEnabled = true
