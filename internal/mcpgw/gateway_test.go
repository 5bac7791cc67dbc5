package mcpgw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// upstreamEnv makes the test binary the test upstream server (TestMain).
const upstreamEnv = "MCPGW_TEST_UPSTREAM"

func TestMain(m *testing.M) {
	if os.Getenv(upstreamEnv) == "1" {
		runTestUpstream()
		return
	}
	if os.Getenv(hookEnv) == "1" {
		runTestHook()
		return
	}
	if os.Getenv(rawEnv) == "1" {
		runRawUpstream()
		return
	}
	os.Exit(ledgertest.Main(m)) // one ledger build for the tests that run it
}

// runTestUpstream is a stdio MCP server (the SDK's) with tools that
// answer, fail in each way MCP allows, and die.
func runTestUpstream() {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-upstream", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes text", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Text string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		return text("echo: " + a.Text), nil
	})
	s.AddTool(&mcp.Tool{Name: "pid", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprint(os.Getpid())), nil
	})
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := text("upstream tool failed on purpose")
		r.IsError = true
		return r, nil
	})
	s.AddTool(&mcp.Tool{Name: "rpcerr", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32042, Message: "upstream says no"}
	})
	s.AddTool(&mcp.Tool{Name: "die", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "secret", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("the secret"), nil
	})
	s.AddTool(&mcp.Tool{Name: "grow", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.AddTool(&mcp.Tool{Name: "grown", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("grown"), nil
		})
		return text("grew"), nil
	})
	if os.Getenv(unicodeEnv) == "1" {
		s.AddTool(&mcp.Tool{Name: "V\u0130EW", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("viewed"), nil
		})
	}
	if os.Getenv(extraEnv) == "1" {
		s.AddTool(&mcp.Tool{Name: "hang", InputSchema: obj}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done() // the gateway's cancellation
			return nil, ctx.Err()
		})
		s.AddTool(&mcp.Tool{Name: "big", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &a)
			n, _ := strconv.Atoi(a.Text)
			return text(strings.Repeat("x", n)), nil
		})
	}
	_ = s.Run(context.Background(), &mcp.StdioTransport{MaxLineLength: -1})
}

// unicodeEnv adds the tool "VİEW" (U+0130), which JavaScript and Go
// lower-case differently, to the test upstream.
const unicodeEnv = "MCPGW_TEST_UNICODE"

// extraEnv adds the tools hang (answers when cancelled) and big (answers
// as many bytes as its text says) to the test upstream.
const extraEnv = "MCPGW_TEST_EXTRA"

// testCatalogue is the ledger's catalogue of the test upstream "t" in
// the claude-code dialect, plus a tool no upstream has.
var testCatalogue = []string{"mcp__t__echo", "mcp__t__pid", "mcp__t__fail", "mcp__t__rpcerr", "mcp__t__die", "mcp__t__secret", "mcp__t__grown", "mcp__other__x"}

// policyDoc allows server t's tools and denies its secret (and, with
// extra, more).
func policyDoc(extraDeny ...string) json.RawMessage {
	deny := append([]string{"mcp__t__secret"}, extraDeny...)
	b, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"mcp__t"}, "deny": deny}})
	return b
}

type fixture struct {
	l       *apitest.Ledger
	orch    *client.Client // the orchestrator (owner gw)
	ops     *client.Client // the operator
	gw      *Gateway
	key     events.SessionKey
	changed atomic.Int32 // list_changed notifications the client received
	cs      *mcp.ClientSession
}

// start runs a ledger with a claude-code policy, a session at turn 1
// owned by gw, a gateway in front of the test upstream, and a Go SDK
// client connected to it over streamable HTTP on loopback.
func start(t *testing.T) *fixture {
	t.Helper()
	return startWith(t, apitest.Options{})
}

// startWith is start on a ledger run with o.
func startWith(t testing.TB, o apitest.Options) *fixture {
	t.Helper()
	f := &fixture{l: apitest.Start(t, o), key: "s1"}
	ctx := t.Context()
	f.ops = client.New(f.l.Connect(), client.Options{})
	f.orch = client.New(f.l.Connect(), client.Options{Owner: "gw"})
	if _, err := f.ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: policyDoc(), Catalogue: testCatalogue})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.orch.Append(ctx, client.Start(f.key, events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 1)
	f.gateway(t, testUpstream(t, ""), Options{})
	f.cs = f.dial(t, f.key)
	return f
}

