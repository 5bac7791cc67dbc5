package api

import (
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
)

func TestNormalizeTime(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"2026-03-01T13:18:20Z", "2026-03-01T13:18:20.000Z"},
		{"2026-03-01T14:18:20+01:00", "2026-03-01T13:18:20.000Z"},
		{"2026-03-01T13:18:20.5Z", "2026-03-01T13:18:20.500Z"},
		{"2026-03-01T13:18:20.123999999-00:30", "2026-03-01T13:48:20.123Z"},
		{"2026-03-01T13:18:20.123Z", "2026-03-01T13:18:20.123Z"},
		{"9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59.999Z"},
		{"0000-01-01T00:00:00+01:00", "0000-01-01T00:00:00.000Z"},
	}
	for _, tt := range tests {
		got, err := NormalizeTime(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeTime(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"yesterday", "2026-13-45", "2026-03-01", "2026-03-01T25:00:00Z", "2026-03-01 13:18:20Z", ""} {
		if got, err := NormalizeTime(bad); err == nil {
			t.Errorf("NormalizeTime(%q) = %q, want an error", bad, got)
		}
	}
}

// FuzzDecodeQuery: decoding never panics, and a query it accepts names at
// most one position, its time in the stored layout.
func FuzzDecodeQuery(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"session":"s","time":"2026-03-01T14:18:20.5+01:00"}`, `{"sesion":"s"}`,
		`{"seq":1,"turn":2}`, `{"time":"yesterday"}`, `{} {}`, `{"input":{"a":[1,2]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := decodeQuery(data)
		if err != nil {
			return
		}
		n := 0
		for _, set := range []bool{q.Seq != 0, q.Turn != 0, q.Time != ""} {
			if set {
				n++
			}
		}
		if n > 1 {
			t.Fatalf("%s: accepted with %d positions", data, n)
		}
		if q.Time != "" {
			if _, err := time.Parse(events.TimeFormat, q.Time); err != nil || len(q.Time) != len(events.TimeFormat) {
				t.Fatalf("%s: time %q is not in the stored layout", data, q.Time)
			}
		}
	})
}
