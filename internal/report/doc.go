// Package report turns the ledger's state and records into what people and
// other systems read about a log after the fact: the audit report (one
// self-contained HTML page: the spawn tree, every session's turns with the
// tools gained and lost and why, continuations with their policy source,
// grants and revocations on the same time axis, and the full why trace of
// every denial) and the export lines of `ledger export` (JSON Lines for a
// SIEM or a data warehouse).
//
// The package is pure: it reads records (and, for an export, a
// projection.State) and writes to an io.Writer. It never reads the clock,
// so the same log always gives the same bytes; callers do the I/O and
// decide which position to report on.
//
// Caveats: Build folds the records into a state of its own, so it needs no
// lock. NewExporter reads the state it is given and keeps nothing of it,
// but does not lock it: call it inside Service.View, or on a fold no one
// else applies records to.
package report
