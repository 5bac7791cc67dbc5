package org

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	cc "github.com/sessionledger/ledger/internal/claudecodetest"
	"github.com/sessionledger/ledger/internal/ledgertest"
	oc "github.com/sessionledger/ledger/internal/openclawplugintest"
)

// The owners the hook and the plugin record their sessions under.
const (
	ccOwner = "claude-code"
	ocOwner = oc.Owner
)

// The OpenClaw gateway's scope, configured in its plugin settings and
// named by the operator's policy.
const ocScope = "openclaw:org"

// ocRoot is the OpenClaw session the run drives (openclaw agent's
// --session-key).
const ocRoot = events.SessionKey("agent:main:org")

// The users project B's hook (--user-identity) and the OpenClaw plugin
// (its identity setting) record; project A's hook records the OS user.
const (
	bobIdentity   = "bob@example.com"
	carolIdentity = "carol@example.com"
)

// ocCatalogue is the openclaw policy's catalogue: the tools the scripted
// run uses and the rest of OpenClaw's core tools a main agent is offered
// (as internal/openclawplugintest's).
var ocCatalogue = []string{"read", "write", "edit", "apply_patch", "ls", "exec", "process", "openclaw",
	"sessions_spawn", "sessions_yield", "subagents", "agents_list", "session_status", "tool_call", "tool_describe", "tool_search"}

// revocation is one operator's deny.added and the deny.lifted that ends it.
type revocation struct {
	key               events.SessionKey // the session denied (with its sub-agents)
	added, lifted     atomic.Uint64     // their sequences
	addOnce, liftOnce sync.Once
}

