package cchook

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/svcledger"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/scenario"
)

// payloadDir holds the real payloads Claude Code 2.1.328 sent (copied from
// ../shared/claude-code-hooks).
var payloadDir = filepath.Join("..", "..", "testdata", "claude-code-hooks")

// The main sessions of the captured payloads.
const (
	smoke = "e8ec9869-c221-4dcd-99bc-bfd8e6f84c5b" // SessionStart, UserPromptSubmit, Stop, SessionEnd
	sub   = "4115d956-87ab-486f-a3bd-768c14406260" // Pre/PostToolUse, PostToolBatch, the reviewer sub-agent
	fork  = "ec00f267-2a5b-43e9-9a58-32f27d6ed34f" // the fork
	// The sub-agents.
	reviewer = sub + ":a0d23f5288942b58b"
	forked   = fork + ":aed5aca474377a94c"
)

// testDoc is the policy the tests run under: a reviewer agent that may
// only read, Bash echo allowed, Bash rm denied.
const testDoc = `{"agents":{"reviewer":{"description":"reviews","tools":["Read","Grep","Glob"]}},` +
	`"permissions":{"allow":["Bash(echo *)"],"deny":["Bash(rm *)"]}}`

// The project every mapping case runs in: a clone of github.com/acme/api
// (its origin url carrying credentials, which the ledger must not get) on
// branch main, run by dev on devbox under Claude Code 2.1.328.
var (
	testLoc = Location{Dir: "/home/dev/project", Repo: &Repo{Root: "/home/dev/project",
		Origin: "https://dev:s3cret@github.com/acme/api.git", Branch: "main"}}
	testWho = Who{RuntimeVersion: "2.1.328", User: "dev", Host: "devbox"}
)

// testScope is testLoc's scope; ident the scope and identity its roots
// start with.
const (
	testScope = "claude-code:github-com-acme-api-5355d101"
	ident     = `"scope":"` + testScope + `","runtime":"claude-code","runtime_version":"2.1.328","project":"/home/dev/project",` +
		`"repository":"https://github.com/acme/api.git","branch":"main","user":"dev","host":"devbox"`
)

var testCatalogue = []string{"Agent", "Bash", "Edit", "Glob", "Grep", "Read", "Write", "WebFetch", "WebSearch",
	"Skill", "ToolSearch", "TodoWrite", "NotebookEdit", "SendMessage", "TaskStop"}

// svcLedger is a Ledger over an in-memory ledger service: the real
// projection and dialect, without NATS (cmd/ledger's tests run the hook
// over the real API). Check with a call records it as the API does.
type svcLedger struct {
	svc *service.Service
	// log is what the hook appended, one line an event.
	log []string
	// down, when set, is what every call answers (an unreachable ledger).
	down error
	// afterCheck runs after a recorded check (an operator acting between
	// a call's check and its effect).
	afterCheck func()
}

func newLedger(t *testing.T, doc string) *svcLedger {
	t.Helper()
	r, err := scenario.InMemory(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	l := &svcLedger{svc: svcledger.Of(r.Ledger)}
	if doc != "" {
		l.must(t, client.SetPolicy(events.PolicySetData{Dialect: Dialect, Document: json.RawMessage(doc), Catalogue: testCatalogue, Scope: testScope}))
	}
	l.log = nil
	return l
}

// must appends set-up events, which the log does not show.
func (l *svcLedger) must(t *testing.T, evs ...client.Event) {
	t.Helper()
	for _, ev := range evs {
		if _, err := l.append(context.Background(), ev); err != nil {
			t.Fatalf("setting up %s %s: %v", ev.Type, ev.Session, err)
		}
	}
}

func (l *svcLedger) Tree(ctx context.Context, key events.SessionKey) (*client.TreeNode, error) {
	if l.down != nil {
		return nil, l.down
	}
	var out *client.TreeNode
	err := l.svc.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		if st.Session(key) == nil {
			return nil
		}
		b, err := json.Marshal(service.BuildTree(st, key))
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &out)
	})
	return out, err
}

func (l *svcLedger) Policy(ctx context.Context, key events.SessionKey) (*envelope.PolicyState, error) {
	if l.down != nil {
		return nil, l.down
	}
	a, err := l.svc.Why(ctx, key, "Agent", nil, projection.Position{})
	return a.Policy, err
}

func (l *svcLedger) append(ctx context.Context, ev client.Event) (service.Result, error) {
	if ev.Actor == "" {
		ev.Actor = "claude-code"
	}
	raw, err := json.Marshal(struct {
		client.Event
		V int `json:"v"`
	}{ev, events.Version})
	if err != nil {
		return service.Result{}, err
	}
	return l.svc.Append(ctx, raw)
}

func (l *svcLedger) Append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	if l.down != nil {
		return client.AppendResult{}, l.down
	}
	r, err := l.append(ctx, ev)
	if err == nil {
		data, _ := json.Marshal(ev.Data)
		line := string(ev.Type)
		if ev.Session != "" {
			line += " " + string(ev.Session)
		}
		line += " " + string(data)
		if r.Duplicate {
			line += " (duplicate)"
		}
		l.log = append(l.log, line)
	}
	return client.AppendResult{Seq: r.Seq, ID: r.ID, Duplicate: r.Duplicate}, err
}

func (l *svcLedger) Check(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error) {
	if l.down != nil {
		return client.CheckResult{}, l.down
	}
	if call == "" {
		a, err := l.svc.Check(ctx, key, tool, input, projection.Position{})
		return client.CheckResult{Session: key, Seq: a.Seq, Tool: tool, Decision: a.Verdict.Decision, Reason: a.Verdict.Reason}, err
	}
	return l.record(ctx, key, tool, input, call, false)
}

