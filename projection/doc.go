// Package projection folds ledger records into state: the policy in force
// with its grants, every session with its lifecycle state, envelope, turn
// context and children, the current yields, and the checks that prepare
// effects. It also holds the append-time half of the state machine: Prepare
// validates an event against the state at the head and decides what the
// ledger records (envelopes, continuation outcomes, decisions).
//
// Apply, the one way a record changes a state, is a pure function of
// (state, record, sequence): it never reads the clock, draws randomness or
// depends on map iteration order, so replaying the same records gives an
// identical state. What the ledger decided at append time is read from the
// record's decided field, never recomputed, so a replay with newer code
// reproduces the original answers. Its Input carries the record in
// whichever forms the caller has it: the record, its stored bytes, both,
// what Prepare made of it (Prepared.Input) or what Decode made of it ahead
// of the fold.
//
// A state made by New keeps everything it folded in memory. A state loaded
// from a Store, or once committed to one, keeps in memory the policy
// history, what it folded since its last commit, and a bounded number of
// sessions; it reads the rest (sessions, where each record id landed,
// record references and times, checks, turns, tool sets, chain heads,
// yields) through a small interface, history (history.go), one key at a
// time, and the slot of every session key (see layout.go). Its answers and
// its Dump are the same either way. Decode and Store.CommitAsync let a
// rebuild decode the next records and write the last ones while it folds.
//
// # Files
//
// The fold: state.go (State, Apply, Input, Decode), prepare.go (Prepare),
// decided.go (reading what records decided), history.go (the overlays of
// what was folded since the last commit, the history interface, and the
// errors of its reads), cache.go (the sessions a state holds), query.go
// and candidate.go (the queries), dump.go (the canonical dumps). The
// store, bbolt's implementation of the history: store.go (lifecycle),
// commit.go (the write path), reads.go (Load and the reads), codec.go and
// binary.go (value encodings), layout.go (buckets and keys), check.go (the
// content check), pages_*.go (the resident set).
//
// # Concurrency
//
// A State is not safe for concurrent use, and none of its methods is a
// pure read: queries cache tool sets and sessions, and every read of the
// history notes its error for the operation under way. The owner
// serialises Prepare, Apply, every query (Session, Lookup, Read, Why,
// Check, Tools, AtTurn, Resolve, ...), Dump and StateHash, and the
// Store's Commit, CommitAsync and Settle of the state. Decode reads only
// its record and may run on any goroutine, ahead of the fold. The
// background write of CommitAsync reads only what the commit took from
// the state, which the owner no longer changes; the owner folds and
// queries meanwhile. Sessions returned by Session and Lookup are owned by
// the state: copy before keeping them past the next Apply or Commit.
//
// A Store commits one state at a time, from that state's owner (a second
// state's commit is refused by the checkpoint). Its reads (Load, a
// state's reads of its history, Checkpoint, Dump, DumpHash, Check) are
// read transactions of bbolt, safe from any goroutine, concurrently with
// each other and with a commit (Check holds off commits while it reads).
// Close must not race with any of these; states of a closed store can
// still be read, one read transaction each, on their owner's goroutine.
//
// # Caveats
//
// bbolt checksums its meta pages only: a byte changed inside a value on
// disk would be read as true (a tool name served wrong). The store keeps a
// content sum of every entry, updated at each commit from the entries it
// writes, and Store.Check compares it with the entries, after bbolt's own
// check of the pages: a full read of the file (0.64 to 0.70 s for
// 100,000 sessions), which serve does at start. A file over the resident
// budget is dropped from the resident set as the check reads it (see
// Check; TestCheckDropsPagesAsItReads), but a read through bbolt's mapping
// may map a whole page-cache folio, so bbolt's own walk still maps a good
// part of a large file at once (docs/bench.md, "Scale, issue 17"). A file
// written before content sums gets one from what it holds when first
// opened; older damage is not found by the sum.
//
// A read of the history that fails is no answer: the query, Prepare, Read
// or Lookup it is part of answers an error with the code
// events.CodeStorage (a damaged file names itself and says how to rebuild
// it), never an unknown session or a missing turn, and the state is as it
// was. An Apply whose read fails halfway leaves a state that is no longer
// the fold of its records: it fails, and so does every later Prepare,
// Apply and Commit of that state; load a fresh one. Close the store only
// when done with its states; reads still work after Close (each opens the
// file read-only, which bbolt's lock refuses, with an error that says so,
// while another Store has the file open for writing), commits do not.
package projection
