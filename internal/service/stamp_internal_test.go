package service

import (
	"testing"
	"time"
	"unsafe"

	"github.com/sessionledger/ledger/events"
)

// TestStampSharedWithinAMillisecond: the time a record is stamped with is
// events.FormatTime of the clock, whatever the clock says (before the
// epoch, across a second, going back); records stamped within one
// millisecond share one text.
func TestStampSharedWithinAMillisecond(t *testing.T) {
	var clock time.Time
	s := &Service{cfg: Config{Clock: func() time.Time { return clock }}}
	base := time.Date(2026, 12, 4, 15, 59, 59, 998_000_000, time.UTC)
	for _, at := range []time.Time{
		base, base.Add(400 * time.Microsecond), base.Add(time.Millisecond), base.Add(2 * time.Millisecond),
		base.Add(-time.Hour), time.Unix(0, 0), time.Unix(0, -500_000), time.Unix(0, 500_000),
		time.Unix(-1, 999_999_999), base.In(time.FixedZone("east", 5*3600)),
	} {
		clock = at
		if got, want := s.now(), events.FormatTime(at); got != want {
			t.Fatalf("stamp at %v = %q, want %q", at, got, want)
		}
	}
	clock = base
	first := s.now()
	clock = base.Add(999 * time.Microsecond)
	if again := s.now(); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Fatalf("a record stamped in the same millisecond got a text of its own")
	}
	if n := testing.AllocsPerRun(100, func() { s.now() }); n != 0 {
		t.Fatalf("a stamp within the same millisecond makes %v allocations, want 0", n)
	}
}
