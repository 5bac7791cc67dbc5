package replay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/replay"
)

// scaleJetStream rebuilds the scale log from an embedded JetStream server
// in this process, as `ledger bench` does, and reads the same stream with
// a raw ordered consumer before and after, so both rates come from one
// run:
//
//	go test ./replay -run 'TestScale/jetstream' -scale 100000 -v
//
// The server's store is kept in -scale-dir beside the generated log.
func scaleJetStream(t *testing.T, path string) {
	log := scaleNATS(t, path)
	head, err := log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	follow := func() float64 {
		t0 := time.Now()
		count := 0
		if err := log.Follow(t.Context(), 1, func(uint64, []byte, uint64) error { count++; return nil }, head); err != nil {
			t.Fatal(err)
		}
		return float64(count) / time.Since(t0).Seconds()
	}
	before := follow()
	out := filepath.Join(t.TempDir(), "p.db")
	runtime.GC()
	stop := profileCPU(t)
	restore := replay.TuneGC() // as ledger replay and ledger bench run it
	t0, c0, g0, f0 := time.Now(), cpuTime(), gcTime(), minorFaults()
	st, err := replay.Rebuild(t.Context(), log, dialects.All(), out, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, cpu, gc, faults := time.Since(t0), cpuTime()-c0, gcTime()-g0, minorFaults()-f0
	restore()
	stop()
	after := follow()
	rate := float64(head) / d.Seconds()
	t.Logf("jetstream rebuild: %d records in %s: %.0f records/s, %.1f µs of CPU a record, %.1f of them the garbage collector's, %d minor page faults; raw ordered consumer %.0f records/s before, %.0f after (%.2fx of the mean)",
		head, d.Round(time.Millisecond), rate, float64(cpu.Microseconds())/float64(head), float64(gc.Microseconds())/float64(head), faults, before, after, rate/((before+after)/2))
	reportMemory(t, "after the rebuild")
	t.Logf("state hash at %d: %s", st.Position(), ledgertest.StateHash(t, st))
}

// scaleNATS starts an embedded server on a store under -scale-dir that
// holds the log at path, publishing it there the first time.
func scaleNATS(t *testing.T, path string) *natslog.Log {
	dir := path + ".nats"
	done := filepath.Join(dir, "complete")
	_, err := os.Stat(done)
	fresh := err != nil
	if fresh {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	// No fsync on every write: the store is a benchmark's, made again
	// when it is not complete.
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), SyncInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := natslog.ConnectEmbedded(ns, "scale")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if !fresh {
		return log
	}
	t.Logf("publishing %s to %s", path, dir)
	if err := publishLog(t.Context(), log, openFileLog(t, path)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return log
}

// publishLog appends the file log's records to log in atomic batches.
func publishLog(ctx context.Context, log *natslog.Log, src *fileLog) error {
	for from := uint64(1); from <= src.head(); from += natslog.MaxBatch {
		raw, err := src.Read(ctx, from, from+natslog.MaxBatch-1)
		if err != nil {
			return err
		}
		msgs := make([]events.Message, 0, len(raw))
		for _, b := range raw {
			rec, err := events.DecodeRecord(b)
			if err != nil {
				return err
			}
			msgs = append(msgs, events.Message{Subject: events.Subject(rec.Type, rec.Session), ID: rec.ID, Data: b})
		}
		first, err := log.AppendBatch(ctx, msgs, from-1)
		if err != nil {
			return err
		}
		if first != from {
			return fmt.Errorf("batch landed at %d, want %d", first, from)
		}
	}
	return nil
}
