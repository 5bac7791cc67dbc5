package api_test

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/wire"
)

// twoSessions starts a ledger (MaxWait 10s) with an openclaw policy, and
// two sessions of owner acme, mine (at turn 1) and other (no turn yet).
func twoSessions(t *testing.T) (l *apitest.Ledger, acme *client.Client, mine, other events.SessionKey) {
	t.Helper()
	l = apitest.Start(t, apitest.Options{API: api.Config{MaxWait: 10 * time.Second}})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
	acme = client.New(l.Connect(), client.Options{Owner: "acme"})
	mine, other = "agent:main:mine", "agent:main:other"
	for _, ev := range []client.Event{client.Start(mine, events.StartedData{Agent: "main"}), client.Start(other, events.StartedData{Agent: "main"}),
		client.Turn(mine, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	return l, acme, mine, other
}

// TestWatchSessionSkipsOtherRecords: a watch of one session that waits is
// answered when that session's next turn starts, with that change alone
// and Next past it, however many other sessions' records are appended
// while it waits; and a watch of it from before other sessions' turns
// finds only its own changes.
func TestWatchSessionSkipsOtherRecords(t *testing.T) {
	l, acme, mine, other := twoSessions(t)
	ctx := t.Context()
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

// TestWatchesOfOneOwnerAllWait: 64 watches of one owner, one per session
// (as the MCP gateway keeps), all wait at once; each is answered with its
// own session's change when that session's turn lands, one session after
// another, and none is answered before (an empty answer comes only at
// MaxWait, which is longer than the test). Before: an owner had one
// waiting long poll per MaxWaiting (16, shared with queries) and the
// others were answered at once with nothing and a moved next, so they
// asked again at once, about once per record appended. The test counts
// answers, never time; the receive timeouts only keep a broken ledger
// from hanging it.
func TestWatchesOfOneOwnerAllWait(t *testing.T) {
	const n = 64
	l := apitest.Start(t, apitest.Options{API: api.Config{MaxWait: 5 * time.Minute}})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
	acme := client.New(l.Connect(), client.Options{Owner: "acme"})
	key := func(i int) events.SessionKey { return events.SessionKey(fmt.Sprintf("agent:main:w%02d", i)) }
	for i := range n {
		for _, ev := range []client.Event{client.Start(key(i), events.StartedData{Agent: "main"}), client.Turn(key(i), events.TurnData{Turn: 1})} {
			if _, err := acme.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	head := l.Service.Position()
	nc := l.Connect()
	inbox := nats.NewInbox()
	answers := make(chan *nats.Msg, 4*n)
	sub, err := nc.ChanSubscribe(inbox+".*", answers)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for i := range n {
		body, _ := json.Marshal(wire.WatchQuery{Session: key(i), From: head + 1, Wait: true})
		if err := nc.PublishRequest(wire.Subject(wire.EndpointWatch, "acme"), fmt.Sprintf("%s.%d", inbox, i), body); err != nil {
			t.Fatal(err)
		}
	}
	ledgertest.WaitFor(t, 20*time.Second, fmt.Sprintf("%d watches of acme wait", n), func() bool { return api.Polling(l.API, "acme") == n })
	for i := range n {
		res, err := acme.Append(ctx, client.Turn(key(i), events.TurnData{Turn: 2}))
		if err != nil {
			t.Fatal(err)
		}
		var m *nats.Msg
		select {
		case m = <-answers:
		case <-time.After(20 * time.Second):
			t.Fatalf("no watch answered after session %s's turn", key(i))
		}
		var got wire.WatchResult
		if err := json.Unmarshal(m.Data, &got); err != nil {
			t.Fatalf("answer %q: %v", m.Data, err)
		}
		if want := fmt.Sprintf("%s.%d", inbox, i); m.Subject != want || len(got.Changes) != 1 || got.Changes[0].Session != key(i) ||
			got.Changes[0].Seq != res.Seq || got.Changes[0].Turn != 2 || got.Next != res.Seq+1 {
			t.Fatalf("after session %s's turn at %d, the answer to %s was %+v; want that session's change alone, to %s", key(i), res.Seq, m.Subject, got, want)
		}
	}
	// A poll is answered, then taken off the owner's list (servePolls):
	// the list empties right after the last answer.
	ledgertest.WaitFor(t, 10*time.Second, "no watch of acme left waiting after every session's turn", func() bool { return api.Polling(l.API, "acme") == 0 })
	select {
	case m := <-answers:
		t.Fatalf("one more answer, to %s: %s", m.Subject, m.Data)
	default:
	}
}

// TestPollingBoundPerOwner: an owner has at most MaxPolls long polls
// waiting; one more that finds nothing is answered at once with nothing
// and next = its from (the client pauses before asking again, and nothing
// is skipped), while another owner's watch still waits, and the waiting
// ones are answered with their change.
func TestPollingBoundPerOwner(t *testing.T) {
	l := apitest.Start(t, apitest.Options{API: api.Config{MaxWait: 5 * time.Minute, MaxPolls: 2}})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
	acme := client.New(l.Connect(), client.Options{Owner: "acme"})
	globex := client.New(l.Connect(), client.Options{Owner: "globex"})
	a, g := events.SessionKey("agent:main:acme"), events.SessionKey("agent:main:globex")
	for _, w := range []struct {
		c   *client.Client
		key events.SessionKey
	}{{acme, a}, {globex, g}} {
		if _, err := w.c.Append(ctx, client.Start(w.key, events.StartedData{Agent: "main"})); err != nil {
			t.Fatal(err)
		}
	}
	head := l.Service.Position()
	nc := l.Connect()
	inbox := nats.NewInbox()
	answers := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe(inbox+".*", answers)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	watch := func(owner string, key events.SessionKey, reply string) {
		body, _ := json.Marshal(wire.WatchQuery{Session: key, From: head + 1, Wait: true})
		if err := nc.PublishRequest(wire.Subject(wire.EndpointWatch, owner), inbox+"."+reply, body); err != nil {
			t.Fatal(err)
		}
	}
	watch("acme", a, "a1")
	watch("acme", a, "a2")
	ledgertest.WaitFor(t, 20*time.Second, "acme's two watches wait", func() bool { return api.Polling(l.API, "acme") == 2 })
	watch("acme", a, "a3")
	var m *nats.Msg
	select {
	case m = <-answers:
	case <-time.After(20 * time.Second):
		t.Fatal("acme's third watch, over the bound, was not answered")
	}
	var got wire.WatchResult
	if err := json.Unmarshal(m.Data, &got); err != nil || m.Subject != inbox+".a3" || len(got.Changes) != 0 || got.Next != head+1 {
		t.Fatalf("over the bound: %s %s %v; want a3 answered with nothing and next %d", m.Subject, m.Data, err, head+1)
	}
	watch("globex", g, "g1")
	ledgertest.WaitFor(t, 20*time.Second, "globex's watch waits", func() bool { return api.Polling(l.API, "globex") == 1 })
	res, err := acme.Append(ctx, client.Turn(a, events.TurnData{Turn: 1}))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case m = <-answers:
		case <-time.After(20 * time.Second):
			t.Fatal("acme's waiting watches were not answered")
		}
		if err := json.Unmarshal(m.Data, &got); err != nil || (m.Subject != inbox+".a1" && m.Subject != inbox+".a2") || len(got.Changes) != 1 || got.Changes[0].Seq != res.Seq {
			t.Fatalf("after acme's turn: %s %s %v; want a1 and a2 with the change at %d", m.Subject, m.Data, err, res.Seq)
		}
	}
	if w := api.Polling(l.API, "globex"); w != 1 {
		t.Fatalf("globex's watch no longer waits (%d) after acme's turn", w)
	}
}

// TestWatchReadsTurnOnce: a watch of one session that waits while other
// sessions' records land (each applied round wakes it) reads its
// session's turn from the store once for the turn it started in, not at
// every wake; when its session's next turn starts it reads that one, and
// is answered with it.
func TestWatchReadsTurnOnce(t *testing.T) {
	var reads atomic.Int64
	defer api.CountTurnReads(&reads)()
	l, acme, mine, other := twoSessions(t)
	ctx := t.Context()
	if _, err := acme.Append(ctx, client.Turn(other, events.TurnData{Turn: 1})); err != nil {
		t.Fatal(err)
	}
	head := l.Service.Position()
	reads.Store(0)
	got := make(chan *nats.Msg, 1)
	nc := l.Connect()
	sub, err := nc.ChanSubscribe(nats.NewInbox(), got)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	body, _ := json.Marshal(wire.WatchQuery{Session: mine, From: head + 1, Wait: true})
	if err := nc.PublishRequest(wire.Subject(wire.EndpointWatch, "acme"), sub.Subject, body); err != nil {
		t.Fatal(err)
	}
	ledgertest.WaitFor(t, 10*time.Second, "the watch waits", func() bool { return api.Polling(l.API, "acme") == 1 })
	const wakes = 20
	for i := range wakes {
		// One append at a time: each is its own round, applied before the
		// next, so each wakes the waiting watch.
		res, err := acme.Append(ctx, client.Checked(other, events.CheckedData{Turn: 1, Tool: "read", Call: fmt.Sprintf("c%d", i)}))
		if err != nil {
			t.Fatal(err)
		}
		ledgertest.WaitFor(t, 10*time.Second, "the watch scanned the append", func() bool { return api.PollNext(l.API, "acme") == res.Seq+1 })
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the waiting watch read its session's turn %d times over %d wakes, want once", n, wakes)
	}
	res, err := acme.Append(ctx, client.Turn(mine, events.TurnData{Turn: 2}))
	if err != nil {
		t.Fatal(err)
	}
	var a wire.WatchResult
	select {
	case m := <-got:
		if err := json.Unmarshal(m.Data, &a); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch was not answered at its session's turn")
	}
	if len(a.Changes) != 1 || a.Changes[0].Seq != res.Seq || a.Changes[0].Turn != 2 {
		t.Fatalf("the watch answered %+v, want the change at %d", a, res.Seq)
	}
	if n := reads.Load(); n != 2 {
		t.Fatalf("the watch read its session's turn %d times, want twice (turn 1, then turn 2)", n)
	}
}