func (l *svcLedger) Start(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error) {
	if l.down != nil {
		return client.CheckResult{}, l.down
	}
	return l.record(ctx, key, tool, input, call, true)
}

// record appends a tool.checked for the session's current turn (with
// effect, the one record of a call checked as it runs), as the API's
// recorded check does.
func (l *svcLedger) record(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string, effect bool) (client.CheckResult, error) {
	turn := 0
	_ = l.svc.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		if s := st.Session(key); s != nil {
			turn = s.Turn
		}
		return nil
	})
	r, err := l.append(ctx, client.Checked(key, events.CheckedData{Turn: max(turn, 1), Tool: tool, Call: call, Input: input, Effect: effect}))
	if err != nil {
		return client.CheckResult{}, err
	}
	var dec projection.CheckDecided
	_ = json.Unmarshal(r.Decided, &dec)
	started := ""
	if effect && dec.Decision == envelope.Allow {
		started = " started"
	}
	l.log = append(l.log, fmt.Sprintf("tool.checked %s %s %s -> %s %s%s", key, tool, input, dec.Decision, dec.Reason.Code, started))
	if l.afterCheck != nil {
		l.afterCheck()
	}
	return client.CheckResult{Session: key, Seq: r.Seq, Tool: tool, Decision: dec.Decision, Reason: dec.Reason, Recorded: r.Seq}, nil
}

func start(root events.SessionKey) client.Event {
	return client.Start(root, events.StartedData{Agent: MainAgent, Scope: testScope})
}
func turn(key events.SessionKey, n int) client.Event {
	return client.Turn(key, events.TurnData{Turn: n})
}
func spawn(child, parent events.SessionKey, agent string) client.Event {
	return SpawnEvent(child, parent, agent)
}

// metaFiles answers ReadFile for Claude Code's sub-agent metadata: agent id
// to its file's content.
func metaFiles(m map[string]string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		for id, content := range m {
			if strings.HasSuffix(path, "agent-"+id+".meta.json") {
				return []byte(content), nil
			}
		}
		return nil, fs.ErrNotExist
	}
}

