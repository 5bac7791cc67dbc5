package api_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
)

// recordBench is a ledger with an orchestrator's session at turn 1, for
// the recorded check's benchmarks: the ledger on an embedded server that
// syncs every second (the disk out of the comparison), the client over
// TCP loopback.
func recordBench(b *testing.B) (*client.Client, events.SessionKey) {
	b.Helper()
	l := apitest.Start(b, apitest.Options{Listen: true, SyncInterval: time.Second, API: api.Config{MaxWait: 2 * time.Second}})
	ctx := b.Context()
	nc, err := nats.Connect(l.NS.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	ops := client.New(nc, client.Options{})
	acme := client.New(nc, client.Options{Owner: "acme"})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"profile":"coding"}}`), Catalogue: []string{"read", "write", "exec"}})); err != nil {
		b.Fatal(err)
	}
	key := events.SessionKey("agent:main:main")
	for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	return acme, key
}

// BenchmarkRecordedCheckVsAppend compares, interleaved in one run, a
// recorded check that starts the call's effect (client.CheckAndStart: the
// check endpoint with record and effect, one tool.checked) with the plain
// append of the same record (client.Append of a tool.checked with effect
// and call), and reports the p50 of each and their ratio. The recorded
// check is an append decided in the same rounds; it should cost what the
// append costs (issue 28).
//
//	go test ./internal/api -run XXX -bench RecordedCheckVsAppend -benchtime 3000x
//
// The sub-benchmarks time each alone, with their allocations (the whole
// process's: client, API, service and NATS server).
func BenchmarkRecordedCheckVsAppend(b *testing.B) {
	acme, key := recordBench(b)
	ctx := b.Context()
	check := func(i int) error {
		r, err := acme.CheckAndStart(ctx, key, "exec", fmt.Sprintf("c-%d", i))
		if err == nil && r.Recorded == 0 {
			err = fmt.Errorf("not recorded: %+v", r)
		}
		return err
	}
	appendIt := func(i int) error {
		_, err := acme.Append(ctx, client.Checked(key, events.CheckedData{Turn: 1, Tool: "exec", Call: fmt.Sprintf("a-%d", i), Effect: true}))
		return err
	}
	var checks, appends []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		first, second, into1, into2 := check, appendIt, &checks, &appends
		if i%2 == 1 {
			first, second, into1, into2 = appendIt, check, &appends, &checks
		}
		t0 := time.Now()
		if err := first(i); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := second(i); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		*into1, *into2 = append(*into1, t1.Sub(t0)), append(*into2, t2.Sub(t1))
	}
	b.StopTimer()
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	b.ReportMetric(p50(checks), "check-p50-µs")
	b.ReportMetric(p50(appends), "append-p50-µs")
	b.ReportMetric(p50(checks)/p50(appends), "check/append-p50")
}

func BenchmarkRecordedCheck(b *testing.B) {
	acme, key := recordBench(b)
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := acme.CheckAndStart(ctx, key, "exec", fmt.Sprintf("c-%d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendChecked(b *testing.B) {
	acme, key := recordBench(b)
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := acme.Append(ctx, client.Checked(key, events.CheckedData{Turn: 1, Tool: "exec", Call: fmt.Sprintf("a-%d", i), Effect: true})); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordedCheckLocal is a recorded check that starts the call's
// effect with an input, on a claude-code policy, through a client on the
// in-process path (client.NewOn over api.Server.RequestWithContext, as
// `serve --hooks` makes it): the client, the API, the service and the
// publish to the embedded server, without the NATS server's hops between
// client and API. Its allocations are the path's own (issue 28).
//
//	go test ./internal/api -run XXX -bench RecordedCheckLocal -benchtime 2000x -benchmem
func BenchmarkRecordedCheckLocal(b *testing.B) {
	l := apitest.Start(b, apitest.Options{SyncInterval: time.Second, API: api.Config{MaxWait: 2 * time.Second}})
	ctx := b.Context()
	ops := client.NewOn(l.API, client.Options{})
	acme := client.NewOn(l.API, client.Options{Owner: "acme"})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "claude-code",
		Document: json.RawMessage(`{"permissions":{"allow":["Bash(echo *)"]}}`), Catalogue: []string{"Bash", "Read"}})); err != nil {
		b.Fatal(err)
	}
	key := events.SessionKey("cc-bench-session")
	for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	input := client.WithInput(json.RawMessage(`{"command":"echo hi","description":"Say hi"}`))
	calls := make([]string, b.N)
	for i := range calls {
		calls[i] = fmt.Sprintf("toolu_%08d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := acme.CheckAndStart(ctx, key, "Bash", calls[i], input)
		if err != nil {
			b.Fatal(err)
		}
		if r.Recorded == 0 || r.Decision != "allow" {
			b.Fatalf("not recorded, or not allowed: %+v", r)
		}
	}
}
