package natslog

import (
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

// TestBatchErrorConflicts: the codes a batch is refused with when another
// writer got ahead, or has landed or is landing one of its ids, are
// conflicts (the caller catches up and decides again); any other stays a
// typed JetStream error. 10158 once reached faults
// TestConcurrentReplicasOnR3 as a non-conflict error.
func TestBatchErrorConflicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		code     int
		conflict bool
	}{
		{"wrong last sequence", 10071, true},
		{"wrong last sequence constant", 10164, true},
		{"id in the batch landed", 10201, true},
		{"duplicate message id is in process", 10158, true},
		{"stream sealed under the batch", 10060, false},
		{"batch incomplete", 10109, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := batchError(tc.code, "described")
			if got := errors.Is(err, events.ErrConflict()); got != tc.conflict {
				t.Fatalf("batchError(%d) = %v: conflict %v, want %v", tc.code, err, got, tc.conflict)
			}
			var ae *jetstream.APIError
			if !tc.conflict && (!errors.As(err, &ae) || int(ae.ErrorCode) != tc.code) {
				t.Fatalf("batchError(%d) = %v, want a *jetstream.APIError with its code", tc.code, err)
			}
		})
	}
}
