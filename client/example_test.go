package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/client/clienttest"
	"github.com/sessionledger/ledger/events"
)

// An orchestrator appends what its sessions do and asks what they may use.
// (The example runs a ledger in process with package clienttest, as a test
// would; a deployment connects to its NATS cluster with nats.Connect and
// makes its clients with client.New.)
func Example() {
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

	chk, _ := acme.Check(ctx, "agent:main:main", "bash")
	fmt.Println(chk.Tool, chk.Decision, chk.Reason.Code, chk.Reason.Rule)

	rec, _ := acme.CheckAndRecord(ctx, "agent:main:main", "read", "call-1")
	fmt.Println(rec.Tool, rec.Decision, rec.Recorded > 0)

	for ch, err := range acme.Changes(ctx, client.WatchOptions{Session: "agent:main:main"}) {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(ch.Session, ch.Turn, ch.Tools.Allowed)
		break
	}

	_, err = acme.Append(ctx, client.Turn("agent:main:main", events.TurnData{Turn: 5}))
	fmt.Println(events.CodeOf(err), errors.Is(err, &events.Error{Code: events.CodeBadTurn}), errors.Is(err, events.ErrConflict()))
	// Output:
	// exec deny global:deny tools.deny: "exec"
	// read allow true
	// agent:main:main 1 [read]
	// bad_turn true false
}
