package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// scopesBench measures the model at scale (issue 23): a ledger whose
// sessions are spread over many scopes answers tools, check and why about
// as fast as a ledger with the same sessions in one scope. Both ledgers are
// built in this run, on their own embedded servers, with the same sessions
// (a root started in its scope and at its first turn) and the same
// policies (one document per scope, the one-scope ledger's the first of
// them); each query is asked about the same sampled sessions of each,
// through the service at the head, in passes; the median pass's time per
// query is compared.
func scopesBench(ctx context.Context, cfg *Config, rep *Report) error {
	sessions, scopes := 100_000, 1_000
	if cfg.Quick {
		sessions, scopes = 5_000, 100
	}
	var p50 [2][3]float64 // [one scope, many scopes][tools, check, why]
	for i, n := range []int{1, scopes} {
		res, err := scopesLedger(ctx, cfg, n, sessions)
		if err != nil {
			return err
		}
		p50[i] = res
	}
	for q, name := range []string{"tools", "check", "why"} {
		row := ratioRow("scopes", fmt.Sprintf("%s, %d sessions in %d scopes against one scope", name, sessions, scopes),
			p50[1][q], p50[0][q], "µs", "within 1.2x of one scope", func(r float64) bool { return r <= 1.2 })
		row.Note = fmt.Sprintf("the median of %d passes over %d sampled sessions (the first pass reads them), per query, through the service at the head", scopesPasses, scopesSample)
		rep.add(row)
	}
	return nil
}

const (
	scopesSample = 300
	scopesPasses = 21
)

// scopesPolicy is the document of scope i: openclaw, each scope denying
// another tool.
func scopesPolicy(scope string, i int) []byte {
	tools := []string{"exec", "write", "edit", "browser", "web_fetch", "process"}
	ev := map[string]any{"type": events.PolicySet, "v": 1, "actor": "bench",
		"data": map[string]any{"scope": scope, "dialect": "openclaw",
			"document":  map[string]any{"tools": map[string]any{"deny": []string{tools[i%len(tools)]}}},
			"catalogue": append([]string{"read"}, tools...)}}
	b, _ := json.Marshal(ev)
	return b
}

// scopesLedger builds a ledger of the given sessions over n scopes
// (scope "default" alone when n is 1) and returns the p50 of tools, check
// and why in µs.
func scopesLedger(ctx context.Context, cfg *Config, n, sessions int) ([3]float64, error) {
	var out [3]float64
	nd, err := startNode(ctx, dir(cfg, fmt.Sprintf("scopes-%d", n)), 2*time.Minute)
	if err != nil {
		return out, err
	}
	defer nd.close()
	name := func(i int) string {
		if n == 1 {
			return events.DefaultScope
		}
		return fmt.Sprintf("team-%04d", i%n)
	}
	batch := make([][]byte, 0, 1000)
	flush := func() error {
		for _, o := range nd.svc.AppendMany(ctx, batch) {
			if o.Err != nil {
				return o.Err
			}
		}
		batch = batch[:0]
		return nil
	}
	for i := range n {
		batch = append(batch, scopesPolicy(name(i), i))
		if len(batch) >= 900 {
			if err := flush(); err != nil {
				return out, err
			}
		}
	}
	key := func(i int) events.SessionKey { return events.SessionKey(fmt.Sprintf("agent:main:s%07d", i)) }
	for i := range sessions {
		start, _ := json.Marshal(map[string]any{"type": events.SessionStarted, "v": 1, "actor": "bench", "session": key(i),
			"data": map[string]any{"agent": "main", "scope": name(i), "runtime": "bench", "user": fmt.Sprintf("u%d", i%50)}})
		turn, _ := json.Marshal(map[string]any{"type": events.TurnStarted, "v": 1, "actor": "bench", "session": key(i),
			"data": map[string]any{"turn": 1}})
		batch = append(batch, start, turn)
		if len(batch) >= 900 {
			if err := flush(); err != nil {
				return out, err
			}
		}
	}
	if err := flush(); err != nil {
		return out, err
	}
	if err := nd.svc.Flush(); err != nil {
		return out, err
	}
	cfg.logf("bench: scopes: %d sessions in %d scope(s), %d records", sessions, n, nd.svc.Position())
	keys := make([]events.SessionKey, scopesSample)
	for i := range keys {
		keys[i] = key(i * sessions / len(keys))
	}
	head := projection.Position{}
	queries := []func(events.SessionKey) error{
		func(k events.SessionKey) error { _, _, err := nd.svc.Tools(ctx, k, head); return err },
		func(k events.SessionKey) error { _, err := nd.svc.Check(ctx, k, "exec", nil, head); return err },
		func(k events.SessionKey) error { _, err := nd.svc.Why(ctx, k, "exec", nil, head); return err },
	}
	for q, ask := range queries {
		runtime.GC()
		// A query takes well under a microsecond once its session is in
		// memory: each pass is timed as a whole (a clock read per query
		// would add the same constant to both ledgers and hide their
		// ratio), and the figure is the median pass's time per query.
		ds := make([]time.Duration, 0, scopesPasses)
		for range scopesPasses {
			t := time.Now()
			for _, k := range keys {
				if err := ask(k); err != nil {
					return out, err
				}
			}
			ds = append(ds, time.Since(t)/time.Duration(len(keys)))
		}
		out[q] = quantile(ds, 0.5)
	}
	return out, nil
}
