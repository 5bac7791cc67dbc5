package natslog

import (
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// JetStream error codes the adapter translates that nats.go's jetstream
// package does not name; nats-server's server package does (its
// ErrorIdentifier constants, jetstream_errors_generated.go).
const (
	// errCodeDuplicateInProcess (10158, "duplicate message id is in
	// process"): a clustered stream is still proposing a message with the
	// same Nats-Msg-Id, another writer's (a replica's) attempt of the same
	// record. Nothing of the refused append or batch landed, and the log is
	// about to move: a conflict.
	errCodeDuplicateInProcess = jetstream.ErrorCode(server.JSStreamDuplicateMessageConflict)
	// errCodeBatchDuplicate (10201, "atomic publish batch contains
	// duplicate message id"): an id in the batch has landed already.
	errCodeBatchDuplicate = jetstream.ErrorCode(server.JSAtomicPublishContainsDuplicateMessageErr)
	// errCodeWrongLastMsgID (10070, "wrong last msg ID"): the record before
	// is not the one a pipelined append expected (Nats-Expected-Last-Msg-Id).
	errCodeWrongLastMsgID = jetstream.ErrorCode(server.JSStreamWrongLastMsgIDErrF)
)
