package agenthook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/client/clienttest"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/ledgerpolicy"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
)

const root = "0b0e2c4a-1111-4222-8333-444455556666"

// recorded reads a payload the real CLI sent (tests/agentcli/testdata),
// with its placeholders filled: $BASE the test's directory, <id-00> the
// root session, <id-NN> ids of the same shape, <time> ts.
func recorded(t *testing.T, rt Runtime, name, base, ts string, edit map[string]any) []byte {
	t.Helper()
	dir := "codex-cli"
	switch rt.Name {
	case Gemini.Name:
		dir = "gemini-cli"
	case Qwen.Name:
		dir = "qwen-code"
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "tests", "agentcli", "testdata", dir, "payloads", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "$BASE", base)
	s = strings.ReplaceAll(s, "<id-00>", root)
	for i := 1; i < 10; i++ {
		s = strings.ReplaceAll(s, fmt.Sprintf("<id-%02d>", i), fmt.Sprintf("0b0e2c4a-1111-4222-8333-4444555566%02d", i))
	}
	s = strings.ReplaceAll(s, "<time>", ts)
	if edit == nil {
		return []byte(s)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range edit {
		m[k] = v
	}
	b, _ = json.Marshal(m)
	return b
}

type fixture struct {
	t    *testing.T
	c    *client.Client
	h    *Hook
	base string
}

func newFixture(t *testing.T, rt Runtime, dialect string) *fixture {
	t.Helper()
	l := clienttest.New(t, clienttest.Options{})
	c, err := l.Client(client.Options{Owner: rt.Name})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, c: c, base: t.TempDir()}
	must(t, os.MkdirAll(filepath.Join(f.base, "project"), 0o755))
	f.h = &Hook{Runtime: rt, L: cchook.ClientLedger{C: c}, Opts: Options{Scope: "proj", SpawnWait: 200 * time.Millisecond,
		Why: []string{"ledger", "why", "--nats", "nats://127.0.0.1:4222"}, Who: func() cchook.Who { return cchook.Who{User: "dev", Host: "box"} }}}
	switch dialect {
	case Dialect:
		runtime := "codex@0.169.0"
		allow := []string{"Bash", "view_image", "spawn_agent", "apply_patch", "multi_agent_v1wait_agent"}
		if rt.Name == Gemini.Name {
			runtime = "gemini@0.61.0"
			allow = []string{"run_shell_command", "read_file", "invoke_agent", "complete_task"}
		}
		if rt.Name == Qwen.Name {
			runtime = "qwen@0.24.4"
			allow = []string{"run_shell_command", "read_file", "agent"}
		}
		cat, ok := ledgerpolicy.Catalogue(runtime)
		if !ok {
			t.Fatalf("no catalogue for %s", runtime)
		}
		doc, _ := json.Marshal(map[string]any{"runtime": runtime, "permissions": map[string]any{"allow": allow}, "subagents": map[string]any{"maxDepth": 2}})
		f.append(client.SetPolicy(events.PolicySetData{Dialect: Dialect, Document: doc, Catalogue: cat, Scope: "proj"}))
	case cchook.Dialect:
		f.append(client.SetPolicy(events.PolicySetData{Dialect: cchook.Dialect, Document: json.RawMessage(`{"permissions":{"allow":["Bash"]}}`), Catalogue: []string{"Bash"}, Scope: "proj"}))
	}
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) append(ev client.Event) {
	f.t.Helper()
	if _, err := f.c.Append(context.Background(), ev); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) handle(name string, edit map[string]any) *Result {
	f.t.Helper()
	res := f.h.Handle(context.Background(), recorded(f.t, f.h.Runtime, name, f.base, "2026-12-02T10:00:00.000Z", edit))
	f.t.Logf("%s: appended %v, denied %v %s, warnings %v", name, res.Appended, res.Denied, res.Reason, res.Warnings)
	return res
}

func types(res *Result) []events.Type {
	var out []events.Type
	for _, a := range res.Appended {
		out = append(out, a.Type)
	}
	return out
}

