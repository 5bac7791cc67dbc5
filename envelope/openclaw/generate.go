package openclaw

// The release tables (tables_<version>.go) are read from the openclaw
// package pinned in tools/npm/pins.json, under the Node 24 pinned there:
// run `bash tools/npm/install`, then `go generate ./envelope/openclaw`.
// A new release is a new pin, a regeneration (which adds its file and
// keeps the old ones) and a run of tests/openclawdiff.
//go:generate bash ../../tools/openclaw/run tables.mjs .
