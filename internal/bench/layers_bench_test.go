package bench

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

// BenchmarkIntervalLayers splits the bench's "interval: 64 sessions" row
// into its layers, each on a node of its own at the row's sync interval;
// ns/op is per event:
//
//   - raw: the row's floor, async publishes of the record's bytes with a
//     message id, as many in flight as nats.go allows;
//   - raw-headers: the same with the headers every ledger record carries
//     (Ledger-Hash, Nats-Msg-Id, Nats-Expected-Stream, -Last-Sequence and
//     -Last-Msg-Id);
//   - log-rounds64: natslog.Log.AppendAsync of the record, 64 at a time,
//     each round's acknowledgements awaited before the next (the log's
//     part of the ledger's rounds);
//   - service-rounds64: service.AppendMany of 64 sessions' events at a
//     time (the rounds without the API and its client; the events are
//     encoded before the clock starts).
//
// BenchmarkAPI64/interval is the row's ledger half (the API and its
// client on top). docs/bench.md, "where the 64-session interval row's
// CPU goes", has the figures.
//
//	go test ./internal/bench -run XXX -bench 'IntervalLayers|API64/interval' -benchtime 60000x
func BenchmarkIntervalLayers(b *testing.B) {
	const interval, conc = 2 * time.Minute, 64
	b.Run("raw", func(b *testing.B) {
		n := benchNode(b, interval)
		body, err := recordBytes(b.Context(), n)
		if err != nil {
			b.Fatal(err)
		}
		ids := msgIDs("raw", b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for {
				if _, err := n.js.PublishAsync(fmt.Sprintf("raw.s%d", i%conc), body, jetstream.WithMsgID(ids[i])); err == nil {
					break
				}
				<-n.js.PublishAsyncComplete()
			}
		}
		<-n.js.PublishAsyncComplete()
	})
	b.Run("raw-headers", func(b *testing.B) {
		n := benchNode(b, interval)
		body, err := recordBytes(b.Context(), n)
		if err != nil {
			b.Fatal(err)
		}
		info, err := n.raw.Info(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		last, prev, ids := info.State.LastSeq, "", msgIDs("rawh", b.N)
		hash := events.HashBytes(body)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m := &nats.Msg{Subject: fmt.Sprintf("raw.s%d", i%conc), Data: body, Header: nats.Header{}}
			m.Header.Set(events.HashHeader, hash)
			m.Header.Set(jetstream.MsgIDHeader, ids[i])
			m.Header.Set(jetstream.ExpectedStreamHeader, "RAW")
			m.Header.Set(jetstream.ExpectedLastSeqHeader, strconv.FormatUint(last, 10))
			if prev != "" {
				m.Header.Set(jetstream.ExpectedLastMsgIDHeader, prev)
			}
			for {
				if _, err := n.js.PublishMsgAsync(m); err == nil {
					break
				}
				<-n.js.PublishAsyncComplete()
			}
			last, prev = last+1, ids[i]
		}
		<-n.js.PublishAsyncComplete()
	})
	b.Run("log-rounds64", func(b *testing.B) {
		n := benchNode(b, interval)
		body, err := recordBytes(b.Context(), n)
		if err != nil {
			b.Fatal(err)
		}
		head, err := n.log.Head(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		prev, ids := "", msgIDs("log", b.N)
		waits := make([]func() (uint64, error), 0, conc)
		b.ResetTimer()
		for i := 0; i < b.N; {
			waits = waits[:0]
			for ; len(waits) < conc && i < b.N; i++ {
				w, err := n.log.AppendAsync(b.Context(), "ledger.decision.agent:main:lat", ids[i], body, "", head, prev)
				if err != nil {
					b.Fatal(err)
				}
				waits = append(waits, w)
				head, prev = head+1, ids[i]
			}
			for _, w := range waits {
				if _, err := w(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("service-rounds64", func(b *testing.B) {
		n := benchNode(b, interval)
		keys := benchSessions(b, n, conc)
		evs := make([][]byte, b.N)
		for i := range evs {
			evs[i] = checkEvent(keys[i%conc], i)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i += conc {
			for _, o := range n.svc.AppendMany(b.Context(), evs[i:min(i+conc, b.N)]) {
				if o.Err != nil {
					b.Fatal(o.Err)
				}
			}
		}
	})
}

// msgIDs is n message ids, made before a benchmark's clock starts.
func msgIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = prefix + "-" + strconv.Itoa(i)
	}
	return ids
}
