package projection

import (
	"fmt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// A session that is not active takes no turn, spawn, check or effect: an
// append of any of them is refused session_not_active (activeSession),
// and a plain check or why of it at a state (not at a turn) answers deny
// with the same word as its reason's code, decided by the lifecycle layer
// before any policy layer (internal/service). Both read one predicate,
// inactive, so the two cannot disagree
// (internal/service TestPlainCheckOfInactiveSession, and cmd/ledger
// TestCheckOfInactiveSession through the CLI).
const (
	// LayerLifecycle is the trace step of a session's state, first in a
	// why of a session that is not active.
	LayerLifecycle = "lifecycle"
	// ReasonNotActive is its reason's code: the refusal's error code, so
	// that a plain check and a recorded one of the same call name the
	// same word.
	ReasonNotActive = string(events.CodeSessionNotActive)
)

// Inactive is why a session takes no turn, spawn, check or effect at a
// state: the session whose state refuses it, and that state.
type Inactive struct {
	// Asked is the session asked about.
	Asked events.SessionKey
	// Session is the session whose state refuses: Asked, or Asked's root
	// when the root's end ends its sub-agents' work; "" when Asked's root
	// cannot be found.
	Session events.SessionKey
	// State is Session's state: ended, yielded or completed.
	State envelope.State
	// SetBy is the record that put Session in State, when the state holds
	// it (a yield's session.yielded); nil when only the log does: it is
	// then Session's last record of type RecordType after the sequence
	// After (Session's context's record: its start, spawn, latest turn,
	// yield or resume, each of which leaves it active or yielded).
	SetBy *envelope.RecordRef
	After uint64
}

// inactive is why sess takes no turn, spawn, check or effect, nil when it
// is active. An ended root refuses before any other state, as its end
// refuses its sub-agents' work too.
func (s *State) inactive(sess *envelope.Session) *Inactive {
	if in := s.endedIn(sess); in != nil {
		return in
	}
	if sess.State == envelope.Active {
		return nil
	}
	in := &Inactive{Asked: sess.Key, Session: sess.Key, State: sess.State, After: max(sess.Origin.Seq, sess.Context.SetBy.Seq)}
	if sess.State == envelope.Yielded && sess.Context.SetBy.Type == events.SessionYielded {
		// A yield sets the context; nothing changes it until the
		// session is active again (a reopen keeps it).
		ref := sess.Context.SetBy
		in.SetBy = &ref
	}
	return in
}

// endedIn is why sess takes no work because it, or its root, has ended;
// nil when neither has.
func (s *State) endedIn(sess *envelope.Session) *Inactive {
	if sess.State == envelope.Ended {
		return &Inactive{Asked: sess.Key, Session: sess.Key, State: envelope.Ended, After: max(sess.Origin.Seq, sess.Context.SetBy.Seq)}
	}
	if sess.Root() {
		return nil
	}
	root := envelope.RootOf(s, sess)
	if root == nil {
		return &Inactive{Asked: sess.Key, State: envelope.Ended}
	}
	if root.State != envelope.Ended {
		return nil
	}
	return &Inactive{Asked: sess.Key, Session: root.Key, State: envelope.Ended, After: max(root.Origin.Seq, root.Context.SetBy.Seq)}
}

// refusal is the error an append the state refuses gets.
func (in *Inactive) refusal() error {
	switch {
	case in.Session == in.Asked && in.State == envelope.Ended:
		return events.Errorf(events.CodeSessionNotActive, "session %q has ended; it takes no turn, spawn, check, effect or resume until it is reopened (session.reopened)", in.Asked)
	case in.State == envelope.Ended:
		return events.Errorf(events.CodeSessionNotActive, "the root %q of session %q has ended; its sub-agents take no turn, spawn, check or effect until it is reopened", in.Session, in.Asked)
	}
	return events.Errorf(events.CodeSessionNotActive, "session %q is %s; it takes no turn, spawn, check or effect until it is resumed", in.Asked, in.State)
}

// RecordType is the type of the record that puts a session in in.State.
func (in *Inactive) RecordType() events.Type {
	switch in.State {
	case envelope.Yielded:
		return events.SessionYielded
	case envelope.Completed:
		return events.SessionCompleted
	}
	return events.SessionEnded
}

// Reason is the reason of a plain check's deny: code session_not_active,
// the state and what to do as its rule, and rec (the record that put
// Session in its state; nil when it was not found) as its record.
func (in *Inactive) Reason(rec *envelope.RecordRef) envelope.Reason {
	var rule string
	switch {
	case in.Session == "":
		rule = fmt.Sprintf("the root of session %q is not in the ledger; the session takes no turn, spawn, check or effect", in.Asked)
	case in.Session != in.Asked:
		rule = fmt.Sprintf("the root %q of session %q has ended; its sub-agents take no turn, spawn, check or effect until the root is reopened (session.reopened)", in.Session, in.Asked)
	case in.State == envelope.Ended:
		rule = fmt.Sprintf("session %q has ended; it takes no turn, spawn, check, effect or resume until it is reopened (session.reopened)", in.Asked)
	case in.State == envelope.Yielded:
		rule = fmt.Sprintf("session %q is yielded; it takes no turn, spawn, check or effect until it is resumed (session.resumed, once the children it yielded for settle)", in.Asked)
	case in.State == envelope.Completed:
		rule = fmt.Sprintf("session %q has completed; it takes no turn, spawn, check, effect or resume again: start or spawn a new session for more work", in.Asked)
	default:
		rule = fmt.Sprintf("session %q is %s; it takes no turn, spawn, check or effect", in.Asked, in.State)
	}
	return envelope.Reason{Code: ReasonNotActive, Rule: rule, Record: rec}
}

// Deny is v, the policy's verdict of a call of the session, as the
// lifecycle layer decides it: deny for reason r (Reason's), its trace (when
// v has one) the lifecycle's step and then v's, each step that decided
// skipped, as a revocation's denial shows the dialect's layers.
func (in *Inactive) Deny(v envelope.Verdict, r envelope.Reason) envelope.Verdict {
	out := envelope.Verdict{Tool: v.Tool, Decision: envelope.Deny, Reason: r}
	if v.Trace == nil {
		return out
	}
	out.Trace = make([]envelope.Step, 0, len(v.Trace)+1)
	out.Trace = append(out.Trace, envelope.Step{Layer: LayerLifecycle, Outcome: envelope.Decided, Detail: r.Rule, Reason: &r})
	for _, st := range v.Trace {
		if st.Outcome == envelope.Decided || st.Outcome == envelope.Removed {
			st.Outcome, st.Reason = envelope.Skipped, nil
		}
		out.Trace = append(out.Trace, st)
	}
	return out
}

// NotActive reports why session key takes no turn, spawn, check or effect
// at this state, nil when it is active: exactly when an append of its
// tool.checked would be refused session_not_active. An unknown session is
// unknown_session.
func (s *State) NotActive(key events.SessionKey) (_ *Inactive, err error) {
	defer s.leave(s.enter(), &err)
	sess := s.Session(key)
	if sess == nil {
		return nil, unknownSession(key)
	}
	return s.inactive(sess), nil
}
