package openclawplugintest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// Step is one hook fired through OpenClaw's hook runner.
type Step struct {
	Hook  string         `json:"hook"`
	Event map[string]any `json:"event"`
	Ctx   map[string]any `json:"ctx"`
}

// Answer is what the runner returned for one step.
type Answer struct {
	Hook   string `json:"hook"`
	Result *struct {
		Block       *bool   `json:"block"`
		BlockReason *string `json:"blockReason"`
		// The load step's fields.
		Status string   `json:"status"`
		Error  *string  `json:"error"`
		Hooks  []string `json:"hooks"`
	} `json:"result"`
	Error string `json:"error"`
}

// Blocked reports whether a before_tool_call answer blocks the call, and
// why.
func (a Answer) Blocked() (bool, string) {
	if a.Result == nil || a.Result.Block == nil || !*a.Result.Block {
		return false, ""
	}
	if a.Result.BlockReason == nil {
		return true, ""
	}
	return true, *a.Result.BlockReason
}

// RunHooks loads the plugin with plugin as its config into OpenClaw's
// plugin runtime and fires steps through OpenClaw's hook runner
// (hookrunner.mjs). The first answer is the plugin's load; then one per
// step.
func RunHooks(t testing.TB, plugin map[string]any, steps []Step) []Answer {
	t.Helper()
	return RunHooksIn(t, New(t), plugin, steps)
}

// RunHooksIn is RunHooks in the OpenClaw installation oc (its environment:
// OPENCLAW_CONFIG_PATH in oc's directory, so the plugin's default scope is
// DefaultScope(oc)).
func RunHooksIn(t testing.TB, oc *OpenClaw, plugin map[string]any, steps []Step) []Answer {
	t.Helper()
	return RunHooksWith(t, oc, plugin, nil, steps)
}

// RunHooksWith is RunHooksIn with the bundled plugins also loaded and
// enabled beside the plugin (their ids, e.g. "browser").
func RunHooksWith(t testing.TB, oc *OpenClaw, plugin map[string]any, also []string, steps []Step) []Answer {
	t.Helper()
	cfg := map[string]any{"natsModule": NATSModule()}
	for k, v := range plugin {
		cfg[k] = v
	}
	in, err := json.Marshal(map[string]any{"plugin": cfg, "workspace": oc.Workspace, "also": also, "steps": steps})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(oc.Dir, "answers.jsonl")
	_, logs := oc.Script(t, in, filepath.Join(Root(), "internal", "openclawplugintest", "hookrunner.mjs"), file)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var answers []Answer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		var a Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("hookrunner answer %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(steps)+1 {
		t.Fatalf("hookrunner gave %d answers for %d steps\n%s", len(answers), len(steps), logs)
	}
	load := answers[0].Result
	if load == nil || load.Status != "loaded" || !slices.Contains(load.Hooks, "before_tool_call") {
		t.Fatalf("OpenClaw did not load the plugin: %+v\n%s", load, logs)
	}
	for i, a := range answers[1:] {
		if a.Error != "" {
			t.Errorf("step %d (%s): %s", i, a.Hook, a.Error)
		}
	}
	if t.Failed() {
		t.Logf("OpenClaw's output:\n%s", logs)
	}
	return answers[1:]
}

func tool(name, call, key string) Step {
	return Step{Hook: "before_tool_call",
		Event: map[string]any{"toolName": name, "params": map[string]any{}, "toolCallId": call, "runId": "run-" + key},
		Ctx:   map[string]any{"toolName": name, "agentId": "main", "sessionKey": key, "toolCallId": call, "runId": "run-" + key}}
}

func modelCall(key, call string) Step {
	ev := map[string]any{"runId": "run-" + key, "callId": call, "sessionKey": key, "sessionId": "sid-" + key,
		"provider": "scripted", "model": "m1", "api": "openai-completions", "transport": "auto"}
	return Step{Hook: "model_call_started", Event: ev, Ctx: map[string]any{"runId": "run-" + key, "sessionKey": key,
		"sessionId": "sid-" + key, "modelProviderId": "scripted", "modelId": "m1"}}
}

func spawned(parent, child, label string) Step {
	return Step{Hook: "subagent_spawned",
		Event: map[string]any{"runId": "run-" + child, "childSessionKey": child, "agentId": "main", "label": label,
			"requester": map[string]any{}, "threadRequested": false, "mode": "run"},
		Ctx: map[string]any{"runId": "run-" + child, "childSessionKey": child, "requesterSessionKey": parent}}
}

