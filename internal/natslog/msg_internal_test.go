package natslog

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

// TestRecordMsgReused: a record's message comes from a pool and goes back
// once acknowledged (issue 28, point 5: CPU per event), so with its hash
// given (the service computed it for its fold) making one costs no
// allocation; and a message taken again from the pool carries none of the
// headers of the one before.
func TestRecordMsgReused(t *testing.T) {
	data := []byte(`{"id":"x"}`)
	hash := events.HashBytes(data)
	pm := recordMsg("ledger.policy", "a", data, hash, "LEDGER", 7, "prev")
	if got := pm.msg.Header.Get(jetstream.ExpectedLastMsgIDHeader); got != "prev" {
		t.Fatalf("expected last id %q, want prev", got)
	}
	pm.release()
	pm = recordMsg("ledger.policy", "b", data, "", "LEDGER", 8, "")
	if _, ok := pm.msg.Header[jetstream.ExpectedLastMsgIDHeader]; ok || len(pm.msg.Header) != 4 {
		t.Fatalf("a message from the pool keeps an old header: %v", pm.msg.Header)
	}
	if pm.msg.Header.Get(events.HashHeader) != hash || pm.msg.Header.Get(jetstream.MsgIDHeader) != "b" ||
		pm.msg.Header.Get(jetstream.ExpectedLastSeqHeader) != "8" || string(pm.msg.Data) != string(data) {
		t.Fatalf("headers %v, data %s", pm.msg.Header, pm.msg.Data)
	}
	pm.release()
	if raceEnabled {
		return // the race detector's pool drops puts at random
	}
	n := testing.AllocsPerRun(100, func() {
		recordMsg("ledger.policy", "a", data, hash, "LEDGER", 7, "prev").release()
	})
	if n != 0 {
		t.Errorf("a record's message with its hash given makes %v allocations, want 0", n)
	}
}
