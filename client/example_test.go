package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
)

// An orchestrator appends what its sessions do and asks what they may use.
// (The example starts an embedded ledger; a deployment connects to its
// NATS cluster with nats.Connect instead.)
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "ledger-example-")
	defer os.RemoveAll(dir)
	ns, _ := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats")})
	defer ns.Shutdown()
	srvConn, _ := natslog.ConnectEmbedded(ns, "ledger")
	log, _ := natslog.Open(ctx, srvConn, natslog.StreamConfig{})
	svc, _ := service.Open(ctx, service.Config{Log: log, Dialects: dialects.All()})
	srv, _ := api.Start(ctx, srvConn, api.Config{Service: svc, MaxWait: time.Second})
	defer srv.Stop()

	nc, _ := natslog.ConnectEmbedded(ns, "orchestrator")
	defer nc.Close()
	ops := client.New(nc, client.Options{Actor: "ops:alice"})
	acme := client.New(nc, client.Options{Owner: "acme"})

	_, _ = ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec"}}))
	_, _ = acme.Append(ctx, client.Start("agent:main:main", events.StartedData{Agent: "main"}))
	_, _ = acme.Append(ctx, client.Turn("agent:main:main", events.TurnData{Turn: 1}))

	chk, _ := acme.Check(ctx, "agent:main:main", "bash")
	fmt.Println(chk.Tool, chk.Decision, chk.Reason.Code, chk.Reason.Rule)

	_, err := acme.Append(ctx, client.Turn("agent:main:main", events.TurnData{Turn: 5}))
	fmt.Println(events.CodeOf(err), errors.Is(err, &events.Error{Code: events.CodeBadTurn}), errors.Is(err, events.ErrConflict()))
	// Output:
	// exec deny global:deny tools.deny: "exec"
	// bad_turn true false
}
