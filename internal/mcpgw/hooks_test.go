package mcpgw

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookcmd"
	"github.com/sessionledger/ledger/internal/claudecodetest"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// hookEnv makes the test binary the Claude Code hook command: it runs
// hookcmd.Run, which is 'ledger hook claude-code --nats' with its flags,
// on the payload on standard input (TestMain).
const hookEnv = "MCPGW_TEST_HOOK"

// runTestHook is one hook run, exiting as 'ledger hook claude-code' does.
func runTestHook() {
	err := hookcmd.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledger:", err)
		code := 1
		if ee, ok := err.(*hookcmd.ExitError); ok {
			code = ee.Code
		}
		os.Exit(code)
	}
	os.Exit(0)
}

// newUUID is a random version 4 UUID, as claude --session-id takes.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// TestClaudeCodeCLIWithHooks: one run of the real Claude Code CLI with
// both the ledger's hooks (the block 'ledger hook install' writes, running
// the hook command against the ledger on loopback) and --mcp-config on the
// gateway over streamable HTTP ("expose": "bare", entry "t", so both name a
// call mcp__t__T), on one session key (claude --session-id, the gateway's
// Ledger-Session header) and one owner (claude-code). The hooks start the
// session and its turns; the gateway, without Start, joins it and serves
// the CLI's first tools/list. An allowed MCP call is recorded as one call:
// the hook's tool.checked and tool.effect_started at PreToolUse and the
// gateway's tool.checked at forwarding, all under Claude Code's tool_use
// id, and no second effect. A call an operator's grant denies mid-turn (the
// turn's listed set still shows it) is refused by the hook with the
// ledger's reason and never reaches the gateway or the upstream; the
// gateway refuses the same tool with the same reason, rule and record.
func TestClaudeCodeCLIWithHooks(t *testing.T) {
	claudecodetest.CLI(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const owner = hookcmd.DefaultOwner
	l := apitest.Start(t, apitest.Options{Listen: true})
	id := newUUID()
	f := &fixture{l: l, key: events.SessionKey(id), ops: client.New(l.Connect(), client.Options{}),
		orch: client.New(l.Connect(), client.Options{Owner: owner})}
	// No Start: the hooks start the session; the gateway only joins it.
	f.gateway(t, testUpstream(t, `, "expose": "bare"`), Options{Ledger: client.New(l.Connect(), client.Options{Owner: owner})})
	addr := ledgertest.ServeHTTP(t, f.gw.Handler(""))
	mcpCfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{
		"type": "http", "url": "http://" + addr + "/mcp", "headers": map[string]string{DefaultHeader: id}}}})

	// The hook's catalogue: the pinned release's built-in tools and the
	// test upstream's, as the claude-code dialect names them.
	cat, _ := claudecode.Catalogue(claudecode.LatestRelease)
	cat = append(slices.Clone(cat), "mcp__t__echo", "mcp__t__pid", "mcp__t__fail", "mcp__t__rpcerr", "mcp__t__die", "mcp__t__secret", "mcp__t__grow", "mcp__t__grown")
	catFile := filepath.Join(t.TempDir(), "catalogue.json")
	b, _ := json.Marshal(cat)
	if err := os.WriteFile(catFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The hooks put the session in a scope of their own (the project's,
	// here named): the operator's grant below is in it.
	const scope = "claude-code:mcpgw-hooks"
	hookCmd := hookEnv + "=1 " + shellquote.Join(exe, "--nats", l.NS.ClientURL(), "--catalogue", catFile, "--scope", scope)

	var granted atomic.Uint64
	res := claudecodetest.Run(t.Context(), t, claudecodetest.Case{
		Name:     "mcp gateway with hooks",
		Settings: claudecodetest.Settings{Allow: []string{"mcp__t"}},
		Scripts: claudecodetest.Scripts{"main": {
			{{Tool: "mcp__t__echo", Input: map[string]any{"text": "hooked"}, ID: "toolu_hk_echo"}},
			{{Tool: "mcp__t__pid", Input: map[string]any{}, ID: "toolu_hk_pid"}},
		}},
		Args:    []string{"--mcp-config", string(mcpCfg), "--strict-mcp-config", "--session-id", id},
		Timeout: 150 * time.Second,
		Setup: func(dir, home string) {
			// What 'ledger hook install --project DIR --command CMD' writes.
			out, _, err := cchook.Install(nil, cchook.CommandBlock(hookCmd, 10))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), out, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		// The operator denies pid before the model answers its second
		// request: turn 2 (started by the hook's PostToolBatch) was
		// resolved before the grant, so its listed set, and Claude Code's
		// pool, still show pid; the check at the head denies it.
		BeforeAnswer: func(q claudecodetest.Request) {
			if q.Script != "main" || q.Turn != 1 || granted.Load() != 0 {
				return
			}
			r, err := f.ops.Append(t.Context(), client.AddGrant(events.GrantData{Scope: scope, Kind: "permission", Agent: "*", Target: "*", Behavior: "deny", Rule: "mcp__t__pid"}))
			if err != nil {
				t.Error(err)
			}
			granted.Store(r.Seq)
		},
	})
	var out struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(res.Output, &out) != nil || out.SessionID != id || len(res.Requests) < 2 || granted.Load() == 0 {
		t.Fatalf("session %q (want %s), %d requests, grant at %d (stderr: %s)", out.SessionID, id, len(res.Requests), granted.Load(), res.Stderr)
	}

	// The hooks started the session (as the owner both share) and its
	// turns: the prompt's, and one per tool batch.
	view, err := f.orch.Session(t.Context(), f.key)
	if err != nil {
		t.Fatal(err)
	}
	started := records(t, f, events.SessionStarted)
	if len(started) != 1 || started[0].ID != cchook.StartEvent(f.key, "").ID || started[0].Actor != owner || len(view.Turns) != 3 {
		t.Fatalf("session.started %+v, %d turns; want the hook's start and 3 turns", started, len(view.Turns))
	}
	// The gateway served the CLI's first tools/list on the session the
	// hooks started: its MCP tools are exactly the ledger's.
	var pool, want []string
	for _, n := range append(slices.Clone(res.Requests[0].Tools), res.Requests[0].Deferred...) {
		if strings.HasPrefix(n, "mcp__") {
			pool = append(pool, n)
		}
	}
	ts, err := f.orch.Tools(t.Context(), f.key, client.AtTurn(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ts.Tools.Allowed {
		if strings.HasPrefix(n, "mcp__t__") && n != "mcp__t__grown" { // grown: no upstream tool yet
			want = append(want, n)
		}
	}
	slices.Sort(pool)
	slices.Sort(want)
	if len(pool) == 0 || !slices.Equal(pool, want) {
		t.Fatalf("Claude Code's MCP tools at turn 1 = %v, the ledger's = %v", pool, want)
	}

	// The allowed call: one call id (Claude Code's tool_use id), two
	// checks (the hook's, which starts the call's effect as the hook sees
	// it, then the gateway's), and between them the gateway's effect,
	// prepared by the hook's check and so decided again at the head when
	// the gateway forwards the call.
	echo := res.Call("toolu_hk_echo")
	if echo == nil || echo.Result == nil || echo.Result.IsError || echo.Result.Content != "echo: hooked" || !echo.PreToolUse {
		t.Fatalf("echo = %+v", echo)
	}
	type rec struct {
		seq                 uint64
		id, call, tool, dec string
		effect              bool
	}
	calls := func(typ events.Type) []rec {
		var out []rec
		for _, r := range records(t, f, typ) {
			var d struct {
				Call, Tool string
				Effect     bool
			}
			var dec struct{ Seq uint64 }
			if json.Unmarshal(r.Data, &d) != nil || json.Unmarshal(r.Decided, &dec) != nil {
				t.Fatalf("record %+v", r)
			}
			out = append(out, rec{dec.Seq, r.ID, d.Call, d.Tool, string(r.Decided), d.Effect})
		}
		return out
	}
	checked, effects := calls(events.ToolChecked), calls(events.EffectStarted)
	var echoChecks []rec
	for _, c := range checked {
		if c.tool == "mcp__t__echo" {
			echoChecks = append(echoChecks, c)
		}
	}
	if len(echoChecks) != 2 || len(effects) != 1 {
		t.Fatalf("echo: %d tool.checked, %d tool.effect_started in all; want 2 and 1: %+v %+v", len(echoChecks), len(effects), echoChecks, effects)
	}
	g := effects[0]
	if !echoChecks[0].effect || echoChecks[1].effect ||
		g.call != "toolu_hk_echo" || g.tool != "mcp__t__echo" ||
		echoChecks[0].call != "toolu_hk_echo" || echoChecks[1].call != "toolu_hk_echo" ||
		!(echoChecks[0].seq < g.seq && g.seq < echoChecks[1].seq) {
		t.Fatalf("echo's records: checks %+v, effect %+v", echoChecks, g)
	}

	// The denied call: refused by the hook with the ledger's reason,
	// recorded once (its check), never forwarded.
	pid := res.Call("toolu_hk_pid")
	if pid == nil || pid.Result == nil || !pid.Result.IsError || pid.PostToolUse ||
		!strings.Contains(pid.Result.Content, "PreToolUse:mcp__t__pid hook error: The session policy ledger denied mcp__t__pid for session "+id+": permission:deny") ||
		!strings.Contains(pid.Result.Content, fmt.Sprintf("from grant.added at sequence %d", granted.Load())) {
		t.Fatalf("pid = %+v", pid)
	}
	var pidChecks []rec
	for _, c := range checked {
		if c.tool == "mcp__t__pid" {
			pidChecks = append(pidChecks, c)
		}
	}
	if len(pidChecks) != 1 || pidChecks[0].call != "toolu_hk_pid" || !strings.Contains(pidChecks[0].dec, `"decision":"deny"`) {
		t.Fatalf("pid's checks: %+v", pidChecks)
	}
	// The gateway decides the same tool the same way: its refusal names
	// the same reason code, rule and record. Claude Code's SessionEnd
	// ended the session when the CLI exited; it is reopened first, as a
	// --resume would (an ended session takes no check).
	if v, err := f.orch.Session(t.Context(), f.key); err != nil || v.State != envelope.Ended {
		t.Fatalf("after the CLI exited the session is %q (%v), want ended", v.State, err)
	}
	if _, err := f.orch.Append(t.Context(), client.Reopen(f.key, "resume")); err != nil {
		t.Fatal(err)
	}
	cs := f.dial(t, f.key)
	gw, err := call(t, cs, "pid", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	dm, _ := gw.Meta[DenialMeta].(map[string]any)
	rule, _ := dm["rule"].(string)
	record, _ := dm["record"].(map[string]any)
	seq, _ := record["seq"].(float64)
	if !gw.IsError || dm["code"] != "permission:deny" || rule != `permissions.deny: "mcp__t__pid"` || uint64(seq) != granted.Load() ||
		!strings.Contains(pid.Result.Content, "(rule "+rule+", from grant.added") {
		t.Fatalf("the gateway's refusal of pid: %v %q %v", gw.IsError, resultText(gw), gw.Meta)
	}
}

// TestToolUseIDIsAdoptedOnce: a call whose _meta names a tool_use id
// (ToolUseMeta) that the hook checked for the same tool is recorded under
// it, with an effect of its own prepared by the hook's check; a second
// call naming the same id, a call naming an id that cannot be one, and one
// naming an id no hook checked get fresh call ids, and each one record of
// its own (the check that starts its effect).
func TestToolUseIDIsAdoptedOnce(t *testing.T) {
	f := start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	hook, err := f.orch.CheckAndRecord(ctx, f.key, "mcp__t__echo", "toolu_once")
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"toolu_once", "toolu_once", "not an id", "toolu_unchecked"}
	for _, id := range ids {
		res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{ToolUseMeta: id}, Name: "t__echo", Arguments: map[string]any{"text": "x"}})
		if err != nil || res.IsError {
			t.Fatalf("echo with tool_use id %q: %v %q", id, err, resultText(res))
		}
	}
	checked, effects := records(t, f, events.ToolChecked), records(t, f, events.EffectStarted)
	n := len(ids)
	if len(checked) != n+1 || len(effects) != 1 {
		t.Fatalf("%d tool.checked, %d tool.effect_started; want %d (the hook's and one a call) and 1 (the adopted call's)", len(checked), len(effects), n+1)
	}
	calls := map[string]bool{}
	for i := range n {
		var c events.CheckedData
		if json.Unmarshal(checked[i+1].Data, &c) != nil || c.Effect != (i > 0) {
			t.Fatalf("call %d: check %s; want the adopted call's check without effect, every other one with", i, checked[i+1].Data)
		}
		calls[c.Call] = true
	}
	var first events.EffectData
	var decided struct {
		Prepared uint64 `json:"prepared_at"`
	}
	_ = json.Unmarshal(effects[0].Data, &first)
	_ = json.Unmarshal(effects[0].Decided, &decided)
	if first.Call != "toolu_once" || decided.Prepared != hook.Recorded || len(calls) != n || calls["toolu_unchecked"] {
		t.Fatalf("call ids %v; the first effect %s, want it prepared by the hook's check at %d", calls, effects[0].Data, hook.Recorded)
	}
}

// TestAdoptedIDDoesNotBorrowAnEffect: a call naming the tool_use id of a
// call the hook allowed and started (here in the two-record form: its
// tool.checked and its tool.effect_started, cchook.EffectEvent) for
// another tool does not ride on that call's effect: the tool the gateway
// forwards gets a start of its own, for its own tool, the gateway's check
// that starts it, decided at the head. A call that
// names the hook's id for the same tool is one call: its records all name
// that id and that tool.
func TestAdoptedIDDoesNotBorrowAnEffect(t *testing.T) {
	f := start(t)
	ctx := t.Context()
	hook := func(tool, id string) {
		t.Helper()
		chk, err := f.orch.CheckAndRecord(ctx, f.key, tool, id)
		if err != nil || chk.Decision != envelope.Allow {
			t.Fatalf("the hook's check of %s: %+v, %v", tool, chk, err)
		}
		if _, err := f.orch.Append(ctx, cchook.EffectEvent(f.key, 1, tool, id, chk.Recorded)); err != nil {
			t.Fatal(err)
		}
	}
	hook("mcp__t__echo", "toolu_hooked_echo")
	hook("mcp__t__pid", "toolu_hooked_pid")
	for _, c := range []struct{ name, id string }{{"t__pid", "toolu_hooked_echo"}, {"t__pid", "toolu_hooked_pid"}} {
		res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{ToolUseMeta: c.id}, Name: c.name, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s naming %s: %v %q", c.name, c.id, err, resultText(res))
		}
	}
	// Every check and effect, by sequence.
	type rec struct {
		seq        uint64
		typ        events.Type
		tool, call string
		prepared   uint64
		effect     bool // a check that starts the call's effect
	}
	var recs []rec
	for _, typ := range []events.Type{events.ToolChecked, events.EffectStarted} {
		for _, r := range records(t, f, typ) {
			var d struct {
				Tool, Call string
				Prepared   uint64 `json:"prepared_at"`
				Effect     bool
			}
			var dec struct {
				Seq      uint64
				Prepared uint64 `json:"prepared_at"`
			}
			if json.Unmarshal(r.Data, &d) != nil || json.Unmarshal(r.Decided, &dec) != nil {
				t.Fatalf("record %+v", r)
			}
			recs = append(recs, rec{dec.Seq, typ, d.Tool, d.Call, dec.Prepared, d.Effect})
		}
	}
	bySeq := map[uint64]rec{}
	for _, r := range recs {
		bySeq[r.seq] = r
	}
	// pid ran twice: each time after an effect of pid prepared by a check
	// of pid under the same call id, or started by its own check.
	var pidEffects []rec
	for _, r := range recs {
		if r.effect && r.tool == "mcp__t__pid" {
			pidEffects = append(pidEffects, r)
		}
		if r.typ != events.EffectStarted {
			continue
		}
		prep, ok := bySeq[r.prepared]
		if !ok || prep.typ != events.ToolChecked || prep.tool != r.tool || prep.call != r.call {
			t.Errorf("effect %+v is prepared by %+v", r, prep)
		}
		if r.tool == "mcp__t__pid" {
			pidEffects = append(pidEffects, r)
		}
	}
	var echoCalls int
	for _, r := range recs {
		if r.call == "toolu_hooked_echo" && r.tool != "mcp__t__echo" {
			echoCalls++
		}
	}
	if echoCalls > 0 {
		t.Errorf("%d records of another tool than echo under the hook's echo call id: %+v", echoCalls, recs)
	}
	calls := map[string]bool{}
	for _, e := range pidEffects {
		calls[e.call] = true
	}
	if len(calls) != 2 || !calls["toolu_hooked_pid"] || calls["toolu_hooked_echo"] {
		t.Fatalf("pid's effects %+v; want one under the hook's pid call and one under a fresh id (all: %+v)", pidEffects, recs)
	}
}
