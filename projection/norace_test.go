//go:build !race

package projection_test

const raceEnabled = false
