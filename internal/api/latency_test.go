package api_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// BenchmarkLatencyOverNATS measures, in one run and interleaved, a raw NATS
// request/reply round trip (a responder that answers at once) and the
// ledger's check and why over the same server and connections, and reports
// p50 and p99 of each (target: check p50 within 1.3x of raw).
//
//	go test ./internal/api -run XXX -bench LatencyOverNATS -benchtime 20000x
func BenchmarkLatencyOverNATS(b *testing.B) {
	l := apitest.Start(b, apitest.Options{Listen: true, SyncInterval: time.Second, API: api.Config{MaxWait: 2 * time.Second}})
	ctx := b.Context()
	// The raw responder lives on the same kind of connection as the API.
	rnc := l.Connect()
	if _, err := rnc.Subscribe("bench.raw", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		b.Fatal(err)
	}
	rnc.Flush()

	nc, err := nats.Connect(l.NS.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	ops := client.New(nc, client.Options{})
	acme := client.New(nc, client.Options{Owner: "acme"})
	cat := []string{"read", "write", "edit", "exec", "process", "web_fetch", "browser", "gateway"}
	_, _ = ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"profile":"coding","deny":["gateway"]}}`), Catalogue: cat}))
	for _, ev := range []client.Event{
		client.Start("agent:main:main", events.StartedData{Agent: "main"}),
		client.Turn("agent:main:main", events.TurnData{Turn: 1}),
		client.Spawn("agent:main:subagent:a", events.SpawnedData{Parent: "agent:main:main", Agent: "main"}),
		client.Turn("agent:main:subagent:a", events.TurnData{Turn: 1}),
	} {
		if _, err := acme.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	checkBody, _ := json.Marshal(map[string]any{"session": "agent:main:subagent:a", "tool": "exec"})
	whyBody, _ := json.Marshal(map[string]any{"session": "agent:main:subagent:a", "tool": "gateway"})
	var raw, check, why []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := nc.Request("bench.raw", checkBody, time.Second); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if m, err := nc.Request(wire.Subject(wire.EndpointCheck, "acme"), checkBody, time.Second); err != nil || m.Header.Get(wire.ErrorCodeHeader) != "" {
			b.Fatalf("check: %v %v", err, m.Header)
		}
		t2 := time.Now()
		if _, err := nc.Request(wire.Subject(wire.EndpointWhy, "acme"), whyBody, time.Second); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		raw, check, why = append(raw, t1.Sub(t0)), append(check, t2.Sub(t1)), append(why, t3.Sub(t2))
	}
	b.StopTimer()
	q := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[int(p*float64(len(d)-1))].Microseconds())
	}
	b.ReportMetric(q(raw, 0.5), "raw-p50-µs")
	b.ReportMetric(q(raw, 0.99), "raw-p99-µs")
	b.ReportMetric(q(check, 0.5), "check-p50-µs")
	b.ReportMetric(q(check, 0.99), "check-p99-µs")
	b.ReportMetric(q(why, 0.5), "why-p50-µs")
	b.ReportMetric(q(why, 0.99), "why-p99-µs")
	b.ReportMetric(q(check, 0.5)/q(raw, 0.5), "check/raw-p50")
}