func wantTypes(t *testing.T, name string, res *Result, want ...events.Type) {
	t.Helper()
	if got := types(res); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s appended %v, want %v (warnings %v)", name, got, want, res.Warnings)
	}
}

// codexDeny reads a codex denial.
func codexDeny(t *testing.T, out []byte) string {
	t.Helper()
	var v struct {
		H struct {
			Event, Decision, Reason string
		} `json:"hookSpecificOutput"`
	}
	var raw map[string]map[string]string
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatalf("codex answer %s: %v", out, err)
	}
	v.H.Event, v.H.Decision, v.H.Reason = raw["hookSpecificOutput"]["hookEventName"], raw["hookSpecificOutput"]["permissionDecision"], raw["hookSpecificOutput"]["permissionDecisionReason"]
	if v.H.Event != "PreToolUse" || v.H.Decision != "deny" || v.H.Reason == "" {
		t.Fatalf("codex answer %s is not a PreToolUse deny", out)
	}
	return v.H.Reason
}

// geminiDeny reads a gemini denial.
func geminiDeny(t *testing.T, out []byte) string {
	t.Helper()
	var v map[string]string
	if err := json.Unmarshal(out, &v); err != nil || v["decision"] != "deny" || v["reason"] == "" || len(v) != 2 {
		t.Fatalf("gemini answer %s is not {decision: deny, reason}", out)
	}
	return v["reason"]
}

// TestCodexPayloads maps the payloads codex 0.169.0 sent in
// TestCodexHooks, in its order, against an in-process ledger: the root
// starts with its identity, each turn_id is one turn, each call is one
// record, a sub-agent is placed under the session whose spawn_agent's
// PostToolUse named its agent_id (TestCodexSpawnPlacement's invariant), a
// sub-agent call before that is denied, and a deny.added on the session
// denies its next call in codex's format with the why to run.
func TestCodexPayloads(t *testing.T) {
	f := newFixture(t, Codex, Dialect)
	ctx := context.Background()
	res := f.handle("SessionStart", nil)
	wantTypes(t, "SessionStart", res, events.SessionStarted)
	res = f.handle("UserPromptSubmit", nil)
	wantTypes(t, "UserPromptSubmit", res, events.TurnStarted)
	if res = f.handle("UserPromptSubmit", nil); len(res.Appended) != 1 || !res.Appended[0].Duplicate {
		t.Errorf("a prompt delivered twice: %+v, want its turn once (duplicate)", res.Appended)
	}
	res = f.handle("PreToolUse-Bash", nil)
	if res.Denied || len(res.Output) != 0 || res.Decision != envelope.Allow {
		t.Fatalf("PreToolUse-Bash: denied %v %s, output %s", res.Denied, res.Reason, res.Output)
	}
	wantTypes(t, "PreToolUse-Bash", res, events.ToolChecked)
	tree, err := f.c.Tree(ctx, root)
	must(t, err)
	id := tree[0].Identity
	if id == nil || id.Runtime != "codex" || id.User != "dev" || id.Host != "box" || id.Model != "gpt-5.5" || !strings.HasSuffix(id.Project, "/project") || tree[0].Scope != "proj" || tree[0].Turns != 1 {
		t.Errorf("root: scope %q turns %d identity %+v", tree[0].Scope, tree[0].Turns, id)
	}
	if res = f.handle("PreToolUse-spawn_agent", nil); res.Denied {
		t.Fatalf("spawn_agent denied: %s", res.Reason)
	}
	// The sub-agent calls before its parent's PostToolUse: the ledger
	// does not know its parent, and does not guess one.
	res = f.handle("PreToolUse-Bash-subagent", nil)
	if r := codexDeny(t, res.Output); !strings.Contains(r, "unknown_parent") || !strings.Contains(r, "does not guess") {
		t.Errorf("an unplaced sub-agent's call: %s", r)
	}
	res = f.handle("SubagentStart", nil)
	wantTypes(t, "SubagentStart (unplaced)", res)
	res = f.handle("PostToolUse-spawn_agent", nil)
	wantTypes(t, "PostToolUse-spawn_agent", res, events.SessionSpawned)
	res = f.handle("SubagentStart", nil)
	wantTypes(t, "SubagentStart", res, events.TurnStarted)
	res = f.handle("PreToolUse-Bash-subagent", nil)
	if res.Denied || res.Session != root+":0b0e2c4a-1111-4222-8333-444455556602" {
		t.Fatalf("the sub-agent's call: session %s denied %v %s", res.Session, res.Denied, res.Reason)
	}
	tree, err = f.c.Tree(ctx, root)
	must(t, err)
	if len(tree[0].Children) != 1 || tree[0].Children[0].Key != res.Session || tree[0].Children[0].Turns != 1 {
		t.Errorf("tree: %+v", tree[0].Children)
	}
	// An operator denies Bash for the root alone.
	f.append(client.Deny(events.DenyData{Scope: "proj", Rule: "Bash", Session: root, Note: "INC-7"}))
	res = f.handle("PreToolUse-Bash", map[string]any{"tool_use_id": "call_after"})
	r := codexDeny(t, res.Output)
	for _, want := range []string{"Bash", root, "revocation:deny", "ledger why --nats nats://127.0.0.1:4222 --call call_after --session " + root} {
		if !strings.Contains(r, want) {
			t.Errorf("the denial %q does not name %q", r, want)
		}
	}
	w, err := f.c.WhyCall(ctx, "call_after")
	must(t, err)
	if w.Verdict.Decision != envelope.Deny {
		t.Errorf("why --call call_after: %+v", w.Verdict)
	}
	// The sub-agent is not the session the deny targets.
	if res = f.handle("PreToolUse-Bash-subagent", map[string]any{"tool_use_id": "call_worker_2"}); res.Denied {
		t.Errorf("the sub-agent's Bash after a deny on its root alone: %s", res.Reason)
	}
	res = f.handle("SessionEnd", nil)
	wantTypes(t, "SessionEnd", res, events.SessionEnded)
}

