// Package events is the ledger's vocabulary: the record that every message
// on the stream carries, the event types as versioned string constants, their
// typed payloads, the shape checks that need no state, the stable error codes
// of SPEC section 8, and the canonical (RFC 8785) encoding that makes content
// hashes stable.
//
// Everything here is pure: no clock, no randomness, no I/O. Callers inject
// time and ids when they make records.
//
// # Caveats
//
// Shape checks are only the first of the four check groups (SPEC section 4):
// policy, state and admission checks need the folded state and live in
// package projection and the dialects.
package events
