package projection_test

import (
	"encoding/json"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// TestCheckDecidesTheCallReport: openclaw decides by tool sets
// (SetDecides), but a call's input may report its tool's plugins
// (openclaw.CallPluginKey), which the tool set never saw. A check with
// such an input, on a warm session whose tool set is cached, decides as
// Why does: a well-formed report that makes browser a plugin's tool
// denies it under group:plugins, and a malformed one denies it
// (input:plugin_report_malformed), never the cached allow.
func TestCheckDecidesTheCallReport(t *testing.T) {
	oc := openclaw.New()
	h := &harness{t: t, st: projection.New(projection.Dialects{oc.Name(): oc})}
	h.mustAppend(`{"type":"policy.set","v":1,"actor":"t","data":{"dialect":"openclaw","document":{"tools":{"deny":["group:plugins"]}},"catalogue":["read","browser"]}}`)
	h.mustAppend(`{"type":"session.started","v":1,"actor":"t","session":"agent:main:main","data":{"agent":"main","plugin_tools":{}}}`)
	h.mustAppend(`{"type":"turn.started","v":1,"actor":"t","session":"agent:main:main","data":{"turn":1}}`)
	key := events.SessionKey("agent:main:main")
	for range 2 { // the second round on a warm tool set
		for _, tc := range []struct{ input, decision, code string }{
			{``, "allow", "default:allow"},
			{`{"url": "https://example.com"}`, "allow", "default:allow"},
			{`{"ledger:plugin": ["browser"]}`, "deny", "global:plugin_unlisted"},
			{`{"ledger:plugin": "browser"}`, "deny", "input:plugin_report_malformed"},
		} {
			in := json.RawMessage(tc.input)
			w, err := h.st.Why(key, "browser", in)
			if err != nil {
				t.Fatal(err)
			}
			v, err := h.st.Check(key, "browser", in)
			if err != nil {
				t.Fatal(err)
			}
			if string(v.Decision) != tc.decision || v.Reason.Code != tc.code || v.Decision != w.Decision || v.Reason.Code != w.Reason.Code {
				t.Errorf("input %s: check %s %s, why %s %s; want %s %s", tc.input, v.Decision, v.Reason.Code, w.Decision, w.Reason.Code, tc.decision, tc.code)
			}
		}
		if _, err := h.st.Tools(key); err != nil {
			t.Fatal(err)
		}
	}
	var _ projection.InputDecides = oc
	if v, _ := h.st.Check(key, "browser", nil); v.Decision != envelope.Allow {
		t.Errorf("the cached tool set changed: %+v", v)
	}
}
