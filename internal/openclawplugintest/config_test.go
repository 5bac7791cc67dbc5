package openclawplugintest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestConfig runs the plugin's own parseConfig (configcheck.mjs, under
// the pinned Node) over a table of configurations: the scope option, its
// default derived from the gateway's configuration directory, and the
// identity option.
func TestConfig(t *testing.T) {
	Require(t)
	long := strings.Repeat("x", 1025)
	cases := []struct {
		name      string
		raw       map[string]any
		configDir string
		scope     string // the parsed scope; "" when the config is refused
		identity  string
		problem   string // a refusal's problem says this
		why       string // the printed why's words, space-joined; "" to skip
	}{
		{name: "no scope: from the config dir", configDir: "/etc/openclaw/gw1", scope: "openclaw:gw1"},
		{name: "the default state dir", configDir: "/home/ada/.openclaw", scope: "openclaw:openclaw"},
		{name: "a profile's state dir", configDir: "/home/ada/.openclaw-work", scope: "openclaw:openclaw-work"},
		{name: "odd characters become dashes", configDir: "/srv/gw one.prod", scope: "openclaw:gw-one-prod"},
		{name: "a trailing slash", configDir: "/etc/openclaw/gw1/", scope: "openclaw:gw1"},
		{name: "the root", configDir: "/", scope: "openclaw:gateway"},
		{name: "no place at all", scope: "openclaw:gateway"},
		{name: "only dots", configDir: "/srv/...", scope: "openclaw:gateway"},
		{name: "a long dir is cut to a scope", configDir: "/srv/" + strings.Repeat("d", 300), scope: "openclaw:" + strings.Repeat("d", 119)},
		{name: "a configured scope wins", raw: map[string]any{"scope": "openclaw:gw1"}, configDir: "/etc/x", scope: "openclaw:gw1"},
		{name: "any valid scope", raw: map[string]any{"scope": "default"}, scope: "default"},
		{name: "a scope with a dot", raw: map[string]any{"scope": "openclaw:gw.1"}, problem: `scope "openclaw:gw.1" must be 1 to 128 of [A-Za-z0-9_:-]`},
		{name: "an empty scope", raw: map[string]any{"scope": ""}, problem: `scope "" must be 1 to 128`},
		{name: "a scope too long", raw: map[string]any{"scope": strings.Repeat("s", 129)}, problem: "must be 1 to 128"},
		{name: "a scope that is no string", raw: map[string]any{"scope": 7}, problem: "scope 7 must be"},
		{name: "an identity", raw: map[string]any{"identity": "ada@example.com"}, configDir: "/x/gw", scope: "openclaw:gw", identity: "ada@example.com"},
		{name: "an empty identity", raw: map[string]any{"identity": ""}, problem: "identity must be a non-empty string"},
		{name: "an identity too long", raw: map[string]any{"identity": long}, problem: "identity must be at most 1024 bytes"},
		{name: "every problem at once", raw: map[string]any{"scope": "a b", "owner": "all"}, problem: `owner "all"`},
		{name: "the default why", scope: "openclaw:gateway", why: "ledger why --nats nats://127.0.0.1:4222"},
		{name: "a why without the URL's secret", raw: map[string]any{"natsUrl": "nats://ada:s3cret@10.0.0.1:4222,nats://10.0.0.2:4222"}, scope: "openclaw:gateway",
			why: "ledger why --nats nats://10.0.0.1:4222,nats://10.0.0.2:4222 --user ada"},
		{name: "a why with the configured user, never the password", raw: map[string]any{"user": "oc1", "password": "pw"}, scope: "openclaw:gateway",
			why: "ledger why --nats nats://127.0.0.1:4222 --user oc1"},
		{name: "a why with creds", raw: map[string]any{"credsFile": "/etc/oc.creds"}, scope: "openclaw:gateway",
			why: "ledger why --nats nats://127.0.0.1:4222 --creds /etc/oc.creds"},
	}
	var in []map[string]any
	for _, c := range cases {
		raw := c.raw
		if raw == nil {
			raw = map[string]any{}
		}
		in = append(in, map[string]any{"raw": raw, "configDir": c.configDir})
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := New(t).Script(t, b, filepath.Join(Root(), "internal", "openclawplugintest", "configcheck.mjs"))
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(cases) {
			t.Fatalf("more answers than cases: %s", sc.Text())
		}
		c := cases[i]
		var got struct {
			Config *struct {
				Scope    string   `json:"scope"`
				Identity string   `json:"identity"`
				Why      []string `json:"why"`
			} `json:"config"`
			Problems []string `json:"problems"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("%s: %q: %v", c.name, sc.Text(), err)
		}
		switch {
		case c.problem != "":
			if got.Config != nil || !strings.Contains(strings.Join(got.Problems, "; "), c.problem) {
				t.Errorf("%s: got %s; want a refusal saying %q", c.name, sc.Text(), c.problem)
			}
		case got.Config == nil:
			t.Errorf("%s: refused: %v", c.name, got.Problems)
		default:
			if got.Config.Scope != c.scope || got.Config.Identity != c.identity {
				t.Errorf("%s: scope %q identity %q; want %q %q", c.name, got.Config.Scope, got.Config.Identity, c.scope, c.identity)
			}
			if c.why != "" && strings.Join(got.Config.Why, " ") != c.why {
				t.Errorf("%s: why %q; want %q", c.name, got.Config.Why, c.why)
			}
			if !events.ValidScope(got.Config.Scope) {
				t.Errorf("%s: %q is not a ledger scope", c.name, got.Config.Scope)
			}
		}
	}
	if i != len(cases) {
		t.Fatalf("%d answers for %d cases", i, len(cases))
	}
}
