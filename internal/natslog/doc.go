// Package natslog keeps the ledger's log on NATS JetStream: it starts the
// embedded nats-server (the default, so nothing needs installing), finds or
// creates the log's streams, appends records with Nats-Msg-Id and
// Nats-Expected-Last-Sequence, and reads them back in order. It is the one
// place that translates JetStream's errors: 10071 and 10164 (a wrong last
// sequence) become events.ErrConflict, and so, for a batch, do 10201 (an
// id that landed) and 10158 (an id another writer is landing; codes.go).
//
// # Rolling segments
//
// The ledger writes one subject per session, and nats-server's file store
// keeps per-subject state in memory and, past 1,000,000 subjects in a
// stream, stops writing its index (index.db) except on a clean shutdown, so
// a server killed then rescans every block of the stream before it answers.
// The log is therefore a chain of streams, segments: LEDGER (the first,
// so a log written before segments existed is simply a log of one), then
// LEDGER-2, LEDGER-3, ... Records keep one global sequence: a segment's
// stream metadata holds its base (BaseKey), the global sequence just before
// its first record, and global = base + stream sequence. Appends go to the
// last segment with the global expectation made local to it, plus
// Nats-Expected-Stream, so an append aimed at a segment that was rolled
// under it is refused instead of landing elsewhere with a sequence that
// only happens to match.
//
// A segment rolls once it holds StreamConfig.RollSubjects distinct subjects
// (checked after an append lands, no more often than the subject count can
// have reached the limit) or, optionally, RollAge. Rolling takes four steps,
// each of which any writer may repeat with the same outcome: move the
// segment's subjects to SealedPrefix+name (nothing new can reach it, and the
// next segment may take the ledger's subjects); publish the seal marker on
// that subject, once (expected subject sequence 0), which lands behind every
// record already on its way, so the record before it is the segment's last
// for every writer, on a replicated stream too; seal the segment, recording
// its last record (LastKey); create the next segment with that base. Writers
// racing to roll thus make one next segment with one base, and a writer
// whose append finds no stream (or a sealed one) finishes a roll that
// another cut short.
//
// Readers see one sequence: Read, ReadMsgs, FindID and Head locate a
// sequence's segment by the bases, and Follow reads each segment with an
// ordered consumer until its seal marker, then goes on in the next.
//
// # Direct reads
//
// A log opened with StreamConfig.DirectReads reads without any consumer:
// Read, ReadMsgs, Follow and FindID ask each segment for its records with
// batched direct gets ($JS.API.DIRECT.GET.<segment> with a body
// {"seq":N,"batch":512,"max_bytes":4194304}; nats-server 2.11 and later
// answer with one message per record, then a 204 EOB status), so a user
// granted only $JS.API.INFO, stream info and direct gets of the segments
// (an auditor of 'ledger serve --gen-auth') reads the whole log, and its
// consumers are bounded at zero (TestDirectReaderPermissions). Both ways
// share one reader (source.go): the same records, pending counts, seal
// markers, gaps and damage (TestDirectReadsMatchConsumers,
// TestDirectGapIsDamage, TestDamagedStoreIsReported). Each batch must end
// within batchWait (10 s) or the read fails (TestDirectBatchWithoutEnd);
// at the live head Follow asks again after a pause of 10 ms doubling to
// 250 ms (TestDirectFollow). Open of such a log only looks its segments up:
// it creates, updates and rolls nothing, and fails at once when the log
// does not exist. One difference: the pending count Follow passes is the
// server's as of the start of the record's batch, so while records land it
// can be lower than an ordered consumer's; on a log no one writes to they
// are the same.
//
// # Damage
//
// A server whose store lost records (a torn or truncated block file, a
// deleted one, a record whose checksum no longer matches) still reports
// them: the stream's last sequence stays, and its message count and
// deleted sequences say what is missing. Reads never wait for such a
// sequence: while a read waits for a record at or below the stream's last
// sequence it asks the stream for that record every second, and a record
// the stream reports but cannot return ends the read with a *DamagedError
// ("log damaged at SEQ: ...; recover with ...", errors.Is ErrDamaged),
// naming the first sequence lost; a gap in what an ordered consumer (or a
// direct get) delivers is one too. A record the stream holds but no consumer delivers
// ends the read after 30 s. Waiting past the last sequence is following the
// log, bounded only by the caller's context. Direct reads ask for such a
// sequence as soon as a batch comes back without it. ReadMsgs still returns a gap
// between two records it read (verify names it); a lost tail is damage.
//
// Check finds the same without reading the log: each segment's message
// count against its sequence range and its deleted sequences, then its first
// and last record read back. It costs a stream info and two reads per
// segment; it does not walk the hash chain (verify does). serve runs it at
// start. The advice in the error is the only true one: the ledger's
// streams deny purges and deletes, so the hole cannot be cut off in place;
// restore the stream from a copy made before the damage.
//
// # Group sync
//
// On a standalone embedded server the ledger makes its appends durable
// itself (EmbeddedConfig.GroupSync, StreamConfig.Sync, groupsync.go): the
// server writes each record without an fsync, and an append is answered
// only after a sync begun once the stream acknowledged it has ended. One
// sync runs at a time and the appends acknowledged while it runs share the
// next, where a server that fsyncs every write syncs each record in turn
// and an atomic batch is staged in a store of its own first. A sync
// writes back the stream's last message block (fdatasync), moving on to
// the blocks the server began since; a stream's first sync, and a record
// found by its id, sync the whole file system (syncfs). A failed sync
// fails every append after it. TestGroupSyncAppends holds every append path
// to it: no record answered before a sync that began once the stream held
// it. The server's other writers (another process over its listener, a log
// opened without Sync) cannot sync its store: its name ends with
// GroupSyncNameSuffix, and a log connected to it (or, its connection down
// at the moment, last connected to it) asks the log opened with the
// GroupSync for that sync on GroupSyncSubject after each acknowledgement,
// and fails the append when no answer comes (TestGroupSyncAppends' other
// writers, TestGroupSyncUnanswered, TestGroupSyncWhenDisconnected).
//
// # Caveats
//
// A standalone server and a replicated stream answer a re-sent Msg-Id
// differently (10071 against a duplicate ack), so after an ambiguous failure
// Append looks the id up in the records past the expected head before it
// reports a conflict. The de-duplication window does not span segments.
//
// Open updates the live segment only when the log is opened with other
// settings; such an update racing another writer's roll could put the
// ledger's subjects back on a segment being sealed, so change settings while
// no other writer runs. MaxAge and MaxMsgs drop records of the live segment
// only: a sealed stream keeps what it has. Sealed segments still hold their
// subjects' state in the server's memory; rolling bounds the rescan after a
// crash, not the memory of the whole log.
package natslog
