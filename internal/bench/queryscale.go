package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// scaleKeys is how many root sessions query scale asks about at every
// size: as many distinct sessions at each, fewer than the smallest size
// has roots (a third of its sessions), so that no row measures a session
// asked about a moment before.
const scaleKeys = 300

// againPasses is how many times the hot row asks about the same sessions.
const againPasses = 5

// queryScale measures why at the head on a log of its own as it grows to
// each session count, on a state loaded from the projection file just
// committed (what a replica that just started serves): first on sessions
// the state has not read yet, each read from the file, then again on the
// same sessions, each held in memory. Each row is compared with the same
// row at the smallest size.
func queryScale(ctx context.Context, cfg *Config, rep *Report, counts []int) error {
	n, err := startNode(ctx, dir(cfg, "query-scale"), 2*time.Minute)
	if err != nil {
		return err
	}
	defer n.close()
	if _, err := n.svc.Append(ctx, workload.Policy()); err != nil {
		return err
	}
	next := 0
	var first [2]float64
	for _, want := range counts {
		// Each workload session adds three sessions (a root, two children)
		// in 13 records.
		for have := 0; have < want; {
			if err := grow(ctx, n, n.svc.Position()+uint64(min(13*(want-have)/3+13, 90_000)), &next); err != nil {
				return err
			}
			_ = n.svc.View(ctx, "", projection.Position{}, func(st *projection.State) error { have = len(st.Keys()); return nil })
		}
		if err := n.svc.Flush(ctx); err != nil {
			return err
		}
		cfg.logf("bench: query scale: %d sessions in %d records", want, n.svc.Position())
		// Root sessions (live, at their second turn) spread over the whole
		// log.
		keys := make([]events.SessionKey, scaleKeys)
		for i := range keys {
			keys[i] = events.SessionKey(fmt.Sprintf("agent:main:w%d", i*next/len(keys)))
		}
		st, err := n.store.Load(n.svc.Dialects())
		if err != nil {
			return err
		}
		// Whether the file is within the store's resident budget decides
		// whether a first query reads mapped pages or faults them in.
		fi, err := os.Stat(n.store.Path())
		if err != nil {
			return err
		}
		for pass, name := range []string{"first query of a session", "the same sessions again"} {
			times := 1
			if pass == 1 {
				times = againPasses
			}
			// A collection the sections before left running, or the
			// kernel writing back the pages the growth dirtied, would land
			// in some rows and not others.
			runtime.GC()
			time.Sleep(settlePause)
			f0, faultsOK := minorFaults()
			ds, allocs, err := whyPasses(st, keys, times)
			if err != nil {
				return err
			}
			f1, _ := minorFaults()
			p50 := quantile(ds, 0.5)
			if first[pass] == 0 {
				first[pass] = p50
			}
			row := ratioRow("scale", fmt.Sprintf("why p50 with %d sessions, %s", want, name), p50, first[pass], "µs", "within 20% of the smallest size", func(r float64) bool { return r <= 1.2 })
			row.Note = fmt.Sprintf("%d distinct sessions, %d queries, %.1f allocations each; a projection file of %.0f MB", len(keys), len(ds), allocs, float64(fi.Size())/(1<<20))
			if faultsOK {
				row.Note += fmt.Sprintf(", %.2f page faults a query", float64(f1-f0)/float64(len(ds)))
			}
			rep.add(row)
		}
	}
	return nil
}

// whyPasses asks why about each key, times times over, as the service
// answers it at the head (resolve the position, decide, read the session
// for the answer), and returns each query's latency and the allocations
// per query.
func whyPasses(st *projection.State, keys []events.SessionKey, times int) ([]time.Duration, float64, error) {
	ds := make([]time.Duration, 0, times*len(keys))
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range times {
		for _, key := range keys {
			t := time.Now()
			if _, err := st.Resolve(key, projection.Position{}); err != nil {
				return nil, 0, err
			}
			if _, err := st.Why(key, "exec", nil); err != nil {
				return nil, 0, err
			}
			if st.Session(key) == nil {
				return nil, 0, fmt.Errorf("session %s vanished", key)
			}
			ds = append(ds, time.Since(t))
		}
	}
	runtime.ReadMemStats(&m1)
	return ds, float64(m1.Mallocs-m0.Mallocs) / float64(len(ds)), nil
}

// minorFaults is how many minor page faults the process has taken (as
// /proc/self/stat counts them; false where there is none): a page of the
// projection file the process does not map costs a query one.
func minorFaults() (int64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: the state, then minflt seventh after it.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 8 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[7], 10, 64)
	return n, err == nil
}
