package replay

import (
	"os"
	"runtime/debug"
)

// RebuildGCPercent is the garbage collector's target (GOGC) that
// TuneGC sets. A rebuild allocates several kilobytes a record (decoded
// records, the fold's overlay, bbolt's nodes for each commit) and keeps
// little of it, while what is live (the state, and the embedded server
// when the process runs one) is marked again at every cycle: with the
// default 100 the collector took a tenth of the CPU of a rebuild of
// 100,000 records and a fifth at a million; with 400 it runs a quarter as
// often. The cost is memory: the heap peaks at about five times what is
// live instead of twice (a million records from an embedded server:
// 1.2 GB peak resident instead of 0.63 GB). GOMEMLIMIT bounds it.
const RebuildGCPercent = 400

// TuneGC sets the process's garbage collector for a rebuild and returns
// what sets it back. It leaves a GOGC given in the environment alone (a
// GOMEMLIMIT there applies as well).
//
// Rebuild, Verify and the rest never call it: the setting is the
// process's, so only a caller that is mostly a rebuild for a while
// should (ledger replay does for its run; ledger bench does around the
// rebuild it times, to time it as ledger replay runs it). ledger verify
// does not: it folds the whole log in memory first, and five times that
// heap is most of the machine's memory (a million records: 5.5 to 8.9
// GB peak resident with it, 2.7 to 3.0 GB without, and no slower: 69 to
// 86 s against 76 to 91 s; memory touched for the first time costs about
// what the collector's extra cycles do).
func TuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(RebuildGCPercent)
	return func() { debug.SetGCPercent(old) }
}
