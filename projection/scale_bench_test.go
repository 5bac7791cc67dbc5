package projection_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// scaleStores holds a committed store per number of workload sessions,
// built once per test binary, in scaleDir.
var (
	scaleStores sync.Map
	scaleDir    string
)

// TestMain removes the scale stores (about 370 MB) when the benchmarks
// are done: no benchmark's b.TempDir outlives it.
func TestMain(m *testing.M) {
	code := m.Run()
	if scaleDir != "" {
		scaleStores.Range(func(_, v any) bool {
			v.(scaleBuilt).st.Close()
			return true
		})
		os.RemoveAll(scaleDir)
	}
	os.Exit(code)
}

type scaleBuilt struct {
	st   *projection.Store
	keys []events.SessionKey
}

// scaleStore folds n workload sessions (three ledger sessions each) into a
// store committed every 1300 records, as a service commits, and returns it
// with the keys of up to 300 root sessions spread over the log (as many at
// every size, as query scale asks about).
func scaleStore(b *testing.B, n int) (*projection.Store, []events.SessionKey) {
	b.Helper()
	if v, ok := scaleStores.Load(n); ok {
		return v.(scaleBuilt).st, v.(scaleBuilt).keys
	}
	oc := openclaw.New()
	// Not b.TempDir: the store outlives the benchmark that built it.
	if scaleDir == "" {
		dir, err := os.MkdirTemp("", "scale")
		if err != nil {
			b.Fatal(err)
		}
		scaleDir = dir
	}
	st, err := projection.OpenStore(filepath.Join(scaleDir, fmt.Sprintf("p%d.db", n)), projection.StoreOptions{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	h := &harness{t: b, st: projection.New(projection.Dialects{oc.Name(): oc})}
	h.mustAppend(string(workload.Policy()))
	for i := range n {
		for _, ev := range workload.Session(i) {
			h.mustAppend(string(ev))
		}
		if i%100 == 99 {
			if err := st.Commit(h.st); err != nil {
				b.Fatal(err)
			}
			h.log = h.log[:0]
		}
	}
	if err := st.Commit(h.st); err != nil {
		b.Fatal(err)
	}
	keys := make([]events.SessionKey, min(300, n))
	for i := range keys {
		keys[i] = events.SessionKey(fmt.Sprintf("agent:main:w%d", i*n/len(keys)))
	}
	scaleStores.Store(n, scaleBuilt{st, keys})
	return st, keys
}

// BenchmarkWhyScale is why on root sessions of a state loaded from its
// store, at a growing number of sessions: cold (each key's first query
// since the load, with none of the file resident, as after a commit of a
// file over its resident budget), cold-loaded (the same on a state loaded
// with none of the file mapped, as a process that just opened it: Load
// maps a file within the budget), cold-resident (the same with the file's
// pages mapped) and hot (the same keys again). It reports the p50 and the
// minor page faults per query besides the mean, and for cold-loaded the
// time a Load takes.
func BenchmarkWhyScale(b *testing.B) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	for _, n := range []int{333, 3333, 33333} {
		st, keys := scaleStore(b, n)
		for _, mode := range []string{"cold", "cold-loaded", "cold-resident", "hot"} {
			// cold-resident is a first query with the file's pages still
			// mapped (no commit since they were read): what a first query
			// costs besides the page faults.
			hot, drop := mode == "hot", mode == "cold" || mode == "hot"
			b.Run(fmt.Sprintf("sessions-%d/%s", 3*n, mode), func(b *testing.B) {
				var s *projection.State
				var loads int
				var loading time.Duration
				load := func() {
					if mode == "cold-loaded" {
						projection.DropPages(st)
					}
					t := time.Now()
					var err error
					if s, err = st.Load(dialects); err != nil {
						b.Fatal(err)
					}
					loading += time.Since(t)
					loads++
					if drop {
						projection.DropPages(st)
					}
					if hot {
						for _, k := range keys {
							if _, err := s.Why(k, "exec", nil); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
				load()
				b.ReportAllocs()
				ds := make([]time.Duration, 0, 1024)
				var faults int64
				var r0, r1 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				i := 0
				for b.Loop() {
					if i == len(keys) {
						b.StopTimer()
						_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
						faults += r1.Minflt - r0.Minflt
						i = 0
						if !hot {
							load()
						}
						_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
						b.StartTimer()
					}
					t := time.Now()
					if _, err := s.Why(keys[i], "exec", nil); err != nil {
						b.Fatal(err)
					}
					ds = append(ds, time.Since(t))
					i++
				}
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				faults += r1.Minflt - r0.Minflt
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
				if mode == "cold-loaded" {
					b.ReportMetric(float64(loading.Microseconds())/float64(loads), "load-µs")
				}
			})
		}
	}
}
