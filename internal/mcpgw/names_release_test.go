package mcpgw

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
)

// TestNamesUnderRelease: an openclaw tool name is the one the scope's
// release gives it: the packaged releases lower-case as JavaScript does
// ("VİEW" is "vi̇ew", with U+0307), the legacy release as Go does ("view");
// a release this build does not know names nothing.
func TestNamesUnderRelease(t *testing.T) {
	for _, c := range []struct{ release, want string }{
		{openclaw.NewestRelease(), "t__vi\u0307ew"},
		{openclaw.LegacyRelease, "t__view"},
		{"", "t__view"}, // a policy.set that recorded no release: legacy
		{"2099.1.1", ""},
	} {
		if got := LedgerName(DialectOpenClaw, c.release, "t", "V\u0130EW"); got != c.want {
			t.Errorf("release %q: %q, want %q", c.release, got, c.want)
		}
	}
	if got := LedgerName(DialectOpenClaw, openclaw.NewestRelease(), "t", "\ufeffEcho"); got != "t__\ufeffecho" {
		// U+FEFF inside the name stays: only the ends are trimmed.
		t.Errorf("a name with U+FEFF inside: %q", got)
	}
}

// TestUnicodeToolDecidedUnderItsRelease: through the gateway, a call of
// the upstream tool "VİEW" under a packaged release's policy is decided
// as that release names it (t__vi̇ew, denied), not as Go would lower-case
// it (t__view, which the policy allows); under the legacy release the
// reverse holds. Before names followed the release, the first call ran.
func TestUnicodeToolDecidedUnderItsRelease(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Appendf(nil, `{"servers": {"t": {"command": [%q], "env": {%q: "1", %q: "1"}}}}`, exe, upstreamEnv, unicodeEnv)
	for _, c := range []struct{ release, denied, allowed string }{
		{openclaw.NewestRelease(), "t__vi\u0307ew", "t__view"},
		{openclaw.LegacyRelease, "t__view", "t__vi\u0307ew"},
	} {
		t.Run(c.release, func(t *testing.T) {
			f := &fixture{l: apitest.Start(t, apitest.Options{}), key: "agent:main:main"}
			f.ops = client.New(f.l.Connect(), client.Options{})
			f.orch = client.New(f.l.Connect(), client.Options{Owner: "gw"})
			doc := fmt.Sprintf(`{"release": %q, "tools": {"deny": [%q]}, "agents": {"list": [{"id": "main"}]}}`, c.release, c.denied)
			cat := []string{"t__echo", c.denied, c.allowed}
			if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: DialectOpenClaw, Document: json.RawMessage(doc), Catalogue: cat})); err != nil {
				t.Fatal(err)
			}
			if _, err := f.orch.Append(t.Context(), client.Start(f.key, events.StartedData{Agent: "main"})); err != nil {
				t.Fatal(err)
			}
			f.turn(t, 1)
			f.gateway(t, cfg, Options{})
			f.cs = f.dial(t, f.key)
			for _, n := range listed(t, f.cs) {
				if n == "t__V\u0130EW" {
					t.Errorf("tools/list shows t__V\u0130EW, which the policy denies as %s", c.denied)
				}
			}
			res, err := call(t, f.cs, "t__V\u0130EW", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if txt := resultText(res); !res.IsError || strings.Contains(txt, "viewed") || !strings.Contains(txt, "denied "+c.denied) {
				t.Fatalf("the call of t__V\u0130EW: error %v %q, want it denied as %s", res.IsError, txt, c.denied)
			}
		})
	}
}
