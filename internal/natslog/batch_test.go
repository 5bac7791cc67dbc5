package natslog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/natslog"
)

// stream is a fill that adds records from+1..to.
func stream(from, to int) func(add func(events.Message)) error {
	return func(add func(events.Message)) error {
		for i := from + 1; i <= to; i++ {
			add(events.Message{Subject: subject(i), ID: id(i), Data: data(i)})
		}
		return nil
	}
}

// readBack checks that the log holds records 1..n, each once and in order.
func readBack(t *testing.T, log *natslog.Log, n int) {
	t.Helper()
	recs, err := log.Read(t.Context(), 1, uint64(n)+10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	for i, r := range recs {
		if string(r) != string(data(i+1)) {
			t.Fatalf("record %d is %s, want %s", i+1, r, data(i+1))
		}
	}
}

func TestAppendBatchStream(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{})
	ctx := t.Context()

	if first, n, err := log.AppendBatchStream(ctx, 0, stream(0, 0)); err != nil || first != 1 || n != 0 {
		t.Fatalf("an empty batch: %d %d %v", first, n, err)
	}
	if first, n, err := log.AppendBatchStream(ctx, 0, stream(0, 3)); err != nil || first != 1 || n != 3 {
		t.Fatalf("first batch: %d %d %v", first, n, err)
	}
	// One record alone is a batch too (it ends with its end-of-batch
	// message, which is not stored).
	if first, n, err := log.AppendBatchStream(ctx, 3, stream(3, 4)); err != nil || first != 4 || n != 1 {
		t.Fatalf("a batch of one: %d %d %v", first, n, err)
	}
	// Validated against the head it names: nothing of a stale batch lands.
	if _, _, err := log.AppendBatchStream(ctx, 3, stream(4, 6)); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("stale batch: %v", err)
	}
	// Nor a batch whose ids already landed.
	if _, _, err := log.AppendBatchStream(ctx, 4, stream(2, 4)); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("a batch of landed ids: %v", err)
	}
	readBack(t, log, 4)

	// A fill that fails: its error is the answer, and what the server
	// staged is dropped at once. A stream holds at most 50 batches in
	// flight, so more abandoned ones than that would otherwise refuse the
	// next batch until they time out.
	boom := errors.New("boom")
	for k := range 60 {
		_, n, err := log.AppendBatchStream(ctx, 4, func(add func(events.Message)) error {
			// Each its own batch: a batch is named by its first record's id.
			for i := 5; i <= 6; i++ {
				add(events.Message{Subject: subject(i), ID: fmt.Sprintf("abandoned-%d-%d", k, i), Data: data(i)})
			}
			return boom
		})
		if !errors.Is(err, boom) || n != 2 {
			t.Fatalf("a failed fill: %d %v", n, err)
		}
	}
	if first, n, err := log.AppendBatchStream(ctx, 4, stream(4, 6)); err != nil || first != 5 || n != 2 {
		t.Fatalf("after 60 abandoned batches: %d %d %v", first, n, err)
	}
	readBack(t, log, 6)
}

// A segment sealed while a batch is being streamed to it: the batch goes
// to the new segment whole, once.
func TestAppendBatchStreamAcrossARoll(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{RollSubjects: -1})
	ctx := t.Context()
	appendN(t, log, 0, 2)
	first, n, err := log.AppendBatchStream(ctx, 2, func(add func(events.Message)) error {
		add(events.Message{Subject: subject(3), ID: id(3), Data: data(3)})
		if err := log.RollNow(ctx); err != nil {
			return err
		}
		return stream(3, 5)(add)
	})
	if err != nil || first != 3 || n != 3 {
		t.Fatalf("batch across the roll: %d %d %v", first, n, err)
	}
	if segs := checkChain(t, log); len(segs) != 2 || segs[1].Base != 2 {
		t.Fatalf("segments: %+v", segs)
	}
	readBack(t, log, 5)
	// And a stale batch after the roll is a conflict.
	if _, _, err := log.AppendBatchStream(ctx, 1, stream(5, 6)); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("stale batch after the roll: %v", err)
	}
}

// TestBatchWithNoResponders: a batch whose end nothing receives did not
// commit, and both ways of sending one say so with a conflict (the caller
// catches up and sends it again), whatever the reason nothing answered. A
// replicated segment just created answers so for a moment
// (TestRollingOnACluster); here the stream is gone.
func TestBatchWithNoResponders(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{})
	ctx := t.Context()
	if _, _, err := log.AppendBatchStream(ctx, 0, stream(0, 2)); err != nil {
		t.Fatal(err)
	}
	if err := log.JetStream().DeleteStream(ctx, log.Name()); err != nil {
		t.Fatal(err)
	}
	_, _, err := log.AppendBatchStream(ctx, 2, stream(2, 4))
	if !errors.Is(err, events.ErrConflict()) || !strings.Contains(err.Error(), "no responders") {
		t.Fatalf("streamed: %v", err)
	}
	var msgs []events.Message
	_ = stream(2, 4)(func(m events.Message) { msgs = append(msgs, m) })
	if _, err := log.AppendBatch(ctx, msgs, 2); !errors.Is(err, events.ErrConflict()) || !strings.Contains(err.Error(), "no responders") {
		t.Fatalf("whole: %v", err)
	}
}

// TestAppendWithNoResponders: a single append that no stream answers is
// tried again, then fails with what it met, never as landed.
func TestAppendWithNoResponders(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{})
	ctx := t.Context()
	if _, err := log.Append(ctx, subject(1), id(1), data(1), 0); err != nil {
		t.Fatal(err)
	}
	if err := log.JetStream().DeleteStream(ctx, log.Name()); err != nil {
		t.Fatal(err)
	}
	seq, err := log.Append(ctx, subject(2), id(2), data(2), 1)
	if err == nil || seq != 0 || !strings.Contains(err.Error(), "after retries") {
		t.Fatalf("append: %d %v", seq, err)
	}
}
