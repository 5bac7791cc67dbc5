package api

import (
	"time"

	"github.com/sessionledger/ledger/events"
)

// Bounds of what events.TimeFormat can write with a four-digit year: a
// time outside them is clamped, so that the text comparison with stored
// times still orders it.
var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
)

// NormalizeTime parses a position's time, RFC 3339 with any offset and with
// or without fractional seconds, and returns it in the layout records are
// stored in (events.TimeFormat: UTC, milliseconds). The projection finds
// "the last record whose time is at most T" by comparing that text, which
// orders instants only when both sides have that one layout; a time written
// as 13:18:20Z or +01:00 compared as given lands on the wrong record.
// Fractions below a millisecond are dropped: records are stamped to the
// millisecond, so the same records are at most T either way.
func NormalizeTime(s string) (string, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "", events.Errorf(events.CodeInvalidEvent, "time %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z or 2026-01-02T16:04:05.250+01:00", s)
	}
	t = t.UTC()
	switch {
	case t.Before(minTime):
		t = minTime
	case t.After(maxTime):
		t = maxTime
	}
	return events.FormatTime(t), nil
}
