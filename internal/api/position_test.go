package api

import "testing"

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
