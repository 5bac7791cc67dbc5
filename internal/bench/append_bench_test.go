package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// benchNode is a node with the policy and one started session, for the
// single-session append benchmarks below (profiling aids for the bench's
// append rows: `go test ./internal/bench -run XXX -bench Single -cpuprofile`).
func benchNode(b *testing.B, interval time.Duration) *node {
	n, err := startNode(b.Context(), b.TempDir(), interval)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(n.close)
	if _, err := n.svc.Append(b.Context(), workload.Policy()); err != nil {
		b.Fatal(err)
	}
	if err := startSessions(b.Context(), n.svc, []string{"agent:main:lat"}); err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkSingleLedger(b *testing.B) {
	n := benchNode(b, 2*time.Minute)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := n.svc.Append(b.Context(), checkEvent("agent:main:lat", i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSingleRaw(b *testing.B) {
	n := benchNode(b, 2*time.Minute)
	body, err := recordBytes(b.Context(), n)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := n.js.Publish(b.Context(), "raw.lat", body, jetstream.WithMsgID(fmt.Sprintf("lat-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSingleRawHeaders(b *testing.B) {
	n := benchNode(b, 2*time.Minute)
	body, err := recordBytes(b.Context(), n)
	if err != nil {
		b.Fatal(err)
	}
	info, _ := n.raw.Info(b.Context())
	last := info.State.LastSeq
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := &nats.Msg{Subject: "raw.lat", Data: body, Header: nats.Header{}}
		m.Header.Set("Ledger-Hash", "sha256:0123456789012345678901234567890123456789012345678901234567890123")
		ack, err := n.js.PublishMsg(b.Context(), m, jetstream.WithMsgID(fmt.Sprintf("lat-%d", i)), jetstream.WithExpectStream("RAW"), jetstream.WithExpectLastSequence(last))
		if err != nil {
			b.Fatal(err)
		}
		last = ack.Sequence
	}
}

func BenchmarkSingleLog(b *testing.B) {
	n := benchNode(b, 2*time.Minute)
	body, err := recordBytes(b.Context(), n)
	if err != nil {
		b.Fatal(err)
	}
	head, _ := n.log.Head(b.Context())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		seq, err := n.log.Append(b.Context(), "ledger.decision.agent:main:lat", fmt.Sprintf("lat-%d", i), body, head)
		if err != nil {
			b.Fatal(err)
		}
		head = seq
	}
}

func BenchmarkSingleRawLedgerStream(b *testing.B) {
	n := benchNode(b, 2*time.Minute)
	body, err := recordBytes(b.Context(), n)
	if err != nil {
		b.Fatal(err)
	}
	last, _ := n.log.Head(b.Context())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := &nats.Msg{Subject: "ledger.decision.agent:main:lat", Data: body, Header: nats.Header{}}
		m.Header.Set("Ledger-Hash", "sha256:0123456789012345678901234567890123456789012345678901234567890123")
		ack, err := n.js.PublishMsg(b.Context(), m, jetstream.WithMsgID(fmt.Sprintf("lat-%d", i)), jetstream.WithExpectStream("LEDGER"), jetstream.WithExpectLastSequence(last))
		if err != nil {
			b.Fatal(err)
		}
		last = ack.Sequence
	}
}

// BenchmarkAPI64 is the 64-session throughput row's ledger half: 64
// writers appending through the API at once; ns/op is per event.
func BenchmarkAPI64(b *testing.B) {
	b.Run("interval", func(b *testing.B) { benchAPI64(b, 2*time.Minute) })
	b.Run("fsync", func(b *testing.B) { benchAPI64(b, 0) })
}

// BenchmarkAPIConc is BenchmarkAPI64/fsync with 2 to 64 writers: where
// rounds go as single appends (fewer than service.FsyncBatchFrom events)
// and where as atomic batches; ns/op is per event.
func BenchmarkAPIConc(b *testing.B) {
	for _, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		b.Run(fmt.Sprint(c), func(b *testing.B) { benchAPIConc(b, 0, c) })
	}
}

func benchAPI64(b *testing.B, interval time.Duration) { benchAPIConc(b, interval, 64) }

// benchAPIConc appends through the API from conc writers at once.
func benchAPIConc(b *testing.B, interval time.Duration, conc int) {
	n := benchNode(b, interval)
	keys := benchSessions(b, n, conc)
	c := client.New(n.nc, client.Options{Owner: "bench", Timeout: 30 * time.Second})
	per := max(b.N/conc, 1)
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Go(func() {
			for i := 0; i < per; i++ {
				if _, err := c.Append(b.Context(), client.Checked(events.SessionKey(k), events.CheckedData{Turn: 1, Tool: "read", Call: fmt.Sprintf("t%d", i)})); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// benchSessions starts conc sessions (agent:main:c<i>) on n, at turn 1.
func benchSessions(b *testing.B, n *node, conc int) []string {
	b.Helper()
	keys := make([]string, conc)
	for i := range keys {
		keys[i] = fmt.Sprintf("agent:main:c%d", i)
	}
	if err := startSessions(b.Context(), n.svc, keys); err != nil {
		b.Fatal(err)
	}
	return keys
}

// timedLog measures the time single appends spend in the log.
type timedLog struct {
	*natslog.Log
	in time.Duration
}

func (l *timedLog) AppendHashed(ctx context.Context, subject, id string, data []byte, hash string, expected uint64) (uint64, error) {
	t0 := time.Now()
	seq, err := l.Log.AppendHashed(ctx, subject, id, data, hash, expected)
	l.in += time.Since(t0)
	return seq, err
}

// BenchmarkSingleSplit reports how much of a single append's time is the
// log's (the publish and its acknowledgement) and how much the ledger's.
func BenchmarkSingleSplit(b *testing.B) {
	n := benchNode(b, 2*time.Minute)
	tl := &timedLog{Log: n.log}
	store, err := projection.OpenStore(filepath.Join(b.TempDir(), "split.db"), projection.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	svc, err := service.Open(b.Context(), service.Config{Log: tl, Dialects: dialects.All(), Store: store})
	if err != nil {
		b.Fatal(err)
	}
	evs := make([][]byte, 0, 1<<16)
	for i := range cap(evs) {
		evs = append(evs, checkEvent("agent:main:lat", i))
	}
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; b.Loop(); i++ {
		if _, err := svc.Append(b.Context(), evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
	}
	total := time.Since(t0)
	b.ReportMetric(float64(tl.in.Microseconds())/float64(b.N), "log-µs/op")
	b.ReportMetric(float64((total-tl.in).Microseconds())/float64(b.N), "ledger-µs/op")
}

// BenchmarkLogAfterWork times bare log appends, each after the goroutine
// has computed for a while, as the ledger does between appends (it
// decides before it publishes and folds after the acknowledgement). On
// the 2-core build machine the append itself took 60 µs back to back,
// and 78-115 µs after 10-30 µs of work: the server's and the client's
// goroutines have parked meanwhile, and the publish pays their wake-ups.
func BenchmarkLogAfterWork(b *testing.B) {
	for _, work := range []time.Duration{0, 10 * time.Microsecond, 30 * time.Microsecond} {
		b.Run(work.String(), func(b *testing.B) {
			n := benchNode(b, 2*time.Minute)
			body, err := recordBytes(b.Context(), n)
			if err != nil {
				b.Fatal(err)
			}
			head, _ := n.log.Head(b.Context())
			var in time.Duration
			for i := 0; b.Loop(); i++ {
				for t0 := time.Now(); time.Since(t0) < work; {
				}
				t0 := time.Now()
				seq, err := n.log.Append(b.Context(), "ledger.decision.agent:main:lat", fmt.Sprintf("lat-%d", i), body, head)
				if err != nil {
					b.Fatal(err)
				}
				in += time.Since(t0)
				head = seq
			}
			b.ReportMetric(float64(in.Microseconds())/float64(b.N), "log-µs/op")
		})
	}
}
