package service_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// TestPlainCheckOfInactiveSession: a plain check, why or tools of a
// session whose recorded check is refused session_not_active (it or its
// root has ended, it is yielded, it has completed) answers deny with that
// code, the record that put the session in its state and what to do,
// decided by the lifecycle layer before the policy's (a review found
// `ledger check` answering allow for an ended session whose recorded
// check was refused). A question at a turn, or at a sequence where the
// session was active, is answered as then; a running session is
// unaffected.
func TestPlainCheckOfInactiveSession(t *testing.T) {
	const (
		policy = `{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{}},"catalogue":["read","exec"]}}`
		start  = `{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`
		turn1  = `{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`
		spawn  = `{"type":"session.spawned","v":1,"actor":"acme","session":"agent:main:subagent:c","data":{"parent":"s1","agent":"main"}}`
		cturn1 = `{"type":"turn.started","v":1,"actor":"acme","session":"agent:main:subagent:c","data":{"turn":1}}`
		yield  = `{"type":"session.yielded","v":1,"actor":"acme","session":"s1","data":{"children":["agent:main:subagent:c"]}}`
		done   = `{"type":"session.completed","v":1,"actor":"acme","session":"agent:main:subagent:c","data":{"status":"ok"}}`
		end    = `{"type":"session.ended","v":1,"actor":"acme","session":"s1","data":{}}`
		reopen = `{"type":"session.reopened","v":1,"actor":"acme","session":"s1","data":{}}`
	)
	const child = events.SessionKey("agent:main:subagent:c")
	for _, c := range []struct {
		name    string
		evs     []string
		session events.SessionKey
		// The state, the session whose state it is, and the record that
		// put it there; "" for a session that is active.
		state   envelope.State
		holder  events.SessionKey
		rec     uint64
		recType events.Type
		// rule is a word of what to do.
		rule string
		// activeAt is a sequence at which the session was active.
		activeAt uint64
	}{
		{"an ended root", []string{policy, start, turn1, end}, "s1", envelope.Ended, "s1", 4, events.SessionEnded, "reopened", 3},
		{"a sub-agent of an ended root", []string{policy, start, turn1, spawn, cturn1, end}, child, envelope.Ended, "s1", 6, events.SessionEnded, "reopened", 5},
		{"a yielded parent", []string{policy, start, turn1, spawn, cturn1, yield}, "s1", envelope.Yielded, "s1", 6, events.SessionYielded, "resumed", 5},
		{"a completed sub-agent", []string{policy, start, turn1, spawn, cturn1, done}, child, envelope.Completed, child, 6, events.SessionCompleted, "new session", 5},
		{"a root ended again: its latest end", []string{policy, start, turn1, end, reopen, end}, "s1", envelope.Ended, "s1", 6, events.SessionEnded, "reopened", 5},
		{"a yielded root ended and reopened: yielded by its yield", []string{policy, start, turn1, spawn, cturn1, yield, end, reopen}, "s1", envelope.Yielded, "s1", 6, events.SessionYielded, "resumed", 5},
		{"a running session", []string{policy, start, turn1, spawn, cturn1}, child, "", "", 0, "", "", 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
			for _, ev := range c.evs {
				if _, err := svc.Append(ctx, []byte(ev)); err != nil {
					t.Fatalf("%s: %v", ev, err)
				}
			}
			head := svc.Position()
			// What a recorded check of the call meets.
			_, recErr := svc.Append(ctx, []byte(`{"type":"tool.checked","v":1,"actor":"acme","session":"`+string(c.session)+`","data":{"turn":1,"tool":"exec","call":"c1"}}`))
			chk, err := svc.Check(ctx, c.session, "exec", nil, projection.Position{})
			if err != nil {
				t.Fatal(err)
			}
			why, err := svc.Why(ctx, c.session, "exec", nil, projection.Position{})
			if err != nil {
				t.Fatal(err)
			}
			tools, err := svc.ToolsAnswer(ctx, c.session, projection.Position{})
			if err != nil {
				t.Fatal(err)
			}
			if c.state == "" {
				if recErr != nil || chk.Verdict.Decision != envelope.Allow || why.Verdict.Decision != envelope.Allow || tools.NotActive != nil {
					t.Fatalf("a running session: recorded %v, check %+v, why %s, not_active %+v; want it recorded and allowed", recErr, chk.Verdict, why.Verdict.Decision, tools.NotActive)
				}
				if why.Verdict.Trace[0].Layer == projection.LayerLifecycle {
					t.Errorf("a running session's trace starts with the lifecycle layer: %+v", why.Verdict.Trace[0])
				}
				return
			}
			if events.CodeOf(recErr) != events.CodeSessionNotActive {
				t.Fatalf("the recorded check: %v, want session_not_active", recErr)
			}
			if svc.Position() != head {
				t.Fatalf("the refused check was recorded: head %d, want %d", svc.Position(), head)
			}
			for _, a := range []struct {
				what string
				v    envelope.Verdict
			}{{"check", chk.Verdict}, {"why", why.Verdict}} {
				what, v := a.what, a.v
				r := v.Reason
				if v.Decision != envelope.Deny || r.Code != string(events.CodeSessionNotActive) {
					t.Fatalf("%s: %s (%s) %q, want deny (session_not_active) as the recorded check's refusal", what, v.Decision, r.Code, r.Rule)
				}
				if r.Record == nil || r.Record.Seq != c.rec || r.Record.Type != c.recType || r.Record.ID == "" {
					t.Errorf("%s: record %+v, want the %s at seq %d", what, r.Record, c.recType, c.rec)
				}
				if !strings.Contains(r.Rule, `"`+string(c.holder)+`"`) || !strings.Contains(r.Rule, string(c.state)) || !strings.Contains(r.Rule, c.rule) {
					t.Errorf("%s: rule %q, want it to name %s, its state %s and what to do (%s)", what, r.Rule, c.holder, c.state, c.rule)
				}
			}
			if chk.Verdict.Trace != nil {
				t.Errorf("check carries a trace: %+v", chk.Verdict.Trace)
			}
			if tr := why.Verdict.Trace; len(tr) < 2 || tr[0].Layer != projection.LayerLifecycle || tr[0].Outcome != envelope.Decided {
				t.Errorf("why's trace %+v: want the lifecycle layer first, deciding, then the policy's layers", tr)
			}
			for _, st := range why.Verdict.Trace[1:] {
				if st.Outcome == envelope.Decided || st.Outcome == envelope.Removed {
					t.Errorf("why's step %+v after the lifecycle decided: want it skipped", st)
				}
			}
			if why.Policy == nil || why.Scope != "default" || chk.Seq != head || why.Seq != head {
				t.Errorf("why: policy %v, scope %q, seqs %d %d; want the policy in force, the scope and the head %d", why.Policy, why.Scope, chk.Seq, why.Seq, head)
			}
			na := tools.NotActive
			if na == nil || na.State != c.state || na.Session != c.holder || na.Reason.Code != chk.Verdict.Reason.Code || *na.Reason.Record != *chk.Verdict.Reason.Record {
				t.Errorf("tools: not_active %+v, want %s of %s with the check's reason", na, c.state, c.holder)
			}
			if len(tools.Tools.Allowed) == 0 {
				t.Errorf("tools: %+v, want the set the policy resolves kept", tools.Tools)
			}

			// At its turn, and where it was active, it is answered as then.
			for _, pos := range []projection.Position{{Turn: 1}, {Seq: c.activeAt}} {
				a, err := svc.Check(ctx, c.session, "exec", nil, pos)
				if err != nil || a.Verdict.Decision != envelope.Allow {
					t.Errorf("check at %+v: %+v, %v; want allow, as decided then", pos, a.Verdict, err)
				}
				w, err := svc.Why(ctx, c.session, "exec", nil, pos)
				if err != nil || w.Verdict.Decision != envelope.Allow || w.Verdict.Trace[0].Layer == projection.LayerLifecycle {
					t.Errorf("why at %+v: %+v, %v; want allow, as decided then", pos, w.Verdict, err)
				}
				ta, err := svc.ToolsAnswer(ctx, c.session, pos)
				if err != nil || ta.NotActive != nil {
					t.Errorf("tools at %+v: not_active %+v, %v; want none", pos, ta.NotActive, err)
				}
			}
			// At the head's sequence named, as at the head.
			if a, err := svc.Check(ctx, c.session, "exec", nil, projection.Position{Seq: head}); err != nil || a.Verdict.Reason.Code != string(events.CodeSessionNotActive) {
				t.Errorf("check at seq %d: %+v, %v; want session_not_active", head, a.Verdict, err)
			}
		})
	}
}