func ended(parent, child, outcome string) Step {
	return Step{Hook: "subagent_ended",
		Event: map[string]any{"targetSessionKey": child, "targetKind": "subagent", "reason": "subagent-complete",
			"sendFarewell": true, "runId": "run-" + child, "outcome": outcome},
		Ctx: map[string]any{"runId": "run-" + child, "childSessionKey": child, "requesterSessionKey": parent}}
}

// TestHookRunner fires OpenClaw's own hook runner at the plugin as
// OpenClaw's loader loaded it, for what the scripted run does not reach.
func TestHookRunner(t *testing.T) {
	Require(t)

	t.Run("unreachable ledger blocks", func(t *testing.T) {
		t.Parallel()
		port := FreePort(t)
		// timeoutMs 2000: the call's own deadline (2×(timeoutMs+25)+250 ms)
		// then leaves 2.3 s, not 0.8 s, past the connection's failure, which a
		// loaded 2-core CI machine's Node overran (DeadlineExceeded first).
		a := RunHooks(t, map[string]any{"natsUrl": fmt.Sprintf("nats://127.0.0.1:%d", port), "timeoutMs": 2000, "retries": 0},
			[]Step{tool("exec", "c1", "agent:main:main")})
		blocked, reason := a[0].Blocked()
		if !blocked || !strings.Contains(reason, "cannot be reached") || !strings.Contains(reason, "fails closed") {
			t.Errorf("an unreachable ledger answered %v %q; want a block that says it fails closed", blocked, reason)
		}
	})
	t.Run("unreachable ledger with failOpen lets the call through", func(t *testing.T) {
		t.Parallel()
		port := FreePort(t)
		a := RunHooks(t, map[string]any{"natsUrl": fmt.Sprintf("nats://127.0.0.1:%d", port), "timeoutMs": 2000, "retries": 0, "failOpen": true},
			[]Step{tool("exec", "c1", "agent:main:main")})
		if blocked, reason := a[0].Blocked(); blocked {
			t.Errorf("failOpen blocked the call: %q", reason)
		}
	})
	t.Run("a bad configuration blocks every call", func(t *testing.T) {
		t.Parallel()
		a := RunHooks(t, map[string]any{"owner": "all", "timeoutMs": 500}, []Step{tool("read", "c1", "agent:main:main")})
		blocked, reason := a[0].Blocked()
		if !blocked || !strings.Contains(reason, "misconfigured") || !strings.Contains(reason, `owner "all"`) {
			t.Errorf("a bad owner answered %v %q; want a block naming the problem", blocked, reason)
		}
	})

	t.Run("lineage", func(t *testing.T) {
		t.Parallel()
		bin, url, nc := servedLedger(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ops := client.New(nc, client.Options{})
		// No scope configured: the plugin's is derived from where the
		// gateway's openclaw.json is, and the operator's policy names it.
		oc := New(t)
		scope := DefaultScope(oc)
		if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Scope: scope,
			Document:  json.RawMessage(`{"tools":{"subagents":{"tools":{"deny":["exec"]}}},"agents":{"defaults":{"subagents":{"maxSpawnDepth":2}}}}`),
			Catalogue: catalogue})); err != nil {
			t.Fatal(err)
		}
		const (
			root     = "agent:main:hooks"
			child    = "agent:main:subagent:c1"
			grand    = "agent:main:subagent:g1"
			unplaced = "agent:main:subagent:nobody"
			badKey   = "agent:main:whatsapp:direct:+15550001"
		)
		yield := Step{Hook: "after_tool_call",
			Event: map[string]any{"toolName": "sessions_yield", "params": map[string]any{}, "toolCallId": "y1", "runId": "run-" + child,
				"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"status": "yielded"}`}}, "details": map[string]any{"status": "yielded"}}},
			Ctx: map[string]any{"toolName": "sessions_yield", "agentId": "main", "sessionKey": child, "toolCallId": "y1", "runId": "run-" + child}}
		steps := []Step{
			{Hook: "session_start", Event: map[string]any{"sessionId": "sid-root", "sessionKey": root}, Ctx: map[string]any{"sessionId": "sid-root", "sessionKey": root, "agentId": "main"}},
			modelCall(root, "run-root:model:1"),
			modelCall(root, "run-root:model:1"), // delivered twice: one turn
			tool("sessions_spawn", "r1", root),  // 3
			spawned(root, child, "c1"),
			modelCall(child, "run-c1:model:1"),
			tool("sessions_spawn", "c1a", child), // 6
			spawned(child, grand, "g1"),
			modelCall(grand, "run-g1:model:1"),
			tool("exec", "g1a", grand),     // 9: denied to sub-agents
			tool("read", "u1", unplaced),   // 10: OpenClaw never announced its spawn
			tool("read", "b1", badKey),     // 11: not a ledger key
			ended(child, grand, "timeout"), // 12
			tool("read", "g1b", grand),     // 13: completed
			yield,                          // 14
			modelCall(child, "run-c1:model:2"),
			tool("read", "c1b", child), // 16
			ended(root, child, "ok"),
			{Hook: "gateway_stop", Event: map[string]any{}, Ctx: map[string]any{}},
		}
		// Every call's check tells the ledger how long the plugin waits
		// for it (within_ms: the attempt's timeoutMs).
		var withinMu sync.Mutex
		var within []int64
		wsub, err := nc.Subscribe("ledger.v1.check.>", func(m *nats.Msg) {
			var q struct {
				Effect   bool  `json:"effect"`
				WithinMS int64 `json:"within_ms"`
			}
			if json.Unmarshal(m.Data, &q) == nil && q.Effect {
				withinMu.Lock()
				within = append(within, q.WithinMS)
				withinMu.Unlock()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil { // the server holds the subscription before the hooks run
			t.Fatal(err)
		}
		a := RunHooksIn(t, oc, map[string]any{"natsUrl": url, "timeoutMs": 1000, "retries": 0, "identity": "ada@example.com"}, steps)
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		_ = wsub.Unsubscribe()
		withinMu.Lock()
		if len(within) == 0 || slices.ContainsFunc(within, func(w int64) bool { return w != 1000 }) {
			t.Errorf("the calls' checks carried within_ms %v, want 1000 (timeoutMs) on each", within)
		}
		withinMu.Unlock()
		for _, i := range []int{3, 6, 16} {
			if blocked, reason := a[i].Blocked(); blocked {
				t.Errorf("step %d (%v) was blocked: %s", i, steps[i].Event["toolName"], reason)
			}
		}
		for i, want := range map[int][]string{
			9:  {"denied exec for session " + grand, "subagent:deny", "ledger why --nats " + url + " --call g1a"},
			10: {"could not decide read for session " + unplaced, "unknown_parent", "subagent_spawned"},
			11: {"bad_session_key", "never rewrites keys"},
			13: {"could not decide read for session " + grand, "session_not_active"},
		} {
			blocked, reason := a[i].Blocked()
			t.Logf("step %d: %s", i, reason)
			if !blocked {
				t.Errorf("step %d (%v of %v) was not blocked", i, steps[i].Event["toolName"], steps[i].Ctx["sessionKey"])
				continue
			}
			for _, w := range want {
				if !strings.Contains(reason, w) {
					t.Errorf("step %d's reason does not say %q: %s", i, w, reason)
				}
			}
		}

		view := client.New(nc, client.Options{Owner: Owner})
		trees, err := view.Tree(ctx, root)
		if err != nil || len(trees) != 1 {
			t.Fatalf("tree: %v %v", trees, err)
		}
		got := fmt.Sprint(describe(trees[0]))
		want := fmt.Sprint([]string{root + " active 1", child + " completed 2", grand + " completed 1"})
		if got != want {
			t.Errorf("the tree is %s, want %s", got, want)
		}
		cv, err := view.Session(ctx, child)
		if err != nil {
			t.Fatal(err)
		}
		if cv.Parent != root || cv.Context.Source != "settle_batch" {
			t.Errorf("the child: parent %q, context %+v; want %q and settle_batch after its yield", cv.Parent, cv.Context, root)
		}
		if _, err := view.Session(ctx, unplaced); events.CodeOf(err) != events.CodeUnknownSession {
			t.Errorf("the unplaced sub-agent is in the ledger: %v", err)
		}
		statuses := map[string]string{}
		var started []events.StartedData
		for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())), "\n") {
			var r events.Record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			switch r.Type {
			case events.SessionCompleted:
				var d events.CompletedData
				_ = json.Unmarshal(r.Data, &d)
				statuses[string(r.Session)] = d.Status
			case events.SessionStarted:
				var d events.StartedData
				if err := json.Unmarshal(r.Data, &d); err != nil {
					t.Fatal(err)
				}
				started = append(started, d)
			}
		}
		// The root's start: the derived scope, and the identity OpenClaw's
		// runtime and the configuration give (no workspace configured:
		// OpenClaw's default one, under the state directory).
		host, _ := os.Hostname()
		// Its conversation is OpenClaw's own key (issue 25).
		wantStart := events.StartedData{Agent: "main", Provider: "scripted", Model: "m1", Scope: scope, Runtime: "openclaw",
			RuntimeVersion: Version(t), Project: filepath.Join(oc.Dir, "state", "workspace"), User: "ada@example.com", Host: host,
			Conversation: root, PluginTools: json.RawMessage(`{}`)} // no plugin but this one, which owns no tool
		if len(started) != 1 || !reflect.DeepEqual(started[0], wantStart) {
			t.Errorf("session.started data %+v, want [%+v]", started, wantStart)
		}
		if statuses[grand] != "timeout" || statuses[child] != "ok" {
			t.Errorf("completion statuses %v; want the grandchild timeout, the child ok", statuses)
		}
		if out := ledgertest.LedgerCmd(t, bin, "verify", "--nats", url, "--data", t.TempDir()); !strings.Contains(out, "no drift") {
			t.Errorf("ledger verify: %s", out)
		}
	})
}

