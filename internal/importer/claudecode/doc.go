// Package ccimport is the Claude Code importer: ClaudeCode reads a
// project's .claude/agents/*.md front matter and .claude/settings*.json
// permissions (strict JSON, read with jsontree.ParseStrict) into the
// document of spec/dialect-claude-code.md section 3.1, as an
// *importer.Result (Value, Member and Pos here are package jsontree's).
// The slim hook (cmd/ledger-hook) links it, and not the OpenClaw importer.
//
// Invariants (package importer's, and these):
//
//   - Nothing is dropped silently: every key left out of the document, and
//     every conversion (settings merged from two files or scopes), is
//     reported as an importer.Warning with its file and line.
//   - Malformed input is refused with an *importer.Error naming file, line
//     and, where known, column; a refusal produces no document.
//   - Output is deterministic: JSON objects keep the order their keys were
//     written in, agents are sorted by name, rule lists keep file order.
//   - The importer only reads: it never writes files and keeps no state.
//   - Reading is bounded: files are read through package safefile (regular
//     files only, never more than importer.DefaultMaxFileSize a file and
//     importer.DefaultMaxTotalSize in all; past a limit the import is
//     refused, never done in part), and ClaudeCode refuses symbolic links
//     that lead out of the project unless ClaudeCodeOptions.FollowSymlinks.
//     So nothing blocks, and the API takes no context.
//   - It is linear in the size of its input (BenchmarkImport*).
//   - Which settings files Claude Code ignores as a whole is CheckSettings'
//     alone to say: hook install (internal/cchook) refuses to write into
//     exactly those; the import skips those it ignores for a key the
//     import reads, and imports the others with a warning, their deny
//     rules kept (TestClaudeCodeSkipsIgnoredSettings,
//     TestInstallRefusesIgnoredSettings).
package ccimport
