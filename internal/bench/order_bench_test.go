package bench

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/cchook"
)

// BenchmarkHTTPRunsOrder measures what httpRuns measures, each of its
// four measurements (the raw HTTP round trip, the raw durable publish,
// serve --hooks's PreToolUse, the raw server that publishes before it
// answers) told apart by the one made just before it, over the 24 orders
// httpRuns goes through, and reports each p50 in µs:
// whether a measurement depends on what came before it, which a fixed
// order would carry into the ratio.
//
//	go test ./internal/bench -run XXX -bench HTTPRunsOrder -benchtime 3000x
func BenchmarkHTTPRunsOrder(b *testing.B) {
	ctx := b.Context()
	d := b.TempDir()
	n, err := startNodeListening(ctx, d)
	if err != nil {
		b.Fatal(err)
	}
	defer n.close()
	env, err := hookEnv(d)
	if err != nil {
		b.Fatal(err)
	}
	hook, err := startHookSession(ctx, n.srv, env)
	if err != nil {
		b.Fatal(err)
	}
	record, err := recordBytes(ctx, n)
	if err != nil {
		b.Fatal(err)
	}
	rawURL, stopRaw, err := serveHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	if err != nil {
		b.Fatal(err)
	}
	defer stopRaw()
	hooksURL, stop, err := serveHTTP(&cchook.Handler{Hook: hook, Token: benchHooksToken, Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	inlineURL, stopInline, err := serveInline(ctx, n, record)
	if err != nil {
		b.Fatal(err)
	}
	defer stopInline()
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	ops := httpOps(ctx, hc, hooksURL, rawURL, inlineURL, n, record, func(call string) []byte { return hookPayload(env, call) })
	var by [4][4][]time.Duration // by[op][the op before it]
	prev := opHook
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, k := range httpOrders[i%len(httpOrders)] {
			d, err := ops[k](i)
			if err != nil {
				b.Fatal(err)
			}
			by[k][prev] = append(by[k][prev], d)
			prev = k
		}
	}
	b.StopTimer()
	names := [4]string{opRaw: "raw", opPublish: "publish", opHook: "hook", opInline: "inline"}
	for k := range by {
		for p := range by[k] {
			if len(by[k][p]) > 0 {
				b.ReportMetric(quantile(by[k][p], 0.5), names[k]+"-after-"+names[p]+"-µs")
			}
		}
	}
}
