package openclawplugintest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// catalogue is the policy's catalogue: the tools the scripted run uses and
// the rest of OpenClaw's core tools a main agent is offered.
var catalogue = []string{"read", "write", "edit", "apply_patch", "ls", "exec", "process", "openclaw",
	"sessions_spawn", "sessions_yield", "subagents", "agents_list", "session_status", "tool_call", "tool_describe", "tool_search"}

// TestAgentRun attaches the plugin to a real OpenClaw agent run (issue 14,
// item 4): the gateway loads it with its own plugin loader; the main agent
// spawns a sub-agent with sessions_spawn (through Tool Search's tool_call,
// as OpenClaw offers it) and yields; the sub-agent reads a file; an
// operator then denies exec to sub-agents, and the sub-agent's exec call is
// blocked inside OpenClaw with the ledger's reason, the rule, the record
// and the `ledger why` to run. The sub-agent ends, OpenClaw settles the
// main agent's yield, and the ledger holds the whole story and verifies.
func TestAgentRun(t *testing.T) {
	Require(t)
	bin, url, nc := servedLedger(t)
	ops := client.New(nc, client.Options{Actor: "ops:alice"})
	view := client.New(nc, client.Options{Owner: Owner})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The gateway's scope is configured; the operator's policy names it.
	const scope = "openclaw:e2e"
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Scope: scope,
		Document: json.RawMessage(`{"tools":{}}`), Catalogue: catalogue})); err != nil {
		t.Fatal(err)
	}

	// The operator denies exec to sub-agents just before the model answers
	// the sub-agent's second request, whose answer is the exec call.
	var denyOnce sync.Once
	var denied atomic.Uint64
	model := StartModel(t, Scripts{
		"main": {
			{{Tool: "tool_call", Args: map[string]any{"id": "sessions_spawn", "args": map[string]any{"task": "script:child: read hello.txt, then run a command", "label": "child"}}}},
			{{Tool: "sessions_yield", Args: map[string]any{}}},
		},
		"child": {
			{{Tool: "read", Args: map[string]any{"path": "hello.txt"}}},
			{{Tool: "exec", Args: map[string]any{"command": "echo ran > exec.txt"}}},
		},
	}, func(q Request) {
		if q.Script != "child" || q.Turn != 1 {
			return
		}
		denyOnce.Do(func() {
			c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r, err := ops.Append(c, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Scope: scope,
				Document: json.RawMessage(`{"tools":{"subagents":{"tools":{"deny":["exec"]}}}}`)}))
			if err != nil {
				t.Errorf("policy.set denying exec: %v", err)
			}
			denied.Store(r.Seq)
		})
	})

	port := FreePort(t)
	oc := New(t)
	oc.Write(t, Config(Settings{Model: model, GatewayPort: port, Workspace: oc.Workspace, Plugin: map[string]any{"natsUrl": url, "scope": scope}}))
	if err := os.WriteFile(filepath.Join(oc.Workspace, "hello.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gw := oc.Gateway(t, port)
	if !strings.Contains(gw.String(), "1 plugin: "+PluginID) {
		t.Errorf("the gateway did not load the plugin:\n%s", gw.Tail(3000))
	}

	const root = events.SessionKey("agent:main:e2e")
	out := oc.Agent(t, "--agent", "main", "--session-key", string(root), "--message", "script:main")
	t.Logf("openclaw agent: %.300s", out)

	// The agent command returns when the main agent yields; the sub-agent
	// runs on, and its completion wakes the main agent for a third turn.
	var tree *client.TreeNode
	var treeErr error
	settled := false
	defer func() {
		if !settled && t.Failed() {
			t.Logf("tree %+v (%v)\nmodel requests %+v\ngateway:\n%s", tree, treeErr, model.Requests(), gw.Tail(6000))
		}
	}()
	ledgertest.WaitFor(t, 90*time.Second, "the run settled (root active at turn 3 or later, its one child completed)", func() bool {
		var trees []*client.TreeNode
		if trees, treeErr = view.Tree(ctx, root); treeErr != nil || len(trees) != 1 {
			return false
		}
		tree = trees[0]
		settled = tree.State == "active" && tree.Turns >= 3 && len(tree.Children) == 1 && tree.Children[0].State == "completed"
		return settled
	})
	if u := model.Unexpected(); len(u) > 0 {
		t.Errorf("the model got requests it does not serve: %v", u)
	}

	// The lineage is OpenClaw's: one child of the main agent, spawned from
	// it, run as main, completed ok.
	child := tree.Children[0].Key
	if !strings.HasPrefix(string(child), "agent:main:subagent:") || tree.Agent != "main" || tree.Children[0].Agent != "main" {
		t.Errorf("the tree is %s (%s) -> %s (%s)", tree.Key, tree.Agent, child, tree.Children[0].Agent)
	}
	cv, err := view.Session(ctx, child)
	if err != nil {
		t.Fatal(err)
	}
	if cv.Parent != root || cv.Depth != 1 || cv.Envelope == nil || cv.Envelope.Requester != root {
		t.Errorf("the child's session: parent %q depth %d envelope %+v", cv.Parent, cv.Depth, cv.Envelope)
	}
	if tree.Turns != 3 || tree.Children[0].Turns != 3 {
		t.Errorf("turns: main %d, child %d; want 3 each (one per model call)", tree.Turns, tree.Children[0].Turns)
	}

	// Inside OpenClaw: the read ran, the exec was blocked with the ledger's
	// reason, and never ran.
	c1, ok := model.Find("child", 1)
	if r, found := c1.Result(CallID("child", 0, 0)); !ok || !found || !strings.Contains(r.Content, "hello from the workspace") {
		t.Errorf("the child's read did not run: %+v", c1.Results)
	}
	c2, ok := model.Find("child", 2)
	blocked, found := c2.Result(CallID("child", 1, 0))
	if !ok || !found {
		t.Fatalf("no tool result for the child's exec call: %+v", c2)
	}
	reason := blocked.Content
	t.Logf("the blocked call's tool result: %s", reason)
	denySeq := denied.Load()
	for _, want := range []string{"denied exec for session " + string(child), "subagent:deny", "rule tools.subagents.tools.deny",
		fmt.Sprintf("from policy.set at sequence %d", denySeq), "ledger why --nats " + url} {
		if !strings.Contains(reason, want) {
			t.Errorf("the blocked call's result does not say %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(oc.Workspace, "exec.txt")); !os.IsNotExist(err) {
		t.Errorf("exec.txt exists (err %v): the denied command ran", err)
	}

	// The printed 'ledger why' explains the decision at the check.
	i := strings.Index(reason, "ledger why ")
	why := ledgertest.ShellWords(reason[i:])
	explained := ledgertest.LedgerCmd(t, bin, append(why[1:], "--data", t.TempDir(), "--color", "never")...)
	for _, want := range []string{"deny", "subagent:deny", "exec", "policy.set"} {
		if !strings.Contains(explained, want) {
			t.Errorf("%s says no %q:\n%s", strings.Join(why, " "), want, explained)
		}
	}

	// The log: what each hook appended, in OpenClaw's order.
	type entry struct {
		typ  events.Type
		tool string
	}
	var log []entry
	count := map[events.Type]int{}
	var started []events.StartedData
	for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())), "\n") {
		var r events.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		count[r.Type]++
		if r.Type == events.SessionStarted {
			var d events.StartedData
			if err := json.Unmarshal(r.Data, &d); err != nil {
				t.Fatal(err)
			}
			started = append(started, d)
		}
		if r.Type == events.ToolChecked || r.Type == events.EffectStarted {
			var d struct {
				Tool   string `json:"tool"`
				Effect bool   `json:"effect"`
			}
			var dec struct {
				Decision string `json:"decision"`
			}
			_ = json.Unmarshal(r.Data, &d)
			_ = json.Unmarshal(r.Decided, &dec)
			log = append(log, entry{r.Type, string(r.Session) + " " + d.Tool})
			if r.Type == events.EffectStarted || d.Effect && dec.Decision == "allow" {
				// A call's effect started, in either form (docs/records.md).
				log = append(log, entry{"started", string(r.Session) + " " + d.Tool})
			}
		}
	}
	want := map[events.Type]int{events.PolicySet: 2, events.SessionStarted: 1, events.SessionSpawned: 1, events.TurnStarted: 6,
		events.SessionYielded: 1, events.SessionResumed: 1, events.SessionCompleted: 1}
	for typ, n := range want {
		if count[typ] != n {
			t.Errorf("the log holds %d %s, want %d (all: %v)", count[typ], typ, n, count)
		}
	}
	// The root's start names the configured scope and carries what the
	// plugin knows of where it runs: OpenClaw's version, the agent's
	// workspace, the OS user, the host, the model of the first call; its
	// conversation is its OpenClaw session key (issue 25).
	host, _ := os.Hostname()
	osUser := ""
	if u, err := user.Current(); err == nil {
		osUser = u.Username
	}
	wantStart := events.StartedData{Agent: "main", Provider: "scripted", Model: "m1", Scope: scope, Runtime: "openclaw",
		RuntimeVersion: Version(t), Project: oc.Workspace, User: osUser, Host: host, Conversation: string(root),
		PluginTools: json.RawMessage(`{}`)} // plugins.allow names this plugin only, which owns no tool
	if len(started) != 1 || !reflect.DeepEqual(started[0], wantStart) {
		t.Errorf("session.started data %+v, want [%+v]", started, wantStart)
	}
	checked := map[string]bool{}
	for _, e := range log {
		checked[string(e.typ)+" "+e.tool] = true
	}
	for _, k := range []string{
		"tool.checked " + string(root) + " tool_call", "started " + string(root) + " tool_call",
		"tool.checked " + string(root) + " sessions_spawn", "started " + string(root) + " sessions_spawn",
		"tool.checked " + string(root) + " sessions_yield", "started " + string(root) + " sessions_yield",
		"tool.checked " + string(child) + " read", "started " + string(child) + " read",
		"tool.checked " + string(child) + " exec",
	} {
		if !checked[k] {
			t.Errorf("the log has no %s", k)
		}
	}
	if count[events.EffectStarted] != 0 {
		// before_tool_call makes one record a call: the check that starts it.
		t.Errorf("the log holds %d tool.effect_started, want none: each call's check starts its effect", count[events.EffectStarted])
	}
	if checked["started "+string(child)+" exec"] {
		t.Errorf("the denied exec has an effect record")
	}
	// The main agent's third turn ran under the settled batch of its yield.
	rv, err := view.Session(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if rv.Context.Source != "settle_batch" {
		t.Errorf("the main agent's context after the resume: %+v", rv.Context)
	}

	if out := ledgertest.LedgerCmd(t, bin, "verify", "--nats", url, "--data", t.TempDir()); !strings.Contains(out, "no drift") {
		t.Errorf("ledger verify: %s", out)
	}

	// Loopback only: a name lookup is OpenClaw reaching past loopback (the
	// build machines resolve no outside names, so it shows as ENOTFOUND).
	logs, err := os.ReadFile(filepath.Join(oc.Dir, "openclaw.log"))
	if err != nil || len(logs) == 0 {
		t.Errorf("OpenClaw's log file: %d bytes, %v", len(logs), err)
	}
	for _, s := range []string{gw.String(), string(logs)} {
		if i := strings.Index(s, "getaddrinfo"); i >= 0 {
			t.Errorf("OpenClaw looked up a name: %.300s", s[max(0, i-150):])
		}
	}
}
