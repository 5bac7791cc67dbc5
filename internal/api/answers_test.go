package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/wire"
)

// unreadableLog is a JetStream log whose Read fails for one sequence once
// armed.
type unreadableLog struct {
	*natslog.Log
	mu  sync.Mutex
	seq uint64
}

func (l *unreadableLog) arm(seq uint64) {
	l.mu.Lock()
	l.seq = seq
	l.mu.Unlock()
}

func (l *unreadableLog) Read(ctx context.Context, from, to uint64) ([][]byte, error) {
	l.mu.Lock()
	seq := l.seq
	l.mu.Unlock()
	if seq != 0 && from <= seq && seq <= to {
		return nil, fmt.Errorf("unreadableLog: record %d cannot be read", seq)
	}
	return l.Log.Read(ctx, from, to)
}

// TestBatchAnswersHaveOneOwner (run it with -race): a batch append spans
// two pipelined rounds, and the look at the id of its first event (ownID,
// on a goroutine of its own) fails, because ReadRecords fails for the
// record that carries the id, while the finisher answers the batch's
// other events. The batch is answered once, with that failure in the
// first event's place and the others accepted; only the finisher writes a
// batch's outcomes, so the race detector finds no race on them.
func TestBatchAnswersHaveOneOwner(t *testing.T) {
	dir := t.TempDir()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), SyncInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := natslog.ConnectEmbedded(ns, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	inner, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	log := &unreadableLog{Log: inner}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Pipeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if !svc.Pipelined() {
		t.Fatal("the service is not pipelined")
	}
	srv, err := api.Start(t.Context(), nc, api.Config{Service: svc, Batch: 2, MaxWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if _, err := svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	// Another orchestrator's record carries the id the batch's first
	// event comes with: the batcher hands that event to ownID.
	globex := client.New(nc, client.Options{Owner: "globex", Timeout: 10 * time.Second})
	ev := client.Start("agent:main:g", events.StartedData{Agent: "main"})
	ev.ID = "01JZZZZZZZZZZZZZZZZZZZZZZZ"
	res, err := globex.Append(t.Context(), ev)
	if err != nil {
		t.Fatal(err)
	}
	log.arm(res.Seq)

	body := `[
		{"id":"01JZZZZZZZZZZZZZZZZZZZZZZZ","type":"session.started","v":1,"session":"agent:main:a1","data":{"agent":"main"}},
		{"type":"session.started","v":1,"session":"agent:main:a2","data":{"agent":"main"}},
		{"type":"turn.started","v":1,"session":"agent:main:a2","data":{"turn":1}},
		{"type":"session.started","v":1,"session":"agent:main:a3","data":{"agent":"main"}}
	]`
	msg, err := nc.Request("ledger.v1.append.acme", []byte(body), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var outs []wire.AppendOutcome
	if err := json.Unmarshal(msg.Data, &outs); err != nil {
		t.Fatalf("%v: %s", err, msg.Data)
	}
	if len(outs) != 4 {
		t.Fatalf("%d outcomes for 4 events: %s", len(outs), msg.Data)
	}
	if outs[0].Error == nil || outs[0].Error.Code != wire.CodeInternal || outs[0].Seq != 0 {
		t.Errorf("event 0, whose id's record cannot be read: %+v, want an internal error", outs[0])
	}
	for i, o := range outs[1:] {
		if o.Error != nil || o.Seq == 0 {
			t.Errorf("event %d: %+v, want it accepted", i+1, o)
		}
	}
}
