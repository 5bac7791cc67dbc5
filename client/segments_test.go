package client

import (
	"testing"

	"github.com/sessionledger/ledger/internal/natslog"
)

// Watch reads the log's segments as natslog writes them.
func TestSegmentNamesMatchTheLog(t *testing.T) {
	if segmentBaseKey != natslog.BaseKey || sealedPrefix != natslog.SealedPrefix {
		t.Fatalf("client has %q and %q, natslog %q and %q", segmentBaseKey, sealedPrefix, natslog.BaseKey, natslog.SealedPrefix)
	}
}