// TestGeminiPayloads maps the payloads gemini-cli 0.61.0 sent: one turn
// per BeforeAgent, every BeforeTool the root's (a sub-agent's
// complete_task too: nothing tells them apart), a call id derived from the
// payload, and a denial in gemini's format.
func TestGeminiPayloads(t *testing.T) {
	f := newFixture(t, Gemini, Dialect)
	ctx := context.Background()
	wantTypes(t, "SessionStart", f.handle("SessionStart", nil), events.SessionStarted)
	wantTypes(t, "BeforeAgent", f.handle("BeforeAgent", nil), events.TurnStarted)
	for _, name := range []string{"BeforeTool-run_shell_command", "BeforeTool-read_file", "BeforeTool-invoke_agent", "BeforeTool-complete_task"} {
		res := f.handle(name, nil)
		if res.Denied || len(res.Output) != 0 || res.Session != root {
			t.Errorf("%s: session %s denied %v %s", name, res.Session, res.Denied, res.Reason)
		}
	}
	tree, err := f.c.Tree(ctx, root)
	must(t, err)
	if id := tree[0].Identity; id == nil || id.Runtime != "gemini-cli" || len(tree[0].Children) != 0 || tree[0].Turns != 1 {
		t.Errorf("root: %+v, children %v", id, tree[0].Children)
	}
	f.append(client.Deny(events.DenyData{Scope: "proj", Rule: "run_shell_command", Session: root}))
	raw := recorded(t, Gemini, "BeforeTool-run_shell_command", f.base, "2026-12-02T10:00:05.000Z", nil)
	res := f.h.Handle(ctx, raw)
	r := geminiDeny(t, res.Output)
	p, _ := Parse(Gemini, raw)
	call := CallID(root, p.Timestamp, p.ToolName, p.ToolInput)
	if !strings.Contains(r, "revocation:deny") || !strings.Contains(r, "--call "+call+" --session "+root) {
		t.Errorf("the denial %q does not name revocation:deny and the why of call %s", r, call)
	}
	if w, err := f.c.WhyCall(ctx, call); err != nil || w.Verdict.Decision != envelope.Deny {
		t.Errorf("why --call %s: %+v %v", call, w.Verdict, err)
	}
	wantTypes(t, "SessionEnd", f.handle("SessionEnd", nil), events.SessionEnded)
}

