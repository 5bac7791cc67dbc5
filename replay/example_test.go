package replay_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/client/clienttest"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// streamLog is a replay.Source over a ledger's JetStream stream (LEDGER),
// read message by message: record n is the stream's message n. (A ledger
// whose log rolled into more segments, LEDGER-2 and on, continues there;
// this one has a single segment.)
type streamLog struct{ s jetstream.Stream }

func (l streamLog) Head(ctx context.Context) (uint64, error) {
	info, err := l.s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.LastSeq, nil
}

func (l streamLog) Read(ctx context.Context, from, to uint64) ([][]byte, error) {
	var out [][]byte
	for seq := max(from, 1); seq <= to; seq++ {
		m, err := l.s.GetMsg(ctx, seq)
		if err != nil {
			return nil, err
		}
		out = append(out, m.Data)
	}
	return out, nil
}

// Verify replays a log, decides every recorded event again and reports any
// decision that newer code would make differently. (The example fills a
// ledger in process with package clienttest and reads its stream with
// nats.go; a deployment reads its own cluster's stream the same way.)
func ExampleVerify() {
	ctx := context.Background()
	ledger, err := clienttest.Start(ctx, clienttest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ledger.Close()
	ops, _ := ledger.Client(client.Options{Actor: "ops-alice"})
	acme, _ := ledger.Client(client.Options{Owner: "acme"})
	_, _ = ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec"}}))
	_, _ = acme.Append(ctx, client.Start("agent:main:main", events.StartedData{Agent: "main"}))
	_, _ = acme.Append(ctx, client.Turn("agent:main:main", events.TurnData{Turn: 1}))
	_, _ = acme.CheckAndRecord(ctx, "agent:main:main", "read", "call-1")
	_, _ = acme.CheckAndRecord(ctx, "agent:main:main", "exec", "call-2")

	nc, err := ledger.Connect()
	if err != nil {
		fmt.Println(err)
		return
	}
	js, _ := jetstream.New(nc)
	stream, err := js.Stream(ctx, "LEDGER")
	if err != nil {
		fmt.Println(err)
		return
	}
	dialects := projection.Dialects{"openclaw": openclaw.New(), "claude-code": claudecode.New()}
	_, rep, err := replay.Verify(ctx, streamLog{stream}, dialects, nil)
	fmt.Println(rep.Records, rep.DriftCount, err)
	// Output:
	// 5 0 <nil>
}