// TestOrganization is issue 23's acceptance test: one served ledger, two
// Claude Code projects (two scopes of the claude-code dialect) and an
// OpenClaw gateway (a scope of the openclaw dialect), running at once, an
// operator revoking a tool for one session of each runtime and lifting the
// revocation, and the CLI showing and verifying the whole log.
func TestOrganization(t *testing.T) {
	cc.CLI(t)
	oc.Require(t)
	bin := ledgertest.BuildLedger(t)
	url := ledgertest.ServeLedger(t, bin)
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ops := client.New(nc, client.Options{Actor: "ops:alice"})
	ccView := client.New(nc, client.Options{Owner: ccOwner})
	ocView := client.New(nc, client.Options{Owner: ocOwner})
	// The auditor's view: every session of every owner.
	audit := client.New(nc, client.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	host, _ := os.Hostname()
	osUser := ""
	if u, err := user.Current(); err == nil {
		osUser = u.Username
	}

	// The operator's policy for the gateway's scope: its own dialect's
	// document, denying write.
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Scope: ocScope,
		Document: json.RawMessage(`{"tools":{"deny":["write"]}}`), Catalogue: ocCatalogue})); err != nil {
		t.Fatal(err)
	}

	// What the parts tell each other: A's Bash is revoked; B's Bash ran
	// while it was; OpenClaw's exec was blocked by its own revocation
	// while A's was in force; A's revocation is lifted (before
	// OpenClaw's: the two overlap).
	aDenied, bRan, ocBlocked, aLifted := newSignal(), newSignal(), newSignal(), newSignal()
	var aRev, ocRev revocation
	// The parts' context: cancelled when one part stops on a fatal error.
	pctx, stopParts := context.WithCancel(ctx)
	defer stopParts()
	// deny appends the deny.added of rule for rev's session and its
	// sub-agents; lift its deny.lifted. They run on the scripted models'
	// goroutines, so they report with Errorf.
	deny := func(t testing.TB, scope, rule string, rev *revocation) {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		r, err := ops.Append(c, client.Deny(events.DenyData{Scope: scope, Rule: rule, Session: rev.key, Subtree: true,
			Note: "org: " + rule + " revoked"}))
		if err != nil {
			t.Errorf("deny.added %s for %s: %v", rule, rev.key, err)
			return
		}
		rev.added.Store(r.Seq)
	}
	// denyCLI appends rev's deny.added (deny.lifted with lift) of rule
	// with the real 'ledger deny', as an operator through the ledger's API.
	denyCLI := func(t testing.TB, scope, rule string, rev *revocation, lift bool) {
		args := []string{"deny", "--nats", url, "--user", "ops-bob", "--data", t.TempDir(), "--json",
			"--scope", scope, "--rule", rule, "--session", string(rev.key), "--subtree"}
		if lift {
			args = append(args, "--lift")
		} else {
			args = append(args, "--note", "org: "+rule+" revoked")
		}
		out, err := ledgerRun(ctx, bin, args...)
		var res struct {
			Seq uint64 `json:"seq"`
		}
		if err == nil {
			err = json.Unmarshal(out, &res)
		}
		if err != nil || res.Seq == 0 {
			t.Errorf("ledger %s: %v: %s", strings.Join(args, " "), err, out)
			return
		}
		if lift {
			rev.lifted.Store(res.Seq)
		} else {
			rev.added.Store(res.Seq)
		}
	}
	lift := func(t testing.TB, scope, rule string, rev *revocation) {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		r, err := ops.Append(c, client.LiftDeny(events.DenyData{Scope: scope, Rule: rule, Session: rev.key, Subtree: true}))
		if err != nil {
			t.Errorf("deny.lifted %s for %s: %v", rule, rev.key, err)
			return
		}
		rev.lifted.Store(r.Seq)
	}

	// The gateway starts first (it takes its time) and runs through the
	// whole test.
	port := oc.FreePort(t)
	gwDir := oc.New(t)
	ocModel := oc.StartModel(t, oc.Scripts{
		"main": {
			{{Tool: "write", Args: map[string]any{"path": "written.txt", "content": "x"}},
				{Tool: "exec", Args: map[string]any{"command": "echo before > before.txt"}}},
			{{Tool: "exec", Args: map[string]any{"command": "echo denied > denied.txt"}}},
			{{Tool: "exec", Args: map[string]any{"command": "echo lifted > lifted.txt"}}},
		},
	}, func(q oc.Request) {
		if q.Script != "main" {
			return
		}
		switch q.Turn {
		case 1:
			ocRev.addOnce.Do(func() { denyCLI(t, ocScope, "exec", &ocRev, false) })
		case 2:
			// This request carries the revoked exec's result.
			ocRev.liftOnce.Do(func() {
				ocBlocked.fire()
				wait(pctx, t, aLifted.done(), 3*time.Minute, "the lift of A's revocation")
				denyCLI(t, ocScope, "exec", &ocRev, true)
			})
		}
	})
	ocRev.key = ocRoot
	gwDir.Write(t, oc.Config(oc.Settings{Model: ocModel, GatewayPort: port, Workspace: gwDir.Workspace,
		Plugin: map[string]any{"natsUrl": url, "scope": ocScope, "identity": carolIdentity}}))
	gw := gwDir.Gateway(t, port)
	if !strings.Contains(gw.String(), "1 plugin: "+oc.PluginID) {
		t.Fatalf("the gateway did not load the plugin:\n%s", gw.Tail(3000))
	}

	// The Claude Code projects' scopes, set by their Setup before their
	// CLI starts.
	var scopeA, scopeB string
	var resA, resB *cc.Result
	install := func(t testing.TB, dir string, flags ...string) string {
		ledgertest.LedgerCmd(t, bin, append([]string{"hook", "install", "--project", dir, "--", "--nats", url}, flags...)...)
		return cchook.ScopeOf(cchook.LocateProject(dir, nil), host)
	}
	bash := func(id, command string) cc.Block {
		return cc.Block{ID: id, Tool: "Bash", Input: map[string]any{"command": command, "description": "d"}}
	}
	read := func(id string) cc.Block {
		return cc.Block{ID: id, Tool: "Read", Input: map[string]any{"file_path": "README.md"}}
	}

	together(t, stopParts, map[string]func(testing.TB){
		// Project A denies Read in its settings; the operator revokes Bash
		// for its session and sub-agents after its first turn, and lifts
		// the revocation once B's Bash has run meanwhile.
		"claude code project A": func(t testing.TB) {
			resA = cc.Run(ctx, t, cc.Case{
				Name:     "project A",
				Settings: cc.Settings{Deny: []string{"Read"}, Allow: []string{"Bash(echo *)", "Bash(touch *)"}},
				Agents:   []cc.Agent{{Name: "worker", Tools: "Bash"}},
				Files:    map[string]string{"README.md": "project A\n"},
				Timeout:  5 * time.Minute,
				Scripts: cc.Scripts{
					"main": {
						{read("toolu_a_read"), bash("toolu_a_echo", "echo a")},
						{bash("toolu_a_main_denied", "touch a-main-denied.txt")},
						{{ID: "toolu_a_spawn", Tool: "Agent", Input: map[string]any{"description": "run worker",
							"prompt": "script:worker", "subagent_type": "worker", "run_in_background": false}}},
						{bash("toolu_a_main_lifted", "touch a-main-lifted.txt")},
					},
					"worker": {
						{bash("toolu_a_worker_denied", "touch a-worker-denied.txt")},
						{bash("toolu_a_worker_lifted", "touch a-worker-lifted.txt")},
					},
				},
				Setup: func(dir, _ string) { scopeA = install(t, dir) },
				BeforeAnswer: func(q cc.Request) {
					switch {
					case q.Script == "main" && q.Turn == 1:
						aRev.addOnce.Do(func() {
							aRev.key = rootIn(pctx, t, audit, scopeA)
							if aRev.key != "" {
								deny(t, scopeA, "Bash", &aRev)
							}
							aDenied.fire()
						})
					case q.Script == "worker" && q.Turn == 1:
						aRev.liftOnce.Do(func() {
							wait(pctx, t, bRan.done(), 3*time.Minute, "project B's Bash call while A's Bash is revoked")
							wait(pctx, t, ocBlocked.done(), 3*time.Minute, "OpenClaw's exec call while A's Bash is revoked")
							lift(t, scopeA, "Bash", &aRev)
							aLifted.fire()
						})
					}
				},
			})
		},
		// Project B allows Read; its Bash call waits for A's revocation,
		// and runs.
		"claude code project B": func(t testing.TB) {
			resB = cc.Run(ctx, t, cc.Case{
				Name:     "project B",
				Settings: cc.Settings{Allow: []string{"Read", "Bash(echo *)", "Bash(touch *)"}},
				Files:    map[string]string{"README.md": "project B\n"},
				Timeout:  5 * time.Minute,
				Scripts: cc.Scripts{"main": {
					{read("toolu_b_read"), bash("toolu_b_echo", "echo b")},
					{bash("toolu_b_during", "touch b-during.txt")},
				}},
				Setup: func(dir, _ string) { scopeB = install(t, dir, "--user-identity", bobIdentity) },
				BeforeAnswer: func(q cc.Request) {
					switch {
					case q.Script == "main" && q.Turn == 1:
						wait(pctx, t, aDenied.done(), 3*time.Minute, "the operator's revocation of A's Bash")
					case q.Script == "main" && q.Turn == 2:
						// This request carries b-during's result: it ran.
						bRan.fire()
					}
				},
			})
		},
		"openclaw": func(t testing.TB) {
			out := gwDir.Agent(t, "--agent", "main", "--session-key", string(ocRoot), "--message", "script:main")
			var res struct {
				Status string `json:"status"`
			}
			if err := json.Unmarshal(out, &res); err != nil || res.Status != "ok" {
				t.Errorf("openclaw agent: status %q (%v): %.600s", res.Status, err, out)
			}
		},
	})
	if t.Failed() {
		t.FailNow()
	}
	if scopeA == scopeB || !strings.HasPrefix(scopeA, "claude-code:") || !strings.HasPrefix(scopeB, "claude-code:") {
		t.Fatalf("the projects' scopes are %q and %q: want two claude-code scopes", scopeA, scopeB)
	}
	rootA, rootB := sessionOf(t, resA), sessionOf(t, resB)
	workerA := rootA + ":" + events.SessionKey(agentOf(t, resA, "worker"))
	if aRev.key != rootA {
		t.Errorf("the operator revoked Bash for %q, want project A's session %q", aRev.key, rootA)
	}
	t.Logf("scopes: A %s, B %s, OpenClaw %s; sessions: A %s (worker %s), B %s, OpenClaw %s", scopeA, scopeB, ocScope, rootA, workerA, rootB, ocRoot)

	// Every record, with its sequence, from the CLI's export.
	lines := exportLines(t, bin, url)

	t.Run("each session under its scope's policy", func(t *testing.T) {
		// Inside Claude Code: A's Read is refused (its settings remove the
		// tool; see the package's caveat), B's runs, with the ledger's
		// PreToolUse check allowing it under B's scope.
		if c := resA.Call("toolu_a_read"); c == nil || c.PostToolUse || c.Result == nil {
			t.Errorf("project A's Read was not refused: %+v", c)
		} else {
			t.Logf("project A's Read: %.200s", c.Result.Content)
		}
		if c := resB.Call("toolu_b_read"); c == nil || !c.PostToolUse || c.Result == nil || !strings.Contains(c.Result.Content, "project B") {
			t.Errorf("project B's Read did not run: %+v", c)
		}
		checkRecorded(t, lines, rootB, "Read", "toolu_b_read", true)
		// The ledger: the same tool, decided by each scope's claude-code
		// policy.
		for _, w := range []struct {
			key      events.SessionKey
			view     *client.Client
			tool     string
			scope    string
			dialect  string
			decision envelope.Decision
			code     string
		}{
			{rootA, ccView, "Read", scopeA, "claude-code", envelope.Deny, "permission:deny"},
			{workerA, ccView, "Read", scopeA, "claude-code", envelope.Deny, ""},
			{rootB, ccView, "Read", scopeB, "claude-code", envelope.Allow, ""},
			{ocRoot, ocView, "write", ocScope, "openclaw", envelope.Deny, "global:deny"},
			{ocRoot, ocView, "read", ocScope, "openclaw", envelope.Allow, ""},
		} {
			why, err := w.view.Why(ctx, w.key, w.tool)
			if err != nil {
				t.Errorf("why %s %s: %v", w.key, w.tool, err)
				continue
			}
			if why.Scope != w.scope || why.Policy == nil || why.Policy.Dialect != w.dialect || why.Policy.Scope != w.scope ||
				why.Verdict.Decision != w.decision || (w.code != "" && why.Verdict.Reason.Code != w.code) {
				t.Errorf("why %s %s: scope %q, policy %+v, %s %+v; want scope %q, a %s policy of it, %s %s",
					w.key, w.tool, why.Scope, why.Policy, why.Verdict.Decision, why.Verdict.Reason, w.scope, w.dialect, w.decision, w.code)
			}
		}
		// Inside OpenClaw: write is blocked by the plugin, decided by the
		// openclaw policy of the gateway's scope.
		res, ok := ocResult(ocModel, 1, 0, 0)
		if !ok || !strings.Contains(res, "denied write for session "+string(ocRoot)) || !strings.Contains(res, "global:deny") {
			t.Errorf("OpenClaw's write was not blocked by the scope's policy: %q", res)
		}
		if _, err := os.Stat(filepath.Join(gwDir.Workspace, "written.txt")); !os.IsNotExist(err) {
			t.Errorf("written.txt exists (err %v): the denied write ran", err)
		}
		// Each scope got one policy.set, its own: neither project's import
		// touched the other's, and nothing replaced the gateway's.
		sets := map[string]int{}
		for _, l := range lines {
			if l.Type == events.PolicySet {
				var d events.PolicySetData
				mustJSON(t, l.Record.Data, &d)
				sets[d.Scope]++
			}
		}
		if want := map[string]int{scopeA: 1, scopeB: 1, ocScope: 1}; fmt.Sprint(sets) != fmt.Sprint(want) {
			t.Errorf("policy.set records per scope: %v, want %v", sets, want)
		}
		// B's session is as its own policy made it at every turn: Read and
		// Bash allowed, whatever happened in A.
		sv, err := ccView.Session(ctx, rootB)
		if err != nil {
			t.Fatal(err)
		}
		if len(sv.Turns) == 0 {
			t.Errorf("project B's session has no turns")
		}
		for _, tv := range sv.Turns {
			for _, tool := range []string{"Read", "Bash"} {
				if d, r, _ := tv.ToolSet.Lookup(tool); d == envelope.Deny {
					t.Errorf("project B's turn %d: %s denied (%+v)", tv.Turn, tool, r)
				}
			}
		}
	})

	t.Run("a Claude Code session's Bash revoked and restored", func(t *testing.T) {
		added, lifted := aRev.added.Load(), aRev.lifted.Load()
		if added == 0 || lifted <= added {
			t.Fatalf("deny.added at %d, deny.lifted at %d", added, lifted)
		}
		for _, c := range []struct {
			id, file string
			key      events.SessionKey
			ran      bool
		}{
			{"toolu_a_echo", "", rootA, true},
			{"toolu_a_main_denied", "a-main-denied.txt", rootA, false},
			{"toolu_a_worker_denied", "a-worker-denied.txt", workerA, false},
			{"toolu_a_worker_lifted", "a-worker-lifted.txt", workerA, true},
			{"toolu_a_main_lifted", "a-main-lifted.txt", rootA, true},
		} {
			call := resA.Call(c.id)
			if call == nil || call.Result == nil {
				t.Errorf("%s: no tool_result", c.id)
				continue
			}
			if call.PostToolUse != c.ran {
				t.Errorf("%s ran: %v, want %v (%.300s)", c.id, call.PostToolUse, c.ran, call.Result.Content)
			}
			if c.file != "" {
				if _, err := os.Stat(filepath.Join(resA.Dir, c.file)); os.IsNotExist(err) == c.ran {
					t.Errorf("%s: exists %v, want %v", c.file, !os.IsNotExist(err), c.ran)
				}
			}
			if c.ran {
				continue
			}
			// The hook's reason, shown to the model: the revocation by name.
			t.Logf("%s: %s", c.id, call.Result.Content)
			for _, want := range []string{"PreToolUse:Bash hook error", "denied Bash for session " + string(c.key) + ": revocation:deny",
				fmt.Sprintf("deny.added at sequence %d", added), "org: Bash revoked", "ledger why "} {
				if !strings.Contains(call.Result.Content, want) {
					t.Errorf("%s's tool_result does not say %q", c.id, want)
				}
			}
			checkRecorded(t, lines, c.key, "Bash", c.id, false)
			// The printed 'ledger why' starts with the revocation's layer.
			i := strings.Index(call.Result.Content, "ledger why ")
			if i < 0 {
				continue
			}
			cmd, _, _ := strings.Cut(call.Result.Content[i:], "\n")
			why := ledgertest.ShellWords(cmd)
			explained := ledgertest.LedgerCmd(t, bin, append(why[1:], "--data", t.TempDir(), "--color", "never")...)
			for _, want := range []string{"revocation", "revocation:deny", "deny.added", fmt.Sprint(added)} {
				if !strings.Contains(explained, want) {
					t.Errorf("%s says no %q:\n%s", cmd, want, explained)
				}
			}
		}
		// B's Bash ran while A's was revoked: its check and effect lie
		// between the deny.added and the deny.lifted.
		if c := resB.Call("toolu_b_during"); c == nil || !c.PostToolUse {
			t.Errorf("project B's Bash did not run: %+v", c)
		}
		if _, err := os.Stat(filepath.Join(resB.Dir, "b-during.txt")); err != nil {
			t.Errorf("b-during.txt: %v", err)
		}
		if seq := checkRecorded(t, lines, rootB, "Bash", "toolu_b_during", true); seq <= added || seq >= lifted {
			t.Errorf("project B's Bash effect is at sequence %d, not between the deny.added (%d) and the deny.lifted (%d)", seq, added, lifted)
		}
		// After the lift A's sessions have Bash again.
		for _, key := range []events.SessionKey{rootA, workerA} {
			chk, err := ccView.Check(ctx, key, "Bash")
			if err != nil || chk.Decision == envelope.Deny {
				t.Errorf("%s's Bash after the lift: %+v %v", key, chk, err)
			}
		}
	})

	t.Run("an OpenClaw session's exec revoked and restored", func(t *testing.T) {
		added, lifted := ocRev.added.Load(), ocRev.lifted.Load()
		if added == 0 || lifted <= added {
			t.Fatalf("deny.added at %d, deny.lifted at %d", added, lifted)
		}
		before, _ := ocResult(ocModel, 1, 0, 1)
		blocked, _ := ocResult(ocModel, 2, 1, 0)
		after, _ := ocResult(ocModel, 3, 2, 0)
		t.Logf("exec before: %.200q; during: %.600q; after: %.200q", before, blocked, after)
		for _, want := range []string{"denied exec for session " + string(ocRoot) + ": revocation:deny",
			fmt.Sprintf("from deny.added at sequence %d", added), "org: exec revoked", "ledger why "} {
			if !strings.Contains(blocked, want) {
				t.Errorf("the revoked exec's tool result does not say %q", want)
			}
		}
		for _, r := range []string{before, after} {
			if strings.Contains(r, "session policy ledger") {
				t.Errorf("an exec outside the revocation was blocked: %q", r)
			}
		}
		for f, want := range map[string]bool{"before.txt": true, "denied.txt": false, "lifted.txt": true} {
			if _, err := os.Stat(filepath.Join(gwDir.Workspace, f)); os.IsNotExist(err) == want {
				t.Errorf("%s: exists %v, want %v", f, !os.IsNotExist(err), want)
			}
		}
		// The two revocations were in force together, in two scopes of
		// two dialects.
		if aAdded, aLifted := aRev.added.Load(), aRev.lifted.Load(); max(aAdded, added) >= min(aLifted, lifted) {
			t.Errorf("the revocations did not overlap: A's from %d to %d, OpenClaw's from %d to %d", aAdded, aLifted, added, lifted)
		}
		checkRecorded(t, lines, ocRoot, "exec", oc.CallID("main", 1, 0), false)
		if seq := checkRecorded(t, lines, ocRoot, "exec", oc.CallID("main", 2, 0), true); seq <= lifted {
			t.Errorf("the restored exec's effect is at %d, before the lift (%d)", seq, lifted)
		}
	})

	t.Run("the CLI shows every session's scope and identity", func(t *testing.T) {
		type who struct {
			scope, runtime, user, project string
			sessions                      []events.SessionKey // the tree, root first
			// others: the runtime may start sessions of its own in the
			// scope (the OpenClaw gateway sometimes opens its agent's
			// main session beside the run's): they must carry the scope
			// and identity too.
			others bool
		}
		want := []who{
			{scopeA, "claude-code", osUser, resA.Dir, []events.SessionKey{rootA, workerA}, false},
			{scopeB, "claude-code", bobIdentity, resB.Dir, []events.SessionKey{rootB}, false},
			{ocScope, "openclaw", carolIdentity, gwDir.Workspace, []events.SessionKey{ocRoot}, true},
		}
		idOK := func(id *client.Identity, w who) bool {
			return id != nil && id.Runtime == w.runtime && id.RuntimeVersion != "" && id.User == w.user && id.Host == host && id.Project == w.project
		}
		var all []*client.TreeNode
		mustJSON(t, []byte(ledgertest.LedgerCmd(t, bin, "tree", "--json", "--nats", url, "--data", t.TempDir())), &all)
		for _, r := range all {
			if !slices.ContainsFunc(want, func(w who) bool { return w.scope == r.Scope && (w.others || r.Key == w.sessions[0]) }) {
				t.Errorf("ledger tree shows root %s in scope %q, which is none of the runs'", r.Key, r.Scope)
			}
		}
		for _, w := range want {
			// ledger tree --scope: that scope's tree alone, every session
			// with its root's scope and identity.
			var trees []*client.TreeNode
			mustJSON(t, []byte(ledgertest.LedgerCmd(t, bin, "tree", "--json", "--scope", w.scope, "--nats", url, "--data", t.TempDir())), &trees)
			run := slices.IndexFunc(trees, func(tr *client.TreeNode) bool { return tr.Key == w.sessions[0] })
			if run < 0 || fmt.Sprint(trees[run].Keys()) != fmt.Sprint(w.sessions) || len(trees) > 1 && !w.others {
				t.Errorf("ledger tree --scope %s: %d trees %v, want %v", w.scope, len(trees), keysOf(trees), w.sessions)
			}
			var nodes []*client.TreeNode
			var inScope []events.SessionKey
			for _, tr := range trees {
				nodes = append(append(nodes, tr), tr.Children...)
				inScope = append(inScope, tr.Keys()...)
			}
			for _, n := range nodes {
				if n.Scope != w.scope || !idOK(n.Identity, w) {
					t.Errorf("ledger tree --scope %s: %s has scope %q, identity %+v; want %s as %s on %s in %s",
						w.scope, n.Key, n.Scope, n.Identity, w.runtime, w.user, host, w.project)
				}
			}
			// For people: the root's line names the scope, the runtime,
			// user@host and the project.
			text := ledgertest.LedgerCmd(t, bin, "tree", "--scope", w.scope, "--nats", url, "--data", t.TempDir(), "--color", "never")
			for _, s := range []string{string(w.sessions[0]), "scope " + w.scope, w.runtime, w.user + "@" + host, w.project} {
				if !strings.Contains(text, s) {
					t.Errorf("ledger tree --scope %s says no %q:\n%s", w.scope, s, text)
				}
			}

			// ledger export --scope: every session record's line names
			// the scope and the root's identity.
			lines := 0
			for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "export", "--scope", w.scope, "--nats", url, "--data", t.TempDir())), "\n") {
				var x struct {
					Type     events.Type       `json:"type"`
					Session  events.SessionKey `json:"session"`
					Scope    string            `json:"scope"`
					Identity *client.Identity  `json:"identity"`
				}
				mustJSON(t, []byte(l), &x)
				if x.Scope != w.scope {
					t.Errorf("ledger export --scope %s: a %s of %q in scope %q", w.scope, x.Type, x.Session, x.Scope)
				}
				if x.Session == "" {
					continue
				}
				lines++
				if !slices.Contains(inScope, x.Session) || !idOK(x.Identity, w) {
					t.Errorf("ledger export --scope %s: a %s of %s with identity %+v", w.scope, x.Type, x.Session, x.Identity)
				}
			}
			if lines == 0 {
				t.Errorf("ledger export --scope %s: no session records", w.scope)
			}

			// ledger report --scope: the scope's sessions, each with its
			// scope and identity.
			page := filepath.Join(t.TempDir(), "report.html")
			ledgertest.LedgerCmd(t, bin, "report", "--scope", w.scope, "--nats", url, "--data", t.TempDir(), "--html", page)
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			html := string(b)
			for _, key := range w.sessions {
				if !strings.Contains(html, string(key)) {
					t.Errorf("ledger report --scope %s names no %s", w.scope, key)
				}
			}
			// The revoked scopes' reports show the denials and their cause.
			if revoked := w.scope != scopeB; strings.Contains(html, "revocation:deny") != revoked {
				t.Errorf("ledger report --scope %s: shows revocation:deny %v, want %v", w.scope, !revoked, revoked)
			}
			ids := strings.Split(html, `<p class="meta identity">`)[1:]
			if len(ids) != len(inScope) {
				t.Errorf("ledger report --scope %s: %d identity lines, want one per session (%d)", w.scope, len(ids), len(inScope))
			}
			for _, id := range ids {
				id, _, _ = strings.Cut(id, "</p>")
				for _, s := range []string{"scope <b>" + w.scope + "</b>", "runtime <b>" + w.runtime + "</b>", "user <b>" + w.user + "</b>",
					"host <b>" + host + "</b>", "project <span class=\"mono\">" + w.project + "</span>"} {
					if !strings.Contains(id, s) {
						t.Errorf("ledger report --scope %s: an identity line says no %q: %s", w.scope, s, id)
					}
				}
			}
			for _, other := range want {
				if other.scope != w.scope && strings.Contains(html, string(other.sessions[0])) {
					t.Errorf("ledger report --scope %s names %s, of scope %s", w.scope, other.sessions[0], other.scope)
				}
			}
		}
	})

	t.Run("verify", func(t *testing.T) {
		out := ledgertest.LedgerCmd(t, bin, "verify", "--nats", url, "--data", t.TempDir())
		if !strings.Contains(out, "no drift") {
			t.Errorf("ledger verify: %s", out)
		}
	})
}

