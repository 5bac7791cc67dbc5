package natslog_test

import (
	"fmt"
	"testing"
)

// TestReadsLeaveNoConsumers: every Read, ReadMsgs and bounded Follow
// deletes the consumer it read with, so a catch-up that reads a long log
// chunk by chunk does not pile up consumers until the server refuses new
// ones.
func TestReadsLeaveNoConsumers(t *testing.T) {
	log := openLog(t)
	ctx := t.Context()
	for i := range 20 {
		if _, err := log.Append(ctx, "ledger.policy", fmt.Sprintf("01J%023d", i+1), []byte(`{}`), uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		from := uint64(i%20 + 1)
		if recs, err := log.Read(ctx, from, from+2); err != nil || len(recs) == 0 {
			t.Fatalf("read from %d: %d records, %v", from, len(recs), err)
		}
		if _, err := log.ReadMsgs(ctx, from); err != nil {
			t.Fatal(err)
		}
		if err := log.Follow(ctx, from, func(uint64, []byte, uint64) error { return nil }, 20); err != nil {
			t.Fatal(err)
		}
	}
	s, err := log.JetStream().Stream(ctx, "LEDGER")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := info.State.Consumers; n != 0 {
		t.Fatalf("%d consumers are left after 90 reads", n)
	}
}