// TestPlainCheckFindsAnEndFarBack: the record that ended a session is found
// however many records of other sessions followed it (read back from the
// head a chunk at a time, across chunks).
func TestPlainCheckFindsAnEndFarBack(t *testing.T) {
	ctx := t.Context()
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
	for _, ev := range []string{
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{}},"catalogue":["read","exec"]}}`,
		`{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
		`{"type":"session.started","v":1,"actor":"acme","session":"s2","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"s2","data":{"turn":1}}`,
		`{"type":"session.ended","v":1,"actor":"acme","session":"s1","data":{}}`,
	} {
		if _, err := svc.Append(ctx, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5000 {
		ev := fmt.Sprintf(`{"type":"tool.checked","v":1,"actor":"acme","session":"s2","data":{"turn":1,"tool":"read","call":"c%d"}}`, i)
		if _, err := svc.Append(ctx, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := svc.Check(ctx, "s1", "exec", nil, projection.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Verdict.Reason; a.Verdict.Decision != envelope.Deny || r.Record == nil || r.Record.Seq != 6 || r.Record.Type != events.SessionEnded {
		t.Fatalf("check of s1 at seq %d: %s %+v, want deny naming the session.ended at seq 6", a.Seq, a.Verdict.Decision, r)
	}
	// Farther back than the check reads (16,384 records), the end is not
	// named and the rule says where to look; the decision is the same.
	for i := 5000; i < 5000+4*4096; i++ {
		ev := fmt.Sprintf(`{"type":"tool.checked","v":1,"actor":"acme","session":"s2","data":{"turn":1,"tool":"read","call":"c%d"}}`, i)
		if _, err := svc.Append(ctx, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	a, err = svc.Check(ctx, "s1", "exec", nil, projection.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Verdict.Reason; a.Verdict.Decision != envelope.Deny || r.Code != "session_not_active" || r.Record != nil ||
		!strings.Contains(r.Rule, "its session.ended is more than 16384 records before seq "+strconv.FormatUint(a.Seq, 10)+": 'ledger log --json' lists it") {
		t.Fatalf("check of s1 at seq %d: %s %+v, want deny naming no record", a.Seq, a.Verdict.Decision, r)
	}
	// A check at a position within reach names it again.
	a, err = svc.Check(ctx, "s1", "exec", nil, projection.Position{Seq: 5 + 4*4096})
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Verdict.Reason; r.Record == nil || r.Record.Seq != 6 {
		t.Fatalf("check of s1 at seq %d: %+v, want the session.ended at seq 6", a.Seq, r)
	}
}

// TestInactiveMemoAnswersAsASearch: the checks of a session that ended
// long ago remember what they found (inactiveMemo), and each answers the
// record a search from its own position alone finds: the latest end within
// 16,384 records before it, none farther back, whatever was asked before.
func TestInactiveMemoAnswersAsASearch(t *testing.T) {
	ctx := t.Context()
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
	filler := 0
	appendAll := func(evs ...string) {
		for _, ev := range evs {
			if _, err := svc.Append(ctx, []byte(ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	fill := func(n int) {
		for range n {
			filler++
			appendAll(fmt.Sprintf(`{"type":"tool.checked","v":1,"actor":"acme","session":"s2","data":{"turn":1,"tool":"read","call":"c%d"}}`, filler))
		}
	}
	appendAll(
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{}},"catalogue":["read","exec"]}}`,
		`{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
		`{"type":"session.started","v":1,"actor":"acme","session":"s2","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"s2","data":{"turn":1}}`,
		`{"type":"session.ended","v":1,"actor":"acme","session":"s1","data":{}}`, // 6
	)
	fill(100)                                                                              // 7..106
	appendAll(`{"type":"session.reopened","v":1,"actor":"acme","session":"s1","data":{}}`, // 107
		`{"type":"session.ended","v":1,"actor":"acme","session":"s1","data":{}}`) // 108
	fill(4*4096 + 100) // 109..16592
	for _, q := range []struct {
		at   uint64
		want uint64 // the end named; 0: none (farther back than the search); 1: allowed
	}{
		{50, 6}, {100, 6}, {107, 1}, {108, 108}, {5000, 108}, {16491, 108}, {16492, 0}, {16592, 0}, {60, 6}, {16491, 108}, {0, 0},
	} {
		a, err := svc.Check(ctx, "s1", "exec", nil, projection.Position{Seq: q.at})
		if err != nil {
			t.Fatal(err)
		}
		r := a.Verdict.Reason
		switch {
		case q.want == 1:
			if a.Verdict.Decision != envelope.Allow {
				t.Errorf("at %d: %s %+v, want allow (reopened)", q.at, a.Verdict.Decision, r)
			}
		case q.want == 0:
			if a.Verdict.Decision != envelope.Deny || r.Record != nil {
				t.Errorf("at %d (answered at %d): %s %+v, want deny naming no record", q.at, a.Seq, a.Verdict.Decision, r)
			}
		default:
			if a.Verdict.Decision != envelope.Deny || r.Record == nil || r.Record.Seq != q.want {
				t.Errorf("at %d: %s %+v, want deny naming the session.ended at seq %d", q.at, a.Verdict.Decision, r, q.want)
			}
		}
	}
}
