package client

import (
	"math/rand"
	"testing"

	"github.com/oklog/ulid/v2"
)

// TestNewIDIsMustNew: newID makes the ids ulid.MustNew makes from the
// same entropy, in a new millisecond and within one.
func TestNewIDIsMustNew(t *testing.T) {
	c := &Client{ids: ulid.Monotonic(rand.New(rand.NewSource(1)), 0)}
	want := ulid.Monotonic(rand.New(rand.NewSource(1)), 0)
	for _, ms := range []uint64{1, 1, 1, 2, 1 << 40, 1 << 40, ulid.MaxTime()} {
		if got, w := c.newID(ms), ulid.MustNew(ms, want).String(); got != w {
			t.Fatalf("ms %d: %s, ulid.MustNew %s", ms, got, w)
		}
	}
}
