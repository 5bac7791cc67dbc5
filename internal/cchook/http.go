package cchook

import (
	"context"
	"crypto/subtle"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// HTTPPath is where `ledger serve --hooks` takes Claude Code's HTTP hooks.
const HTTPPath = "/hooks/claude-code"

// Handler serves the mapping to Claude Code's HTTP hooks ("type": "http"):
// each POST to HTTPPath is one payload, answered with what the command hook
// would print, always with status 200 (Claude Code treats any other status
// as a non-blocking error, which would let a call through). Token, when set,
// must come as "Authorization: Bearer TOKEN".
type Handler struct {
	Hook    *Hook
	Token   string
	Timeout time.Duration // per payload; default 5s
	Logger  *slog.Logger
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// Claude Code only POSTs: another method is not a hook.
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST a hook payload", http.StatusMethodNotAllowed)
		return
	}
	// A POST on another path or without the token is refused with a
	// denial, status 200, and nothing is read or appended: any other
	// status is a non-blocking error to Claude Code, so a hook URL or
	// token gone wrong would let every call through
	// (TestHookServeHTTPRefusalsDeny).
	if r.URL.Path != HTTPPath {
		h.refuse(w, "the session policy ledger's hook server takes hooks at POST "+HTTPPath+", not "+r.URL.Path+
			": the call is denied until the hook's URL in the project's .claude settings is fixed ('ledger hook install --url')")
		return
	}
	if h.Token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+h.Token)) != 1 {
		h.refuse(w, "the session policy ledger's hook server refused this hook: no valid 'Authorization: Bearer' token "+
			"(the one given to ledger serve --hooks-token); the call is denied until the hook's headers carry it")
		return
	}
	// Up to one byte over the limit: Handle denies a body over it rather
	// than decode a cut one. A body that cannot be read is handed over as
	// nothing, which Handle denies too: any status but 200 would let a call
	// through.
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxPayload+1))
	if err != nil {
		raw = nil
	}
	d := h.Timeout
	if d <= 0 {
		d = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), d)
	defer cancel()
	res := h.Hook.Handle(ctx, raw)
	if h.Logger != nil {
		h.Logger.Info("hook", "event", res.Event, "session", res.Session, "decision", res.Decision,
			"denied", res.Denied, "unreadable", res.Unreadable, "appended", len(res.Appended), "warnings", res.Warnings)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(res.Output)
}

// refuse answers a request it will not handle with a denial.
func (h *Handler) refuse(w http.ResponseWriter, reason string) {
	if h.Logger != nil {
		h.Logger.Warn("hook refused", "reason", reason)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(DenyOutput(reason))
}
