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
	var ledgers [2]*scopesLedger // one scope, many scopes
	for i, n := range []int{1, scopes} {
		l, err := buildScopesLedger(ctx, cfg, n, sessions)
		if err != nil {
			return err
		}
		defer l.nd.close()
		ledgers[i] = l
	}
	for q, name := range []string{"tools", "check", "why"} {
		// Passes alternate between the two ledgers, so that whatever else
		// the machine does lands on both alike.
		var ds [2][]time.Duration
		runtime.GC()
		for range scopesPasses {
			for i, l := range ledgers {
				d, err := l.pass(ctx, q)
				if err != nil {
					return err
				}
				ds[i] = append(ds[i], d)
			}
		}
		row := ratioRow("scopes", fmt.Sprintf("%s, %d sessions in %d scopes against one scope", name, sessions, scopes),
			quantile(ds[1], 0.5), quantile(ds[0], 0.5), "µs", "within 1.2x of one scope", func(r float64) bool { return r <= 1.2 })
		row.Note = fmt.Sprintf("the median of %d passes over %d sampled sessions (the first pass reads them), per query, through the service at the head; passes alternate between the ledgers", scopesPasses, scopesSample)
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

// scopesLedger is one ledger of the section, with the sessions it asks
// about.
type scopesLedger struct {
	nd   *node
	keys []events.SessionKey
}

// pass asks query q (tools, check, why) about every sampled session at the
// head, through the service, and returns the time per query.
func (l *scopesLedger) pass(ctx context.Context, q int) (time.Duration, error) {
	svc, head := l.nd.svc, projection.Position{}
	// A query takes well under a microsecond once its session is in
	// memory: a pass is timed as a whole (a clock read per query would
	// add the same constant to both ledgers and hide their ratio).
	t := time.Now()
	for _, k := range l.keys {
		var err error
		switch q {
		case 0:
			_, _, err = svc.Tools(ctx, k, head)
		case 1:
			_, err = svc.Check(ctx, k, "exec", nil, head)
		default:
			_, err = svc.Why(ctx, k, "exec", nil, head)
		}
		if err != nil {
			return 0, err
		}
	}
	return time.Since(t) / time.Duration(len(l.keys)), nil
}

// buildScopesLedger builds a ledger of the given sessions over n scopes
// (the default scope alone when n is 1).
func buildScopesLedger(ctx context.Context, cfg *Config, n, sessions int) (*scopesLedger, error) {
	nd, err := startNode(ctx, dir(cfg, fmt.Sprintf("scopes-%d", n)), 2*time.Minute)
	if err != nil {
		return nil, err
	}
	l, err := fillScopesLedger(ctx, cfg, nd, n, sessions)
	if err != nil {
		nd.close()
		return nil, err
	}
	return l, nil
}

func fillScopesLedger(ctx context.Context, cfg *Config, nd *node, n, sessions int) (*scopesLedger, error) {
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
				return nil, err
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
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := nd.svc.Flush(ctx); err != nil {
		return nil, err
	}
	cfg.logf("bench: scopes: %d sessions in %d scope(s), %d records", sessions, n, nd.svc.Position())
	l := &scopesLedger{nd: nd, keys: make([]events.SessionKey, scopesSample)}
	for i := range l.keys {
		l.keys[i] = key(i * sessions / len(l.keys))
	}
	return l, nil
}
