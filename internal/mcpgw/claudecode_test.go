package mcpgw

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/claudecodetest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestClaudeCodeCLI: the real Claude Code CLI (the pinned one, through
// internal/claudecodetest's harness: a scripted model on loopback) with
// --mcp-config pointing at the gateway over streamable HTTP. The MCP tools
// of its first request are exactly the ledger's tool set (as Claude Code
// names them, under its entry "ledger"); its call of echo is recorded
// and answered by the upstream; a revocation and a new turn in the middle
// of the run make the gateway send list_changed, and the CLI's next
// request no longer offers echo. Skipped without the CLI, failed under
// CI=true.
func TestClaudeCodeCLI(t *testing.T) {
	f := start(t)
	// relisted has a value once the gateway has answered a tools/list of
	// the CLI's after the revocation (the CLI's answer to list_changed).
	var revoked atomic.Bool
	relisted := make(chan struct{}, 1)
	gw := f.gw.Handler("")
	addr := ledgertest.ServeHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		after := revoked.Load()
		gw.ServeHTTP(w, r)
		if after && bytes.Contains(body, []byte(`"method":"tools/list"`)) {
			select {
			case relisted <- struct{}{}:
			default:
			}
		}
	}))
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"ledger": map[string]any{
		"type": "http", "url": "http://" + addr + "/mcp", "headers": map[string]string{DefaultHeader: string(f.key)}}}})
	const prefix = "mcp__ledger__"
	mcpPool := func(q claudecodetest.Request) []string {
		var out []string
		for _, n := range append(slices.Clone(q.Tools), q.Deferred...) {
			if rest, ok := strings.CutPrefix(n, prefix); ok {
				out = append(out, rest)
			}
		}
		slices.Sort(out)
		return out
	}
	res := claudecodetest.Run(t.Context(), t, claudecodetest.Case{
		Name:     "mcp gateway",
		Settings: claudecodetest.Settings{Allow: []string{"mcp__ledger"}},
		Scripts: claudecodetest.Scripts{"main": {
			{{Tool: prefix + "t__echo", Input: map[string]any{"text": "via claude"}, ID: "toolu_gw_echo"}},
			{{Tool: prefix + "t__pid", Input: map[string]any{}, ID: "toolu_gw_pid"}},
			{{Tool: prefix + "t__echo", Input: map[string]any{"text": "again"}, ID: "toolu_gw_echo2"}},
		}},
		Args:    []string{"--mcp-config", string(cfg), "--strict-mcp-config"},
		Timeout: 120 * time.Second,
		BeforeAnswer: func(q claudecodetest.Request) {
			if q.Script != "main" || q.Turn != 1 || revoked.Load() {
				return
			}
			revoked.Store(true)
			if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: policyDoc("mcp__t__echo")})); err != nil {
				t.Error(err)
			}
			if _, err := f.orch.Append(t.Context(), client.Turn(f.key, events.TurnData{Turn: 2})); err != nil {
				t.Error(err)
			}
			// The notification reaches the CLI and its new tools/list is
			// answered before it builds its next request.
			select {
			case <-relisted:
			case <-time.After(30 * time.Second):
				t.Error("the CLI did not list the gateway's tools again within 30s of the revocation and turn 2")
			}
		},
	})
	if len(res.Requests) < 4 {
		t.Fatalf("%d requests to the model; want 4 (stderr: %s)", len(res.Requests), res.Stderr)
	}
	first := mcpPool(res.Requests[0])
	want := []string{"t__die", "t__echo", "t__fail", "t__pid", "t__rpcerr"}
	if !slices.Equal(first, want) {
		t.Fatalf("Claude Code's MCP tools at turn 1 = %v, want the ledger's %v", first, want)
	}
	echo := res.Call("toolu_gw_echo")
	if echo == nil || echo.Result == nil || echo.Result.IsError || !strings.Contains(echo.Result.Content, "echo: via claude") {
		t.Fatalf("echo through the gateway = %+v", echo)
	}
	checked := records(t, f, events.ToolChecked)
	if len(checked) == 0 || !strings.Contains(string(checked[0].Data), `"tool":"mcp__t__echo"`) || len(starts(t, f)) == 0 {
		t.Fatalf("the CLI's call is not recorded: %v", checked)
	}
	// Claude Code defers MCP tools (announced in the system text) and
	// tells the model of a deferred tool that went away in a later system
	// message: that is how the list_changed shows.
	if len(res.Requests) < 3 {
		t.Fatalf("%d requests", len(res.Requests))
	}
	q := res.Requests[2]
	last := mcpPool(q)
	for _, gone := range noLongerAvailable(q.Raw) {
		last = slices.DeleteFunc(last, func(n string) bool { return prefix+n == gone })
	}
	if !slices.Equal(last, []string{"t__die", "t__fail", "t__pid", "t__rpcerr"}) {
		t.Fatalf("Claude Code's MCP tools after the revocation and turn 2 = %v, want the ledger's without t__echo", last)
	}
	again := res.Call("toolu_gw_echo2")
	if again == nil || again.Result == nil || !again.Result.IsError || strings.Contains(again.Result.Content, "echo: again") {
		t.Fatalf("echo after the revocation = %+v", again)
	}
}

