package service_test

import (
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
)

// TestWhyCauseFollowsWhatDecides: the cause of a call's decision is the
// last record that changed the decision or what decides it (the reason
// and its record), so it never names a record no longer in force (found
// by the why review: a lifted revocation was named while a policy.set
// denied; the session's start while a revocation denied).
func TestWhyCauseFollowsWhatDecides(t *testing.T) {
	for _, c := range []struct {
		name      string
		evs       []string
		cause     uint64
		causeType events.Type
	}{
		{"a revocation lifted after a policy came to deny", []string{
			`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{"deny":[]}},"catalogue":["read","exec","browser"]}}`,
			`{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`,
			`{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
			`{"type":"deny.added","v":1,"actor":"ops-alice","data":{"rule":"browser","session":"s1","note":"incident 42"}}`,
			`{"type":"policy.set","v":1,"actor":"ops-bob","data":{"dialect":"openclaw","document":{"tools":{"deny":["browser"]}}}}`,
			`{"type":"deny.lifted","v":1,"actor":"ops-alice","data":{"rule":"browser","session":"s1"}}`,
			`{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
		}, 6, events.DenyLifted},
		{"a revocation that denies after the policy stopped", []string{
			`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{"deny":["browser"]}},"catalogue":["read","exec","browser"]}}`,
			`{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`,
			`{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
			`{"type":"deny.added","v":1,"actor":"ops-alice","data":{"rule":"browser","session":"s1","note":"incident 42"}}`,
			`{"type":"policy.set","v":1,"actor":"ops-bob","data":{"dialect":"openclaw","document":{"tools":{"deny":[]}}}}`,
			`{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
		}, 4, events.DenyAdded},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
			for _, ev := range c.evs {
				if _, err := svc.Append(t.Context(), []byte(ev)); err != nil {
					t.Fatal(err)
				}
			}
			a, err := svc.WhyCall(t.Context(), service.CallQuery{Call: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			if cs := a.Call.Cause; cs == nil || cs.Seq != c.cause || cs.Type != c.causeType {
				t.Errorf("cause %+v, want %s at %d (the verdict: %s %s, record %+v)", cs, c.causeType, c.cause, a.Verdict.Decision, a.Verdict.Reason.Code, a.Verdict.Reason.Record)
			}
		})
	}
}
