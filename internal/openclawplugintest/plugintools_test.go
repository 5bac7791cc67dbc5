package openclawplugintest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestHookRunnerBundledPluginTools (issue 25): OpenClaw's bundled browser
// plugin, loaded by OpenClaw's own loader beside this plugin, owns the
// browser tool, so OpenClaw counts it under group:plugins. The operator's
// policy denies group:plugins and its pluginTools does not list browser:
// the plugin reports the gateway's plugin tools with the root's start
// (read from OpenClaw's plugin registry), and the ledger denies the
// browser call with global:plugin_unlisted, saying what to add, while read
// goes through. With pluginTools listing it, the same call is denied by
// the document's own rule (global:deny). Before the report, the ledger
// allowed it (browser was a core tool to it).
func TestHookRunnerBundledPluginTools(t *testing.T) {
	Require(t)
	bin, url, nc := servedLedger(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ops := client.New(nc, client.Options{})
	for _, tc := range []struct {
		name, scope, doc string
		want             []string // in the browser call's block reason
	}{
		{"pluginTools without browser", "openclaw:bundled-unlisted", `{"tools": {"deny": ["group:plugins"]}}`,
			[]string{"global:plugin_unlisted", "a tool of plugin browser", `add "browser" to pluginTools.browser`, `tools.deny: "group:plugins"`}},
		{"pluginTools with browser", "openclaw:bundled-listed", `{"pluginTools": {"browser": ["browser"]}, "tools": {"deny": ["group:plugins"]}}`,
			[]string{"global:deny", `tools.deny: "group:plugins"`}},
	} {
		if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Scope: tc.scope,
			Document: json.RawMessage(tc.doc), Catalogue: append(slices.Clone(catalogue), "browser")})); err != nil {
			t.Fatal(err)
		}
		root := "agent:main:" + strings.ReplaceAll(tc.scope, ":", "-")
		steps := []Step{modelCall(root, "m1"), tool("browser", "b1", root), tool("read", "r1", root)}
		a := RunHooksWith(t, New(t), map[string]any{"natsUrl": url, "timeoutMs": 2000, "retries": 0, "scope": tc.scope}, []string{"browser"}, steps)
		blocked, reason := a[1].Blocked()
		t.Logf("%s: browser: %s", tc.name, reason)
		if !blocked {
			t.Errorf("%s: browser went through under deny group:plugins", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(reason, w) {
				t.Errorf("%s: the block reason does not say %s:\n%s", tc.name, w, reason)
			}
		}
		if blocked, reason := a[2].Blocked(); blocked {
			t.Errorf("%s: read was blocked: %s", tc.name, reason)
		}
	}
	// A root the gateway started before the browser plugin was enabled (a
	// restart keeps agent:main:main): its start recorded no browser. The
	// plugin's call reports browser's owner itself ("ledger:plugin"), and
	// the ledger denies it as OpenClaw does.
	const earlier = "openclaw:bundled-restarted"
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Scope: earlier,
		Document: json.RawMessage(`{"tools": {"deny": ["group:plugins"]}}`), Catalogue: append(slices.Clone(catalogue), "browser")})); err != nil {
		t.Fatal(err)
	}
	restarted := "agent:main:bundled-restarted"
	orch := client.New(nc, client.Options{Owner: Owner})
	if _, err := orch.Append(ctx, client.Start(events.SessionKey(restarted), events.StartedData{Agent: "main", Scope: earlier,
		PluginTools: json.RawMessage(`{}`)})); err != nil {
		t.Fatal(err)
	}
	a := RunHooksWith(t, New(t), map[string]any{"natsUrl": url, "timeoutMs": 2000, "retries": 0, "scope": earlier}, []string{"browser"},
		[]Step{modelCall(restarted, "m1"), tool("browser", "b1", restarted), tool("read", "r1", restarted)})
	blocked, reason := a[1].Blocked()
	t.Logf("restarted: browser: %s", reason)
	if !blocked || !strings.Contains(reason, "global:plugin_unlisted") || !strings.Contains(reason, "the call's own report") {
		t.Errorf("restarted: browser blocked %v, want global:plugin_unlisted from the call's own report:\n%s", blocked, reason)
	}
	if blocked, reason := a[2].Blocked(); blocked {
		t.Errorf("restarted: read was blocked: %s", reason)
	}
	// What the roots' starts recorded: the gateway's report, with browser
	// as plugin browser's (the restarted root's: none).
	for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())), "\n") {
		var r events.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Type != events.SessionStarted {
			continue
		}
		var d events.StartedData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatal(err)
		}
		pt, err := events.DecodePluginTools(d.PluginTools)
		if r.Session == events.SessionKey(restarted) {
			if err != nil || len(pt) != 0 {
				t.Errorf("%s started with plugin_tools %s (%v); want {}", r.Session, d.PluginTools, err)
			}
			continue
		}
		if err != nil || len(pt["browser"]) != 1 || pt["browser"][0] != "browser" {
			t.Errorf("%s started with plugin_tools %s (%v); want browser's browser", r.Session, d.PluginTools, err)
		}
	}
	if out := ledgertest.LedgerCmd(t, bin, "verify", "--nats", url, "--data", t.TempDir()); !strings.Contains(out, "no drift") {
		t.Errorf("ledger verify: %s", out)
	}
}

// servedLedger builds the ledger (once per test binary, ledgertest.Main),
// serves it on loopback and connects to it; the server stops and the
// connection closes when the test ends.
func servedLedger(t *testing.T) (bin, url string, nc *nats.Conn) {
	t.Helper()
	bin = ledgertest.BuildLedger(t)
	url = ledgertest.ServeLedger(t, bin)
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return bin, url, nc
}
