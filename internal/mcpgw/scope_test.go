package mcpgw

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/user"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

// TestScope: the scope of the sessions a gateway starts is the --scope
// flag, else the config's "scope", else DefaultScope of the config file's
// path; every one is a ledger scope name, and a bad one is refused.
func TestScope(t *testing.T) {
	for _, c := range []struct {
		name, flag, config, path string
		want, err                string
	}{
		{name: "derived from the config file", path: "/etc/ledger/fs.json", want: "mcp:fs"},
		{name: "no extension", path: "/etc/ledger/gateway", want: "mcp:gateway"},
		{name: "only the last extension goes", path: "mcp.prod.json", want: "mcp:mcp-prod"},
		{name: "odd characters become dashes", path: "/srv/my gateway+1.json", want: "mcp:my-gateway-1"},
		{name: "leading dots go", path: "/home/ada/.mcp.json", want: "mcp:mcp"},
		{name: "a hidden name", path: "/home/ada/.fs-gw.json", want: "mcp:fs-gw"},
		{name: "a non-ASCII name", path: "/srv/prüf.json", want: "mcp:pr-f"},
		{name: "nothing left", path: "/srv/++.json", want: "mcp:gateway"},
		{name: "no path", want: "mcp:gateway"},
		{name: "cut to 128", path: "/srv/" + strings.Repeat("a", 200) + ".json", want: "mcp:" + strings.Repeat("a", 124)},
		{name: "the config's scope", config: "team:web", path: "/etc/ledger/fs.json", want: "team:web"},
		{name: "the flag wins over the config", flag: "team:fs", config: "team:web", path: "fs.json", want: "team:fs"},
		{name: "the flag wins over the path", flag: "default", path: "fs.json", want: "default"},
		{name: "a bad flag", flag: "team web", path: "fs.json", err: `scope "team web"`},
		{name: "a flag too long", flag: strings.Repeat("s", 129), path: "fs.json", err: "1 to 128"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ScopeOf(c.flag, &Config{Scope: c.config}, c.path)
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ScopeOf = %q, %v; want an error saying %q", got, err, c.err)
				}
			case err != nil || got != c.want:
				t.Fatalf("ScopeOf = %q, %v; want %q", got, err, c.want)
			case !events.ValidScope(got):
				t.Fatalf("%q is not a scope name", got)
			}
		})
	}
	for _, c := range []struct{ doc, want string }{
		{`{"servers": {"a": {"command": ["x"]}}, "scope": "mcp:a"}`, ""},
		{`{"servers": {"a": {"command": ["x"]}}, "scope": "mcp a"}`, `scope "mcp a"`},
		{`{"servers": {"a": {"command": ["x"]}}, "scope": "mcp.a"}`, `scope "mcp.a"`},
	} {
		cfg, err := ParseConfig([]byte(c.doc))
		switch {
		case c.want == "" && (err != nil || cfg.Scope != "mcp:a"):
			t.Errorf("%s: %+v, %v", c.doc, cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v; want an error saying %q", c.doc, err, c.want)
		}
	}
}

// startedData is the data of session key's session.started.
func startedData(t *testing.T, f *fixture, key events.SessionKey) []events.StartedData {
	t.Helper()
	g := &fixture{l: f.l, key: key}
	var out []events.StartedData
	for _, r := range records(t, g, events.SessionStarted) {
		var d events.StartedData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// scopedPolicy sets f's policy in scope too, as an operator must for the
// sessions a gateway starts there.
func scopedPolicy(t *testing.T, f *fixture, scope string) {
	t.Helper()
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Scope: scope,
		Document: policyDoc(), Catalogue: testCatalogue})); err != nil {
		t.Fatal(err)
	}
}

// TestStartedSessionsCarryScopeAndIdentity: a session the gateway starts,
// over HTTP and over stdio, is bound to Options.Scope and carries the
// gateway's identity: runtime mcp-gateway, the MCP client's
// "name/version" as runtime_version, Options.User and Host. A session it
// joins is not started again.
func TestStartedSessionsCarryScopeAndIdentity(t *testing.T) {
	f := start(t)
	const scope = "mcp:test"
	scopedPolicy(t, f, scope)
	f.gateway(t, testUpstream(t, ""), Options{Start: "main", Scope: scope, User: "ada@example.com", Host: "gw-host-1"})
	want := func(client string) []events.StartedData {
		return []events.StartedData{{Agent: "main", Scope: scope, Runtime: Runtime, RuntimeVersion: client, User: "ada@example.com", Host: "gw-host-1"}}
	}

	cs := f.dial(t, "over-http")
	if got := listed(t, cs); len(got) == 0 {
		t.Fatal("tools/list of the started session is empty")
	}
	if got := startedData(t, f, "over-http"); !reflect.DeepEqual(got, want("test-client/1")) {
		t.Errorf("session.started over HTTP = %+v, want %+v", got, want("test-client/1"))
	}
	// A second client of the same session joins it.
	listed(t, f.dial(t, "over-http"))
	if got := startedData(t, f, "over-http"); len(got) != 1 {
		t.Errorf("the session was started %d times", len(got))
	}

	cr, gw := io.Pipe()
	gr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go f.gw.ServeStdio(ctx, "over-stdio", gr, gw)
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "2.1"}, nil)
	cctx, ccancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer ccancel()
	scs, err := c.Connect(cctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer scs.Close()
	if res, err := call(t, scs, "t__echo", map[string]any{"text": "hi"}); err != nil || resultText(res) != "echo: hi" {
		t.Fatalf("echo over stdio = %v, %v", res, err)
	}
	if got := startedData(t, f, "over-stdio"); !reflect.DeepEqual(got, want("stdio-client/2.1")) {
		t.Errorf("session.started over stdio = %+v, want %+v", got, want("stdio-client/2.1"))
	}
}

// TestClientVersion: the client's name and version, the name alone, or
// nothing when there is none or it does not fit an identity field.
func TestClientVersion(t *testing.T) {
	for _, c := range []struct {
		in   *mcp.Implementation
		want string
	}{
		{nil, ""},
		{&mcp.Implementation{}, ""},
		{&mcp.Implementation{Name: "claude-code", Version: "2.1.328"}, "claude-code/2.1.328"},
		{&mcp.Implementation{Name: "bare"}, "bare"},
		{&mcp.Implementation{Version: "1"}, ""},
		{&mcp.Implementation{Name: strings.Repeat("n", events.MaxIdentityLen)}, strings.Repeat("n", events.MaxIdentityLen)},
		{&mcp.Implementation{Name: strings.Repeat("n", events.MaxIdentityLen), Version: "1"}, ""},
	} {
		if got := ClientVersion(c.in); got != c.want {
			t.Errorf("ClientVersion(%+v) = %.40q, want %.40q", c.in, got, c.want)
		}
	}
}

// osUser is the OS user 'ledger mcp' records when --identity is not given.
func osUser(t *testing.T) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Skipf("no OS user: %v", err)
	}
	return u.Username
}

// hostname is the host 'ledger mcp' records.
func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name: %v", err)
	}
	return h
}
