package natslog_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/replay"
)

// ledgerLog writes a workload through the ledger onto a fresh embedded
// stream and returns the log.
func ledgerLog(t *testing.T, cfg natslog.StreamConfig) (*natslog.Log, *nats.Conn) {
	t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := natslog.ConnectEmbedded(ns, "t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown() })
	log, err := natslog.Open(t.Context(), nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return log, nc
}

func writeWorkload(t *testing.T, log *natslog.Log) {
	t.Helper()
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range svc.AppendMany(t.Context(), workload.Sessions(2)) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
}

func verify(t *testing.T, log *natslog.Log) *replay.Report {
	t.Helper()
	_, rep, err := replay.Verify(t.Context(), log, dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rewritten is the attacker who rewrites the store while the server is
// down: the messages, as stored with their headers, changed by fn and
// written into a fresh store.
func rewritten(t *testing.T, src *natslog.Log, fn func([]natslog.Msg) []natslog.Msg) *natslog.Log {
	t.Helper()
	msgs, err := src.ReadMsgs(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	dst, nc := ledgerLog(t, natslog.StreamConfig{})
	for _, m := range fn(msgs) {
		msg := nats.NewMsg("ledger.policy")
		if rec, err := events.DecodeRecord(m.Data); err == nil {
			msg.Subject = events.Subject(rec.Type, rec.Session)
		}
		msg.Data = m.Data
		msg.Header.Set(events.HashHeader, m.Hash)
		if _, err := dst.JetStream().PublishMsg(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	_ = nc
	return dst
}

// TestVerifyNamesTheFirstBadSequence deletes a record through the
// JetStream API, alters one, reorders two and inserts one, and checks that
// verify names the first bad sequence every time.
func TestVerifyNamesTheFirstBadSequence(t *testing.T) {
	clean, _ := ledgerLog(t, natslog.StreamConfig{AllowDelete: true})
	writeWorkload(t, clean)
	if rep := verify(t, clean); !rep.OK() {
		t.Fatalf("an untouched log: %+v", rep)
	}

	t.Run("altered", func(t *testing.T) {
		log := rewritten(t, clean, func(ms []natslog.Msg) []natslog.Msg {
			rec, _ := events.DecodeRecord(ms[6].Data)
			rec.Actor = "mallory"
			ms[6].Data, _ = rec.Encode()
			return ms
		})
		if rep := verify(t, log); rep.Tamper == nil || rep.Tamper.Seq != 7 {
			t.Fatalf("want 7, got %+v", rep.Tamper)
		}
	})
	t.Run("altered with its hash header rewritten", func(t *testing.T) {
		// Record 3 is a turn of a session that has later records: the
		// next record of that session no longer links to it.
		log := rewritten(t, clean, func(ms []natslog.Msg) []natslog.Msg {
			rec, _ := events.DecodeRecord(ms[2].Data)
			rec.Actor = "mallory"
			ms[2].Data, _ = rec.Encode()
			ms[2].Hash = events.HashBytes(ms[2].Data)
			return ms
		})
		if rep := verify(t, log); rep.Tamper == nil || rep.Tamper.Seq != 3 {
			t.Fatalf("want 3, got %+v", rep.Tamper)
		}
	})
	t.Run("reordered", func(t *testing.T) {
		log := rewritten(t, clean, func(ms []natslog.Msg) []natslog.Msg {
			ms[7], ms[8] = ms[8], ms[7]
			return ms
		})
		if rep := verify(t, log); rep.Tamper == nil || rep.Tamper.Seq != 8 {
			t.Fatalf("want 8, got %+v", rep.Tamper)
		}
	})
	t.Run("inserted", func(t *testing.T) {
		log := rewritten(t, clean, func(ms []natslog.Msg) []natslog.Msg {
			out := append([]natslog.Msg{}, ms[:5]...)
			out = append(out, ms[2]) // a copy of record 3, now at 6
			return append(out, ms[5:]...)
		})
		if rep := verify(t, log); rep.Tamper == nil || rep.Tamper.Seq != 6 {
			t.Fatalf("want 6, got %+v", rep.Tamper)
		}
	})
	t.Run("deleted through the API", func(t *testing.T) {
		st, err := clean.JetStream().Stream(t.Context(), clean.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteMsg(t.Context(), 5); err != nil {
			t.Fatal(err)
		}
		if rep := verify(t, clean); rep.Tamper == nil || rep.Tamper.Seq != 5 {
			t.Fatalf("want 5, got %+v", rep.Tamper)
		}
	})
}
