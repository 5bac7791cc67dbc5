package events

import (
	"errors"
	"fmt"
)

// Code is a stable error code (SPEC section 8). Codes reach the wire and the
// CLI's --json output, so they are explicit strings that never change.
type Code string

// The stable error codes of SPEC section 8, including every dialect's
// admission codes.
const (
	CodeInvalidEvent      Code = "invalid_event"
	CodeUnknownType       Code = "unknown_type"
	CodeBadSessionKey     Code = "bad_session_key"
	CodeDuplicateSession  Code = "duplicate_session"
	CodeUnknownSession    Code = "unknown_session"
	CodeUnknownParent     Code = "unknown_parent"
	CodeSessionNotActive  Code = "session_not_active"
	CodeBadTurn           Code = "bad_turn"
	CodeNotAChild         Code = "not_a_child"
	CodeConflict          Code = "conflict"
	CodeUnknownGrant      Code = "unknown_grant"
	CodeUnknownRevocation Code = "unknown_revocation"
	// CodeScopeNotAllowed: the user's scope limits leave the event's
	// scope out.
	CodeScopeNotAllowed      Code = "scope_not_allowed"
	CodeInvalidPolicy        Code = "invalid_policy"
	CodeDepthLimit           Code = "depth_limit"
	CodeMaxChildren          Code = "max_children"
	CodeAgentNotAllowed      Code = "agent_not_allowed"
	CodeAgentNotConfigured   Code = "agent_not_configured"
	CodeAgentIDRequired      Code = "agent_id_required"
	CodeZeroTools            Code = "zero_tools"
	CodeSandboxRequired      Code = "sandbox_required"
	CodeDelegationUnavail    Code = "delegation_unavailable"
	CodeNestedFork           Code = "nested_fork"
	CodeNestedTeam           Code = "nested_team"
	CodeBackgroundNotAllowed Code = "background_not_allowed"
	CodeAuthorizationChanged Code = "authorization_changed"
	CodeNotCaughtUp          Code = "not_caught_up"
	// CodeDeadlinePassed refuses a recorded check the ledger could not
	// decide within the caller's within_ms: nothing is recorded.
	CodeDeadlinePassed  Code = "deadline_passed"
	CodeBehindRetention Code = "behind_retention"
	CodeNotImplemented  Code = "not_implemented"
	// CodeStorage is a read of the ledger's own storage (the projection
	// file) that failed: not the caller's fault, and not an answer about
	// what was asked; the message says how to repair it.
	CodeStorage Code = "storage_error"
)

// Error is the one error type callers branch on: a stable code and a message
// that says what to fix.
//
// errors.Is matches two *Error by their code alone (Is), as jetstream's
// APIError compares its codes: an error rebuilt from an answer on the wire
// (the client makes a fresh *Error from the answer's headers) is the error
// the ledger returned, whatever its message says
// (client.TestErrorsMatchAcrossTheWire, TestErrorIsByCode).
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Msg }

// Is reports whether target is an *Error with e's code, so that
// errors.Is(err, ErrConflict()) and errors.Is(err, &Error{Code: c}) hold for
// any error of that code, the message aside.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// Errorf makes an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the stable code of err, or "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// errConflict is the conflict error's value; ErrConflict hands out copies,
// so no caller can change what another one returns or matches.
var errConflict = Error{Code: CodeConflict, Msg: "another writer appended first; catch up and retry"}

// ErrConflict is the error of an append that lost an
// optimistic-concurrency race and could not be retried. Each call returns a
// new copy: branch on it with errors.Is(err, ErrConflict()), which compares
// codes (Is), so it matches every conflict, however it was made.
func ErrConflict() *Error {
	e := errConflict
	return &e
}

// AlreadyLanded is what a log answers when a record's id had landed before
// (the de-duplication of a re-send): the record at Seq is the earlier one,
// not the one just sent.
type AlreadyLanded struct{ Seq uint64 }

func (e *AlreadyLanded) Error() string {
	return fmt.Sprintf("the record's id had already landed at sequence %d", e.Seq)
}

// UnknownSession is the error for an event or a query on a session that
// does not exist. The API answers one on another orchestrator's session
// with it too, so the two cannot be told apart
// (hostile.TestIsolationProbes): every refusal of a missing session
// is made here.
func UnknownSession(key SessionKey) *Error {
	return Errorf(CodeUnknownSession, "session %q does not exist; start or spawn it first", key)
}

// UnknownParent is the error for a spawn under a parent that does not
// exist (or, at the API, is another orchestrator's).
func UnknownParent(key SessionKey) *Error {
	return Errorf(CodeUnknownParent, "parent %q does not exist; start or spawn it first", key)
}

// UnknownChild is the error for a yield naming a child that does not
// exist (or, at the API, is another orchestrator's).
func UnknownChild(key SessionKey) *Error {
	return Errorf(CodeUnknownSession, "child %q does not exist", key)
}

// UnknownFrom is the error for a resume from a session that does not
// exist (or, at the API, is another orchestrator's).
func UnknownFrom(key SessionKey) *Error {
	return Errorf(CodeUnknownSession, "session %q in from does not exist", key)
}
