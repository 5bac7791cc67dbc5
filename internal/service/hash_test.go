package service_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
)

// hashLog is a MemLog that checks the hash each append is given.
type hashLog struct {
	*service.MemLog
	n   int
	bad []string
}

func (l *hashLog) AppendHashed(ctx context.Context, subject, id string, data []byte, hash string, expected uint64) (uint64, error) {
	l.n++
	if want := events.HashBytes(data); hash != want {
		l.bad = append(l.bad, fmt.Sprintf("%s: given %q, the record's is %q", id, hash, want))
	}
	return l.MemLog.AppendHashed(ctx, subject, id, data, hash, expected)
}

// TestAppendGivesTheRecordsHash: a lone append hands the log the record's
// own content hash (the Ledger-Hash a natslog.Log publishes it with),
// which the service computes once for the publish and the fold
// (Service.publish).
func TestAppendGivesTheRecordsHash(t *testing.T) {
	log := &hashLog{MemLog: &service.MemLog{}}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range [][]byte{workload.Policy(),
		[]byte(`{"type":"session.started","v":1,"actor":"t","session":"agent:main:h","data":{"agent":"main"}}`),
		[]byte(`{"type":"turn.started","v":1,"actor":"t","session":"agent:main:h","data":{"turn":1}}`),
		[]byte(`{"type":"tool.checked","v":1,"actor":"t","session":"agent:main:h","data":{"turn":1,"tool":"read","call":"c1","effect":true}}`),
	} {
		if _, err := svc.Append(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
	if log.n != 4 || len(log.bad) > 0 {
		t.Fatalf("%d appends, wrong hashes: %v", log.n, log.bad)
	}
}
