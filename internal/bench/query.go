package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// benchState folds the depth-2 sub-agent of workload.BenchEvents in memory.
func benchState() (*projection.State, events.SessionKey, error) {
	st := projection.New(dialects.All())
	for i, raw := range workload.BenchEvents() {
		ev, err := events.Parse(raw)
		if err != nil {
			return nil, "", err
		}
		ev.ID = fmt.Sprintf("01J%023d", i+1)
		p := st.Prepare(ev, "2026-01-01T00:00:00.000Z")
		if p.Err != nil {
			return nil, "", p.Err
		}
		if err := st.Apply(projection.Input{Record: p.Record}, st.Position()+1); err != nil {
			return nil, "", err
		}
	}
	return st, workload.BenchSession, nil
}

func queryBench(ctx context.Context, cfg *Config, rep *Report) error {
	st, key, err := benchState()
	if err != nil {
		return err
	}
	sess := st.Session(key)
	if _, err := st.Check(key, "read", nil); err != nil {
		return err
	}
	for _, q := range []struct {
		name, target string
		limit        float64
		fn           func()
	}{
		{"check (warm session)", "≤ 1 µs", 1000, func() { _, _ = st.Check(key, "read", nil) }},
		{"tools (full set with reasons)", "≤ 20 µs", 20000, func() { _ = st.Dialect().Tools(st, sess) }},
		{"why (full trace)", "≤ 50 µs", 50000, func() { _, _ = st.Why(key, "browser", nil) }},
	} {
		ns, allocs := perOp(q.fn, time.Second)
		row := absRow("queries", "in-process "+q.name, ns, "ns/op", q.target, func(v float64) bool { return v <= q.limit })
		row.Note = fmt.Sprintf("%d allocs/op, 60-tool catalogue, depth-2 sub-agent, every openclaw layer", allocs)
		rep.add(row)
	}

	// Over NATS: a client on TCP loopback, the ledger and a raw responder
	// on in-process connections, interleaved.
	n, err := startNodeListening(ctx, dir(cfg, "queries"))
	if err != nil {
		return err
	}
	defer n.close()
	for _, raw := range workload.BenchEvents() {
		if _, err := n.svc.Append(ctx, raw); err != nil {
			return err
		}
	}
	rnc, err := natslog.ConnectEmbedded(n.ns, "raw")
	if err != nil {
		return err
	}
	defer rnc.Close()
	if _, err := rnc.Subscribe("bench.raw", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		return err
	}
	_ = rnc.Flush()
	nc, err := nats.Connect(n.ns.ClientURL())
	if err != nil {
		return err
	}
	defer nc.Close()
	iters := 20000
	if cfg.Quick {
		iters = 2000
	}
	checkBody, _ := json.Marshal(map[string]any{"session": key, "tool": "read"})
	whyBody, _ := json.Marshal(map[string]any{"session": key, "tool": "browser"})
	var rawD, checkD, whyD []time.Duration
	for i := 0; i < iters; i++ {
		t0 := time.Now()
		if _, err := nc.Request("bench.raw", checkBody, 5*time.Second); err != nil {
			return err
		}
		t1 := time.Now()
		if m, err := nc.Request("ledger.v1.check.all", checkBody, 5*time.Second); err != nil || m.Header.Get("Nats-Service-Error-Code") != "" {
			return fmt.Errorf("check over NATS: %v %v", err, m.Header)
		}
		t2 := time.Now()
		if _, err := nc.Request("ledger.v1.why.all", whyBody, 5*time.Second); err != nil {
			return err
		}
		t3 := time.Now()
		rawD, checkD, whyD = append(rawD, t1.Sub(t0)), append(checkD, t2.Sub(t1)), append(whyD, t3.Sub(t2))
	}
	rp50 := quantile(rawD, 0.5)
	rep.add(ratioRow("queries", "over NATS: check p50", quantile(checkD, 0.5), rp50, "µs", "≤ 1.3x raw request/reply", func(r float64) bool { return r <= 1.3 }))
	rep.add(ratioRow("queries", "over NATS: check p99", quantile(checkD, 0.99), quantile(rawD, 0.99), "µs", "", nil))
	rep.add(ratioRow("queries", "over NATS: why p50", quantile(whyD, 0.5), rp50, "µs", "", nil))
	return nil
}

// perOp runs fn until the runs take at least d in all and returns the time
// and the heap allocations of one run, as testing.Benchmark measures them
// (first one run, then as many as the rate so far predicts for d, at most
// 100 times more each step). The shipped binary runs the bench, so it does
// not link package testing (TestLedgerLinksNoTesting).
func perOp(fn func(), d time.Duration) (nsPerOp float64, allocsPerOp uint64) {
	var ms runtime.MemStats
	n := 1
	for {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		mallocs := ms.Mallocs
		start := time.Now()
		for range n {
			fn()
		}
		took := time.Since(start)
		runtime.ReadMemStats(&ms)
		if took >= d || n >= 1_000_000_000 {
			return float64(took.Nanoseconds()) / float64(n), (ms.Mallocs - mallocs) / uint64(n)
		}
		next := n * 100
		if took > 0 {
			next = min(next, int(float64(n)*1.2*float64(d)/float64(took))+1)
		}
		n = max(next, n+1)
	}
}
