package service_test

import (
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// TestWhyUnreadableCall: a why about a call an attach point denied because
// it could not read its payload answers that denial, the verdict included
// (deny, unreadable:payload, naming the record and what could not be
// read), never the policy's decision re-made with no input (allow here):
// nothing of the call was decided by the policy, and nothing of it ran.
func TestWhyUnreadableCall(t *testing.T) {
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
	for _, ev := range []string{
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{},"catalogue":["read","exec"]}}`,
		`{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
		`{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"exec","call":"u1","unreadable":"the call's tool_input is not a JSON object"}}`,
	} {
		if _, err := svc.Append(t.Context(), []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []service.CallQuery{{Call: "u1"}, {Seq: 4}} {
		a, err := svc.WhyCall(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Call == nil || a.Call.Record.Reason.Code != projection.ReasonUnreadable {
			t.Fatalf("%+v: the record %+v, want the unreadable denial", q, a.Call)
		}
		v := a.Verdict
		if v.Decision != envelope.Deny || v.Reason.Code != projection.ReasonUnreadable || v.Reason.Record == nil || v.Reason.Record.Seq != 4 ||
			!strings.Contains(v.Reason.Rule, "not a JSON object") || len(v.Trace) == 0 {
			t.Errorf("%+v: verdict %s %q %q (record %+v, %d steps), want deny %s naming record 4 and the unread payload", q, v.Decision, v.Reason.Code, v.Reason.Rule, v.Reason.Record, len(v.Trace), projection.ReasonUnreadable)
		}
	}
}
