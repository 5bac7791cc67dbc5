package natslog_test

import (
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// BenchmarkAppendBatch times one atomic batch of n records on an embedded
// server that fsyncs every write: the floor under the ledger's 64-session
// fsync row, whose rounds are such batches. ns/op is per batch; the
// events/s metric is per record.
func BenchmarkAppendBatch(b *testing.B) {
	for _, n := range []int{1, 16, 64, 128} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			log := openLog(b)
			body := []byte(`{"type":"tool.checked","session":"s","tool":"read","allowed":true}`)
			head := uint64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				msgs := make([]events.Message, n)
				for j := range msgs {
					id := fmt.Sprintf("%d-%d", i, j)
					msgs[j] = events.Message{Subject: fmt.Sprintf("ledger.session.s%d", j), Data: body, ID: id}
				}
				first, err := log.AppendBatch(b.Context(), msgs, head)
				if err != nil {
					b.Fatal(err)
				}
				head = first + uint64(n) - 1
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
