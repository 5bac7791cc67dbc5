package service_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// checked is a tool.checked of turn 1 of session key, valid any number of
// times.
func checked(key string, i int) []byte {
	return fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"bench","session":%q,"data":{"turn":1,"tool":"read","call":"c%d"}}`, key, i)
}

func benchService(b *testing.B, keys int) *service.Service {
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
	if _, err := svc.Append(b.Context(), workload.Policy()); err != nil {
		b.Fatal(err)
	}
	for k := range keys {
		for _, ev := range [][]byte{
			fmt.Appendf(nil, `{"type":"session.started","v":1,"actor":"bench","session":"agent:main:s%d","data":{"agent":"main"}}`, k),
			fmt.Appendf(nil, `{"type":"turn.started","v":1,"actor":"bench","session":"agent:main:s%d","data":{"turn":1}}`, k),
		} {
			if _, err := svc.Append(b.Context(), ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	return svc
}

// BenchmarkAppend is the ledger's own work for one append (parse, decide,
// encode, fold) over an in-memory log: what a JetStream append adds to a
// raw publish.
func BenchmarkAppend(b *testing.B) {
	svc := benchService(b, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := svc.Append(b.Context(), checked("agent:main:s0", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendMany64 is one round of 64 sessions' appends; ns/op is per
// round.
func BenchmarkAppendMany64(b *testing.B) {
	svc := benchService(b, 64)
	b.ReportAllocs()
	raws := make([][]byte, 64)
	for i := 0; b.Loop(); i++ {
		for k := range raws {
			raws[k] = checked(fmt.Sprintf("agent:main:s%d", k), i)
		}
		for _, o := range svc.AppendMany(b.Context(), raws) {
			if o.Err != nil {
				b.Fatal(o.Err)
			}
		}
	}
}

// BenchmarkCatchUp is a replica starting on a log of 50,000 records with
// an empty projection file: ns/op is the whole catch-up.
func BenchmarkCatchUp(b *testing.B) {
	log := &service.MemLog{}
	src := service.New(service.Config{Log: log, Dialects: dialects.All()})
	if _, err := src.Append(b.Context(), workload.Policy()); err != nil {
		b.Fatal(err)
	}
	for next := 0; src.Position() < 50_000; next++ {
		for _, o := range src.AppendMany(b.Context(), workload.Session(next)) {
			if o.Err != nil {
				b.Fatal(o.Err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		store, err := projection.OpenStore(filepath.Join(b.TempDir(), fmt.Sprintf("p%d.db", i)), projection.StoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		svc, err := service.Open(b.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store})
		if err != nil {
			b.Fatal(err)
		}
		if err := svc.Flush(b.Context()); err != nil {
			b.Fatal(err)
		}
		store.Close()
	}
	b.ReportMetric(50_000/(b.Elapsed().Seconds()/float64(b.N)), "records/s")
}
