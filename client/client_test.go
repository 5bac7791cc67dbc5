package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// ledger starts an embedded server, the service with a projection, and the
// API, and returns a connection factory for clients.
func ledger(t *testing.T) func() *nats.Conn {
	t.Helper()
	return ledgerWith(t, natslog.StreamConfig{})
}

// ledgerWith is ledger on a log opened with cfg.
func ledgerWith(t *testing.T, cfg natslog.StreamConfig) func() *nats.Conn {
	t.Helper()
	l := apitest.Start(t, apitest.Options{Stream: cfg, Store: true, Follow: true, API: api.Config{Instance: "test"}})
	return l.Connect
}

const policyDoc = `{"agents":{"list":[{"id":"main","subagents":{"allowAgents":["coder"]}},{"id":"coder","tools":{"deny":["browser"]}}]}}`

func setPolicy(t *testing.T, ops *client.Client) {
	t.Helper()
	_, err := ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(policyDoc), Catalogue: []string{"read", "exec", "browser", "gateway"}}))
	if err != nil {
		t.Fatal(err)
	}
}

func TestClientRoundTrip(t *testing.T) {
	connect := ledger(t)
	ctx := t.Context()
	ops := client.New(connect(), client.Options{})
	acme := client.New(connect(), client.Options{Owner: "acme"})
	setPolicy(t, ops)

	root, child := events.SessionKey("agent:main:main"), events.SessionKey("agent:coder:subagent:c1")
	for _, ev := range []client.Event{
		client.Start(root, events.StartedData{Agent: "main"}),
		client.Turn(root, events.TurnData{Turn: 1}),
		client.Spawn(child, events.SpawnedData{Parent: root, Agent: "coder"}),
		client.Turn(child, events.TurnData{Turn: 1}),
	} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	// Errors carry the stable codes.
	_, err := acme.Append(ctx, client.Start(root, events.StartedData{Agent: "main"}))
	if events.CodeOf(err) != events.CodeDuplicateSession {
		t.Fatalf("duplicate start: %v", err)
	}
	// Read-your-writes: the client's token makes the replica wait.
	ts, err := acme.Tools(ctx, child)
	if err != nil || ts.Seq < acme.Token() {
		t.Fatalf("tools: %+v %v", ts, err)
	}
	tok := acme.Token()
	chk, err := acme.Check(ctx, child, "browser")
	if err != nil || chk.Decision != "deny" || chk.Reason.Code != "agent:deny" {
		t.Fatalf("check: %+v %v", chk, err)
	}
	if chk.Recorded != 0 || acme.Token() != tok {
		t.Fatalf("a plain check recorded %d, token %d", chk.Recorded, acme.Token())
	}
	rec, err := acme.CheckAndRecord(ctx, child, "exec", "call-1")
	if err != nil || rec.Recorded == 0 || rec.Decision != "allow" || acme.Token() != rec.Recorded {
		t.Fatalf("recorded check: %+v %v (token %d)", rec, err, acme.Token())
	}
	// Check appends nothing, whatever its options ask.
	record := func(q *wire.Query) error { q.Record, q.Call = true, "call-x"; return nil }
	if _, err := acme.Check(ctx, child, "exec", record); err == nil || !strings.Contains(err.Error(), "use CheckAndRecord") {
		t.Fatalf("a check an option asked to record: %v", err)
	}
	if _, err := acme.Append(ctx, client.EffectStarted(child, events.EffectData{Turn: 1, Tool: "exec", Call: "call-1"})); err != nil {
		t.Fatalf("effect prepared by the recorded check: %v", err)
	}
	// One record checks a call and starts it (tool.checked, effect: true),
	// a denied one too; a call id is needed, and Check refuses the option.
	started, err := acme.CheckAndStart(ctx, child, "exec", "call-2")
	if err != nil || started.Recorded == 0 || started.Decision != "allow" || acme.Token() != started.Recorded {
		t.Fatalf("check and start: %+v %v (token %d)", started, err, acme.Token())
	}
	denied, err := acme.CheckAndStart(ctx, child, "browser", "call-3")
	if err != nil || denied.Recorded != started.Recorded+1 || denied.Decision != "deny" || denied.Reason.Code != "agent:deny" {
		t.Fatalf("check and start of a denied call: %+v %v", denied, err)
	}
	if _, err := acme.CheckAndStart(ctx, child, "exec", ""); err == nil {
		t.Fatal("check and start without a call id: no error")
	}
	startOpt := func(q *wire.Query) error { q.Effect = true; return nil }
	if _, err := acme.Check(ctx, child, "exec", startOpt); err == nil || !strings.Contains(err.Error(), "CheckAndStart") {
		t.Fatalf("a check an option asked to start the call: %v", err)
	}
	wc, err := acme.WhyCall(ctx, "call-2")
	if err != nil || wc.Call == nil || wc.Call.Record.Type != events.ToolChecked || !wc.Call.Record.Effect || len(wc.Call.Records) != 1 {
		t.Fatalf("why of the started call: %+v %v", wc.Call, err)
	}
	why, err := acme.Why(ctx, child, "gateway")
	if err != nil || why.Verdict.Reason.Code != "subagent:hard_deny" || len(why.Verdict.Trace) == 0 || why.Envelope == nil {
		t.Fatalf("why: %+v %v", why, err)
	}
	at1, err := acme.Why(ctx, child, "gateway", client.AtTurn(1))
	if err != nil || at1.Verdict.Reason.Code != "subagent:hard_deny" {
		t.Fatalf("why at turn 1: %+v %v", at1, err)
	}
	sv, err := acme.Session(ctx, child)
	if err != nil || sv.Envelope == nil || len(sv.Turns) != 1 {
		t.Fatalf("session: %+v %v", sv, err)
	}
	tree, err := acme.Tree(ctx, root)
	if err != nil || len(tree) != 1 || len(tree[0].Children) != 1 {
		t.Fatalf("tree: %+v %v", tree, err)
	}

	// Another orchestrator neither sees nor writes acme's sessions.
	other := client.New(connect(), client.Options{Owner: "other"})
	if _, err := other.Tools(ctx, child); events.CodeOf(err) != events.CodeUnknownSession {
		t.Fatalf("foreign tools: %v", err)
	}
	if _, err := other.Append(ctx, client.Turn(root, events.TurnData{Turn: 2})); events.CodeOf(err) != events.CodeUnknownSession {
		t.Fatalf("foreign append: %v", err)
	}
	if _, err := other.Append(ctx, client.Spawn("agent:coder:subagent:x", events.SpawnedData{Parent: root, Agent: "coder"})); events.CodeOf(err) != events.CodeUnknownParent {
		t.Fatalf("foreign spawn: %v", err)
	}
	// The auditor scope reads every session and writes none.
	if _, err := ops.Tools(ctx, child); err != nil {
		t.Fatalf("auditor tools: %v", err)
	}
	if _, err := ops.Append(ctx, client.Turn(root, events.TurnData{Turn: 2})); err == nil {
		t.Fatal("the auditor scope appended a session event")
	}
	// A replica that has not applied a sequence answers not_caught_up.
	if _, err := acme.Tools(ctx, child, client.WithMinSeq(1<<40)); events.CodeOf(err) != events.CodeNotCaughtUp {
		t.Fatalf("min_seq far ahead: %v", err)
	}
}

func TestRetryNeverWritesTwice(t *testing.T) {
	connect := ledger(t)
	ops := client.New(connect(), client.Options{})
	setPolicy(t, ops)
	acme := client.New(connect(), client.Options{Owner: "acme"})
	ev := client.Start("agent:main:main", events.StartedData{Agent: "main"})
	ev.ID = "01JRETRY000000000000000001"
	first, err := acme.Append(t.Context(), ev)
	if err != nil {
		t.Fatal(err)
	}
	again, err := acme.Append(t.Context(), ev)
	if err != nil || !again.Duplicate || again.Seq != first.Seq {
		t.Fatalf("re-send: %+v %v", again, err)
	}
}

func TestMicroServiceDiscovery(t *testing.T) {
	connect := ledger(t)
	nc := connect()
	msg, err := nc.Request("$SRV.INFO.ledger", nil, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var info micro.Info
	if err := json.Unmarshal(msg.Data, &info); err != nil {
		t.Fatal(err)
	}
	if info.Name != "ledger" || info.Version != "1.0.0" || len(info.Endpoints) != 10 {
		t.Fatalf("info: %+v", info)
	}
	subjects := map[string]bool{}
	for _, e := range info.Endpoints {
		subjects[e.Subject] = true
	}
	for _, want := range []string{"ledger.v1.append.*", "ledger.v1.policy", "ledger.v1.policy.*", "ledger.v1.why.*", "ledger.v1.check.*", "ledger.v1.watch.*", "ledger.v1.denials.*"} {
		if !subjects[want] {
			t.Errorf("no endpoint on %s (have %v)", want, subjects)
		}
	}
	if _, err := nc.Request("$SRV.STATS.ledger", nil, 2*time.Second); err != nil {
		t.Fatalf("stats: %v", err)
	}
}

func TestWatch(t *testing.T) {
	connect := ledger(t)
	ctx := t.Context()
	ops := client.New(connect(), client.Options{})
	setPolicy(t, ops)
	acme := client.New(connect(), client.Options{Owner: "acme"})
	root, child := events.SessionKey("agent:main:main"), events.SessionKey("agent:coder:subagent:c1")
	for _, ev := range []client.Event{
		client.Start(root, events.StartedData{Agent: "main"}),
		client.Turn(root, events.TurnData{Turn: 1}),
		client.Start("agent:main:other", events.StartedData{Agent: "main"}),
		client.Turn("agent:main:other", events.TurnData{Turn: 1}),
		client.Spawn(child, events.SpawnedData{Parent: root, Agent: "coder"}),
		client.Turn(child, events.TurnData{Turn: 1}),
		client.Turn(root, events.TurnData{Turn: 2}),
	} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	consumers := func() int {
		js, err := jetstream.New(connect())
		if err != nil {
			t.Fatal(err)
		}
		s, err := js.Stream(ctx, "LEDGER")
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Consumers
	}
	before := consumers()
	defer func() {
		// The ledger serves watches: none makes a consumer.
		if after := consumers(); after != before {
			t.Errorf("%d consumers before the watches, %d after", before, after)
		}
	}()
	collect := func(opts client.WatchOptions, want int) []client.Change {
		var got []client.Change
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := acme.Watch(wctx, opts, func(c client.Change) error {
			got = append(got, c)
			if len(got) == want {
				cancel()
			}
			return nil
		})
		if len(got) != want {
			t.Fatalf("watch %+v: %d changes, want %d (%v)", opts, len(got), want, err)
		}
		return got
	}
	tree := collect(client.WatchOptions{Root: root, From: 1}, 3)
	if tree[0].Session != root || tree[1].Session != child || tree[2].Turn != 2 {
		t.Fatalf("tree changes: %+v", tree)
	}
	if !contains(tree[1].Tools.Allowed, "read") {
		t.Fatalf("child tools: %+v", tree[1].Tools)
	}
	// Resume after the first change: no gap, no repeat.
	rest := collect(client.WatchOptions{Root: root, From: tree[0].Seq + 1}, 2)
	if rest[0].Seq != tree[1].Seq || rest[1].Seq != tree[2].Seq {
		t.Fatalf("resumed: %+v", rest)
	}
	one := collect(client.WatchOptions{Session: "agent:main:other", From: 1}, 1)
	if one[0].Session != "agent:main:other" {
		t.Fatalf("one session: %+v", one)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestWatchBehindRetention: a stream that keeps only its latest records
// answers a watch from an older sequence with behind_retention naming the
// oldest one it has.
func TestWatchBehindRetention(t *testing.T) {
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, _ := natslog.ConnectEmbedded(ns, "t")
	defer nc.Close()
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{MaxMsgs: 5})
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	appendRaw := func(raw string) {
		if _, err := svc.Append(t.Context(), []byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	appendRaw(`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{},"catalogue":["read"]}}`)
	appendRaw(`{"type":"session.started","v":1,"actor":"acme","session":"agent:main:main","data":{"agent":"main"}}`)
	for turn := 1; turn <= 8; turn++ {
		appendRaw(fmt.Sprintf(`{"type":"turn.started","v":1,"actor":"acme","session":"agent:main:main","data":{"turn":%d}}`, turn))
	}
	srv, err := api.Start(t.Context(), nc, api.Config{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	c := client.New(nc, client.Options{Owner: "acme"})
	err = c.Watch(t.Context(), client.WatchOptions{All: true, From: 1}, func(client.Change) error { return nil })
	if events.CodeOf(err) != events.CodeBehindRetention || !strings.Contains(err.Error(), "oldest record available is 6") {
		t.Fatalf("watch from 1: %v", err)
	}
}

// TestBatchAppend sends the API a JSON array of events: each is decided in
// order, against the state that includes the ones before it, and answered
// in its place; a refused one does not stop the rest.
func TestBatchAppend(t *testing.T) {
	connect := ledger(t)
	setPolicy(t, client.New(connect(), client.Options{}))
	nc := connect()
	globex := client.New(connect(), client.Options{Owner: "globex"})
	if _, err := globex.Append(t.Context(), client.Start("agent:main:g", events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	body := `[
		{"type":"session.started","v":1,"session":"agent:main:b","data":{"agent":"main"}},
		{"type":"turn.started","v":1,"session":"agent:main:b","data":{"turn":1}},
		{"type":"policy.set","v":1,"data":{}},
		{"type":"turn.started","v":1,"session":"agent:main:g","data":{"turn":1}},
		{"type":"tool.checked","v":1,"session":"agent:main:b","data":{"turn":2,"tool":"read"}},
		{"type":"tool.checked","v":1,"session":"agent:main:b","data":{"turn":1,"tool":"read"}},
		{"type":"turn.started","v":1,"session":"agent:main:b","actor":"globex","data":{"turn":2}}
	]`
	msg, err := nc.Request("ledger.v1.append.acme", []byte(body), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code := msg.Header.Get("Nats-Service-Error-Code"); code != "" {
		t.Fatalf("the batch was refused whole: %s %s", code, msg.Data)
	}
	var outs []wire.AppendOutcome
	if err := json.Unmarshal(msg.Data, &outs); err != nil {
		t.Fatal(err)
	}
	want := []events.Code{"", "", events.CodeInvalidEvent, events.CodeUnknownSession, events.CodeBadTurn, "", events.CodeInvalidEvent}
	if len(outs) != len(want) {
		t.Fatalf("%d outcomes for %d events: %s", len(outs), len(want), msg.Data)
	}
	var last uint64
	for i, o := range outs {
		code := events.Code("")
		if o.Error != nil {
			code = o.Error.Code
		}
		if code != want[i] {
			t.Errorf("event %d: %q (%+v), want %q", i, code, o, want[i])
		}
		if code == "" {
			if o.Seq <= last || o.ID == "" {
				t.Errorf("event %d landed at %d after %d, id %q", i, o.Seq, last, o.ID)
			}
			last = o.Seq
		}
	}
	// The request itself must be an array of 1 to 1000 events.
	for _, bad := range []string{`[]`, `[1,`, "[" + strings.Repeat(`{},`, 1000) + "{}]"} {
		msg, err := nc.Request("ledger.v1.append.acme", []byte(bad), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if code := msg.Header.Get("Nats-Service-Error-Code"); code != string(events.CodeInvalidEvent) {
			t.Errorf("%.20s...: code %q, want invalid_event", bad, code)
		}
	}
}

// TestConcurrentAppendsShareRequests: a client's goroutines appending at
// once share requests (seen on the wire as arrays), and each still gets
// its own answer: its sequence, or its refusal.
func TestConcurrentAppendsShareRequests(t *testing.T) {
	connect := ledger(t)
	setPolicy(t, client.New(connect(), client.Options{}))
	wire := connect()
	var batches atomic.Int64
	sub, err := wire.Subscribe("ledger.v1.append.acme", func(m *nats.Msg) {
		if len(m.Data) > 0 && m.Data[0] == '[' {
			batches.Add(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := wire.Flush(); err != nil {
		t.Fatal(err)
	}
	acme := client.New(connect(), client.Options{Owner: "acme"})
	const writers, checks = 16, 20
	var wg sync.WaitGroup
	start := make(chan struct{})
	seqs := make([][]uint64, writers)
	for w := range writers {
		key := events.SessionKey(fmt.Sprintf("agent:main:w%d", w))
		wg.Go(func() {
			<-start
			for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
				res, err := acme.Append(t.Context(), ev)
				if err != nil {
					t.Errorf("%s %s: %v", ev.Type, key, err)
					return
				}
				seqs[w] = append(seqs[w], res.Seq)
			}
			for i := range checks {
				turn := 1
				if i%5 == 4 {
					turn = 7 // not the session's turn: refused
				}
				res, err := acme.Append(t.Context(), client.Checked(key, events.CheckedData{Turn: turn, Tool: "read", Call: fmt.Sprint(i)}))
				switch {
				case turn == 7 && events.CodeOf(err) != events.CodeBadTurn:
					t.Errorf("%s check %d at turn 7: %+v %v, want bad_turn", key, i, res, err)
				case turn == 1 && err != nil:
					t.Errorf("%s check %d: %v", key, i, err)
				case turn == 1:
					seqs[w] = append(seqs[w], res.Seq)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	seen := map[uint64]bool{}
	for w, list := range seqs {
		if len(list) != 2+checks*4/5 {
			t.Errorf("writer %d landed %d appends, want %d", w, len(list), 2+checks*4/5)
		}
		for i, seq := range list {
			if seen[seq] || i > 0 && seq <= list[i-1] {
				t.Errorf("writer %d: sequence %d repeated or out of order: %v", w, seq, list)
			}
			seen[seq] = true
		}
	}
	if batches.Load() == 0 {
		t.Error("no appends shared a request")
	}
}

// TestClientConcurrentUse calls every method of one client from many
// goroutines at once (run with -race): the package doc's concurrency
// contract.
func TestClientConcurrentUse(t *testing.T) {
	connect := ledger(t)
	setPolicy(t, client.New(connect(), client.Options{}))
	acme := client.New(connect(), client.Options{Owner: "acme"})
	ctx := t.Context()
	var wg sync.WaitGroup
	for w := range 8 {
		key := events.SessionKey(fmt.Sprintf("agent:main:c%d", w))
		wg.Go(func() {
			for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
				if _, err := acme.Append(ctx, ev); err != nil {
					t.Errorf("%s %s: %v", ev.Type, key, err)
					return
				}
			}
			if _, err := acme.Tools(ctx, key); err != nil {
				t.Errorf("tools %s: %v", key, err)
			}
			if _, err := acme.CheckAndRecord(ctx, key, "read", fmt.Sprint(w)); err != nil {
				t.Errorf("check %s: %v", key, err)
			}
			if _, err := acme.Why(ctx, key, "read"); err != nil {
				t.Errorf("why %s: %v", key, err)
			}
			if _, err := acme.Session(ctx, key); err != nil {
				t.Errorf("session %s: %v", key, err)
			}
			if _, err := acme.Tree(ctx, key); err != nil {
				t.Errorf("tree %s: %v", key, err)
			}
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			err := acme.Watch(wctx, client.WatchOptions{Session: key}, func(client.Change) error { cancel(); return nil })
			if err != nil && wctx.Err() == nil {
				t.Errorf("watch %s: %v", key, err)
			}
			_ = acme.Token()
		})
	}
	wg.Wait()
	if acme.Token() == 0 {
		t.Error("no token after appends")
	}
}

// TestInFlightFollowsTheLedgersRounds: a client keeps a second append
// request out only while the ledger's append answers say its rounds
// overlap (wire.RoundsHeader): a pipelined ledger does, one that appends
// each round as an atomic batch does not.
func TestInFlightFollowsTheLedgersRounds(t *testing.T) {
	for _, pipelined := range []bool{false, true} {
		l := apitest.Start(t, apitest.Options{Pipeline: pipelined, SyncInterval: time.Minute})
		c := client.New(l.Connect(), client.Options{Owner: "acme"})
		if got := c.InFlight(); got != 1 {
			t.Fatalf("pipelined %v: %d requests out before any answer, want 1", pipelined, got)
		}
		setPolicy(t, client.New(l.Connect(), client.Options{}))
		if _, err := c.Append(t.Context(), client.Start("agent:main:if", events.StartedData{Agent: "main"})); err != nil {
			t.Fatal(err)
		}
		want := 1
		if pipelined {
			want = 2
		}
		if got := c.InFlight(); got != want {
			t.Errorf("pipelined %v: %d requests out after an append, want %d", pipelined, got, want)
		}
	}
}

// TestErrorsMatchAcrossTheWire: an error the ledger answers is rebuilt by
// the client from the answer's headers, a new *events.Error, and
// errors.Is still matches it by its code: a conflict (the client gives up
// after its retries) is events.ErrConflict(), a real ledger's refusal is
// the code it carries and no other.
func TestErrorsMatchAcrossTheWire(t *testing.T) {
	connect := ledger(t)
	nc := connect()
	// A stand-in for a ledger that loses every race, on a prefix of its
	// own.
	sub, err := nc.Subscribe("standin.v1.>", func(m *nats.Msg) {
		reply := nats.NewMsg(m.Reply)
		reply.Header.Set("Nats-Service-Error-Code", string(events.CodeConflict))
		reply.Header.Set("Nats-Service-Error", "another writer appended first")
		reply.Data = []byte(`{}`)
		_ = m.RespondMsg(reply)
	})
	if err != nil {
		t.Fatal(err)
	}
	ops := client.New(nc, client.Options{Retries: 1, Prefix: "standin.v1"})
	_, err = ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}}))
	if !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("a conflict answered over the wire: %v, not errors.Is events.ErrConflict()", err)
	}
	_ = sub.Unsubscribe()

	acme := client.New(connect(), client.Options{Owner: "acme"})
	setPolicy(t, client.New(connect(), client.Options{}))
	if _, err := acme.Append(t.Context(), client.Start("agent:main:main", events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	_, err = acme.Append(t.Context(), client.Turn("agent:main:main", events.TurnData{Turn: 5}))
	if !errors.Is(err, &events.Error{Code: events.CodeBadTurn}) || errors.Is(err, events.ErrConflict()) {
		t.Fatalf("a refused turn: %v: errors.Is matches the wrong codes", err)
	}
}

// TestQueryOptionErrorsSurface: an option that cannot be applied fails the
// call it is given to, with every such option's error, and nothing is
// sent: an input that does not encode as JSON is not dropped.
func TestQueryOptionErrorsSurface(t *testing.T) {
	connect := ledger(t)
	ctx := t.Context()
	setPolicy(t, client.New(connect(), client.Options{}))
	acme := client.New(connect(), client.Options{Owner: "acme"})
	key := events.SessionKey("agent:main:main")
	for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	// A connection that sees every request the clients send.
	spy := connect()
	var sent atomic.Int64
	sub, err := spy.Subscribe("ledger.v1.>", func(*nats.Msg) { sent.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	bad := client.WithInput(make(chan int))
	worse := client.WithInput(json.RawMessage(`{"unclosed":`))
	for name, call := range map[string]func() error{
		"check": func() error { _, err := acme.Check(ctx, key, "read", bad); return err },
		"why":   func() error { _, err := acme.Why(ctx, key, "read", client.AtTurn(1), bad, worse); return err },
		"tools": func() error { _, err := acme.Tools(ctx, key, bad); return err },
	} {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "WithInput: the input does not encode as JSON") {
			t.Errorf("%s with an input that does not encode: %v", name, err)
		}
		var ue *json.UnsupportedTypeError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v does not wrap the encoder's error", name, err)
		}
		if name == "why" && strings.Count(err.Error(), "WithInput") != 2 {
			t.Errorf("why with two bad inputs: %v, want both errors", err)
		}
	}
	// A good input still goes through, after the refused calls: the
	// request of the last check is the first the spy saw.
	if _, err := acme.Check(ctx, key, "read", client.WithInput(map[string]string{"path": "/tmp"})); err != nil {
		t.Fatal(err)
	}
	// The spy's handler runs on its own goroutine: wait for the good
	// check's request; one from a refused call, sent on the same
	// connection before it, would have been delivered first.
	ledgertest.WaitFor(t, 10*time.Second, "the good check's request at the spy", func() bool { return sent.Load() >= 1 })
	if n := sent.Load(); n != 1 {
		t.Errorf("%d requests reached the ledger's subjects, want 1 (the good check)", n)
	}
}

// TestOwnerValidated: an Owner that cannot be the last token of a subject
// is refused, with an error that says what an owner is, by Validate and
// by every call of a client made with it, which sends nothing.
func TestOwnerValidated(t *testing.T) {
	for _, tt := range []struct {
		owner string
		ok    bool
	}{
		{"acme", true},
		{"claude-code_2", true},
		{strings.Repeat("o", 64), true},
		{"", true},    // the auditor scope
		{"all", true}, // the auditor scope, by name
		{"acme.eu", false},
		{"acme*", false},
		{">", false},
		{"ac me", false},
		{"acmé", false},
		{strings.Repeat("o", 65), false},
	} {
		err := client.Options{Owner: tt.owner}.Validate()
		if tt.ok != (err == nil) {
			t.Errorf("owner %q: Validate() = %v, want ok %v", tt.owner, err, tt.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), fmt.Sprintf("%q is not a valid owner", tt.owner)) ||
			!strings.Contains(err.Error(), "1 to 64 of A-Z, a-z, 0-9, '_' and '-'")) {
			t.Errorf("owner %q: %v does not say what a valid owner is", tt.owner, err)
		}
	}
	if err := (client.Options{Owner: "a.b", Timeout: -time.Second, Retries: -1}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "Owner") || !strings.Contains(err.Error(), "Timeout") || !strings.Contains(err.Error(), "Retries") {
		t.Errorf("three problems at once: %v, want all three", err)
	}

	connect := ledger(t)
	ctx := t.Context()
	setPolicy(t, client.New(connect(), client.Options{}))
	spy := connect()
	// A channel subscription holds every request the server passed on by
	// the time a later Flush returns (TestChanges).
	sent := make(chan *nats.Msg, 1024)
	sub, err := spy.ChanSubscribe("ledger.v1.>", sent)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	opts := client.Options{Owner: "acme.eu"}
	want := opts.Validate()
	c := client.New(connect(), opts)
	key := events.SessionKey("agent:main:main")
	for name, call := range map[string]func() error{
		"append": func() error {
			_, err := c.Append(ctx, client.Start(key, events.StartedData{Agent: "main"}))
			return err
		},
		"policy append": func() error {
			_, err := c.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}}))
			return err
		},
		"tools":            func() error { _, err := c.Tools(ctx, key); return err },
		"check":            func() error { _, err := c.Check(ctx, key, "read", client.WithInput(make(chan int))); return err },
		"check and record": func() error { _, err := c.CheckAndRecord(ctx, key, "read", "c1"); return err },
		"check and start":  func() error { _, err := c.CheckAndStart(ctx, key, "read", "c1"); return err },
		"why call":         func() error { _, err := c.WhyCall(ctx, "c1"); return err },
		"denials":          func() error { _, err := c.Denials(ctx, client.DenialsQuery{}); return err },
		"follow denials": func() error {
			return c.FollowDenials(ctx, client.DenialsQuery{}, func(client.Denial) error { return nil })
		},
		"denied": func() error {
			for _, err := range c.Denied(ctx, client.DenialsQuery{}) {
				return err
			}
			return errors.New("no error yielded")
		},
		"watch": func() error {
			return c.Watch(ctx, client.WatchOptions{All: true}, func(client.Change) error { return nil })
		},
		"changes": func() error {
			for _, err := range c.Changes(ctx, client.WatchOptions{All: true}) {
				return err
			}
			return errors.New("no error yielded")
		},
	} {
		if err := call(); err == nil || err.Error() != want.Error() {
			t.Errorf("%s on a client with owner %q: %v, want %v", name, opts.Owner, err, want)
		}
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(sent); n != 0 {
		t.Errorf("a client with an invalid owner sent %d requests", n)
	}
}
