//go:build !linux && !darwin

package thinhook

import (
	"io"
	"time"
)

// rawDial has no socket of its own here: the net package's connects.
func rawDial(*waiter, target) (conn, bool, error) { return nil, false, nil }

// pollStdin is nil here: readPayloadWithin's goroutine reads.
func pollStdin(io.Reader, time.Duration) io.Reader { return nil }
