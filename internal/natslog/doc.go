// Package natslog keeps the ledger's log on NATS JetStream: it starts the
// embedded nats-server (the default, so nothing needs installing), creates
// or updates the LEDGER stream idempotently, appends records with
// Nats-Msg-Id and Nats-Expected-Last-Sequence, and reads them back in stream
// order. It is the one place that translates JetStream's errors: 10071 and
// 10164 (a wrong last sequence) become events.ErrConflict.
//
// # Caveats
//
// A standalone server and a replicated stream answer a re-sent Msg-Id
// differently (10071 against a duplicate ack), so after an ambiguous failure
// Append looks the id up in the records past the expected head before it
// reports a conflict.
package natslog
