package events_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestErrorIsByCode: errors.Is matches an *events.Error by its code, through
// wrapping, whatever the messages say; the conflict sentinel is such an
// error, and what one caller does to its copy changes no other.
func TestErrorIsByCode(t *testing.T) {
	fresh := &events.Error{Code: events.CodeConflict, Msg: "made from an answer's headers"}
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"a fresh conflict is the sentinel", fresh, events.ErrConflict(), true},
		{"wrapped", fmt.Errorf("client: append: %w", fresh), events.ErrConflict(), true},
		{"joined", errors.Join(errors.New("other"), fresh), events.ErrConflict(), true},
		{"the sentinel is a conflict", events.ErrConflict(), &events.Error{Code: events.CodeConflict}, true},
		{"another message, same code", events.UnknownSession("a"), events.UnknownChild("b"), true},
		{"another code", events.UnknownSession("a"), events.ErrConflict(), false},
		{"not an *Error", errors.New("conflict: another writer appended first"), events.ErrConflict(), false},
		{"nil target", fresh, (*events.Error)(nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, tt.target); got != tt.want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
			}
		})
	}
	mine := events.ErrConflict()
	mine.Code, mine.Msg = events.CodeBadTurn, "changed by a caller"
	if got := events.ErrConflict(); got.Code != events.CodeConflict || got.Msg == mine.Msg {
		t.Errorf("ErrConflict() after a caller changed its copy: %+v", got)
	}
}
