package replay

import (
	"os"
	"runtime/debug"
)

// RebuildGCPercent is the garbage collector's target (GOGC) that
// TuneGC sets. A rebuild allocates several kilobytes a record (decoded
// records, the fold's overlay, bbolt's nodes for each commit) and keeps
// little of it: with the default 100 the collector runs every few chunks
// and takes a tenth of the rebuild's CPU; with 400 it runs a quarter as
// often, and the heap peaks at about five times what is live instead of
// twice.
const RebuildGCPercent = 400

// TuneGC sets the process's garbage collector for a rebuild and returns
// what sets it back. It leaves a GOGC given in the environment alone.
//
// Rebuild, Verify and the rest never call it: the setting is the
// process's, so only a caller that is mostly a rebuild for a while
// should (ledger replay and verify do for their run; ledger bench does
// around the rebuild it times, to time it as ledger replay runs it).
func TuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(RebuildGCPercent)
	return func() { debug.SetGCPercent(old) }
}