func loadPayload(t *testing.T, name string, patch map[string]any) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(payloadDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if len(patch) == 0 {
		return raw
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range patch {
		m[k] = v
	}
	raw, _ = json.Marshal(m)
	return raw
}

type hookCase struct {
	name    string
	payload string
	patch   map[string]any
	doc     string // the policy in force; "-" for none
	setup   []client.Event
	opts    Options
	// want is the log of what the hook appended; output what it answers
	// ("{}", "deny", "warn": a systemMessage), and the substrings the
	// denial reason or warning must hold.
	want    []string
	output  string
	reasons []string
}

const (
	smokeStart = `session.started ` + smoke + ` {"agent":"main",` + ident + `}`
	subDeny    = `{"command":"rm -rf build","description":"Say hi","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}}`
)

func hookCases() []hookCase {
	mainDoc := testDoc
	withMode := `{"permissions":{"defaultMode":"plan","allow":["Bash(echo *)"]}}`
	parentMeta := `{"agentType":"reviewer","toolUseId":"toolu_MAIN_05_00","spawnDepth":1}`
	return []hookCase{
		// Sessions.
		{name: "start", payload: "SessionStart.json", want: []string{smokeStart}, output: "{}"},
		{name: "start imports a changed policy", payload: "SessionStart.json", opts: Options{Import: fixedDoc(withMode)},
			want:   []string{`session.started ` + smoke + ` {"agent":"main","mode":"plan",` + ident + `}`, `policy.set {"dialect":"claude-code","document":` + withMode + `,"scope":"` + testScope + `"}`},
			output: "{}"},
		{name: "start under the same policy appends none", payload: "SessionStart.json", opts: Options{Import: fixedDoc(mainDoc)},
			want: []string{smokeStart}, output: "{}"},
		{name: "start installs the first policy", payload: "SessionStart.json", doc: "-",
			opts: Options{Import: fixedDoc(mainDoc), Catalogue: []string{"Bash", "Read"}},
			want: []string{`policy.set {"dialect":"claude-code","document":` + mainDoc + `,"catalogue":["Bash","Read"],"scope":"` + testScope + `"}`, smokeStart}, output: "{}"},
		{name: "no policy and no catalogue", payload: "SessionStart.json", doc: "-", opts: Options{Import: fixedDoc(mainDoc)},
			output: "warn", reasons: []string{"invalid_policy", "--catalogue"}},
		{name: "resume of a known session appends nothing", payload: "SessionStart.json", patch: map[string]any{"source": "resume"},
			setup: []client.Event{start(smoke), turn(smoke, 1)}, output: "{}"},
		{name: "resume of an unknown session starts it", payload: "SessionStart.json", patch: map[string]any{"source": "resume"},
			want: []string{smokeStart}, output: "{}"},
		{name: "bad session id", payload: "SessionStart.json", patch: map[string]any{"session_id": "a b"},
			output: "warn", reasons: []string{"bad_session_key"}},

		// Turns.
		{name: "prompt opens turn 1", payload: "UserPromptSubmit.json", setup: []client.Event{start(smoke)},
			want: []string{`turn.started ` + smoke + ` {"turn":1,"mode":"default"}`}, output: "{}"},
		{name: "prompt of an unknown session starts it in the reported mode", payload: "UserPromptSubmit.json",
			want: []string{`session.started ` + smoke + ` {"agent":"main","mode":"default",` + ident + `}`, `turn.started ` + smoke + ` {"turn":1,"mode":"default"}`}, output: "{}"},
		{name: "prompt delivered twice opens one turn", payload: "UserPromptSubmit.json",
			setup: []client.Event{start(smoke), TurnEvent(smoke, 1, "prompt:36e7bf83-df4e-4e27-b301-89a8679854e9")},
			// The hook asks for turn 2, under the id turn 1 landed with:
			// the ledger answers with turn 1's outcome.
			want: []string{`turn.started ` + smoke + ` {"turn":2,"mode":"default"} (duplicate)`}, output: "{}"},
		{name: "batch opens the next turn", payload: "PostToolBatch.json", setup: []client.Event{start(sub), turn(sub, 1)},
			want: []string{`turn.started ` + sub + ` {"turn":2,"mode":"default"}`}, output: "{}"},
		{name: "sub-agent batch opens its next turn", payload: "PostToolBatch-subagent.json",
			setup: []client.Event{start(sub), turn(sub, 1), spawn(reviewer, sub, "reviewer"), turn(reviewer, 1)},
			want:  []string{`turn.started ` + reviewer + ` {"turn":2}`}, output: "{}"},
		{name: "fork batch", payload: "PostToolBatch-fork.json",
			setup: []client.Event{start(fork), turn(fork, 1), spawn(forked, fork, ForkAgent), turn(forked, 1)},
			want:  []string{`turn.started ` + forked + ` {"turn":2}`}, output: "{}"},

		// Calls.
		{name: "allowed call: one record checks it and starts its effect, no decision", payload: "PreToolUse.json", setup: []client.Event{start(sub), turn(sub, 1)},
			want: []string{`tool.checked ` + sub + ` Bash {"command":"echo hi","description":"Say hi","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow permission:allow started`}, output: "{}"},
		{name: "denied call", payload: "PreToolUse.json", patch: map[string]any{"tool_input": map[string]any{"command": "rm -rf build", "description": "Say hi"}},
			setup:  []client.Event{start(sub), turn(sub, 1)},
			want:   []string{`tool.checked ` + sub + ` Bash ` + subDeny + ` -> deny permission:deny`},
			output: "deny", reasons: []string{"denied Bash for session " + sub + ": permission:deny", "Bash(rm *)", "policy.set at sequence 1",
				"ledger why --call toolu_MAIN_00_00 --session " + sub}},
		{name: "ask defers to Claude Code", payload: "PreToolUse.json", patch: map[string]any{"tool_input": map[string]any{"command": "make"}},
			setup: []client.Event{start(sub), turn(sub, 1)},
			want:  []string{`tool.checked ` + sub + ` Bash {"command":"make","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> ask default:prompt`}, output: "{}"},
		{name: "call of an unknown root starts it and its first turn", payload: "PreToolUse.json",
			want: []string{`session.started ` + sub + ` {"agent":"main","mode":"default",` + ident + `}`, `turn.started ` + sub + ` {"turn":1,"mode":"default"}`,
				`tool.checked ` + sub + ` Bash {"command":"echo hi","description":"Say hi","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow permission:allow started`}, output: "{}"},
		{name: "sub-agent call within its envelope", payload: "PreToolUse-subagent.json",
			setup: []client.Event{start(sub), turn(sub, 1), spawn(reviewer, sub, "reviewer"), turn(reviewer, 1)},
			want:  []string{`tool.checked ` + reviewer + ` Read {"file_path":"/home/dev/project/README.md","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow default:read_only started`}, output: "{}"},
		{name: "sub-agent call outside its agent's tools", payload: "PreToolUse-subagent.json", patch: map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi"}},
			setup:  []client.Event{start(sub), turn(sub, 1), spawn(reviewer, sub, "reviewer"), turn(reviewer, 1)},
			want:   []string{`tool.checked ` + reviewer + ` Bash {"command":"echo hi","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> deny agent_tools:not_listed`},
			output: "deny", reasons: []string{"agent_tools:not_listed", "for session " + reviewer + ":", "ledger why --call toolu_SUB1_00_00 --session " + reviewer}},
		{name: "first call of an unplaced sub-agent: placed from Claude Code's metadata", payload: "PreToolUse-subagent.json",
			setup: []client.Event{start(sub), turn(sub, 1), spawn(sub+":other", sub, "general-purpose")},
			opts:  Options{ReadFile: metaFiles(map[string]string{"a0d23f5288942b58b": parentMeta})},
			want: []string{`session.spawned ` + reviewer + ` {"parent":"` + sub + `","agent":"reviewer"}`, `turn.started ` + reviewer + ` {"turn":1}`,
				`tool.checked ` + reviewer + ` Read {"file_path":"/home/dev/project/README.md","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow default:read_only started`}, output: "{}"},
		{name: "nested sub-agent placed under its parent, which is placed first", payload: "PreToolUse-subagent.json",
			setup: []client.Event{start(sub), turn(sub, 1), spawn(sub+":other", sub, "general-purpose")},
			opts: Options{ReadFile: metaFiles(map[string]string{
				"a0d23f5288942b58b": `{"agentType":"reviewer","parentAgentId":"a1111111111111111"}`,
				"a1111111111111111": `{"agentType":"general-purpose"}`})},
			want: []string{`session.spawned ` + sub + `:a1111111111111111 {"parent":"` + sub + `","agent":"general-purpose"}`,
				`turn.started ` + sub + `:a1111111111111111 {"turn":1}`,
				`session.spawned ` + reviewer + ` {"parent":"` + sub + `:a1111111111111111","agent":"reviewer"}`, `turn.started ` + reviewer + ` {"turn":1}`,
				`tool.checked ` + reviewer + ` Read {"file_path":"/home/dev/project/README.md","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow default:read_only started`}, output: "{}"},
		{name: "unplaced sub-agent without metadata: the only session that may launch it", payload: "PreToolUse-subagent.json",
			doc:   `{"agents":{"reviewer":{"description":"reviews","tools":["Read"]}},"builtInAgents":["Explore"]}`,
			setup: []client.Event{start(sub), turn(sub, 1), spawn(sub+":explorer", sub, "Explore"), turn(sub+":explorer", 1)},
			want: []string{`session.spawned ` + reviewer + ` {"parent":"` + sub + `","agent":"reviewer"}`, `turn.started ` + reviewer + ` {"turn":1}`,
				`tool.checked ` + reviewer + ` Read {"file_path":"/home/dev/project/README.md","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow default:read_only started`}, output: "{}"},
		{name: "unplaced sub-agent without metadata, two sessions could have launched it: denied", payload: "PreToolUse-subagent.json",
			setup:  []client.Event{start(sub), turn(sub, 1), spawn(sub+":gp", sub, "general-purpose"), turn(sub+":gp", 1)},
			output: "deny", reasons: []string{"unknown_parent", "2 sessions may have launched it", "does not guess"}},
		{name: "metadata about another agent type is not believed", payload: "PreToolUse-subagent.json",
			setup:  []client.Event{start(sub), turn(sub, 1), spawn(sub+":gp", sub, "general-purpose"), turn(sub+":gp", 1)},
			opts:   Options{ReadFile: metaFiles(map[string]string{"a0d23f5288942b58b": `{"agentType":"general-purpose"}`})},
			output: "deny", reasons: []string{"unknown_parent", `about a "general-purpose" agent`}},
		{name: "sub-agent of an unknown agent type is refused", payload: "PreToolUse-subagent.json", patch: map[string]any{"agent_type": "claude"},
			setup:  []client.Event{start(sub), turn(sub, 1)},
			opts:   Options{ReadFile: metaFiles(map[string]string{"a0d23f5288942b58b": `{"agentType":"claude"}`})},
			output: "deny", reasons: []string{"agent_not_configured"}},
		{name: "fork call", payload: "PreToolUse-fork.json",
			setup: []client.Event{start(fork), turn(fork, 1), spawn(forked, fork, ForkAgent), turn(forked, 1)},
			want:  []string{`tool.checked ` + forked + ` Bash {"command":"ls","description":"run","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow default:read_only started`}, output: "{}"},

		// Spawns.
		{name: "first sub-agent: spawned from the main session", payload: "SubagentStart-subagent.json", setup: []client.Event{start(sub), turn(sub, 1)},
			want: []string{`session.spawned ` + reviewer + ` {"parent":"` + sub + `","agent":"reviewer"}`, `turn.started ` + reviewer + ` {"turn":1}`}, output: "{}"},
		{name: "fork spawned", payload: "SubagentStart-fork.json", setup: []client.Event{start(fork), turn(fork, 1)},
			want: []string{`session.spawned ` + forked + ` {"parent":"` + fork + `","agent":"fork","fork":true}`, `turn.started ` + forked + ` {"turn":1}`}, output: "{}"},
		{name: "a later sub-agent waits for its metadata", payload: "SubagentStart-subagent.json",
			setup:  []client.Event{start(sub), turn(sub, 1), spawn(sub+":gp", sub, "general-purpose")},
			output: "warn", reasons: []string{"not recorded yet", "waiting for Claude Code's sub-agent metadata"}},
		{name: "spawn refused by admission", payload: "SubagentStart-subagent.json", doc: `{"maxSubagentDepth":1,"agents":{"reviewer":{"description":"r"}}}`,
			setup:  []client.Event{start(sub), turn(sub, 1)},
			opts:   Options{ReadFile: metaFiles(map[string]string{"a0d23f5288942b58b": `{"agentType":"reviewer","parentAgentId":"a1111111111111111"}`, "a1111111111111111": `{"agentType":"general-purpose"}`})},
			want:   []string{`session.spawned ` + sub + `:a1111111111111111 {"parent":"` + sub + `","agent":"general-purpose"}`, `turn.started ` + sub + `:a1111111111111111 {"turn":1}`},
			output: "warn", reasons: []string{"depth_limit"}},
		{name: "sub-agent stop appends nothing", payload: "SubagentStop-subagent.json",
			setup: []client.Event{start(sub), turn(sub, 1), spawn(reviewer, sub, "reviewer"), turn(reviewer, 1)}, output: "{}"},
		{name: "stop of a sub-agent that made no call places it", payload: "SubagentStop-fork.json",
			setup: []client.Event{start(fork), turn(fork, 1), spawn(fork+":x", fork, "general-purpose")},
			opts:  Options{ReadFile: metaFiles(map[string]string{"aed5aca474377a94c": `{"agentType":"fork"}`})},
			want:  []string{`session.spawned ` + forked + ` {"parent":"` + fork + `","agent":"fork","fork":true}`, `turn.started ` + forked + ` {"turn":1}`}, output: "{}"},

		// Scopes and identity.
		{name: "the flag's scope: the project's policy installed there, the root bound to it", payload: "SessionStart.json", doc: "-",
			opts: Options{Scope: "team-x", Import: fixedDoc(mainDoc), Catalogue: []string{"Bash"}},
			want: []string{`policy.set {"dialect":"claude-code","document":` + mainDoc + `,"catalogue":["Bash"],"scope":"team-x"}`,
				`session.started ` + smoke + ` {"agent":"main",` + strings.Replace(ident, testScope, "team-x", 1) + `}`}, output: "{}"},
		{name: "a session bound to another scope than the project's now: nothing imported", payload: "SessionStart.json", patch: map[string]any{"source": "resume"},
			setup: []client.Event{client.SetPolicy(events.PolicySetData{Dialect: Dialect, Document: json.RawMessage(mainDoc), Catalogue: testCatalogue, Scope: "team-x"}),
				client.Start(smoke, events.StartedData{Agent: MainAgent, Scope: "team-x"})},
			opts:   Options{Import: fixedDoc(withMode)},
			output: "warn", reasons: []string{"runs under scope team-x", "now scope " + testScope, "not imported"}},
		{name: "a project in no repository: its directory's scope, no repository or branch", payload: "SessionStart.json", doc: "-",
			opts: Options{Locate: func(string) Location { return Location{Dir: "/home/dev/project"} }, Import: fixedDoc(mainDoc), Catalogue: []string{"Bash"}},
			want: []string{`policy.set {"dialect":"claude-code","document":` + mainDoc + `,"catalogue":["Bash"],"scope":"claude-code:project-55fd84cd"}`,
				`session.started ` + smoke + ` {"agent":"main","scope":"claude-code:project-55fd84cd","runtime":"claude-code","runtime_version":"2.1.328",` +
					`"project":"/home/dev/project","user":"dev","host":"devbox"}`}, output: "{}"},
		{name: "the model, when the payload names it", payload: "UserPromptSubmit.json", patch: map[string]any{"model": "claude-opus-4-5"},
			want: []string{`session.started ` + smoke + ` {"agent":"main","model":"claude-opus-4-5","mode":"default",` + ident + `}`,
				`turn.started ` + smoke + ` {"turn":1,"mode":"default"}`}, output: "{}"},

		// Lifecycle.
		{name: "SessionEnd ends the root", payload: "SessionEnd.json", setup: []client.Event{start(smoke), turn(smoke, 1)},
			want: []string{`session.ended ` + smoke + ` {"reason":"other"}`}, output: "{}"},
		{name: "SessionEnd delivered twice ends once", payload: "SessionEnd.json",
			setup: []client.Event{start(smoke), turn(smoke, 1), EndEvent(smoke, "other", "36e7bf83-df4e-4e27-b301-89a8679854e9", 1)}, output: "{}"},
		{name: "SessionEnd of an unknown session appends nothing", payload: "SessionEnd.json", output: "{}"},
		{name: "resume of an ended session reopens it", payload: "SessionStart.json", patch: map[string]any{"source": "resume"},
			setup: []client.Event{start(smoke), turn(smoke, 1), client.End(smoke, "other")},
			want:  []string{`session.reopened ` + smoke + ` {"reason":"resume"}`}, output: "{}"},
		{name: "a prompt of an ended session (HTTP hooks get no SessionStart) reopens it", payload: "UserPromptSubmit.json",
			setup: []client.Event{start(smoke), turn(smoke, 1), client.End(smoke, "other")},
			want:  []string{`session.reopened ` + smoke + ` {"reason":"UserPromptSubmit"}`, `turn.started ` + smoke + ` {"turn":2,"mode":"default"}`}, output: "{}"},
		{name: "a call of an ended session reopens it, and is decided", payload: "PreToolUse.json",
			setup: []client.Event{start(sub), turn(sub, 1), client.End(sub, "other")},
			want: []string{`session.reopened ` + sub + ` {"reason":"PreToolUse"}`,
				`tool.checked ` + sub + ` Bash {"command":"echo hi","description":"Say hi","ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}} -> allow permission:allow started`}, output: "{}"},
		{name: "reopened and ended again at the same turn: a second end lands", payload: "SessionEnd.json",
			setup: []client.Event{start(smoke), turn(smoke, 1), EndEvent(smoke, "other", "36e7bf83-df4e-4e27-b301-89a8679854e9", 1), client.Reopen(smoke, "resume")},
			want:  []string{`session.ended ` + smoke + ` {"reason":"other"} (duplicate)`, `session.ended ` + smoke + ` {"reason":"other"}`}, output: "{}"},

		// Events that map to nothing.
		{name: "Stop", payload: "Stop.json", setup: []client.Event{start(smoke), turn(smoke, 1)}, output: "{}"},
		{name: "StopFailure", payload: "StopFailure.json", output: "{}"},
		{name: "PostToolUse", payload: "PostToolUse.json", output: "{}"},
		{name: "PostToolUse-subagent", payload: "PostToolUse-subagent.json", output: "{}"},
		{name: "PostToolUse-fork", payload: "PostToolUse-fork.json", output: "{}"},
		{name: "PostToolUseFailure", payload: "PostToolUseFailure.json", output: "{}"},
		{name: "PermissionRequest", payload: "PermissionRequest.json", output: "{}"},
		{name: "PermissionRequest-subagent", payload: "PermissionRequest-subagent.json", output: "{}"},
		{name: "PermissionDenied", payload: "PermissionDenied.json", output: "{}"},
		{name: "CwdChanged", payload: "CwdChanged.json", output: "{}"},
		{name: "InstructionsLoaded", payload: "InstructionsLoaded.json", output: "{}"},
	}
}

// fixedDoc is an Import that always finds doc.
func fixedDoc(doc string) func(string) (json.RawMessage, error) {
	return func(string) (json.RawMessage, error) { return json.RawMessage(doc), nil }
}

// TestMapping runs the hook on every captured payload against a real
// (in-memory) ledger and compares what it appended and answered.
func TestMapping(t *testing.T) {
	used := map[string]bool{}
	for _, tt := range hookCases() {
		used[tt.payload] = true
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.doc
			switch doc {
			case "":
				doc = testDoc
			case "-":
				doc = ""
			}
			l := newLedger(t, doc)
			l.must(t, tt.setup...)
			l.log = nil
			opts := tt.opts
			if opts.ReadFile == nil {
				opts.ReadFile = metaFiles(nil)
			}
			if opts.Locate == nil {
				opts.Locate = func(string) Location { return testLoc }
			}
			if opts.Who == nil {
				opts.Who = func() Who { return testWho }
			}
			h := &Hook{L: l, Opts: opts}
			res := h.Handle(context.Background(), loadPayload(t, tt.payload, tt.patch))
			if got := l.log; !slices.Equal(got, tt.want) {
				t.Errorf("appended:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			checkOutput(t, res, tt.output, tt.reasons)
		})
	}
	files, err := filepath.Glob(filepath.Join(payloadDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := filepath.Base(f); name != "fields.json" && !used[name] {
			t.Errorf("no case runs the payload %s", name)
		}
	}
}

func checkOutput(t *testing.T, res *Result, want string, reasons []string) {
	t.Helper()
	var out struct {
		SystemMessage string `json:"systemMessage"`
		Specific      *struct {
			HookEventName, PermissionDecision, PermissionDecisionReason string
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatalf("output %q: %v", res.Output, err)
	}
	text := out.SystemMessage
	switch want {
	case "{}":
		if string(res.Output) != "{}" {
			t.Fatalf("output %s, want {} (warnings %q)", res.Output, res.Warnings)
		}
	case "warn":
		if out.SystemMessage == "" || out.Specific != nil {
			t.Fatalf("output %s, want a systemMessage", res.Output)
		}
	case "deny":
		if out.Specific == nil || out.Specific.HookEventName != PreToolUse || out.Specific.PermissionDecision != "deny" || !res.Denied {
			t.Fatalf("output %s, want a PreToolUse denial", res.Output)
		}
		text = out.Specific.PermissionDecisionReason
	}
	for _, r := range reasons {
		if !strings.Contains(text, r) {
			t.Errorf("%q does not say %q", text, r)
		}
	}
}

// TestPreToolUseMakesOneRecord: a PreToolUse makes one record, the check
// that starts the call's effect (effect: true), decided at the head; there
// is no window between a check and an effect for a revocation to fall in.
// A deny grant that lands after the record applies to the next call, which
// is denied with the grant's reason. (The two-record form, a check early
// and an effect later, is refused at the effect when authority changed in
// between: scenario testdata/conformance/ledger/revoke-03-prepared-effect-refused.)
func TestPreToolUseMakesOneRecord(t *testing.T) {
	l := newLedger(t, testDoc)
	l.must(t, start(sub), turn(sub, 1))
	granted := false
	l.afterCheck = func() {
		if !granted {
			granted = true
			l.must(t, client.AddGrant(events.GrantData{Kind: "permission", Agent: "*", Target: "*", Behavior: "deny", Rule: "Bash(echo *)", Scope: testScope}))
		}
	}
	h := &Hook{L: l}
	res := h.Handle(context.Background(), loadPayload(t, "PreToolUse.json", nil))
	checkOutput(t, res, "{}", nil)
	if len(res.Appended) != 1 || res.Appended[0].Type != events.ToolChecked {
		t.Fatalf("appended %+v, want one tool.checked", res.Appended)
	}
	var checks, effects int
	for _, line := range l.log {
		switch {
		case strings.HasPrefix(line, "tool.checked "):
			checks++
			if !strings.HasSuffix(line, " started") {
				t.Errorf("%q: want the check that starts the effect", line)
			}
		case strings.HasPrefix(line, "tool.effect_started "):
			effects++
		}
	}
	if checks != 1 || effects != 0 {
		t.Fatalf("%d tool.checked and %d tool.effect_started, want 1 and 0: %q", checks, effects, l.log)
	}
	next := loadPayload(t, "PreToolUse.json", map[string]any{"tool_use_id": "toolu_MAIN_00_01"})
	checkOutput(t, h.Handle(context.Background(), next), "deny", []string{"Bash", "ledger why --call toolu_MAIN_00_01 --session " + sub})
}

// TestUnreachable: a ledger that does not answer denies calls by default,
// lets them through with UnreachableAllow, and never blocks other events.
func TestUnreachable(t *testing.T) {
	down := nats.ErrNoServers // a transport failure (Unreached)
	for _, tt := range []struct {
		payload string
		opt     Unreachable
		want    string
		reasons []string
	}{
		{"PreToolUse.json", "", "deny", []string{"nats://x:4222 cannot be reached", "no servers available", "--unreachable allow"}},
		{"PreToolUse.json", UnreachableDeny, "deny", []string{"fails closed"}},
		{"PreToolUse.json", UnreachableAllow, "warn", []string{"goes ahead unchecked"}},
		{"PreToolUse-subagent.json", UnreachableAllow, "warn", []string{"goes ahead unchecked"}},
		{"UserPromptSubmit.json", "", "warn", []string{"cannot be reached", "nothing was recorded for this UserPromptSubmit"}},
		{"SessionStart.json", "", "warn", []string{"cannot be reached"}},
		{"SubagentStart-subagent.json", "", "warn", []string{"cannot be reached"}},
		{"PostToolBatch.json", "", "warn", []string{"cannot be reached"}},
		{"Stop.json", "", "{}", nil},
	} {
		t.Run(tt.payload+"/"+string(tt.opt), func(t *testing.T) {
			l := newLedger(t, testDoc)
			l.down = down
			res := (&Hook{L: l, Opts: Options{Unreachable: tt.opt, Where: "nats://x:4222"}}).Handle(context.Background(), loadPayload(t, tt.payload, nil))
			checkOutput(t, res, tt.want, tt.reasons)
			if tt.want != "{}" && !res.Unreachable {
				t.Error("Result.Unreachable not set")
			}
		})
	}
}

// TestBadPayloads: a call that cannot be read is denied; anything else is
// let through with a warning.
func TestBadPayloads(t *testing.T) {
	for _, tt := range []struct{ raw, want, reason string }{
		{``, "deny", "no hook payload"},
		{`not json`, "deny", "not a JSON object"},
		{`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, "deny", "session_id"},
		{`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash"}`, "deny", "tool_use_id"},
		{`{"hook_event_name":"SubagentStart","session_id":"s"}`, "warn", "agent_id"},
	} {
		l := newLedger(t, testDoc)
		res := (&Hook{L: l}).Handle(context.Background(), []byte(tt.raw))
		checkOutput(t, res, tt.want, []string{tt.reason})
		if len(l.log) > 0 {
			t.Errorf("%s: appended %v", tt.raw, l.log)
		}
	}
}

// TestEventIDs: ids are valid ULIDs, derived from their parts.
func TestEventIDs(t *testing.T) {
	a, b := EventID("s", "turn", "prompt:1"), EventID("s", "turn", "prompt:2")
	if !events.ValidID(a) || !events.ValidID(b) || a == b || a != EventID("s", "turn", "prompt:1") {
		t.Fatalf("ids %s %s", a, b)
	}
	if EventID("s:a", "b") == EventID("s", "a:b") {
		t.Fatal("parts are not kept apart")
	}
}

func TestCallInput(t *testing.T) {
	long := strings.Repeat("x", maxParam+1)
	const where = `"ledger:paths":{"home":"/home/dev","project":"/home/dev/project"}`
	for _, tt := range []struct {
		tool, in, want string
	}{
		// Paths stay absolute, as Claude Code's tools send them; where the
		// call runs comes beside them (issue 25: Read(//**/*.pem) must see
		// a project file, Read(~/.aws/**) /home/dev/.aws/credentials).
		{"Read", `{"file_path":"/home/dev/project/src/a.go"}`, `{"file_path":"/home/dev/project/src/a.go",` + where + `}`},
		{"Read", `{"file_path":"/home/dev/project"}`, `{"file_path":"/home/dev/project",` + where + `}`},
		{"Edit", `{"file_path":"/home/dev/.ssh/config"}`, `{"file_path":"/home/dev/.ssh/config",` + where + `}`},
		{"Grep", `{"path":"/etc","pattern":"x"}`, `{` + where + `,"path":"/etc","pattern":"x"}`},
		{"Bash", `{"command":"cat /home/dev/project/a"}`, `{"command":"cat /home/dev/project/a",` + where + `}`},
		{"Monitor", `{"command":"tail -f log"}`, `{"command":"tail -f log",` + where + `}`},
		{"Read", `{"file_path":"rel/x"}`, `{"file_path":"rel/x",` + where + `}`},
		{"Bash", `{"command":"ls","description":"d"}`, `{"command":"ls","description":"d",` + where + `}`},
		// A tool whose decision reads no path gets no key.
		{"WebFetch", `{"url":"https://go.dev/doc/"}`, `{"url":"https://go.dev/doc/"}`},
		// Nobody but the hook says where a call runs.
		{"WebFetch", `{"url":"u","ledger:paths":"/x"}`, `{"url":"u"}`},
		{"Read", `{"file_path":"/a","ledger:paths":{"project":"/"}}`, `{"file_path":"/a",` + where + `}`},
		// A parameter too long to record is named (ledger:cut), so that a
		// parameter rule on it fails closed (hostile pass: a 300-byte
		// description evaded Bash(description:*deploy*)).
		{"Write", `{"file_path":"/a","content":"` + long + `"}`, `{"file_path":"/a","ledger:cut":["content"],` + where + `}`},
		{"Bash", `{"command":"ls","description":"` + long + `","ledger:cut":["x"]}`, `{"command":"ls","ledger:cut":["description"],` + where + `}`},
		{"Bash", `{"command":"` + long + `"}`, `{"command":"` + long + `",` + where + `}`},
		{"Agent", `{"subagent_type":"Explore","prompt":"` + long + `","run_in_background":true}`, `{"ledger:cut":["prompt"],"run_in_background":true,"subagent_type":"Explore"}`},
		{"Edit", `{"file_path":"/a","edits":[{"x":1}],"opts":{"a":1},"n":null}`, `{"file_path":"/a",` + where + `}`},
		{"Read", `{}`, ``},
		{"Read", ``, ``},
	} {
		if got := string(CallInput(tt.tool, json.RawMessage(tt.in), "/home/dev/project", "/home/dev")); got != tt.want {
			t.Errorf("CallInput(%s, %s) = %s, want %s", tt.tool, tt.in, got, tt.want)
		}
	}
	// Without an absolute working directory the input says nothing of
	// where it runs; without a home directory, only the project.
	if got := string(CallInput("Read", json.RawMessage(`{"file_path":"/a"}`), "", "/home/dev")); got != `{"file_path":"/a"}` {
		t.Errorf("no work dir: %s", got)
	}
	if got := string(CallInput("Read", json.RawMessage(`{"file_path":"/a"}`), "/p/../q", "")); got != `{"file_path":"/a","ledger:paths":{"project":"/q"}}` {
		t.Errorf("no home: %s", got)
	}
	// The shell's directory, when an earlier cd left it elsewhere than the
	// project (sh3-cwd); the project's own is not repeated.
	if got := string(CallInputAt("Bash", json.RawMessage(`{"command":"rm x"}`), "/q", "/h", "/q/locked/")); got != `{"command":"rm x","ledger:paths":{"cwd":"/q/locked","home":"/h","project":"/q"}}` {
		t.Errorf("cwd: %s", got)
	}
	if got := string(CallInputAt("Bash", json.RawMessage(`{"command":"rm x"}`), "/q", "/h", "/q")); got != `{"command":"rm x","ledger:paths":{"home":"/h","project":"/q"}}` {
		t.Errorf("cwd at the project: %s", got)
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ledger", "why", "--seq", "4"}, "ledger why --seq 4"},
		{[]string{"--input", `{"command":"rm -rf x"}`}, `--input '{"command":"rm -rf x"}'`},
		{[]string{"it's"}, `'it'\''s'`},
		{[]string{""}, "''"},
		{[]string{"a$b", "c`d`", "e;f"}, `'a$b' 'c` + "`d`" + `' 'e;f'`},
	} {
		if got := Quote(tt.args...); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestKeys(t *testing.T) {
	p := &Payload{SessionID: sub, AgentID: "a0d23f5288942b58b"}
	if k, err := p.Key(); err != nil || k != reviewer {
		t.Fatalf("%s %v", k, err)
	}
	for _, bad := range []*Payload{{SessionID: "a b"}, {SessionID: "s", AgentID: "../x"}, {SessionID: strings.Repeat("s", 200), AgentID: "a"}} {
		if _, err := bad.Key(); events.CodeOf(err) != events.CodeBadSessionKey {
			t.Errorf("%+v: %v, want bad_session_key", bad, err)
		}
	}
	if MetaPath("/h/.claude/projects/p/"+sub+".jsonl", "a1") != "/h/.claude/projects/p/"+sub+"/subagents/agent-a1.meta.json" {
		t.Error(MetaPath("/h/.claude/projects/p/"+sub+".jsonl", "a1"))
	}
	if MetaPath("/t.jsonl", "../../etc/passwd") != "" {
		t.Error("MetaPath follows a path in an agent id")
	}
}

func TestHomeOf(t *testing.T) {
	for in, want := range map[string]string{
		"/home/dev/.claude/projects/-home-dev-project/" + sub + ".jsonl": "/home/dev",
		"/root/.claude/projects/x/y.jsonl":                               "/root",
		"relative/.claude/projects/x.jsonl":                              "",
		"/tmp/t.jsonl":                                                   "",
	} {
		if got := HomeOf(in); got != want {
			t.Errorf("HomeOf(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestProjectDir(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, "src", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ cwd, env, want string }{
		{filepath.Join(proj, "src", "deep"), "", proj},
		{proj, "", proj},
		{filepath.Join(home, "work"), "", ""}, // ~/.claude is not a project's
		{filepath.Join(home, "work"), "/x", "/x"},
	} {
		if got := ProjectDir(tt.cwd, tt.env, home); got != tt.want {
			t.Errorf("ProjectDir(%s, %q) = %q, want %q", tt.cwd, tt.env, got, tt.want)
		}
	}
}

// TestScopesKeepTheirPolicies: two projects, each in its own repository and
// so its own scope, share one ledger. Each project's policy is installed in
// its scope alone, each session is decided under its own project's policy,
// and neither project's prompts replace the other's policy.
func TestScopesKeepTheirPolicies(t *testing.T) {
	l := newLedger(t, "")
	type project struct {
		root events.SessionKey
		loc  Location
		doc  string
		rm   envelope.Decision // what a Bash rm is decided
	}
	api := project{"api-session", Location{Dir: "/home/dev/api", Repo: &Repo{Root: "/home/dev/api", Origin: "git@github.com:acme/api.git"}},
		`{"permissions":{"deny":["Bash(rm *)"]}}`, envelope.Deny}
	web := project{"web-session", Location{Dir: "/home/dev/web", Repo: &Repo{Root: "/home/dev/web", Origin: "git@github.com:acme/web.git"}},
		`{"permissions":{"allow":["Bash(rm *)"]}}`, envelope.Allow}
	handle := func(pr project, payload string, patch map[string]any) *Result {
		t.Helper()
		h := &Hook{L: l, Opts: Options{Catalogue: testCatalogue, Import: fixedDoc(pr.doc), ReadFile: metaFiles(nil),
			Locate: func(string) Location { return pr.loc }, Who: func() Who { return testWho }}}
		p := map[string]any{"session_id": string(pr.root)}
		for k, v := range patch {
			p[k] = v
		}
		return h.Handle(t.Context(), loadPayload(t, payload, p))
	}
	scopeOf := func(pr project) string { return ScopeOf(pr.loc, testWho.Host) }
	if scopeOf(api) == scopeOf(web) {
		t.Fatalf("both projects in scope %s", scopeOf(api))
	}
	for _, pr := range []project{api, web} {
		l.log = nil
		res := handle(pr, "SessionStart.json", nil)
		want := []string{`policy.set {"dialect":"claude-code","document":` + pr.doc + `,"catalogue":` + jsonOf(t, testCatalogue) + `,"scope":"` + scopeOf(pr) + `"}`,
			`session.started ` + string(pr.root) + ` {"agent":"main","scope":"` + scopeOf(pr) + `"`}
		if len(l.log) != 2 || l.log[0] != want[0] || !strings.HasPrefix(l.log[1], want[1]) {
			t.Errorf("%s start appended:\n  %s\nwant:\n  %s", pr.root, strings.Join(l.log, "\n  "), strings.Join(want, "\n  "))
		}
		checkOutput(t, res, "{}", nil)
	}
	for i, pr := range []project{api, web, api} {
		l.log = nil
		res := handle(pr, "UserPromptSubmit.json", map[string]any{"prompt_id": fmt.Sprint("prompt-", i)})
		if len(l.log) != 1 || !strings.HasPrefix(l.log[0], "turn.started "+string(pr.root)) {
			t.Errorf("%s prompt appended %q, want its turn alone", pr.root, l.log)
		}
		checkOutput(t, res, "{}", nil)
	}
	for _, pr := range []project{api, web} {
		res := handle(pr, "PreToolUse.json", map[string]any{"tool_input": map[string]any{"command": "rm -rf build"}})
		if res.Decision != pr.rm {
			t.Errorf("%s: rm decided %s, want %s (%s)", pr.root, res.Decision, pr.rm, res.Reason)
		}
		in, err := l.Policy(t.Context(), pr.root)
		if err != nil || in == nil {
			t.Fatalf("%s: policy %v", pr.root, err)
		}
		if got, _ := events.CanonicalJSON(in.Document); string(got) != pr.doc {
			t.Errorf("%s: policy in force %s, want its project's %s", pr.root, got, pr.doc)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
