package service_test

import (
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// TestDenialsOfUnknownSession: the denials of a session the ledger does
// not hold are unknown_session, as its tools and why are, never an empty
// page a mistyped key would read as "nothing denied" (found by the why
// review).
func TestDenialsOfUnknownSession(t *testing.T) {
	svc := storyService(t)
	if _, err := svc.Denials(t.Context(), wire.DenialsQuery{Session: "s9"}, nil); events.CodeOf(err) != events.CodeUnknownSession {
		t.Errorf("denials of an unknown session: %v, want unknown_session", err)
	}
	res, err := svc.Denials(t.Context(), wire.DenialsQuery{Session: "s1"}, nil)
	if err != nil || len(res.Denials) == 0 {
		t.Errorf("denials of s1: %+v, %v", res, err)
	}
}
