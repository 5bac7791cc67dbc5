package ledgertest

import (
	"bytes"
	"strings"
	"sync"
)

// PanicWriter panics at its first write that holds Marker ("a writer it
// did not expect"), and keeps every other write: a panic in a hook
// process outside the run cchook.Within recovers, after the payload was
// read and before the answer is printed (the hook commands'
// TestRunPanicDenies, TestHookAgentPanicDenies).
type PanicWriter struct {
	Marker   string
	mu       sync.Mutex
	panicked bool
	buf      bytes.Buffer
}

func (p *PanicWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.panicked && strings.Contains(string(b), p.Marker) {
		p.panicked = true
		panic("a writer it did not expect")
	}
	return p.buf.Write(b)
}

// String is what was written, but the write that panicked.
func (p *PanicWriter) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}
