package openclaw

import (
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestAllowReason: every decision carries its reason, an allow included
// (issue 15: an allow was "allow ()", "code":""). It names the last layer
// that restricted the tool and admitted it, the entry that matched and the
// record that introduced it, else default:allow and the policy revision.
func TestAllowReason(t *testing.T) {
	for _, c := range []struct {
		name, doc, tool string
		grant           bool // an also_allow grant of read for main
		code, rule      string
		recType         events.Type
	}{
		{"nothing restricts", `{}`, "read", false, "default:allow", ruleDefaultAllow, events.PolicySet},
		{"only a deny list", `{"tools":{"deny":["exec"]}}`, "read", false, "default:allow", ruleDefaultAllow, events.PolicySet},
		{"the global allow list", `{"tools":{"allow":["read","exec"]}}`, "read", false, "global:allow", `tools.allow: "read"`, events.PolicySet},
		{"the last of two allow lists", `{"tools":{"allow":["read"]},"agents":{"list":[{"id":"main","tools":{"allow":["re*"]}}]}}`, "read", false,
			"agent:allow", `agents.list[0].tools.allow: "re*"`, events.PolicySet},
		{"a profile", `{"tools":{"profile":"coding"}}`, "read", false, "profile:allow", "", events.PolicySet},
		// alsoAllow (and so an also_allow grant) joins the profile layer.
		{"a grant", `{"tools":{"profile":"minimal"}}`, "read", true, "profile:allow", `agents.list[0].tools.alsoAllow: "read"`, events.GrantAdded},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, c.doc, "read", "exec", "browser")
			if c.grant {
				w.grant(events.GrantAlsoAllow, "main", "main", "read")
			}
			s := w.start("agent:main:main", events.StartedData{Agent: "main"})
			v := w.d.Decide(w, s, c.tool, nil)
			if v.Decision != envelope.Allow {
				t.Fatalf("decision %s (%+v), want allow", v.Decision, v.Reason)
			}
			if v.Reason.Code != c.code || c.rule != "" && v.Reason.Rule != c.rule || v.Reason.Rule == "" {
				t.Errorf("reason %+v, want code %q rule %q", v.Reason, c.code, c.rule)
			}
			if v.Reason.Record == nil || v.Reason.Record.Type != c.recType {
				t.Errorf("reason record %+v, want a %s", v.Reason.Record, c.recType)
			}
		})
	}
}