// ledgerRun runs the built binary with args (bounded by 30 s) and returns
// its standard output; unlike ledgertest.LedgerCmd it reports a failure
// as an error, for the goroutines of the scripted models.
func ledgerRun(ctx context.Context, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "NO_COLOR=1"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, stderr.Bytes())
	}
	return out, nil
}

// rootIn polls the ledger through the auditor's view (for at most 30 s)
// for the one root session of scope and returns its key, "" (with an
// error reported) when there is none or more than one.
func rootIn(ctx context.Context, t testing.TB, audit *client.Client, scope string) events.SessionKey {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var found []events.SessionKey
	for {
		found = found[:0]
		trees, err := audit.Tree(ctx, "", client.Filtered(client.Filter{Scope: scope}))
		for _, tr := range trees {
			found = append(found, tr.Key)
		}
		if err == nil && len(found) == 1 {
			return found[0]
		}
		select {
		case <-ctx.Done():
			t.Errorf("the roots of scope %s: %v (%v)", scope, found, err)
			return ""
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// keysOf lists the sessions of trees.
func keysOf(trees []*client.TreeNode) []events.SessionKey {
	var keys []events.SessionKey
	for _, tr := range trees {
		keys = append(keys, tr.Keys()...)
	}
	return keys
}

// sessionOf is the session id of a Claude Code run's result.
func sessionOf(t *testing.T, r *cc.Result) events.SessionKey {
	t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	mustJSON(t, r.Output, &out)
	if out.SessionID == "" {
		t.Fatalf("no session id in the run's result: %s", r.Output)
	}
	return events.SessionKey(out.SessionID)
}

// agentOf is the agent id of the run's sub-agent of agentType.
func agentOf(t *testing.T, r *cc.Result, agentType string) string {
	t.Helper()
	for _, h := range r.Hooks {
		if h["hook_event_name"] == "SubagentStart" && h["agent_type"] == agentType {
			if id, _ := h["agent_id"].(string); id != "" {
				return id
			}
		}
	}
	t.Fatalf("no %s sub-agent in the run", agentType)
	return ""
}

// ocResult is the tool result OpenClaw sent back for call i of the main
// script's turn, as the model saw it in its request for turn next.
func ocResult(m *oc.Model, next, turn, i int) (string, bool) {
	q, ok := m.Find("main", next)
	if !ok {
		return "", false
	}
	r, ok := q.Result(oc.CallID("main", turn, i))
	return r.Content, ok
}

// line is one line of 'ledger export'.
type line struct {
	Seq     uint64            `json:"seq"`
	Type    events.Type       `json:"type"`
	Session events.SessionKey `json:"session"`
	Record  events.Record     `json:"record"`
}

// exportLines runs 'ledger export' against the served ledger.
func exportLines(t *testing.T, bin, url string) []line {
	t.Helper()
	var out []line
	for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "export", "--nats", url, "--data", t.TempDir())), "\n") {
		var x line
		mustJSON(t, []byte(l), &x)
		out = append(out, x)
	}
	return out
}

