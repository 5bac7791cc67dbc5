package projection_test

import (
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// The fold's benchmarks (issue 16): a log of workload sessions folded
// from each form a caller has a record in, and the append path's fold of
// a tool.checked after its Prepare.

func workloadRecords(tb testing.TB, sessions int) ([]*events.Record, [][]byte) {
	oc := openclaw.New()
	h := &harness{t: tb, st: projection.New(projection.Dialects{oc.Name(): oc})}
	for _, ev := range workload.Sessions(sessions) {
		h.mustAppend(string(ev))
	}
	raw := make([][]byte, len(h.log))
	for i, r := range h.log {
		b, err := r.Encode()
		if err != nil {
			tb.Fatal(err)
		}
		raw[i] = b
	}
	return h.log, raw
}

func benchFold(b *testing.B, apply func(st *projection.State, rec *events.Record, raw []byte, seq uint64) error) {
	recs, raw := workloadRecords(b, 200)
	oc := openclaw.New()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		st := projection.New(projection.Dialects{oc.Name(): oc})
		for i := range recs {
			if err := apply(st, recs[i], raw[i], uint64(i+1)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}

func BenchmarkApplyFoldRecord(b *testing.B) {
	benchFold(b, func(st *projection.State, rec *events.Record, _ []byte, seq uint64) error {
		return st.Apply(projection.Input{Record: rec}, seq)
	})
}

func BenchmarkApplyFoldBytes(b *testing.B) {
	benchFold(b, func(st *projection.State, _ *events.Record, raw []byte, seq uint64) error {
		return st.Apply(projection.Input{Bytes: raw}, seq)
	})
}

func BenchmarkApplyFoldEncoded(b *testing.B) {
	benchFold(b, func(st *projection.State, rec *events.Record, raw []byte, seq uint64) error {
		return st.Apply(projection.Input{Record: rec, Bytes: raw}, seq)
	})
}

func BenchmarkApplyFoldDecoded(b *testing.B) {
	benchFold(b, func(st *projection.State, rec *events.Record, raw []byte, seq uint64) error {
		return st.Apply(projection.Decode(rec, raw), seq)
	})
}

// benchAppend is the service's append path for tool.checked records:
// Prepare, encode, fold.
func benchAppend(b *testing.B, fold func(st *projection.State, p projection.Prepared, raw []byte, seq uint64) error) {
	st, key := benchState(b)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		ev, err := events.Parse(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"bench","session":%q,"data":{"turn":1,"tool":"read","call":"c%d"}}`, key, i))
		if err != nil {
			b.Fatal(err)
		}
		ev.ID = fmt.Sprintf("01K%023d", i)
		p := st.Prepare(ev, "2026-01-01T00:00:00.000Z")
		if p.Err != nil {
			b.Fatal(p.Err)
		}
		raw, err := p.Record.Encode()
		if err != nil {
			b.Fatal(err)
		}
		if err := fold(st, p, raw, st.Position()+1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyPrepared folds with what Prepare decided.
func BenchmarkApplyPrepared(b *testing.B) {
	benchAppend(b, func(st *projection.State, p projection.Prepared, raw []byte, seq uint64) error {
		return st.Apply(p.Input(raw), seq)
	})
}

// BenchmarkApplyPreparedDecoding folds decoding the record, as a replay.
func BenchmarkApplyPreparedDecoding(b *testing.B) {
	benchAppend(b, func(st *projection.State, p projection.Prepared, raw []byte, seq uint64) error {
		return st.Apply(projection.Input{Record: p.Record, Bytes: raw}, seq)
	})
}
