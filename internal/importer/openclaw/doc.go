// Package openclaw imports an OpenClaw config (openclaw.json, JSON5) into
// the openclaw policy document: it validates the config as the pinned
// OpenClaw release's own validator does (the release's config schema,
// embedded, and the refinements it runs in code), then keeps the subset
// that spec/dialect-openclaw.md section 1 defines.
//
// It is apart from package importer/claudecode (the Claude Code importer)
// so that the slim hook (cmd/ledger-hook), which imports
// only Claude Code projects, links neither this validator, its embedded
// schema nor the openclaw dialect (tests/arch
// TestSlimHookLinksNoOpenClaw).
//
// The invariants of package importer hold here: nothing is dropped
// silently, a refusal is an *importer.Error located in the file and
// produces no document, the output is deterministic, and a config over
// importer.DefaultMaxFileSize is refused before it is parsed.
package openclaw