// TestHookRunnerConversations (issue 25): a root in a forum topic, a
// sender-suffixed group session and a room, through OpenClaw's hook
// runner and the plugin to a real ledger. The plugin sends each key as the
// root's conversation, and the ledger decides the group layer as OpenClaw
// 2026.9.6 does (bash tools/openclaw/run groupids.mjs): the topic's group
// before the chat's, the sender's before the chat's, no group for a room.
// Before issue 25 the plugin sent the chat (g1, 123) and the room (r1) as
// the group: read in the topic and web_fetch in the sender's session went
// through, and exec in the room was blocked.
func TestHookRunnerConversations(t *testing.T) {
	Require(t)
	bin, url, nc := servedLedger(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	oc := New(t)
	doc := `{"channels": {
		"telegram": {"groups": {"g1": {"tools": {"deny": ["exec"]}}, "g1:topic:7": {"tools": {"deny": ["read"]}},
			"123": {"tools": {"deny": ["exec"]}}, "123:sender:bob": {"tools": {"deny": ["web_fetch"]}}}},
		"matrix": {"groups": {"r1": {"tools": {"deny": ["exec"]}}, "*": {"tools": {"deny": ["exec"]}}}}}}`
	if _, err := client.New(nc, client.Options{}).Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Scope: DefaultScope(oc), Document: json.RawMessage(doc), Catalogue: append(slices.Clone(catalogue), "web_fetch")})); err != nil {
		t.Fatal(err)
	}
	const (
		topic  = "agent:main:telegram:group:g1:topic:7"
		sender = "agent:main:telegram:group:123:sender:bob"
		room   = "agent:main:matrix:room:r1"
	)
	steps := []Step{
		modelCall(topic, "t:model:1"),
		tool("read", "t1", topic), // 1
		tool("exec", "t2", topic), // 2
		modelCall(sender, "s:model:1"),
		tool("web_fetch", "s1", sender), // 4
		tool("exec", "s2", sender),      // 5
		modelCall(room, "r:model:1"),
		tool("exec", "r1", room), // 7
		{Hook: "gateway_stop", Event: map[string]any{}, Ctx: map[string]any{}},
	}
	a := RunHooksIn(t, oc, map[string]any{"natsUrl": url, "timeoutMs": 1000, "retries": 0}, steps)
	for i, want := range map[int]string{1: "group:deny", 2: "", 4: "group:deny", 5: "", 7: ""} {
		blocked, reason := a[i].Blocked()
		switch {
		case want == "" && blocked:
			t.Errorf("step %d (%v of %v) was blocked: %s", i, steps[i].Event["toolName"], steps[i].Ctx["sessionKey"], reason)
		case want != "" && (!blocked || !strings.Contains(reason, want)):
			t.Errorf("step %d (%v of %v): blocked %v %q; want a block for %s", i, steps[i].Event["toolName"], steps[i].Ctx["sessionKey"], blocked, reason, want)
		}
	}
	started := map[events.SessionKey]events.StartedData{}
	for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())), "\n") {
		var r events.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == events.SessionStarted {
			var d events.StartedData
			if err := json.Unmarshal(r.Data, &d); err != nil {
				t.Fatal(err)
			}
			started[r.Session] = d
		}
	}
	for key, channel := range map[events.SessionKey]string{topic: "telegram", sender: "telegram", room: "matrix"} {
		if d := started[key]; d.Conversation != string(key) || d.Group != "" || d.Channel != channel {
			t.Errorf("%s started with %+v; want its key as the conversation, channel %s and no group", key, d, channel)
		}
	}
}

// describe lists a tree's sessions as "key state turns", root first.
func describe(n *client.TreeNode) []string {
	out := []string{fmt.Sprintf("%s %s %d", n.Key, n.State, n.Turns)}
	for _, c := range n.Children {
		out = append(out, describe(c)...)
	}
	return out
}
