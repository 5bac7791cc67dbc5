// Package envelope is the policy core of the ledger: the Envelope a child
// carries from its spawn, the Decision and Reason of one tool call, the Trace
// of every layer that looked at it, the ToolSet of a turn, and the Dialect
// interface that the two supported orchestrator families implement
// (envelope/openclaw and envelope/claudecode).
//
// Everything here is pure: a dialect is a function of (policy, grants,
// session view, tool, input) to (decision, trace). No clock, no randomness,
// no I/O, and no map iteration order in anything hashed or printed.
//
// # Caveats
//
// The World a dialect reads is the state folded up to the position being
// decided; dialects must not keep references to it after they return.
package envelope