// TestGeminiCallID: the derived call id is the same for the same payload
// and differs with the timestamp, the tool or the input.
func TestGeminiCallID(t *testing.T) {
	in := json.RawMessage(`{"command":"ls","description":"x"}`)
	a := CallID("s", "t1", "run_shell_command", in)
	if a != CallID("s", "t1", "run_shell_command", json.RawMessage(`{"description":"x","command":"ls"}`)) {
		t.Error("the same input in another key order got another id")
	}
	for _, b := range []string{CallID("s", "t2", "run_shell_command", in), CallID("s", "t1", "read_file", in), CallID("s", "t1", "run_shell_command", json.RawMessage(`{"command":"ls -l"}`)), CallID("s2", "t1", "run_shell_command", in)} {
		if a == b {
			t.Errorf("two calls got the id %s", a)
		}
	}
	if !validID(a) {
		t.Errorf("%s is not a valid call id", a)
	}
}

// TestNoLedgerPolicy: a call of a session whose scope has no policy, or
// one of another dialect, is denied with the command that sets one.
func TestNoLedgerPolicy(t *testing.T) {
	for _, tc := range []struct {
		rt      Runtime
		dialect string
		name    string
		deny    func(*testing.T, []byte) string
	}{
		{Codex, "", "PreToolUse-Bash", codexDeny}, {Codex, cchook.Dialect, "PreToolUse-Bash", codexDeny},
		{Gemini, "", "BeforeTool-run_shell_command", geminiDeny}, {Gemini, cchook.Dialect, "BeforeTool-run_shell_command", geminiDeny},
	} {
		t.Run(tc.rt.Command+"/"+tc.dialect, func(t *testing.T) {
			f := newFixture(t, tc.rt, tc.dialect)
			r := tc.deny(t, f.handle(tc.name, nil).Output)
			if !strings.Contains(r, "ledger policy set --dialect ledger --scope proj FILE") {
				t.Errorf("the denial %q does not say how to set a ledger policy", r)
			}
		})
	}
}

// downLedger fails every request as an unreachable ledger does.
type downLedger struct{ wait time.Duration }

var errDown = nats.ErrNoServers // a transport failure (cchook.Unreached)

func (d downLedger) sleep(ctx context.Context) error {
	if d.wait == 0 {
		return errDown
	}
	select {
	case <-time.After(d.wait):
	case <-ctx.Done():
	}
	return errDown
}
func (d downLedger) Tree(ctx context.Context, _ events.SessionKey) (*client.TreeNode, error) {
	return nil, d.sleep(ctx)
}
func (d downLedger) Policy(ctx context.Context, _ events.SessionKey) (*envelope.PolicyState, error) {
	return nil, d.sleep(ctx)
}
func (d downLedger) Append(ctx context.Context, _ client.Event) (client.AppendResult, error) {
	return client.AppendResult{}, d.sleep(ctx)
}
func (d downLedger) Check(ctx context.Context, _ events.SessionKey, _ string, _ json.RawMessage, _ string) (client.CheckResult, error) {
	return client.CheckResult{}, d.sleep(ctx)
}
func (d downLedger) Start(ctx context.Context, _ events.SessionKey, _ string, _ json.RawMessage, _ string) (client.CheckResult, error) {
	return client.CheckResult{}, d.sleep(ctx)
}

