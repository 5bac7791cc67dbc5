//go:build !race

package natslog

const raceEnabled = false
