// Package projection folds ledger records into state: the policy in force
// with its grants, every session with its lifecycle state, envelope, turn
// context and children, the current yields, and the checks that prepare
// effects. It also holds the append-time half of the state machine: Prepare
// validates an event against the state at the head and decides what the
// ledger records (envelopes, continuation outcomes, decisions).
//
// Apply is a pure function of (state, record, sequence): it never reads the
// clock, draws randomness or depends on map iteration order, so replaying
// the same records gives an identical state. What the ledger decided at
// append time is read from the record's decided field, never recomputed,
// so a replay with newer code reproduces the original answers.
//
// A state made by New keeps everything it folded in memory. A state loaded
// from a Store, or once committed to one, keeps in memory the policy
// history, what it folded since its last commit, and a bounded number of
// sessions; it reads the rest (sessions, where each record id landed,
// record references and times, checks, turns, tool sets, chain heads,
// yields) from the store one key at a time, and the slot of every session
// key (see layout.go). Its answers and its Dump are the same either way.
// Decode and Store.CommitAsync let a rebuild decode the next records and
// write the last ones while it folds.
//
// # Caveats
//
// A State is not safe for concurrent use; the owner serialises Prepare,
// Apply, queries and Store.Commit (CommitAsync's background write reads
// nothing the owner changes). Sessions returned by Session are owned by
// the state: copy before keeping them past the next Apply or Commit.
//
// bbolt checksums its meta pages only: a byte changed inside a value on
// disk would be read as true (a tool name served wrong). The store keeps a
// content sum of every entry, updated at each commit from the entries it
// writes, and Store.Check compares it with the entries, after bbolt's own
// check of the pages: a full read of the file (0.64 to 0.70 s for
// 100,000 sessions), which serve does at start. A file written before content
// sums gets one from what it holds when first opened; older damage is not
// found by the sum.
//
// A state that reads from a store fails, from the first error reading it
// on, every Prepare, Apply and Commit with that error (a damaged file names
// itself and says how to rebuild it). Close the store only when done with
// its states; reads still work after Close (each opens the file
// read-only, which bbolt's lock refuses, with an error that says so, while
// another Store has the file open for writing), commits do not.
package projection
