package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// queryScale measures why at the head on a log of its own as it grows to
// each session count: first on sessions not queried since the projection
// was committed (a state backed by its file keeps a bounded number of
// sessions in memory and reads the others from the file), then again on
// the same sessions.
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
		if err := n.svc.Flush(); err != nil {
			return err
		}
		cfg.logf("bench: query scale: %d sessions in %d records", want, n.svc.Position())
		// 2000 root sessions (live, at their second turn) spread over the
		// whole log.
		keys := make([]events.SessionKey, 2000)
		for i := range keys {
			keys[i] = events.SessionKey(fmt.Sprintf("agent:main:w%d", i*next/len(keys)))
		}
		for pass, name := range []string{"first query of a session", "the same sessions again"} {
			ds := make([]time.Duration, 0, len(keys))
			for _, key := range keys {
				t := time.Now()
				if _, err := n.svc.Why(ctx, key, "exec", nil, projection.Position{}); err != nil {
					return err
				}
				ds = append(ds, time.Since(t))
			}
			p50 := quantile(ds, 0.5)
			if first[pass] == 0 {
				first[pass] = p50
			}
			rep.add(ratioRow("scale", fmt.Sprintf("why p50 with %d sessions, %s", want, name), p50, first[pass], "µs", "within 20% of the smallest size", func(r float64) bool { return r <= 1.2 }))
		}
	}
	return nil
}