// checkRecorded finds the tool.checked of call (a runtime's tool call id)
// for session and tool and, when effect, the record that started its
// effect (a tool.effect_started, or the check itself with effect: true
// that allowed it: docs/records.md), whose sequence it returns; without
// effect it reports one that exists.
func checkRecorded(t *testing.T, lines []line, session events.SessionKey, tool, call string, effect bool) uint64 {
	t.Helper()
	checked, started := false, uint64(0)
	for _, l := range lines {
		if l.Session != session || (l.Type != events.ToolChecked && l.Type != events.EffectStarted) {
			continue
		}
		var d struct {
			Tool   string `json:"tool"`
			Call   string `json:"call"`
			Effect bool   `json:"effect"`
		}
		var dec struct {
			Decision string `json:"decision"`
		}
		mustJSON(t, l.Record.Data, &d)
		mustJSON(t, l.Record.Decided, &dec)
		if d.Tool != tool || d.Call != call {
			continue
		}
		if l.Type == events.ToolChecked {
			checked = true
		}
		if l.Type == events.EffectStarted || d.Effect && dec.Decision == "allow" {
			started = l.Seq
		}
	}
	if !checked {
		t.Errorf("no tool.checked of %s %s (call %s)", session, tool, call)
	}
	if effect != (started != 0) {
		t.Errorf("%s %s (call %s): an effect at %d, want one: %v", session, tool, call, started, effect)
	}
	return started
}

func mustJSON(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %.300s", err, b)
	}
}