// TestUnreachable: with the ledger down a call is denied (fail closed),
// saying how to fail open; with --unreachable allow it goes on; any
// other event goes on with a warning.
func TestUnreachable(t *testing.T) {
	base := t.TempDir()
	for _, rt := range []Runtime{Codex, Gemini} {
		name, deny := "PreToolUse-Bash", codexDeny
		if rt.Name == Gemini.Name {
			name, deny = "BeforeTool-run_shell_command", geminiDeny
		}
		h := &Hook{Runtime: rt, L: downLedger{}, Opts: Options{Where: "nats://127.0.0.1:4222"}}
		r := deny(t, h.Handle(context.Background(), recorded(t, rt, name, base, "t", nil)).Output)
		if !strings.Contains(r, "cannot be reached") || !strings.Contains(r, "--unreachable allow") || !strings.Contains(r, "ledger hook "+rt.Command) {
			t.Errorf("%s: %q", rt.Name, r)
		}
		h.Opts.Unreachable = cchook.UnreachableAllow
		if res := h.Handle(context.Background(), recorded(t, rt, name, base, "t", nil)); res.Denied || len(res.Output) != 0 || !res.Unreachable {
			t.Errorf("%s with --unreachable allow: %+v", rt.Name, res)
		}
		if res := h.Handle(context.Background(), recorded(t, rt, "SessionStart", base, "t", nil)); res.Denied || len(res.Output) != 0 || len(res.Warnings) == 0 {
			t.Errorf("%s SessionStart: %+v", rt.Name, res)
		}
	}
}

// TestDeadlineDenies: a ledger that hangs past the hook's deadline gets
// the call denied in time (both runtimes run a call whose hook times out).
func TestDeadlineDenies(t *testing.T) {
	base := t.TempDir()
	for _, rt := range []Runtime{Codex, Gemini} {
		name, deny := "PreToolUse-Bash", codexDeny
		if rt.Name == Gemini.Name {
			name, deny = "BeforeTool-run_shell_command", geminiDeny
		}
		h := &Hook{Runtime: rt, L: hungLedger{}}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		res := h.HandleWithin(ctx, recorded(t, rt, name, base, "t", nil), 100*time.Millisecond)
		cancel()
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: answered after %s", rt.Name, d)
		}
		if r := deny(t, res.Output); !strings.Contains(r, "in time") {
			t.Errorf("%s: %q", rt.Name, r)
		}
	}
}

// hungLedger never answers, whatever the context says.
type hungLedger struct{ downLedger }

func (hungLedger) Tree(context.Context, events.SessionKey) (*client.TreeNode, error) {
	time.Sleep(5 * time.Second)
	return nil, errDown
}

// TestBadSessionKey: a session_id that is not a ledger key is refused,
// never rewritten: the call is denied.
func TestBadSessionKey(t *testing.T) {
	f := newFixture(t, Codex, Dialect)
	res := f.handle("PreToolUse-Bash", map[string]any{"session_id": "not a key/.."})
	if r := codexDeny(t, res.Output); !strings.Contains(r, "bad_session_key") {
		t.Errorf("%q", r)
	}
	if len(res.Appended) != 0 {
		t.Errorf("appended %v", res.Appended)
	}
}

// TestUnreadable: a call payload that is not JSON is denied unchecked.
func TestUnreadable(t *testing.T) {
	h := &Hook{Runtime: Gemini, L: downLedger{}}
	geminiDeny(t, h.Handle(context.Background(), []byte(`{"hook_event_name":"BeforeTool",`)).Output)
	h.Runtime = Codex
	codexDeny(t, h.Handle(context.Background(), []byte(`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":"x"}`)).Output)
}

