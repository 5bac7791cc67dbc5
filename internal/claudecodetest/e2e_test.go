package claudecodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// hookOwner is the orchestrator 'ledger hook claude-code' records sessions
// under by default.
const hookOwner = "claude-code"

// TestEndToEnd attaches the ledger to the real CLI (issue 13, item 5): the
// hooks 'ledger hook install' writes, a ledger served by the built binary
// on loopback, and a run in which the main thread spawns the project's
// worker agent, whose Bash calls run until an operator denies Bash mid-run;
// the worker's next Bash call is then blocked by the ledger inside Claude
// Code, 'ledger why' explains it, a resumed session keeps its envelope and
// stays denied, 'ledger verify' passes and the report shows the run.
func TestEndToEnd(t *testing.T) {
	CLI(t)
	bin := ledgertest.BuildLedger(t)
	url := ledgertest.ServeLedger(t, bin)
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	must(t, err)
	defer nc.Close()
	ops := client.New(nc, client.Options{})
	view := client.New(nc, client.Options{Owner: hookOwner})

	var revoked sync.Once
	// The scope the hook derives for the project (a temporary directory in
	// no repository: its path and this host), set by Setup.
	var scope string
	// The grant's sequence, set on the scripted model's goroutine.
	var granted atomic.Uint64
	first := Run(t.Context(), t, Case{
		Name: "e2e",
		// The project's policy, which the hook imports at SessionStart.
		Settings: Settings{Allow: []string{"Bash(echo *)", "Bash(touch *)"}},
		Agents:   []Agent{{Name: "worker", Tools: "Read, Bash"}},
		Scripts: Scripts{
			"main": {{{ID: "toolu_spawn_worker", Tool: "Agent", Input: map[string]any{"description": "run worker",
				"prompt": "script:worker", "subagent_type": "worker", "run_in_background": false}}}},
			"worker": {
				{{ID: "toolu_echo_one", Tool: "Bash", Input: map[string]any{"command": "echo one", "description": "d"}},
					{ID: "toolu_touch_one", Tool: "Bash", Input: map[string]any{"command": "touch one.txt", "description": "d"}}},
				{{ID: "toolu_touch_two", Tool: "Bash", Input: map[string]any{"command": "touch two.txt", "description": "d"}}},
			},
		},
		Setup: func(dir, home string) {
			ledgertest.LedgerCmd(t, bin, "hook", "install", "--project", dir, "--", "--nats", url)
			host, _ := os.Hostname()
			scope = cchook.ScopeOf(cchook.LocateProject(dir, nil), host)
		},
		// The operator denies Bash before the model answers the worker's
		// second request: that turn's call is the one to be blocked.
		BeforeAnswer: func(q Request) {
			if q.Script != "worker" || q.Turn != 1 {
				return
			}
			revoked.Do(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				r, err := ops.Append(ctx, client.AddGrant(events.GrantData{Kind: "permission", Agent: "*", Target: "*",
					Behavior: "deny", Rule: "Bash", Scope: scope}))
				if err != nil {
					t.Errorf("grant.added: %v", err)
				}
				granted.Store(r.Seq)
			})
		},
	})
	grantSeq := granted.Load()
	if grantSeq == 0 {
		t.Fatalf("the worker's second request never came: %d requests", len(first.Requests))
	}
	var out struct {
		SessionID string `json:"session_id"`
	}
	must(t, json.Unmarshal(first.Output, &out))
	var agentID string
	for _, h := range first.Hooks {
		if h["hook_event_name"] == "SubagentStart" && h["agent_type"] == "worker" {
			agentID, _ = h["agent_id"].(string)
		}
	}
	if out.SessionID == "" || agentID == "" {
		t.Fatalf("no session id (%q) or worker agent id (%q) in the run", out.SessionID, agentID)
	}
	root := events.SessionKey(out.SessionID)
	worker := root + ":" + events.SessionKey(agentID)

	// Before the grant the worker's calls ran; after it, Claude Code got
	// the ledger's denial and did not run the command.
	for _, id := range []string{"toolu_echo_one", "toolu_touch_one"} {
		if c := first.Call(id); c == nil || !c.PostToolUse {
			t.Errorf("%s did not run: %+v", id, c)
		}
	}
	if _, err := os.Stat(filepath.Join(first.Dir, "one.txt")); err != nil {
		t.Errorf("touch one.txt ran, yet: %v", err)
	}
	blocked := first.Call("toolu_touch_two")
	if blocked == nil || blocked.Result == nil {
		t.Fatalf("no tool_result for the blocked call: %+v", blocked)
	}
	reason := blocked.Result.Content
	t.Logf("the blocked call's tool_result: %s", reason)
	if blocked.PostToolUse {
		t.Errorf("touch two.txt ran after the grant")
	}
	if _, err := os.Stat(filepath.Join(first.Dir, "two.txt")); !os.IsNotExist(err) {
		t.Errorf("two.txt exists (err %v): the denied command ran", err)
	}
	for _, want := range []string{"PreToolUse:Bash hook error", "permission:deny", `"Bash"`,
		fmt.Sprintf("grant.added at sequence %d", grantSeq), string(worker), "ledger why "} {
		if !strings.Contains(reason, want) {
			t.Errorf("the blocked call's tool_result does not say %q", want)
		}
	}

	// The printed 'ledger why' explains the decision at the check's
	// position: the grant's record and its rule.
	i := strings.Index(reason, "ledger why ")
	if i < 0 {
		t.FailNow()
	}
	line, _, _ := strings.Cut(reason[i:], "\n")
	why := ledgertest.ShellWords(line)
	explained := ledgertest.LedgerCmd(t, bin, append(why[1:], "--data", t.TempDir(), "--color", "never")...)
	for _, want := range []string{"deny", "permission:deny", "Bash", "grant.added", fmt.Sprint(grantSeq)} {
		if !strings.Contains(explained, want) {
			t.Errorf("%s says no %q:\n%s", line, want, explained)
		}
	}

	// What the ledger recorded of the run.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	before, err := view.Session(ctx, worker)
	if err != nil || before.Envelope == nil {
		t.Fatalf("the worker's session: %+v %v", before, err)
	}
	rootBefore, err := view.Session(ctx, root)
	must(t, err)
	// The root is bound to the project's scope and says who ran it: Claude
	// Code's version comes from the AI_AGENT variable it gives hooks.
	if id := rootBefore.Identity; rootBefore.Scope != scope || id == nil || id.Runtime != "claude-code" || id.RuntimeVersion != Pin(t) ||
		id.Project != first.Dir || id.User == "" || id.Host == "" || id.Repository != "" || rootBefore.State != "ended" {
		t.Errorf("the root's scope %q (want %q), state %q (want ended: SessionEnd came), identity %+v", rootBefore.Scope, scope, rootBefore.State, id)
	}
	if before.Parent != root || before.Agent != "worker" {
		t.Errorf("the worker is recorded as %q under %q, want worker under %q", before.Agent, before.Parent, root)
	}
	// The policy in force is the project's, imported by the hook, with
	// the operator's grant.
	w, err := view.Why(ctx, worker, "Bash")
	must(t, err)
	if w.Policy == nil || !bytes.Contains(w.Policy.Document, []byte(`"worker"`)) || !bytes.Contains(w.Policy.Document, []byte(`Bash(echo *)`)) {
		t.Errorf("the policy in force is not the project's: %+v", w.Policy)
	}

	// The check lies in the worker's second turn, the one the grant came
	// in (the turn started at its PostToolBatch, before the request the
	// grant preceded).
	var checkSeq uint64
	for j, wd := range why {
		if wd == "--record" && j+1 < len(why) {
			_, _ = fmt.Sscan(why[j+1], &checkSeq)
		}
	}
	if m := regexp.MustCompile(`tool\.checked at seq (\d+)`).FindStringSubmatch(explained); checkSeq == 0 && m != nil {
		// why --call names the call's record.
		_, _ = fmt.Sscan(m[1], &checkSeq)
	}
	turn := 0
	for _, tv := range before.Turns {
		if tv.Seq <= checkSeq {
			turn = tv.Turn
		}
	}
	if checkSeq <= grantSeq || turn != 2 {
		t.Errorf("the denial's check is at sequence %d, turn %d of the worker; want after the grant (%d), in turn 2", checkSeq, turn, grantSeq)
	}

	// Resumed (claude --resume, the same project and HOME): the main
	// thread resumes the worker with SendMessage, which Claude Code
	// continues under the same agent id with its tools; the ledger keeps
	// the worker's recorded envelope and its Bash call stays denied, as
	// does the main thread's (Claude Code's issue #78777 is a resumed agent
	// regaining tools).
	second := Run(t.Context(), t, Case{
		Name: "e2e resumed", In: first, Prompt: "script:resumed", Args: []string{"--resume", out.SessionID},
		Scripts: Scripts{
			"resumed": {{
				{ID: "toolu_touch_three", Tool: "Bash", Input: map[string]any{"command": "touch three.txt", "description": "d"}},
				{ID: "toolu_send", Tool: "SendMessage", Input: map[string]any{"to": agentID, "summary": "go on", "message": "script:worker2"}},
			}},
			"worker2": {{{ID: "toolu_touch_four", Tool: "Bash", Input: map[string]any{"command": "touch four.txt", "description": "d"}}}},
		},
	})
	var out2 struct {
		SessionID string `json:"session_id"`
	}
	must(t, json.Unmarshal(second.Output, &out2))
	if out2.SessionID != out.SessionID {
		t.Errorf("the resumed run is session %q, not %q", out2.SessionID, out.SessionID)
	}
	if c := second.Call("toolu_send"); c == nil || !c.PostToolUse {
		t.Fatalf("SendMessage did not resume the worker: %+v", c)
	}
	for id, key := range map[string]events.SessionKey{"toolu_touch_three": root, "toolu_touch_four": worker} {
		c := second.Call(id)
		if c == nil || c.Result == nil || c.PostToolUse || !strings.Contains(c.Result.Content, "permission:deny") ||
			!strings.Contains(c.Result.Content, "session "+string(key)+": permission:deny") {
			t.Errorf("the resumed %s's Bash call (%s) was not denied by the ledger: %+v", key, id, c)
		}
	}
	for _, f := range []string{"three.txt", "four.txt"} {
		if _, err := os.Stat(filepath.Join(first.Dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s exists (err %v): a denied command ran", f, err)
		}
	}
	t.Logf("the resumed worker's pool in Claude Code: %v", second.Pools()["worker2"].Tools)
	after, err := view.Session(ctx, worker)
	if err != nil || after.Envelope == nil || after.Envelope.Hash != before.Envelope.Hash || after.State != before.State ||
		after.Parent != root {
		t.Errorf("the worker after the resume: %+v %v; before: %+v", after, err, before)
	}
	rootAfter, err := view.Session(ctx, root)
	must(t, err)
	if rootAfter.State != rootBefore.State || rootAfter.Agent != rootBefore.Agent || len(rootAfter.Children) != 1 {
		t.Errorf("the root after the resume: %+v; before: %+v", rootAfter, rootBefore)
	}
	for _, key := range []events.SessionKey{worker, root} {
		ts, err := view.Tools(ctx, key)
		must(t, err)
		if d, r, _ := ts.Tools.Lookup("Bash"); d != "deny" || r == nil || r.Code != "permission:deny" {
			t.Errorf("%s after the resume: Bash is %s (%+v), want denied by permission:deny", key, d, r)
		}
	}
	// The resume started nothing anew: one policy, one root, one spawn;
	// each run ended the root, and the resume reopened it.
	count := map[events.Type]int{}
	for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())), "\n") {
		var r events.Record
		must(t, json.Unmarshal([]byte(l), &r))
		count[r.Type]++
	}
	if count[events.PolicySet] != 1 || count[events.SessionStarted] != 1 || count[events.SessionSpawned] != 1 ||
		count[events.SessionEnded] != 2 || count[events.SessionReopened] != 1 {
		t.Errorf("the log holds %d policy.set, %d session.started, %d session.spawned, %d session.ended, %d session.reopened; want 1, 1, 1, 2, 1",
			count[events.PolicySet], count[events.SessionStarted], count[events.SessionSpawned], count[events.SessionEnded], count[events.SessionReopened])
	}

	if out := ledgertest.LedgerCmd(t, bin, "verify", "--nats", url, "--data", t.TempDir()); !strings.Contains(out, "no drift") {
		t.Errorf("ledger verify: %s", out)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	ledgertest.LedgerCmd(t, bin, "report", "--nats", url, "--data", t.TempDir(), "--html", page)
	html, err := os.ReadFile(page)
	must(t, err)
	for _, want := range []string{out.SessionID, agentID, "touch two.txt", "touch four.txt", "permission:deny", "grant.added"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the report names no %q", want)
		}
	}
}
