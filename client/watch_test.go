package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/natslog"
)

// TestWatchAcrossSegments watches a log that rolls every 10 subjects: the
// feed goes on from one segment to the next, live and resumed, with the
// log's one sequence.
func TestWatchAcrossSegments(t *testing.T) {
	connect := ledgerWith(t, natslog.StreamConfig{RollSubjects: 10})
	ctx := t.Context()
	ops := client.New(connect(), client.Options{})
	setPolicy(t, ops)
	acme := client.New(connect(), client.Options{Owner: "acme"})

	const roots = 30 // one subject each: three rolls
	type got struct {
		changes []client.Change
		err     error
	}
	watch := func(opts client.WatchOptions, want int) <-chan got {
		out := make(chan got, 1)
		go func() {
			var g got
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			g.err = acme.Watch(wctx, opts, func(c client.Change) error {
				g.changes = append(g.changes, c)
				if len(g.changes) == want {
					cancel()
				}
				return nil
			})
			out <- g
		}()
		return out
	}
	live := watch(client.WatchOptions{All: true}, 2*roots)
	root := func(i int) events.SessionKey { return events.SessionKey(fmt.Sprintf("agent:main:r%d", i)) }
	for i := range roots {
		for _, ev := range []client.Event{
			client.Start(root(i), events.StartedData{Agent: "main"}),
			client.Turn(root(i), events.TurnData{Turn: 1}),
			client.Turn(root(i), events.TurnData{Turn: 2}),
		} {
			if _, err := acme.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	js, err := jetstream.New(connect())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Stream(ctx, "LEDGER-3"); err != nil {
		t.Fatalf("the log did not roll twice: %v", err)
	}
	g := <-live
	if len(g.changes) != 2*roots {
		t.Fatalf("live watch: %d changes, want %d (%v)", len(g.changes), 2*roots, g.err)
	}
	for i, c := range g.changes {
		// Record 1 is the policy; each root then has 3 records.
		if want := uint64(3 + 3*(i/2) + i%2); c.Seq != want || c.Session != root(i/2) || c.Turn != 1+i%2 {
			t.Fatalf("change %d: %+v, want seq %d", i, c, want)
		}
	}
	// Resumed in the middle of a later segment, on one session.
	g = <-watch(client.WatchOptions{Session: root(25), From: g.changes[49].Seq}, 2)
	if len(g.changes) != 2 || g.changes[0].Seq != g.changes[1].Seq-1 || g.changes[1].Turn != 2 {
		t.Fatalf("resumed watch: %+v %v", g.changes, g.err)
	}
}

// TestWatchWithOrchestratorPermissions: an orchestrator, as 'ledger serve
// --gen-auth' configures one, may read the stream it is given; a log that
// never rolled must not make Watch look for streams it may not see.
func TestWatchWithOrchestratorPermissions(t *testing.T) {
	l := apitest.Start(t, apitest.Options{Roles: &api.Roles{Service: []api.User{{Name: "ledger", Password: "svc-pw"}},
		Orchestrators: []api.User{{Name: "acme", Password: "acme-pw"}}, Operators: []api.User{{Name: "alice", Password: "alice-pw"}}},
		API: api.Config{MaxWait: time.Second}})
	ctx := t.Context()
	setPolicy(t, client.New(l.Dial("alice", "alice-pw"), client.Options{Actor: "alice"}))
	acme := client.New(l.Dial("acme", "acme-pw"), client.Options{Owner: "acme"})
	root := events.SessionKey("agent:main:main")
	for _, ev := range []client.Event{client.Start(root, events.StartedData{Agent: "main"}), client.Turn(root, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	wctx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	var got []client.Change
	err := acme.Watch(wctx, client.WatchOptions{Session: root}, func(c client.Change) error {
		got = append(got, c)
		stop()
		return nil
	})
	if len(got) != 1 || got[0].Seq != 3 {
		t.Fatalf("watch as an orchestrator: %+v %v", got, err)
	}
}

// TestChanges ranges over Changes: the changes Watch delivers, in order;
// a break stops the watch (no request after it); what ends the watch
// otherwise is yielded once, last.
func TestChanges(t *testing.T) {
	connect := ledger(t)
	ctx := t.Context()
	setPolicy(t, client.New(connect(), client.Options{}))
	acme := client.New(connect(), client.Options{Owner: "acme"})
	root, child := events.SessionKey("agent:main:main"), events.SessionKey("agent:coder:subagent:c1")
	for _, ev := range []client.Event{
		client.Start(root, events.StartedData{Agent: "main"}),
		client.Turn(root, events.TurnData{Turn: 1}),
		client.Spawn(child, events.SpawnedData{Parent: root, Agent: "coder"}),
		client.Turn(child, events.TurnData{Turn: 1}),
		client.Turn(root, events.TurnData{Turn: 2}),
	} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	spy := connect()
	// A channel subscription: the spy's read loop puts each request in it
	// before it reads the answer to a later Flush, so after a Flush its
	// length counts every request the server had passed on (a callback
	// may not have run yet by then).
	watches := make(chan *nats.Msg, 1024)
	sub, err := spy.ChanSubscribe("ledger.v1.watch.acme", watches)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}

	var got []string
	for ch, err := range acme.Changes(ctx, client.WatchOptions{Root: root, From: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %d", ch.Seq, ch.Session, ch.Turn))
		if len(got) == 3 {
			break
		}
	}
	if want := "[3 agent:main:main 1 5 agent:coder:subagent:c1 1 6 agent:main:main 2]"; fmt.Sprint(got) != want {
		t.Fatalf("changes: %v, want %s", got, want)
	}
	// After the break nothing asks for more, though more lands.
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	asked := len(watches)
	if asked == 0 {
		t.Fatal("the spy saw no watch request")
	}
	if _, err := acme.Append(ctx, client.Turn(root, events.TurnData{Turn: 3})); err != nil {
		t.Fatal(err)
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(watches); n != asked {
		t.Errorf("%d watch requests after the break, %d before", n, asked)
	}

	// Resumed from the last change seen, the loop sees the new turn.
	for ch, err := range acme.Changes(ctx, client.WatchOptions{Session: root, From: 7}) {
		if err != nil || ch.Turn != 3 {
			t.Fatalf("resumed: %+v %v", ch, err)
		}
		break
	}

	// What ends the watch is yielded once, last.
	ended := func(c *client.Client, ctx context.Context, opts client.WatchOptions) (pairs int, last error) {
		for ch, err := range c.Changes(ctx, opts) {
			pairs++
			if err != nil && ch.Seq != 0 {
				t.Errorf("an error with a change: %+v", ch)
			}
			last = err
		}
		return pairs, last
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := ended(acme, cancelled, client.WatchOptions{All: true}); n != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %d pairs, last %v; want one, context.Canceled", n, err)
	}
	other := client.New(connect(), client.Options{Owner: "globex"})
	if n, err := ended(other, ctx, client.WatchOptions{Session: root}); n != 1 || events.CodeOf(err) != events.CodeUnknownSession {
		t.Errorf("another orchestrator's session: %d pairs, last %v; want one, unknown_session", n, err)
	}
	if n, err := ended(acme, ctx, client.WatchOptions{}); n != 1 || err == nil || !strings.Contains(err.Error(), "exactly one of Session, Root and All") {
		t.Errorf("no session named: %d pairs, last %v", n, err)
	}
}
