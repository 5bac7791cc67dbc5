// Package openclaw implements the openclaw dialect of the ledger: the policy
// semantics of docs/dialects/openclaw.md for OpenClaw-style orchestrators,
// decided by a pinned release of OpenClaw itself (2026.9.6). It validates
// and compiles the policy document (a strict subset of openclaw.json),
// applies grants as edits of that document, runs the eleven-layer tool
// pipeline for a session, admits spawns and captures their envelopes,
// including delegateToolsTo facts.
//
// Releases: the built-in tables (catalogue, profiles, groups, aliases,
// hard deny, depth cap, sandbox defaults) and the rules that go with them
// are a Release. A document names its release (default: the newest this
// build pins), the policy.set records it, and a record without one decides
// with the legacy release, the written reference's tables. Packaged
// releases are generated from the installed package (tables_<version>.go,
// go generate); tests/openclawdiff holds the dialect to the package.
//
// Invariants:
//
//   - Every tool name and policy entry is compared after normalization
//     under the policy's release (trim, lower-case, alias table), so names
//     are effectively case-insensitive; session keys are compared exactly,
//     agent ids exactly under the legacy release and normalized as
//     OpenClaw normalizes them under the packaged ones.
//   - Decisions depend on the release a revision recorded, never on the
//     build's newest release: old records replay as they were decided.
//   - The pipeline is a conjunction: the first layer that removes a tool
//     decides, no later layer adds a tool back, and inside a layer deny wins.
//   - A child's allowed set never exceeds its envelope's ceiling, and an
//     envelope never changes after the spawn.
//   - Everything is pure and deterministic: no clock, no randomness, no I/O,
//     and every list returned is in catalogue order or sorted, never in map
//     order.
//
// # Performance
//
// Compile only validates. Effective builds, for the revision and grants in
// force, every layer a session can meet (each scope, profile, sandbox and
// sub-agent variant, each provider-profile combination) and pre-computes
// each layer's verdict on every tool of the policy catalogue. Resolving a
// session then picks its layers (a few map lookups) and scans int32
// tables; envelopes are compiled the same way on first use. Tools a session
// adds (MCP names) take the slow path: a literal lookup plus the pattern
// entries before it.
//
// # Caveats
//
// The value Effective returns memoizes compiled envelopes (keyed by their
// content hash) in a concurrency-safe cache; it is otherwise immutable. The
// dialect never keeps a reference to the World it was given.
package openclaw
