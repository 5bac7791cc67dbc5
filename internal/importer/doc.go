// Package importer holds what the ledger's importers share: Result (an
// imported policy document, its warnings and where each of its paths was
// written), Warning, Error, Check (the dialect's complaints placed back in
// the source), the path helpers and the size limits.
//
// The importers themselves are split by dialect, one package each:
// importer/claudecode (package ccimport) reads a project's .claude/
// directory, and importer/openclaw (imported as ocimport) reads an
// openclaw.json (JSON5). They are apart so that the slim hook, which
// imports Claude Code projects only, links neither the OpenClaw validator
// nor the openclaw dialect (tests/arch TestSlimHookLinksNoOpenClaw). Both
// read into the positioned tree of package jsontree.
//
// Invariants every importer keeps:
//
//   - Nothing is dropped silently: every key left out of the document, and
//     every conversion, is reported as a Warning with its file and line.
//   - Malformed input is refused with an *Error naming file, line and, where
//     known, column; a refusal produces no document.
//   - Output is deterministic: JSON objects keep the order their keys were
//     written in, lists keep file order.
//   - An importer only reads: it never writes files and keeps no state.
//   - Reading is bounded by DefaultMaxFileSize a file and
//     DefaultMaxTotalSize in all; past a limit the import is refused, never
//     done in part.
//
// The importers check shapes (an object where an object belongs, lists of
// strings, booleans), not policy semantics; Check runs the dialect's own
// Compile on the result and places its complaints back in the source.
package importer
