// Package openclawdiff holds the ledger's openclaw dialect against the real
// OpenClaw package: it starts tools/openclaw/oracle.mjs under the pinned
// Node 24 (tools/npm), which answers with OpenClaw's own functions, runs
// the same configs and lineages through the ledger's fold (projection.State
// with the openclaw dialect), and compares validation, spawn admission and
// every session's full tool list, tool by tool.
//
// The cases are the conformance scenarios' policies and thousands of
// generated ones (Generate), seeded, so a run is reproducible. A
// disagreement fails the suite unless testdata/deliberate.json lists the
// choice that explains it (the dialect's documented fail-closed choices,
// docs/dialects/openclaw.md section 16); the explanation is checked by code
// (explainers), not by matching text.
//
// The package is test support: nothing outside tests imports it. Caveats:
// the oracle is a separate process; Start returns one that must be closed.
// Node or the package missing is ErrMissing, which tests turn into a skip,
// or a failure under CI=true.
package openclawdiff
