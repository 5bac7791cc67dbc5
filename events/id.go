package events

import (
	"io"
	"time"

	"github.com/oklog/ulid/v2"
)

// ValidID reports whether s is a ULID as the ledger writes it: 26 upper-case
// Crockford base-32 characters, the first at most '7'.
func ValidID(s string) bool {
	if len(s) != 26 || s[0] > '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U':
		default:
			return false
		}
	}
	return true
}

// NewID makes a ULID for time t from entropy. Callers inject both, so tests
// and scenario runs are reproducible.
func NewID(t time.Time, entropy io.Reader) string {
	return ulid.MustNew(ulid.Timestamp(t), entropy).String()
}

// TimeFormat is the layout of a record's time: RFC 3339, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t as a record's time.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }
