package cchook

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// apiHook is a Hook on the ledger's API over an in-process NATS
// connection, as `ledger serve --hooks` runs it, beside a subscription
// that sees every request made to the API.
type apiHook struct {
	h   *Hook
	l   *apitest.Ledger
	spy *nats.Conn
	sub *nats.Subscription
}

func newAPIHook(t *testing.T) *apiHook {
	t.Helper()
	l := apitest.Start(t, apitest.Options{})
	a := &apiHook{l: l, spy: l.Connect()}
	var err error
	if a.sub, err = a.spy.SubscribeSync(wire.Prefix + ".>"); err != nil {
		t.Fatal(err)
	}
	if err := a.spy.Flush(); err != nil {
		t.Fatal(err)
	}
	a.must(t, client.SetPolicy(events.PolicySetData{Dialect: Dialect, Document: json.RawMessage(testDoc), Catalogue: testCatalogue, Scope: testScope}))
	a.h = &Hook{
		L: ClientLedger{C: client.New(l.Connect(), client.Options{Owner: "claude-code", Timeout: 5 * time.Second})},
		Opts: Options{
			ReadFile: metaFiles(nil),
			Locate:   func(string) Location { return testLoc },
			Who:      func() Who { return testWho },
		},
	}
	return a
}

// must appends set-up events straight to the service: no request.
func (a *apiHook) must(t *testing.T, evs ...client.Event) {
	t.Helper()
	for _, ev := range evs {
		if ev.Actor == "" {
			ev.Actor = "claude-code"
		}
		raw, err := json.Marshal(struct {
			client.Event
			V int `json:"v"`
		}{ev, events.Version})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.l.Service.Append(t.Context(), raw); err != nil {
			t.Fatalf("setting up %s %s: %v", ev.Type, ev.Session, err)
		}
	}
}

// requests are the API subjects asked since the last call, in order.
// Every request the hook made has reached the server before its answer
// came back, so after a flush of the spy's connection each is in its
// subscription's queue.
func (a *apiHook) requests(t *testing.T) []string {
	t.Helper()
	if err := a.spy.Flush(); err != nil {
		t.Fatal(err)
	}
	n, _, err := a.sub.Pending()
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for range n {
		m, err := a.sub.NextMsg(time.Second)
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, m.Subject)
	}
	return subjects
}

// TestPreToolUseOneRequest: a PreToolUse of a running session (started,
// active, with a turn) makes one request to the ledger's API, the recorded
// check that starts the call's effect (serve --hooks' floor is one durable
// append; a Tree before it was a round trip more on every call).
func TestPreToolUseOneRequest(t *testing.T) {
	a := newAPIHook(t)
	a.must(t, start(sub), turn(sub, 1))
	a.requests(t)
	check := wire.Prefix + "." + wire.EndpointCheck + ".claude-code"
	for i, tt := range []struct {
		input  map[string]any
		output string
	}{
		{map[string]any{"command": "echo hi"}, "{}"},
		{map[string]any{"command": "rm -rf build"}, "deny"},
		{map[string]any{"command": "echo again"}, "{}"},
	} {
		res := a.h.Handle(t.Context(), loadPayload(t, "PreToolUse.json", map[string]any{"tool_use_id": fmt.Sprintf("toolu_ONE_%d", i), "tool_input": tt.input}))
		checkOutput(t, res, tt.output, nil)
		if len(res.Appended) != 1 || res.Appended[0].Seq == 0 {
			t.Errorf("call %d appended %+v, want its one tool.checked", i, res.Appended)
		}
		if got := a.requests(t); len(got) != 1 || got[0] != check {
			t.Errorf("call %d asked %q, want one request, %s", i, got, check)
		}
	}
}

// TestPreToolUseReadiesSession: over the API, a PreToolUse whose session is
// not ready for its check (unknown, ended, without a turn) is refused with
// nothing recorded, readied (started, reopened, its first turn opened) and
// checked again: decided, one tool.checked, the effect started.
func TestPreToolUseReadiesSession(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup []client.Event
	}{
		{"unknown root", nil},
		{"root without a turn", []client.Event{start(sub)}},
		{"ended root", []client.Event{start(sub), turn(sub, 1), client.End(sub, "other")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAPIHook(t)
			a.must(t, tt.setup...)
			res := a.h.Handle(t.Context(), loadPayload(t, "PreToolUse.json", nil))
			checkOutput(t, res, "{}", nil)
			if res.Decision != envelope.Allow {
				t.Errorf("decision %q, want allow", res.Decision)
			}
			var checks int
			for _, ap := range res.Appended {
				if ap.Type == events.ToolChecked {
					checks++
				}
			}
			if checks != 1 {
				t.Errorf("appended %+v, want one tool.checked", res.Appended)
			}
			tree, err := a.h.L.Tree(context.Background(), sub)
			if err != nil || tree == nil || tree.State != envelope.Active || tree.Turns != 1 {
				t.Fatalf("session after the call: %+v, %v; want active at turn 1", tree, err)
			}
		})
	}
}
