// Package faults holds the ledger's crash and fault suites. It has no
// product code: every test drives the real pieces (the `ledger` binary as a
// subprocess, a nats-server in the test process, an in-process 3-node
// JetStream cluster, the bbolt projection) and checks the two promises the
// README makes about failures: an acknowledged append is in the log exactly
// once, and a projection either equals a clean rebuild from the log or the
// ledger refuses to answer, with an error that says what to do.
//
// # Suites
//
// Crash safety. TestCrashSafety runs `ledger serve --nats URL --data DIR`
// as a subprocess against a NATS server in the test process, drives it
// through the API with concurrent client appends (orchestrators that
// re-send an event with the same id until it is acknowledged) and queries
// (tools and check at a root's first turn, with read-your-writes), kills it
// with SIGKILL at a random number of acknowledged appends (a third of the
// trials twice), and restarts it. It then checks that every acknowledged
// append is in the stream exactly once at the sequence it was acknowledged
// with and nothing is in it twice, that no query answered wrongly, and that
// the projection of the restarted process, caught up and stopped with
// SIGTERM, is byte-identical to a clean rebuild. Trials run in parallel
// (-test.parallel at a time) and each logs its seed.
//
// Redelivery and duplicates. TestCommitRefusesRecordsAtOrBelowCheckpoint
// and TestFollowerSkipsRedeliveredRecords check that records at or below a
// store's checkpoint are refused by Store.Commit and State.Apply, and
// skipped by the service's follower when it is handed every record again,
// twice (the dump hash does not move). TestResentIDWritesOnce re-sends a
// record id at the natslog.Log level on a standalone server and on an R3
// stream (which answer a re-sent Nats-Msg-Id differently: 10071 against a
// duplicate ack) and TestClientRetryNeverWritesTwice re-sends through the
// client: the same Event.ID twice, a retry after an answer lost in transit,
// and a retry racing the original.
//
// Cluster faults. TestClusterLeaderFailover appends 2,000 events (10,000
// with -faults.long: about 30 s with -race on a quiet 2-core machine, too
// long for every CI run) through a replica on a 3-node cluster (AppendMany
// in batches of random size) while a second replica follows and serves
// queries, stops the stream leader (moved first to the node the writing
// replica is connected to) partway and restarts it later; it checks the
// log, both projections and the restarted node, and logs "writes resumed
// after X ms".
// TestConcurrentReplicasOnR3 appends through two API replicas at once;
// TestPipelinedAppendAsyncOnR3 reproduces a known issue of pipelined
// appends chained with Nats-Expected-Last-Msg-Id on R3 (skipped).
//
// Storage faults. TestMissingProjectionIsRebuilt (no file, or an empty
// one), TestCorruptProjection (garbage, zeroed meta pages, truncated files,
// garbage in the data pages; then the documented recovery with `ledger
// replay --out NEW`), TestProjectionAheadOfLog (a projection paired with a
// fresh, shorter or different stream) and TestDiskFull (`ledger serve`
// with a soft RLIMIT_FSIZE set by a re-executed helper, so only that
// process has a "full disk", lifted again with prlimit on Linux).
// TestCorruptProjection's "a tool name changed in the data pages" leaves
// every page well formed: only the content sum (projection.Store.Check,
// run by serve at start) shows it.
//
// Log damage. TestDamagedLogIsReported damages a stopped server's block
// file (a torn last record, a stale checksum on it, half the block cut
// off, the block deleted) or drops records through the API (the first
// policy.set, one mid-log), then runs `ledger serve` with a projection at
// the head and without one, `ledger verify` and `ledger log`: each must
// exit non-zero within 20 s saying "log damaged at SEQ: ...; recover with
// ..." (verify names a dropped record as its first bad sequence), all at
// the same SEQ.
//
// # Flags
//
//	-crash.trials=N     TestCrashSafety: N trials (default 30)
//	-crash.seed=S       TestCrashSafety: only the trial with seed S, as logged
//	-crash.sync=MODES   TestCrashSafety: `ledger serve` runs its own embedded
//	                    server in these sync modes (always, a duration such as
//	                    1s or 2m, a comma-separated list, or all = always,1s,2m;
//	                    trial i takes mode i mod the list), so the SIGKILL takes
//	                    the server holding the log down too; without it the
//	                    server is the test's and survives the kill
//	-faults.long        TestClusterLeaderFailover: 10,000 appends instead of 2,000
//	-faults.appends=N   TestClusterLeaderFailover: N appends
//	-faults.known       also fail on the known product issues, which are
//	                    otherwise skipped with t.Skip("known issue: ...")
//
// With -short the tests that build and run the ledger binary are skipped.
// The binary is built once per test process.
package faults