// gateway makes f's gateway one on the config doc with opts, whose
// Ledger, when nil, is a client of the orchestrator gw; a gateway f had
// is closed.
func (f *fixture) gateway(t testing.TB, doc []byte, opts Options) {
	t.Helper()
	cfg, err := ParseConfig(doc)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Ledger == nil {
		opts.Ledger = client.New(f.l.Connect(), client.Options{Owner: "gw"})
	}
	if f.gw != nil {
		f.gw.Close()
	}
	if f.gw, err = New(cfg, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.gw.Close)
}

// testUpstream is the config doc of the test binary's own upstream as
// server t, with more top-level members after it (",\"expose\": ...").
func testUpstream(t testing.TB, more string) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Appendf(nil, `{"servers": {"t": {"command": [%q], "env": {%q: "1"}}}%s}`, exe, upstreamEnv, more)
}

// dial connects a Go SDK client to the gateway over HTTP on loopback as
// ledger session key.
func (f *fixture) dial(t testing.TB, key events.SessionKey) *mcp.ClientSession {
	t.Helper()
	addr := ledgertest.ServeHTTP(t, f.gw.Handler(""))
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { f.changed.Add(1) },
	})
	hc := &http.Client{Transport: headerRT{key: string(key)}, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// headerRT adds the ledger session header to every request.
type headerRT struct{ key string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(DefaultHeader, h.key)
	return http.DefaultTransport.RoundTrip(r)
}

func (f *fixture) turn(t testing.TB, n int) {
	t.Helper()
	if _, err := f.orch.Append(t.Context(), client.Turn(f.key, events.TurnData{Turn: n})); err != nil {
		t.Fatal(err)
	}
}

// listed is what the client sees in tools/list, sorted.
func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// ledgerListed is the ledger's tool set (Tools at the head) mapped to
// exposed names and kept to the upstream's tools: what tools/list must be.
func ledgerListed(t *testing.T, f *fixture) []string {
	t.Helper()
	ts, err := f.orch.Tools(t.Context(), f.key)
	if err != nil {
		t.Fatal(err)
	}
	upstream := map[string]bool{"echo": true, "pid": true, "fail": true, "rpcerr": true, "die": true, "secret": true, "grow": true}
	var names []string
	for _, n := range ts.Tools.Allowed {
		rest, ok := strings.CutPrefix(n, "mcp__")
		server, tool, ok2 := SplitExposed(rest)
		if ok && ok2 && server == "t" && upstream[tool] {
			names = append(names, Exposed(server, tool))
		}
	}
	slices.Sort(names)
	return names
}

// records returns the log's records of a type for the session.
// starts lists the records that started a call's effect, in either form
// (docs/records.md): a tool.effect_started, or a tool.checked with effect:
// true that allowed the call.
func starts(t *testing.T, f *fixture) []events.Record {
	t.Helper()
	var out []events.Record
	for _, r := range records(t, f, events.ToolChecked) {
		var d events.CheckedData
		var dec struct{ Decision envelope.Decision }
		if json.Unmarshal(r.Data, &d) != nil || json.Unmarshal(r.Decided, &dec) != nil {
			t.Fatalf("record %+v", r)
		}
		if d.Effect && dec.Decision == envelope.Allow {
			out = append(out, r)
		}
	}
	return append(out, records(t, f, events.EffectStarted)...)
}

func records(t *testing.T, f *fixture, typ events.Type) []events.Record {
	t.Helper()
	head, err := f.l.Log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	raws, err := f.l.Log.Read(t.Context(), 1, head)
	if err != nil {
		t.Fatal(err)
	}
	var out []events.Record
	for _, raw := range raws {
		var r events.Record
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == typ && r.Session == f.key {
			out = append(out, r)
		}
	}
	return out
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

func resultText(r *mcp.CallToolResult) string {
	if r == nil {
		return "<no result>"
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsListIsTheLedgersToolSet(t *testing.T) {
	f := start(t)
	got := listed(t, f.cs)
	want := []string{"t__die", "t__echo", "t__fail", "t__pid", "t__rpcerr"}
	if !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	if l := ledgerListed(t, f); !slices.Equal(got, l) {
		t.Fatalf("tools/list = %v, the ledger's tool set maps to %v", got, l)
	}
}

func TestDeniedCallIsRefusedAndRecorded(t *testing.T) {
	f := start(t)
	res, err := call(t, f.cs, "t__secret", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	txt := resultText(res)
	if !res.IsError || !strings.Contains(txt, "denied mcp__t__secret for session s1") ||
		!strings.Contains(txt, `rule permissions.deny: "mcp__t__secret", from policy.set at sequence 1`) || !strings.Contains(txt, "ledger why --call ") {
		t.Fatalf("denial = %v %q", res.IsError, txt)
	}
	if strings.Contains(txt, "the secret") {
		t.Fatal("the denied call reached the upstream")
	}
	m, _ := res.Meta[DenialMeta].(map[string]any)
	if m["decision"] != "deny" || m["code"] == "" || m["rule"] != `permissions.deny: "mcp__t__secret"` || !strings.HasPrefix(fmt.Sprint(m["why"]), "ledger why ") {
		t.Fatalf("denial meta = %v", res.Meta)
	}
	checked := records(t, f, events.ToolChecked)
	if len(checked) != 1 || !strings.Contains(string(checked[0].Data), `"tool":"mcp__t__secret"`) || !strings.Contains(string(checked[0].Decided), "deny") {
		t.Fatalf("tool.checked records = %v", checked)
	}
	// The printed why names the recorded call.
	_, callID, _ := strings.Cut(txt, "ledger why --call ")
	if callID == "" || !strings.Contains(string(checked[0].Data), `"call":"`+callID+`"`) {
		t.Errorf("the denial's why --call %q is not the recorded call: %s", callID, checked[0].Data)
	}
	if eff := starts(t, f); len(eff) != 0 {
		t.Fatalf("a denied call recorded an effect: %v", eff)
	}
}

// TestAllowedCallIsRecordedAndForwarded: an allowed call makes one record
// before it is forwarded, the check that starts its effect.
func TestAllowedCallIsRecordedAndForwarded(t *testing.T) {
	f := start(t)
	res, err := call(t, f.cs, "t__echo", map[string]any{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || resultText(res) != "echo: hi" {
		t.Fatalf("echo = %v %q", res.IsError, resultText(res))
	}
	checked := records(t, f, events.ToolChecked)
	eff := records(t, f, events.EffectStarted)
	if len(checked) != 1 || len(eff) != 0 {
		t.Fatalf("checked %d, effects %d; want 1 and 0", len(checked), len(eff))
	}
	var c events.CheckedData
	json.Unmarshal(checked[0].Data, &c)
	if c.Tool != "mcp__t__echo" || c.Call == "" || c.Turn != 1 || !c.Effect {
		t.Fatalf("check %+v, want the check that starts the call's effect", c)
	}
}

func TestRevocationSendsListChanged(t *testing.T) {
	f := start(t)
	if got := listed(t, f.cs); !slices.Contains(got, "t__echo") {
		t.Fatalf("tools/list = %v, want t__echo in it", got)
	}
	before := f.changed.Load()
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: policyDoc("mcp__t__echo")})); err != nil {
		t.Fatal(err)
	}
	// Not a wait for an event: the Watch feed delivers nothing before
	// the turn (a tools/list would read the new set at the head), so the
	// test gives a wrong early list_changed 100 ms to arrive.
	time.Sleep(100 * time.Millisecond)
	if n := f.changed.Load(); n != before {
		t.Fatalf("list_changed before the turn boundary (%d notifications)", n-before)
	}
	f.turn(t, 2)
	ledgertest.WaitFor(t, 10*time.Second, "notifications/tools/list_changed after the new turn", func() bool { return f.changed.Load() != before })
	got := listed(t, f.cs)
	if slices.Contains(got, "t__echo") {
		t.Fatalf("tools/list after the revocation = %v, still t__echo", got)
	}
	if l := ledgerListed(t, f); !slices.Equal(got, l) {
		t.Fatalf("tools/list = %v, the ledger's tool set maps to %v", got, l)
	}
	res, err := call(t, f.cs, "t__echo", map[string]any{"text": "hi"})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "denied mcp__t__echo") {
		t.Fatalf("call after the revocation = %v, %v", res, err)
	}
}

func TestUpstreamErrorsPassThrough(t *testing.T) {
	f := start(t)
	res, err := call(t, f.cs, "t__fail", nil)
	if err != nil || !res.IsError || resultText(res) != "upstream tool failed on purpose" {
		t.Fatalf("tool error = %v, %v", res, err)
	}
	_, err = call(t, f.cs, "t__rpcerr", nil)
	var werr *jsonrpc.Error
	if !errorsAs(err, &werr) || werr.Code != -32042 || werr.Message != "upstream says no" {
		t.Fatalf("JSON-RPC error = %v (%#v)", err, werr)
	}
}

func TestUpstreamCrashIsSurvived(t *testing.T) {
	f := start(t)
	res, err := call(t, f.cs, "t__pid", nil)
	if err != nil || res.IsError {
		t.Fatalf("pid = %v, %v", res, err)
	}
	pid1 := resultText(res)
	res, err = call(t, f.cs, "t__die", nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "upstream server t") {
		t.Fatalf("the call that killed the upstream = %v, %v", res, err)
	}
	// The next call restarts it (at most after the backoff).
	ledgertest.WaitFor(t, 15*time.Second, "the upstream restarted (a call of t__pid that succeeds)", func() bool {
		res, err = call(t, f.cs, "t__pid", nil)
		if err != nil {
			t.Fatal(err)
		}
		return !res.IsError
	})
	pid2 := resultText(res)
	if pid2 == pid1 {
		t.Fatalf("same upstream pid %s after the crash", pid1)
	}
	if got := listed(t, f.cs); !slices.Contains(got, "t__echo") {
		t.Fatalf("tools/list after the crash = %v", got)
	}
}

func TestUnknownSessionFailsClosed(t *testing.T) {
	f := start(t)
	cs := f.dial(t, "nobody")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "unknown_session") {
		t.Fatalf("tools/list of an unknown session: %v", err)
	}
	res, err := call(t, cs, "t__echo", map[string]any{"text": "hi"})
	if err != nil || !res.IsError || strings.Contains(resultText(res), "echo: hi") {
		t.Fatalf("call of an unknown session = %v, %v", res, err)
	}
}

func TestStartStartsTheSession(t *testing.T) {
	f := start(t)
	f.gw.opts.Start = "main"
	cs := f.dial(t, "fresh")
	got := listed(t, cs)
	if !slices.Contains(got, "t__echo") || slices.Contains(got, "t__secret") {
		t.Fatalf("tools/list of a started session = %v", got)
	}
	view, err := f.orch.Session(t.Context(), "fresh")
	if err != nil || view.Agent != "main" || len(view.Turns) != 1 {
		t.Fatalf("started session = %+v, %v", view, err)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ server, tool, cc, oc string }{
		{"fs", "read_file", "mcp__fs__read_file", "fs__read_file"},
		{"Web", "getPage", "mcp__Web__getPage", "web__getpage"},
		{"a-b", "__x", "mcp__a-b____x", "a-b____x"},
	} {
		e := Exposed(c.server, c.tool)
		if s, tl, ok := SplitExposed(e); !ok || s != c.server || tl != c.tool {
			t.Errorf("SplitExposed(%q) = %q %q %v", e, s, tl, ok)
		}
		if got := LedgerName(DialectClaudeCode, "", c.server, c.tool); got != c.cc {
			t.Errorf("claude-code %s/%s = %q, want %q", c.server, c.tool, got, c.cc)
		}
		if got := LedgerName(DialectOpenClaw, "", c.server, c.tool); got != c.oc {
			t.Errorf("openclaw %s/%s = %q, want %q", c.server, c.tool, got, c.oc)
		}
	}
	if LedgerName("other", "", "s", "t") != "" {
		t.Error("an unknown dialect has a name")
	}
}

func TestConfigRefuses(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{}`, "no servers"},
		{`{"servers": {"a__b": {"command": ["x"]}}}`, `server "a__b"`},
		{`{"servers": {"a_": {"command": ["x"]}}}`, `server "a_"`},
		{`{"servers": {"a": {}}}`, "needs a command or a url"},
		{`{"servers": {"a": {"command": ["x"], "url": "http://h/"}}}`, "both"},
		{`{"servers": {"a": {"url": "ftp://h/"}}}`, "not an http(s) URL"},
		{`{"servers": {"a": {"command": ["x"]}}, "session": {"from": "cookie"}}`, `session.from "cookie"`},
		{`{"servers": {"a": {"command": ["x"]}}, "expose": "short"}`, `expose "short"`},
		{`{"servers": {"a": {"command": ["x"]}}, "extra": 1}`, "unknown field"},
		// An openclaw policy lower-cases tool names: EV__ok and ev__ok would
		// be one ledger tool, decided and recorded as one, and run on either.
		{`{"servers": {"EV": {"command": ["x"]}, "ev": {"url": "http://h/mcp"}, "Ev": {"command": ["y"]}}}`, `servers "EV", "Ev" and "ev" differ only in case`},
	} {
		_, err := ParseConfig([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	cfg, err := ParseConfig([]byte(`{"servers": {"fs": {"command": ["x"]}, "web": {"url": "http://127.0.0.1:1/mcp"}}}`))
	if err != nil || cfg.Session.Header != DefaultHeader || !slices.Equal(cfg.names(), []string{"fs", "web"}) {
		t.Fatalf("%+v, %v", cfg, err)
	}
}

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

// TestBareNames: with expose "bare" the client sees the upstream's own
// tool names (so Claude Code, naming its entry as the server, shows
// mcp__t__echo, the ledger's own name), and calls are decided by the
// ledger's names all the same.
func TestBareNames(t *testing.T) {
	f := start(t)
	f.gateway(t, testUpstream(t, `, "expose": "bare"`), Options{})
	cs := f.dial(t, f.key)
	if got, want := listed(t, cs), []string{"die", "echo", "fail", "pid", "rpcerr"}; !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	res, err := call(t, cs, "echo", map[string]any{"text": "bare"})
	if err != nil || res.IsError || resultText(res) != "echo: bare" {
		t.Fatalf("echo = %v, %v", res, err)
	}
	res, err = call(t, cs, "secret", nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "denied mcp__t__secret") {
		t.Fatalf("secret = %v, %v", res, err)
	}
	if _, err := ParseConfig([]byte(`{"servers": {"a": {"command": ["x"]}, "b": {"command": ["y"]}}, "expose": "bare"}`)); err == nil || !strings.Contains(err.Error(), "exactly one server") {
		t.Fatalf("bare with two servers: %v", err)
	}
}

// TestSessionsAreIsolated: MCP sessions of different ledger sessions,
// used at once, each see and may call their own session's tool set only
// (a main session, and one of an agent whose tools are pid alone), while
// clients of the same ledger session share one.
func TestSessionsAreIsolated(t *testing.T) {
	f := start(t)
	doc, _ := json.Marshal(map[string]any{
		"agents":      map[string]any{"narrow": map[string]any{"description": "pid only", "tools": []string{"mcp__t__pid"}}},
		"permissions": map[string]any{"allow": []string{"mcp__t"}, "deny": []string{"mcp__t__secret"}},
	})
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: doc})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 2)
	if _, err := f.orch.Append(t.Context(), client.Start("s2", events.StartedData{Agent: "narrow"})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.orch.Append(t.Context(), client.Turn("s2", events.TurnData{Turn: 1})); err != nil {
		t.Fatal(err)
	}
	want := map[events.SessionKey][]string{"s1": {"t__die", "t__echo", "t__fail", "t__pid", "t__rpcerr"}, "s2": {"t__pid"}}
	const perSession = 4
	errs := make(chan error, 2*perSession)
	for _, key := range []events.SessionKey{"s1", "s2"} {
		for i := range perSession {
			cs := f.dial(t, key)
			go func() {
				errs <- func() error {
					ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
					defer cancel()
					res, err := cs.ListTools(ctx, nil)
					if err != nil {
						return err
					}
					var got []string
					for _, tl := range res.Tools {
						got = append(got, tl.Name)
					}
					slices.Sort(got)
					if !slices.Equal(got, want[key]) {
						return fmt.Errorf("%s: tools/list = %v, want %v", key, got, want[key])
					}
					r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t__echo", Arguments: map[string]any{"text": fmt.Sprint(key, i)}})
					if err != nil {
						return err
					}
					allowed := slices.Contains(want[key], "t__echo")
					if r.IsError == allowed || allowed && resultText(r) != fmt.Sprint("echo: ", key, i) {
						return fmt.Errorf("%s: echo = %v %q", key, r.IsError, resultText(r))
					}
					return nil
				}()
			}()
		}
	}
	for range 2 * perSession {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestUpstreamListChanged: an upstream whose tool list changes tells the
// gateway, which lists it again and tells its clients; the new tool is
// shown when the ledger allows it (grown is in the catalogue, grow is not).
func TestUpstreamListChanged(t *testing.T) {
	f := start(t)
	if got := listed(t, f.cs); slices.Contains(got, "t__grown") || slices.Contains(got, "t__grow") {
		t.Fatalf("tools/list = %v", got)
	}
	before := f.changed.Load()
	// grow is not in the catalogue: the ledger denies it. The upstream
	// is made to grow by a direct call instead.
	res, err := call(t, f.cs, "t__grow", nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "catalogue:unknown") {
		t.Fatalf("grow through the gateway = %v, %v", res, err)
	}
	u := f.gw.ups["t"]
	if _, err := u.call(t.Context(), "grow", nil); err != nil {
		t.Fatal(err)
	}
	ledgertest.WaitFor(t, 10*time.Second, "a list_changed after the upstream's", func() bool { return f.changed.Load() != before })
	if got := listed(t, f.cs); !slices.Contains(got, "t__grown") {
		t.Fatalf("tools/list after the upstream grew = %v", got)
	}
	res, err = call(t, f.cs, "t__grown", nil)
	if err != nil || res.IsError || resultText(res) != "grown" {
		t.Fatalf("grown = %v, %v", res, err)
	}
}

// TestGrantChangesReachClients: a deny grant narrows the session at its
// next turn, and revoking it widens it again at the turn after; each
// reaches the client as list_changed and shows in the next tools/list.
func TestGrantChangesReachClients(t *testing.T) {
	f := start(t)
	g := events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "deny", Rule: "mcp__t__echo"}
	step := func(ev client.Event, turn int, wantEcho bool) {
		t.Helper()
		before := f.changed.Load()
		if _, err := f.ops.Append(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		f.turn(t, turn)
		ledgertest.WaitFor(t, 10*time.Second, fmt.Sprintf("turn %d: a list_changed", turn), func() bool { return f.changed.Load() != before })
		got := listed(t, f.cs)
		if slices.Contains(got, "t__echo") != wantEcho {
			t.Fatalf("turn %d: tools/list = %v, t__echo shown %v, want %v", turn, got, !wantEcho, wantEcho)
		}
		if l := ledgerListed(t, f); !slices.Equal(got, l) {
			t.Fatalf("turn %d: tools/list = %v, the ledger's tool set maps to %v", turn, got, l)
		}
	}
	listed(t, f.cs)
	step(client.AddGrant(g), 2, false)
	step(client.RevokeGrant(g), 3, true)
	res, err := call(t, f.cs, "t__echo", map[string]any{"text": "back"})
	if err != nil || res.IsError || resultText(res) != "echo: back" {
		t.Fatalf("echo after the revocation = %v, %v", res, err)
	}
}

// TestAskIsRefused: a call the policy would ask about (claude-code) is
// refused, since the gateway cannot ask anyone, and says so; the tool is
// still listed (an ask tool is in the session's tool set).
func TestAskIsRefused(t *testing.T) {
	f := start(t)
	doc, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"mcp__t"}, "ask": []string{"mcp__t__pid"}}})
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: doc})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 2)
	if got := listed(t, f.cs); !slices.Contains(got, "t__pid") {
		t.Fatalf("tools/list = %v, want t__pid in it", got)
	}
	res, err := call(t, f.cs, "t__pid", nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "asks for approval, which the gateway cannot give") {
		t.Fatalf("pid = %v %q, %v", res != nil && res.IsError, resultText(res), err)
	}
	if m, _ := res.Meta[DenialMeta].(map[string]any); m["decision"] != "ask" {
		t.Fatalf("denial meta = %v", res.Meta)
	}
	if eff := starts(t, f); len(eff) != 0 {
		t.Fatalf("an asked call recorded an effect: %v", eff)
	}
}