// TestProjectIsCwd: the session's project is the runtime's cwd, not the
// repository root above it, so a relative path rule of the ledger dialect
// reads a relative argument as the runtime does (against the cwd).
func TestProjectIsCwd(t *testing.T) {
	f := newFixture(t, Gemini, "")
	must(t, os.MkdirAll(filepath.Join(f.base, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.base, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	cat, _ := ledgerpolicy.Catalogue("gemini@0.61.0")
	f.append(client.SetPolicy(events.PolicySetData{Dialect: Dialect, Scope: "proj", Catalogue: cat,
		Document: json.RawMessage(`{"runtime":"gemini@0.61.0","permissions":{"allow":["read_file(notes.txt)"]}}`)}))
	res := f.handle("BeforeTool-read_file", nil)
	if res.Denied {
		t.Fatalf("read_file notes.txt under allow read_file(notes.txt): %s", res.Reason)
	}
	tree, err := f.c.Tree(context.Background(), root)
	must(t, err)
	if id := tree[0].Identity; id.Project != filepath.Join(f.base, "project") || id.Branch != "main" {
		t.Errorf("identity %+v: want project %s, branch main", id, filepath.Join(f.base, "project"))
	}
}

// TestCodexNestedSpawn: a sub-agent's spawn_agent (its PostToolUse carries
// its agent_id) places the new agent under that sub-agent, not the root.
func TestCodexNestedSpawn(t *testing.T) {
	f := newFixture(t, Codex, Dialect)
	ctx := context.Background()
	const child, grand = "0b0e2c4a-1111-4222-8333-444455556602", "0b0e2c4a-1111-4222-8333-444455556609"
	f.handle("PreToolUse-spawn_agent", nil)
	wantTypes(t, "PostToolUse-spawn_agent", f.handle("PostToolUse-spawn_agent", nil), events.SessionSpawned)
	sub := map[string]any{"agent_id": child, "agent_type": "default", "tool_use_id": "call_sub_spawn", "turn_id": "0b0e2c4a-1111-4222-8333-444455556603"}
	if res := f.handle("PreToolUse-spawn_agent", sub); res.Denied {
		t.Fatalf("the sub-agent's spawn_agent: %s", res.Reason)
	}
	sub["tool_response"] = `{"agent_id":"` + grand + `","nickname":"Ada"}`
	wantTypes(t, "the sub-agent's PostToolUse-spawn_agent", f.handle("PostToolUse-spawn_agent", sub), events.SessionSpawned)
	res := f.handle("PreToolUse-Bash-subagent", map[string]any{"agent_id": grand, "tool_use_id": "call_grand"})
	if res.Denied || res.Session != root+":"+grand {
		t.Fatalf("the grandchild's call: %s %v %s", res.Session, res.Denied, res.Reason)
	}
	tree, err := f.c.Tree(ctx, root)
	must(t, err)
	if len(tree[0].Children) != 1 || len(tree[0].Children[0].Children) != 1 || tree[0].Children[0].Children[0].Key != root+":"+grand {
		t.Errorf("tree: %+v", tree[0].Children)
	}
}

// TestAskIsDenied: a call the ledger dialect decides ask is denied, with
// the reason saying why: these runtimes' hooks cannot hand a call to its
// user's approval, and an answer with no opinion would run it unasked.
func TestAskIsDenied(t *testing.T) {
	f := newFixture(t, Gemini, Dialect)
	wantTypes(t, "SessionStart", f.handle("SessionStart", nil), events.SessionStarted)
	wantTypes(t, "BeforeAgent", f.handle("BeforeAgent", nil), events.TurnStarted)
	f.append(client.AddGrant(events.GrantData{Kind: "permission", Agent: "*", Target: "*", Behavior: "ask", Rule: "run_shell_command", Scope: "proj"}))
	res := f.handle("BeforeTool-run_shell_command", nil)
	r := geminiDeny(t, res.Output)
	if !res.Denied || res.Decision != envelope.Ask || !strings.Contains(r, "asks for approval, which the gemini-cli hook cannot obtain") {
		t.Fatalf("an asked call: denied %v, decision %s, reason %q", res.Denied, res.Decision, r)
	}
	if res := f.handle("BeforeTool-read_file", nil); res.Denied {
		t.Errorf("an allowed call was denied: %s", res.Reason)
	}
}
