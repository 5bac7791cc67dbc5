package api

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// limitedHandler writes at most one record per cause (level and message)
// per interval and drops the rest; the next record of a cause that gets
// through carries how many were dropped since the last ("suppressed"). A
// flood of one kind of failure so costs a line a second, not a line a
// request, and a different cause is never hidden by it.
type limitedHandler struct {
	next  slog.Handler
	every time.Duration
	now   func() time.Time
	state *limitState // shared by the handlers WithAttrs and WithGroup derive
}

type limitState struct {
	mu     sync.Mutex
	causes map[limitKey]*limitCause
}

type limitKey struct {
	level slog.Level
	msg   string
}

type limitCause struct {
	last       time.Time
	suppressed int
}

// maxCauses bounds the causes remembered; past it they are forgotten and
// start afresh (messages are constants, so it is not reached in practice).
const maxCauses = 1024

func newLimitedHandler(next slog.Handler, every time.Duration) *limitedHandler {
	return &limitedHandler{next: next, every: every, now: time.Now, state: &limitState{causes: map[limitKey]*limitCause{}}}
}

func (h *limitedHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *limitedHandler) Handle(ctx context.Context, r slog.Record) error {
	k, now := limitKey{r.Level, r.Message}, h.now()
	st := h.state
	st.mu.Lock()
	c := st.causes[k]
	if c == nil {
		if len(st.causes) >= maxCauses {
			clear(st.causes)
		}
		c = &limitCause{}
		st.causes[k] = c
	} else if now.Sub(c.last) < h.every {
		c.suppressed++
		st.mu.Unlock()
		return nil
	}
	n := c.suppressed
	c.last, c.suppressed = now, 0
	st.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", n))
	}
	return h.next.Handle(ctx, r)
}

func (h *limitedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(as)
	return &c
}

func (h *limitedHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	return &c
}
