// Package importer turns real orchestrator configs into the ledger's policy
// documents, so that nobody has to write one by hand.
//
// The importer is split by dialect. This package holds the Claude Code
// importer and what both share (Result, Warning, Error, Check): ClaudeCode
// reads a project's .claude/agents/*.md front matter and
// .claude/settings*.json permissions (strict JSON, read with
// jsontree.ParseStrict) into the document of spec/dialect-claude-code.md
// section 3.1. Package importer/openclaw reads an openclaw.json (JSON5) and
// keeps the subset that spec/dialect-openclaw.md section 1 defines; it is
// apart so that the slim hook, which imports Claude Code projects only,
// links neither its validator nor the openclaw dialect. Both read into the
// positioned tree of package jsontree (Value, Member and Pos here are its).
//
// Invariants:
//
//   - Nothing is dropped silently: every key left out of the document, and
//     every conversion (agents.entries to agents.list, settings merged from
//     two files), is reported as a Warning with its file and line.
//   - Malformed input is refused with an *Error naming file, line and, where
//     known, column; a refusal produces no document.
//   - Output is deterministic: JSON objects keep the order their keys were
//     written in, agents are sorted by name, rule lists keep file order.
//   - The importer only reads: it never writes files and keeps no state.
//   - Reading is bounded: files are read through package safefile (regular
//     files only, never more than DefaultMaxFileSize a file and
//     DefaultMaxTotalSize in all; past a limit the import is refused, never
//     done in part), and ClaudeCode refuses symbolic links that lead out of
//     the project unless ClaudeCodeOptions.FollowSymlinks. So nothing
//     blocks, and the API takes no context.
//   - It is linear in the size of its input (BenchmarkImport*).
//
// The importer checks shapes (an object where an object belongs, lists of
// strings, booleans), not policy semantics; Check runs the dialect's own
// Compile on the result and places its complaints back in the source.
package importer
