package api_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/wire"
)

// TestWatchSessionSkipsOtherRecords: a watch of one session that waits is
// answered when that session's next turn starts, with that change alone
// and Next past it, however many other sessions' records are appended
// while it waits; and a watch of it from before other sessions' turns
// finds only its own changes.
func TestWatchSessionSkipsOtherRecords(t *testing.T) {
	l := apitest.Start(t, apitest.Options{API: api.Config{MaxWait: 10 * time.Second}})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
	acme := client.New(l.Connect(), client.Options{Owner: "acme"})
	mine, other := events.SessionKey("agent:main:mine"), events.SessionKey("agent:main:other")
	for _, ev := range []client.Event{client.Start(mine, events.StartedData{Agent: "main"}), client.Start(other, events.StartedData{Agent: "main"}),
		client.Turn(mine, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	head := l.Service.Position()
	nc := l.Connect()
	type answer struct {
		res wire.WatchResult
		err error
	}
	got := make(chan answer, 1)
	idle := api.Running(l.API)
	go func() {
		body, _ := json.Marshal(wire.WatchQuery{Session: mine, From: head + 1, Wait: true})
		m, err := nc.Request(wire.Subject(wire.EndpointWatch, "acme"), body, 20*time.Second)
		var a answer
		if a.err = err; err == nil {
			a.err = json.Unmarshal(m.Data, &a.res)
		}
		got <- a
	}()
	// The watch waits (as one more goroutine of the server's) before the
	// other session's turns; an earlier answer is caught below.
	ledgertest.WaitFor(t, 10*time.Second, "the watch waits", func() bool { return api.Running(l.API) > idle })
	for turn := 1; turn <= 5; turn++ {
		if _, err := acme.Append(ctx, client.Turn(other, events.TurnData{Turn: turn})); err != nil {
			t.Fatal(err)
		}
	}
	// The other's turns are appended and answered: had they answered the
	// watch, it would have been by now (and an answer still on its way is
	// not the change below, which the check after it catches).
	select {
	case a := <-got:
		t.Fatalf("the watch was answered before its session's turn: %+v %v", a.res, a.err)
	default:
	}
	res, err := acme.Append(ctx, client.Turn(mine, events.TurnData{Turn: 2}))
	if err != nil {
		t.Fatal(err)
	}
	a := <-got
	if a.err != nil || len(a.res.Changes) != 1 || a.res.Changes[0].Seq != res.Seq || a.res.Changes[0].Turn != 2 || a.res.Next != res.Seq+1 {
		t.Fatalf("the waiting watch answered %+v %v, want the change at %d alone and next %d", a.res, a.err, res.Seq, res.Seq+1)
	}
	// From the start: its own two turns, none of the other's five.
	var seen []string
	body, _ := json.Marshal(wire.WatchQuery{Session: mine, From: 1})
	m, err := nc.Request(wire.Subject(wire.EndpointWatch, "acme"), body, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var all wire.WatchResult
	if err := json.Unmarshal(m.Data, &all); err != nil {
		t.Fatal(err)
	}
	for _, c := range all.Changes {
		seen = append(seen, fmt.Sprintf("%s/%d", c.Session, c.Turn))
	}
	if fmt.Sprint(seen) != "[agent:main:mine/1 agent:main:mine/2]" || all.Next != l.Service.Position()+1 {
		t.Fatalf("watch from 1: %v next %d (head %d)", seen, all.Next, l.Service.Position())
	}
}
