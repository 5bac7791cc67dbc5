package api_test

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/projection"
)

// TestPlainCheckOfEndedSession: over NATS, a plain check (and a why, and
// tools) of a session that has ended answers what its recorded check
// meets: deny, session_not_active, naming the session.ended; at its turn
// it is answered as decided then; a running session is unaffected
// (internal/service TestPlainCheckOfInactiveSession has every state).
func TestPlainCheckOfEndedSession(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	nc := l.Connect()
	ctx := t.Context()
	ops := client.New(nc, client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{}}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatal(err)
	}
	acme := client.New(nc, client.Options{Owner: "acme"})
	ended, running := events.SessionKey("s1"), events.SessionKey("s2")
	var endSeq uint64
	for _, ev := range []client.Event{
		client.Start(ended, events.StartedData{Agent: "main"}), client.Turn(ended, events.TurnData{Turn: 1}),
		client.Start(running, events.StartedData{Agent: "main"}), client.Turn(running, events.TurnData{Turn: 1}),
		client.End(ended, ""),
	} {
		r, err := acme.Append(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		endSeq = r.Seq
	}

	if _, err := acme.CheckAndRecord(ctx, ended, "exec", "c1"); events.CodeOf(err) != events.CodeSessionNotActive {
		t.Fatalf("the recorded check: %v, want session_not_active", err)
	}
	chk, err := acme.Check(ctx, ended, "exec")
	if err != nil {
		t.Fatal(err)
	}
	if r := chk.Reason; chk.Decision != envelope.Deny || r.Code != string(events.CodeSessionNotActive) || r.Record == nil || r.Record.Seq != endSeq || r.Record.Type != events.SessionEnded {
		t.Errorf("the plain check: %s %+v, want deny (session_not_active) naming the session.ended at seq %d", chk.Decision, r, endSeq)
	}
	why, err := acme.Why(ctx, ended, "exec")
	if err != nil {
		t.Fatal(err)
	}
	if v := why.Verdict; v.Decision != envelope.Deny || v.Reason.Code != chk.Reason.Code || v.Reason.Rule != chk.Reason.Rule || v.Reason.Record == nil || chk.Reason.Record == nil || *v.Reason.Record != *chk.Reason.Record || len(v.Trace) == 0 || v.Trace[0].Layer != projection.LayerLifecycle {
		t.Errorf("why: %s %+v, trace %+v; want the check's deny, the lifecycle layer first", v.Decision, v.Reason, v.Trace)
	}
	tools, err := acme.Tools(ctx, ended)
	if err != nil {
		t.Fatal(err)
	}
	if na := tools.NotActive; na == nil || na.State != envelope.Ended || na.Session != ended || na.Reason.Code != chk.Reason.Code || len(tools.Tools.Allowed) == 0 {
		t.Errorf("tools: %+v, not_active %+v; want the set, and the session's end", tools.Tools, tools.NotActive)
	}
	if old, err := acme.Check(ctx, ended, "exec", client.AtTurn(1)); err != nil || old.Decision != envelope.Allow {
		t.Errorf("the check at turn 1: %+v, %v; want allow, as decided then", old, err)
	}
	if now, err := acme.Check(ctx, running, "exec"); err != nil || now.Decision != envelope.Allow {
		t.Errorf("a running session's check: %+v, %v; want allow", now, err)
	}
	if r, err := acme.CheckAndRecord(ctx, running, "exec", "c2"); err != nil || r.Decision != envelope.Allow || r.Recorded == 0 {
		t.Errorf("a running session's recorded check: %+v, %v; want it recorded and allowed", r, err)
	}
}
