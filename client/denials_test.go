package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// TestWhyCallAndDenials: a call revoked mid-turn is explained by its id
// and by its record's sequence, naming the revocation and its operator;
// an orchestrator sees its own calls and denials only; an auditor lists
// every session's denials, filtered, and follows them as they land.
func TestWhyCallAndDenials(t *testing.T) {
	connect := ledger(t)
	ctx := t.Context()
	ops := client.New(connect(), client.Options{Actor: "ops-alice"})
	acme := client.New(connect(), client.Options{Owner: "acme"})
	globex := client.New(connect(), client.Options{Owner: "globex"})
	audit := client.New(connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec", "browser"}})); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cl  *client.Client
		key events.SessionKey
	}{{acme, "a1"}, {globex, "g1"}} {
		for _, ev := range []client.Event{client.Start(c.key, events.StartedData{Agent: "main", User: string(c.key) + "-user"}), client.Turn(c.key, events.TurnData{Turn: 1})} {
			if _, err := c.cl.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(cl *client.Client, key events.SessionKey, tool, call string) client.CheckResult {
		t.Helper()
		r, err := cl.CheckAndRecord(ctx, key, tool, call)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	allowed := check(acme, "a1", "browser", "call-1")
	check(globex, "g1", "exec", "call-g")
	deny, err := ops.Append(ctx, client.Deny(events.DenyData{Rule: "browser", Session: "a1", Note: "incident 7"}))
	if err != nil {
		t.Fatal(err)
	}
	revoked := check(acme, "a1", "browser", "call-2")
	if revoked.Decision != "deny" || revoked.Reason.Code != "revocation:deny" {
		t.Fatalf("the revoked check: %+v", revoked)
	}

	for _, ask := range []func() (client.WhyResult, error){
		func() (client.WhyResult, error) { return acme.WhyCall(ctx, "call-2") },
		func() (client.WhyResult, error) { return acme.WhyCall(ctx, "call-2", client.InSession("a1")) },
		func() (client.WhyResult, error) { return acme.WhyRecord(ctx, revoked.Recorded) },
		func() (client.WhyResult, error) {
			return audit.WhyCall(ctx, "call-2", client.WithMinSeq(acme.Token()))
		},
	} {
		a, err := ask()
		if err != nil {
			t.Fatal(err)
		}
		c := a.Call
		if c == nil || c.Record.Seq != revoked.Recorded || c.Record.Decision != "deny" || c.Cause == nil ||
			c.Cause.Seq != deny.Seq || c.Cause.Type != events.DenyAdded || c.Cause.Actor != "ops-alice" ||
			c.Cause.Before != "allow" || c.Cause.After != "deny" || c.Cause.Text != "deny browser for session a1 (incident 7)" {
			t.Fatalf("why call-2: %+v %+v", c, c.Cause)
		}
		if a.Seq != revoked.Recorded-1 || a.Verdict.Reason.Code != "revocation:deny" {
			t.Errorf("decided at %d as %+v, want at %d by the revocation", a.Seq, a.Verdict.Reason, revoked.Recorded-1)
		}
	}
	for name, err := range map[string]error{
		"another's call": func() error { _, err := acme.WhyCall(ctx, "call-g"); return err }(),
		"another's record": func() error {
			_, err := globex.WhyRecord(ctx, allowed.Recorded)
			return err
		}(),
		"an unknown call": func() error { _, err := acme.WhyCall(ctx, "nope"); return err }(),
	} {
		if events.CodeOf(err) != wire.CodeUnknownCall {
			t.Errorf("%s: %v, want unknown_call", name, err)
		}
	}
	if _, err := acme.WhyCall(ctx, "call-2", client.AtSeq(3)); events.CodeOf(err) != events.CodeInvalidEvent {
		t.Errorf("a call at a position: %v, want invalid_event", err)
	}

	// InTree and Brief over the wire: the call in its root's tree, its
	// records and recorded decision without the verdict; another owner's
	// root is one the ledger does not hold; root and brief are refused
	// where they mean nothing.
	b, err := acme.WhyCall(ctx, "call-2", client.InTree("a1"), client.Brief())
	if err != nil || b.Call == nil || b.Call.Record.Seq != revoked.Recorded || b.Call.Record.Reason.Code != "revocation:deny" ||
		b.Call.Cause != nil || len(b.Verdict.Trace) != 0 {
		t.Errorf("brief why call-2 in a1's tree: %+v, %v", b.Call, err)
	}
	if _, err := globex.WhyCall(ctx, "call-2", client.InTree("a1"), client.Brief()); events.CodeOf(err) != wire.CodeUnknownCall {
		t.Errorf("call-2 in another's tree: %v, want unknown_call", err)
	}
	for name, err := range map[string]error{
		"root with a record":    func() error { _, err := acme.WhyRecord(ctx, revoked.Recorded, client.InTree("a1")); return err }(),
		"brief on a tool's why": func() error { _, err := acme.Why(ctx, "a1", "browser", client.Brief()); return err }(),
		"root on a check":       func() error { _, err := acme.Check(ctx, "a1", "browser", client.InTree("a1")); return err }(),
	} {
		if events.CodeOf(err) != events.CodeInvalidEvent {
			t.Errorf("%s: %v, want invalid_event", name, err)
		}
	}

	// A why at a turn says what the turn covers.
	a, err := acme.Why(ctx, "a1", "browser", client.AtTurn(1))
	if err != nil {
		t.Fatal(err)
	}
	if a.Turn == nil || a.Turn.Turn != 1 || a.Turn.To != revoked.Recorded || len(a.Turn.Calls) != 2 ||
		a.Turn.Calls[0].Seq != allowed.Recorded || a.Turn.Calls[1].Seq != revoked.Recorded {
		t.Fatalf("why at turn 1: %+v", a.Turn)
	}

	denials := func(cl *client.Client, q client.DenialsQuery) string {
		t.Helper()
		res, err := cl.Denials(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range res.Denials {
			out = append(out, fmt.Sprintf("%s:%s:%s", d.Session, d.Call, d.Reason.Code))
		}
		return fmt.Sprint(out)
	}
	token := client.DenialsQuery{MinSeq: max(acme.Token(), globex.Token())}
	for _, tt := range []struct {
		name string
		cl   *client.Client
		q    client.DenialsQuery
		want string
	}{
		{"auditor", audit, token, "[g1:call-g:global:deny a1:call-2:revocation:deny]"},
		{"auditor, a tool", audit, client.DenialsQuery{MinSeq: token.MinSeq, Tool: "exec"}, "[g1:call-g:global:deny]"},
		{"auditor, a user", audit, client.DenialsQuery{MinSeq: token.MinSeq, Filter: client.Filter{User: "a1-user"}}, "[a1:call-2:revocation:deny]"},
		{"acme's own", acme, client.DenialsQuery{}, "[a1:call-2:revocation:deny]"},
		{"globex's own", globex, client.DenialsQuery{}, "[g1:call-g:global:deny]"},
	} {
		if got := denials(tt.cl, tt.q); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	// Every root's tree: an orchestrator's own, the auditor's every one.
	for _, tt := range []struct {
		name string
		cl   *client.Client
		want string
	}{{"acme", acme, "[a1]"}, {"globex", globex, "[g1]"}, {"auditor", audit, "[a1 g1]"}} {
		trees, err := tt.cl.Tree(ctx, "", client.WithMinSeq(token.MinSeq))
		if err != nil {
			t.Fatal(err)
		}
		var keys []events.SessionKey
		for _, n := range trees {
			keys = append(keys, n.Key)
		}
		if got := fmt.Sprint(keys); got != tt.want {
			t.Errorf("%s's every-root tree: %s, want %s", tt.name, got, tt.want)
		}
	}
	if _, err := acme.Denials(ctx, client.DenialsQuery{Session: "g1"}); events.CodeOf(err) != events.CodeUnknownSession {
		t.Errorf("another's session: %v, want unknown_session", err)
	}

	// Followed: a denial that lands after the follow began is delivered.
	res, err := audit.Denials(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got := make(chan client.Denial, 1)
	done := make(chan error, 1)
	go func() {
		done <- audit.FollowDenials(fctx, client.DenialsQuery{From: res.Next}, func(d client.Denial) error {
			got <- d
			cancel()
			return nil
		})
	}()
	late := check(acme, "a1", "exec", "call-3")
	select {
	case d := <-got:
		if d.Seq != late.Recorded || d.Call != "call-3" || d.Identity == nil || d.Identity.User != "a1-user" {
			t.Errorf("followed: %+v", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the late denial was not delivered")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("follow ended with %v", err)
	}
}

// TestDenied ranges over Denied: the denials FollowDenials delivers, in
// order; a break stops the follow (no request after it); what ends the
// follow otherwise is yielded once, last.
func TestDenied(t *testing.T) {
	connect := ledger(t)
	ctx := t.Context()
	ops := client.New(connect(), client.Options{Actor: "ops-alice"})
	acme := client.New(connect(), client.Options{Owner: "acme"})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []client.Event{client.Start("a1", events.StartedData{Agent: "main"}), client.Turn("a1", events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	check := func(tool, call string) client.CheckResult {
		t.Helper()
		r, err := acme.CheckAndRecord(ctx, "a1", tool, call)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	check("exec", "c1")
	check("read", "c2")
	check("exec", "c3")
	third := check("exec", "c4")
	spy := connect()
	// A channel subscription holds every request the server passed on by
	// the time a later Flush returns (TestChanges).
	asks := make(chan *nats.Msg, 1024)
	sub, err := spy.ChanSubscribe("ledger.v1.denials.acme", asks)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}

	var got []string
	var last uint64
	for d, err := range acme.Denied(ctx, client.DenialsQuery{From: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %s", d.Call, d.Tool, d.Reason.Code))
		last = d.Seq
		if len(got) == 2 {
			break
		}
	}
	if want := "[c1 exec global:deny c3 exec global:deny]"; fmt.Sprint(got) != want {
		t.Fatalf("denied: %v, want %s", got, want)
	}
	// After the break nothing asks for more, though more lands.
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	asked := len(asks)
	if asked == 0 {
		t.Fatal("the spy saw no denials request")
	}
	late := check("exec", "c5")
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(asks); n != asked {
		t.Errorf("%d denials requests after the break, %d before", n, asked)
	}

	// Resumed from the last denial seen, the loop sees the next ones,
	// the one that landed after the break among them.
	got = nil
	for d, err := range acme.Denied(ctx, client.DenialsQuery{From: last + 1}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s", d.Seq, d.Call))
		if len(got) == 2 {
			break
		}
	}
	if want := fmt.Sprintf("[%d c4 %d c5]", third.Recorded, late.Recorded); fmt.Sprint(got) != want {
		t.Errorf("resumed: %v, want %s", got, want)
	}

	// What ends the follow is yielded once, last.
	ended := func(c *client.Client, ctx context.Context, q client.DenialsQuery) (pairs int, last error) {
		for d, err := range c.Denied(ctx, q) {
			pairs++
			if err != nil && d.Seq != 0 {
				t.Errorf("an error with a denial: %+v", d)
			}
			last = err
		}
		return pairs, last
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := ended(acme, cancelled, client.DenialsQuery{}); n != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %d pairs, last %v; want one, context.Canceled", n, err)
	}
	globex := client.New(connect(), client.Options{Owner: "globex"})
	if n, err := ended(globex, ctx, client.DenialsQuery{Session: "a1"}); n != 1 || events.CodeOf(err) != events.CodeUnknownSession {
		t.Errorf("another orchestrator's session: %d pairs, last %v; want one, unknown_session", n, err)
	}
}
