package replay_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// memLog is a log in memory, for replay.Rebuild.
type memLog [][]byte

func (l memLog) Head(context.Context) (uint64, error) { return uint64(len(l)), nil }

func (l memLog) Read(_ context.Context, from, to uint64) ([][]byte, error) {
	return l[from-1 : to], nil
}

// benchLog is the stored bytes of workload sessions appended as the
// service would.
func benchLog(tb testing.TB, sessions int) memLog {
	st := projection.New(dialects.All())
	var log memLog
	for i, raw := range workload.Sessions(sessions) {
		ev, err := events.Parse(raw)
		if err != nil {
			tb.Fatal(err)
		}
		ev.ID = fmt.Sprintf("01K%023d", i)
		p := st.Prepare(ev, "2026-01-01T00:00:00.000Z")
		if p.Err != nil || p.Record == nil {
			tb.Fatalf("event %d: %v", i, p.Err)
		}
		b, err := p.Record.Encode()
		if err != nil {
			tb.Fatal(err)
		}
		if err := st.Apply(projection.Input{Record: p.Record, Bytes: b}, st.Position()+1); err != nil {
			tb.Fatal(err)
		}
		log = append(log, b)
	}
	return log
}

// BenchmarkRebuild rebuilds a store from a log of workload sessions.
func BenchmarkRebuild(b *testing.B) {
	log := benchLog(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n++
		path := filepath.Join(b.TempDir(), "p.db")
		if _, err := replay.Rebuild(b.Context(), log, dialects.All(), path, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(log)), "ns/record")
}

// BenchmarkFold folds the same log in memory.
func BenchmarkFold(b *testing.B) {
	log := benchLog(b, 1000)
	recs := make([]*events.Record, len(log))
	for i, raw := range log {
		r, err := events.DecodeRecord(raw)
		if err != nil {
			b.Fatal(err)
		}
		recs[i] = r
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := replay.Fold(dialects.All(), recs, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(log)), "ns/record")
}
