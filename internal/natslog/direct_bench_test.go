package natslog_test

import (
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/natslog"
)

// BenchmarkRead times Read of a 100,000-record log of four segments on an
// embedded server, with consumers and with DirectReads. ns/op is one read
// of the whole log.
func BenchmarkRead(b *testing.B) {
	const n = 100_000
	e := startServer(b)
	cfg := natslog.StreamConfig{RollSubjects: 25_000}
	log := open(b, e.connect(), cfg)
	for i := 0; i < n; i += natslog.MaxBatch {
		msgs := make([]events.Message, natslog.MaxBatch)
		for j := range msgs {
			seq := i + j + 1
			msgs[j] = events.Message{Subject: subject(seq), ID: id(seq),
				Data: fmt.Appendf(nil, `{"type":"tool.checked","session":"s%d","tool":"read","allowed":true}`, seq)}
		}
		if _, err := log.AppendBatch(b.Context(), msgs, uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
	for _, direct := range []bool{false, true} {
		b.Run(map[bool]string{false: "consumers", true: "direct"}[direct], func(b *testing.B) {
			cfg.DirectReads = direct
			reader := open(b, e.connect(), cfg)
			for b.Loop() {
				recs, err := reader.Read(b.Context(), 1, n)
				if err != nil || len(recs) != n {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
