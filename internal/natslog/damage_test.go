package natslog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/natslog"
)

// BlockFile is the first message block of stream on an embedded server's
// store directory dir.
func blockFile(dir, stream string) string {
	return filepath.Join(dir, "jetstream", "$G", "streams", stream, "msgs", "1.blk")
}

// storeDamage are the kinds of damage to a stopped server's store that
// leave it reporting sequences it no longer holds, with the first global
// sequence each loses of a log of 20 records in one block.
var storeDamage = []struct {
	name  string
	do    func(t *testing.T, blk string)
	first func(seq uint64) bool
}{
	{"torn last record", func(t *testing.T, blk string) { rewrite(t, blk, func(b []byte) []byte { return b[:len(b)-5] }) },
		func(seq uint64) bool { return seq == 20 }},
	{"stale checksum on the last record", func(t *testing.T, blk string) {
		rewrite(t, blk, func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b })
	}, func(seq uint64) bool { return seq == 20 }},
	{"half-truncated block", func(t *testing.T, blk string) { rewrite(t, blk, func(b []byte) []byte { return b[:len(b)/2] }) },
		func(seq uint64) bool { return seq > 1 && seq < 20 }},
	{"deleted block", func(t *testing.T, blk string) {
		if err := os.Remove(blk); err != nil {
			t.Fatal(err)
		}
	}, func(seq uint64) bool { return seq == 1 }},
}

func rewrite(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedStoreIsReported damages the block file of a stopped embedded
// server in each way that leaves the stream reporting records it cannot
// return. Every read of the log (Read, Follow to the head, ReadMsgs) and
// Check must answer within the bound with a *DamagedError at the first lost
// sequence, whose message says how to recover; before, the reads waited
// forever. The same holds for a reader with DirectReads.
func TestDamagedStoreIsReported(t *testing.T) {
	for _, d := range storeDamage {
		for _, direct := range []bool{false, true} {
			testDamagedStore(t, d.name, d.do, d.first, direct)
		}
	}
}

func testDamagedStore(t *testing.T, name string, damage func(t *testing.T, blk string), first func(uint64) bool, direct bool) {
	if direct {
		name += " direct"
	}
	t.Run(name, func(t *testing.T) {
		e := startServer(t)
		log := open(t, e.connect(), natslog.StreamConfig{})
		appendN(t, log, 0, 20)
		e.stop()
		damage(t, blockFile(e.dir, "LEDGER"))
		e.start()
		log = open(t, e.connect(), natslog.StreamConfig{DirectReads: direct})
		head, err := log.Head(t.Context())
		if err != nil || head != 20 {
			t.Fatalf("head %d, %v: want the stream to still report 20", head, err)
		}
		reads := map[string]func(ctx context.Context) error{
			"Read": func(ctx context.Context) error { _, err := log.Read(ctx, 1, head); return err },
			"Follow": func(ctx context.Context) error {
				return log.Follow(ctx, 1, func(uint64, []byte, uint64) error { return nil }, head)
			},
			"ReadMsgs": func(ctx context.Context) error { _, err := log.ReadMsgs(ctx, 1); return err },
			"Check":    func(ctx context.Context) error { return log.Check(ctx) },
		}
		for name, read := range reads {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			start := time.Now()
			err := read(ctx)
			cancel()
			var de *natslog.DamagedError
			switch {
			case errors.As(err, &de):
				if !first(de.Seq) {
					t.Errorf("%s: damaged at %d: not the first lost sequence", name, de.Seq)
				}
				if msg := err.Error(); !strings.Contains(msg, "log damaged at") || !strings.Contains(msg, "recover with") {
					t.Errorf("%s: %v: want 'log damaged at SEQ: ...; recover with ...'", name, err)
				}
				t.Logf("%s after %s: %v", name, time.Since(start).Round(time.Millisecond), err)
			case err == nil:
				t.Errorf("%s: no error on a damaged store", name)
			default:
				t.Errorf("%s after %s: %v, want a *natslog.DamagedError", name, time.Since(start).Round(time.Millisecond), err)
			}
		}
	})
}

// TestCheckFindsDroppedRecords: records dropped from the middle of a log
// (the first policy.set among them) leave a stream whose reads go on past
// them; Check finds the first one from the stream's state alone.
func TestCheckFindsDroppedRecords(t *testing.T) {
	for _, c := range []struct {
		name string
		drop []uint64
		want uint64
	}{
		{"the first record", []uint64{1}, 1},
		{"mid-log", []uint64{7}, 7},
		{"several", []uint64{12, 5}, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := startServer(t)
			log := open(t, e.connect(), natslog.StreamConfig{AllowDelete: true})
			appendN(t, log, 0, 20)
			if err := log.Check(t.Context()); err != nil {
				t.Fatalf("intact log: %v", err)
			}
			st, err := log.JetStream().Stream(t.Context(), "LEDGER")
			if err != nil {
				t.Fatal(err)
			}
			for _, seq := range c.drop {
				if err := st.DeleteMsg(t.Context(), seq); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err = log.Check(ctx)
			var de *natslog.DamagedError
			if !errors.As(err, &de) || de.Seq != c.want {
				t.Fatalf("Check: %v, want log damaged at %d", err, c.want)
			}
			t.Log(err)
		})
	}
}

// TestRetentionIsNoDamage: a live segment with MaxMsgs drops its oldest
// records; Check does not call that damage, and a read from a dropped
// sequence fails without calling it damage either, with consumers and
// with DirectReads alike.
func TestRetentionIsNoDamage(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{MaxMsgs: 5})
	appendN(t, log, 0, 20)
	testRetention(t, log)
	testRetention(t, open(t, e.connect(), natslog.StreamConfig{MaxMsgs: 5, DirectReads: true}))
}

func testRetention(t *testing.T, log *natslog.Log) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := log.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	err := log.Follow(ctx, 1, func(uint64, []byte, uint64) error { return nil }, 20)
	if err == nil || errors.Is(err, natslog.ErrDamaged) || events.CodeOf(err) != events.CodeBehindRetention {
		t.Fatalf("Follow from a dropped sequence: %v, want behind_retention, not damage", err)
	}
	if _, err := log.Read(ctx, 16, 20); err != nil {
		t.Fatalf("Read of the records kept: %v", err)
	}
}
