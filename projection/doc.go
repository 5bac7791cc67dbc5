// Package projection folds ledger records into state: the policy in force
// with its grants, every session with its lifecycle state, envelope, turn
// context and children, the current yields, and the checks that prepare
// effects. It also holds the append-time half of the state machine: Prepare
// validates an event against the state at the head and decides what the
// ledger records (envelopes, continuation outcomes, decisions).
//
// Apply is a pure function of (state, record, sequence): it never reads the
// clock, draws randomness or depends on map iteration order, so replaying
// the same records gives an identical state. What the ledger decided at
// append time is read from the record's decided field, never recomputed,
// so a replay with newer code reproduces the original answers.
//
// # Caveats
//
// A State is not safe for concurrent use; the owner serialises Prepare and
// Apply. Sessions returned by Session are owned by the state: copy before
// keeping them past the next Apply.
package projection