// noLongerAvailable reads the tools a Claude Code request's text says are
// no longer available (a deferred tool that went away mid-run): the lines
// after that sentence, up to a blank one, in any string of the request.
func noLongerAvailable(raw []byte) []string {
	const head = "The following deferred tools are no longer available"
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			for rest := v; ; {
				_, after, ok := strings.Cut(rest, head)
				if !ok {
					return
				}
				_, lines, _ := strings.Cut(after, "\n")
				for _, line := range strings.Split(lines, "\n") {
					if line == "" {
						break
					}
					out = append(out, line)
				}
				rest = after
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// TestClaudeCodeCLIBareNames: with "expose": "bare" and the Claude Code
// entry named as the upstream server ("t"), the names Claude Code shows
// its model, and reports to its hooks, are the ledger's own: its MCP
// tools are exactly the ledger's allowed tools of that server, no mapping
// applied, and the PreToolUse hook names the call as the ledger recorded
// it.
func TestClaudeCodeCLIBareNames(t *testing.T) {
	f := start(t)
	f.gateway(t, testUpstream(t, `, "expose": "bare"`), Options{})
	addr := ledgertest.ServeHTTP(t, f.gw.Handler(f.key))
	mcpCfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{"type": "http", "url": "http://" + addr + "/mcp"}}})
	res := claudecodetest.Run(t.Context(), t, claudecodetest.Case{
		Name:     "mcp gateway bare",
		Settings: claudecodetest.Settings{Allow: []string{"mcp__t"}},
		Scripts:  claudecodetest.Scripts{"main": {{{Tool: "mcp__t__echo", Input: map[string]any{"text": "bare"}, ID: "toolu_gw_bare"}}}},
		Args:     []string{"--mcp-config", string(mcpCfg), "--strict-mcp-config"},
		Timeout:  120 * time.Second,
	})
	if len(res.Requests) == 0 {
		t.Fatalf("no request to the model (stderr: %s)", res.Stderr)
	}
	var pool []string
	for _, n := range append(slices.Clone(res.Requests[0].Tools), res.Requests[0].Deferred...) {
		if strings.HasPrefix(n, "mcp__") {
			pool = append(pool, n)
		}
	}
	slices.Sort(pool)
	ts, err := f.orch.Tools(t.Context(), f.key)
	if err != nil {
		t.Fatal(err)
	}
	upstream := map[string]bool{"mcp__t__echo": true, "mcp__t__pid": true, "mcp__t__fail": true, "mcp__t__rpcerr": true, "mcp__t__die": true, "mcp__t__secret": true, "mcp__t__grow": true}
	var want []string
	for _, n := range ts.Tools.Allowed {
		if upstream[n] {
			want = append(want, n)
		}
	}
	slices.Sort(want)
	if !slices.Equal(pool, want) || len(pool) == 0 {
		t.Fatalf("Claude Code's MCP tools = %v, the ledger's = %v", pool, want)
	}
	c := res.Call("toolu_gw_bare")
	if c == nil || c.Result == nil || c.Result.IsError || !strings.Contains(c.Result.Content, "echo: bare") || !c.PreToolUse {
		t.Fatalf("echo = %+v", c)
	}
	hooked := ""
	for _, h := range res.Hooks {
		if h["hook_event_name"] == "PreToolUse" && h["tool_use_id"] == "toolu_gw_bare" {
			hooked, _ = h["tool_name"].(string)
		}
	}
	checked := records(t, f, events.ToolChecked)
	var d events.CheckedData
	if len(checked) != 1 || json.Unmarshal(checked[0].Data, &d) != nil || d.Tool != hooked || hooked != "mcp__t__echo" {
		t.Fatalf("the hook saw %q, the ledger recorded %+v", hooked, checked)
	}
}
