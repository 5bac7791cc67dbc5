package agentcli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/agentclitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// servedLedger is a 'ledger serve' the hooks of a run talk to.
type servedLedger struct {
	t        *testing.T
	bin, url string
	// With the thin hook (serveLedgerThin): the ledger-hook binary, the
	// server's hooks socket and its token file.
	thin, sock, tokenFile string
}

func serveLedger(t *testing.T) *servedLedger {
	t.Helper()
	bin := ledgertest.BuildLedger(t)
	return &servedLedger{t: t, bin: bin, url: ledgertest.ServeLedger(t, bin)}
}

// buildThinHook builds cmd/ledger-hook into the test's directory.
func buildThinHook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ledger-hook")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ledger-hook")
	cmd.Dir = ledgertest.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ledger-hook: %v\n%s", err, out)
	}
	return bin
}

// serveLedgerThin is serveLedger with 'serve --hooks unix:PATH' (a token
// file of its own), and the ledger-hook binary: install writes the thin
// hook.
func serveLedgerThin(t *testing.T) *servedLedger {
	t.Helper()
	bin := ledgertest.BuildLedger(t)
	thin := buildThinHook(t)
	sockDir, err := os.MkdirTemp("", "lthin")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "hooks.sock")
	tokenFile := filepath.Join(t.TempDir(), "hooks-token")
	url := ledgertest.ServeLedgerWith(t, bin, "--hooks", "unix:"+sock, "--hooks-token-file", tokenFile)
	return &servedLedger{t: t, bin: bin, url: url, thin: thin, sock: sock, tokenFile: tokenFile}
}

// cmd runs the ledger against the served one (its log over NATS, a
// projection of its own).
func (s *servedLedger) cmd(args ...string) string {
	s.t.Helper()
	return ledgertest.LedgerCmd(s.t, s.bin, append(args, "--nats", s.url, "--data", s.t.TempDir())...)
}

// setPolicy sets the scope's policy in the ledger dialect.
func (s *servedLedger) setPolicy(scope string, doc map[string]any) {
	s.t.Helper()
	b, _ := json.Marshal(doc)
	f := filepath.Join(s.t.TempDir(), "policy.json")
	must(s.t, os.WriteFile(f, b, 0o644))
	s.cmd("policy", "set", "--dialect", "ledger", "--scope", scope, f)
}

// install runs 'ledger hook install --runtime RT' for the project.
func (s *servedLedger) install(runtime, dir, scope string) {
	s.t.Helper()
	if s.thin != "" {
		out := ledgertest.LedgerCmd(s.t, s.bin, "hook", "install", "--runtime", runtime, "--project", dir, "--url", "unix:"+s.sock,
			"--hook-binary", s.thin, "--token-file", s.tokenFile, "--scope", scope)
		if !strings.Contains(out, "the thin hook, to unix:"+s.sock) {
			s.t.Fatalf("hook install: %s", out)
		}
		return
	}
	out := ledgertest.LedgerCmd(s.t, s.bin, "hook", "install", "--runtime", runtime, "--project", dir, "--command", s.bin,
		"--", "--nats", s.url, "--scope", scope, "--timeout", "4s")
	if !strings.Contains(out, "installed the ledger's") {
		s.t.Fatalf("hook install: %s", out)
	}
}

// tree is the session's tree as the served ledger's API answers it.
func (s *servedLedger) tree(owner, key string) *client.TreeNode {
	s.t.Helper()
	nc, err := nats.Connect(s.url)
	must(s.t, err)
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := client.New(nc, client.Options{Owner: owner}).Tree(ctx, clientKey(key))
	if err != nil || len(tr) == 0 {
		s.t.Fatalf("tree %s: %v", key, err)
	}
	return tr[0]
}

// rootOf is the session_id of the run's SessionStart, read from the
// recorder's records in the run's hooks directory.
func rootOf(t *testing.T, hooks string) string {
	for _, h := range agentclitest.ReadHooks(t, hooks) {
		if h.Event() == "SessionStart" {
			return str(h, "session_id")
		}
	}
	return ""
}

// denyOnce runs 'ledger deny --rule RULE --session ROOT' the first time it
// is called: the operator's revocation mid-run.
type denyOnce struct {
	once sync.Once
	seq  string
}

func (d *denyOnce) deny(t *testing.T, s *servedLedger, rule, root string) {
	d.once.Do(func() {
		if root == "" {
			t.Errorf("no SessionStart recorded before the deny")
			return
		}
		cmd := exec.Command(s.bin, "deny", "--rule", rule, "--session", root, "--note", "INC-29", "--nats", s.url, "--data", t.TempDir())
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("ledger deny: %v\n%s", err, out)
		}
		d.seq = string(out)
	})
}

// revoked checks a ledger run whose main agent and sub-agent each wrote a
// file by an allowed call (main.txt, worker.txt) and whose last call,
// call_denied, the command the operator revoked (touch denied.txt), did
// not run: the model got its output, which holds each of wants. It
// returns that output.
func revoked(t *testing.T, res *agentclitest.Result, wants ...string) string {
	t.Helper()
	for _, f := range []string{"main.txt", "worker.txt"} {
		if !exists(filepath.Join(res.Dir, f)) {
			t.Errorf("%s was not written: an allowed call did not run", f)
		}
	}
	if exists(filepath.Join(res.Dir, "denied.txt")) {
		t.Errorf("denied.txt was written: the revoked call ran")
	}
	out, ok := res.Output("call_denied")
	if !ok {
		t.Fatalf("the model never got call_denied's output")
	}
	t.Logf("call_denied's output, as the model got it: %s", out)
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the blocked call's output does not hold %q: %s", want, out)
		}
	}
	return out
}

// why checks that 'ledger why --call CALL --session SESSION' names want.
func (s *servedLedger) why(call, session, want string) {
	s.t.Helper()
	why := s.cmd("why", "--call", call, "--session", session)
	s.t.Logf("ledger why --call %s:\n%s", call, why)
	if !strings.Contains(why, want) {
		s.t.Errorf("ledger why --call %s: want %q in\n%s", call, want, why)
	}
}

// verify checks that 'ledger verify' finds no drift.
func (s *servedLedger) verify() {
	s.t.Helper()
	if v := s.cmd("verify"); !strings.Contains(v, "no drift") {
		s.t.Errorf("ledger verify: %s", v)
	}
}

// TestCodexLedger: the real codex exec, offline, with the ledger's hooks
// installed by 'ledger hook install --runtime codex' in the project's
// .codex/hooks.json, against a served ledger whose scope has a
// ledger-dialect policy allowing the shell tool, view_image and the
// multi-agent tools. The main agent runs a command and spawns a
// sub-agent, which runs a command (placed under the root by the spawn's
// PostToolUse); then an operator denies Bash for the root session alone
// (deny.added), and the main agent's next command is blocked inside codex
// with the ledger's reason; 'ledger why --call' names revocation:deny and
// 'ledger verify' passes.
func TestCodexLedger(t *testing.T) {
	agentclitest.Codex(t)
	testCodexLedger(t, serveLedger(t))
}

// TestCodexThinLedger is TestCodexLedger with the thin hook: 'ledger hook
// install --runtime codex --url unix:PATH --hook-binary ledger-hook'
// writes 'ledger-hook --runtime codex --hooks unix:PATH --token-file F
// --scope S' for every event, and 'ledger serve --hooks unix:PATH' maps
// the payloads (POST /hooks/codex) as 'ledger hook codex' does: the
// allowed calls run, the sub-agent is placed under the root, the call the
// operator revokes is blocked inside codex with the ledger's reason and
// the 'ledger why' to run, and 'ledger why' and 'ledger verify' answer as
// they do for TestCodexLedger (one body, testCodexLedger).
func TestCodexThinLedger(t *testing.T) {
	agentclitest.Codex(t)
	testCodexLedger(t, serveLedgerThin(t))
}

func testCodexLedger(t *testing.T, s *servedLedger) {
	const scope = "codex-e2e"
	s.setPolicy(scope, map[string]any{"runtime": "codex@0.169.0",
		"permissions": map[string]any{"allow": []string{"Bash", "view_image", "spawn_agent", "multi_agent_v1wait_agent"}}})
	var hooks, root string
	var d denyOnce
	res := agentclitest.RunCodex(t.Context(), t, agentclitest.Case{
		Name: "ledger",
		// The recorder beside the ledger's hooks: it tells the test the
		// root's id, and the order codex runs the events in.
		Events: []string{"SessionStart", "PreToolUse", "PostToolUse", "SubagentStart"},
		Files:  map[string]string{"notes.txt": "hello notes\n"},
		Setup: func(dir, home string) {
			hooks = filepath.Join(filepath.Dir(dir), "hooks")
			s.install("codex", dir, scope)
			if s.thin == "" {
				return
			}
			b, err := os.ReadFile(filepath.Join(dir, ".codex", "hooks.json"))
			if err != nil || !strings.Contains(string(b), s.thin+" --runtime codex --hooks unix:"+s.sock) {
				t.Fatalf("hooks.json: %v %s", err, b)
			}
		},
		Before: func(q agentclitest.Request) {
			if _, ok := q.Output("call_wait"); ok && q.Script == "main" {
				root = rootOf(t, hooks)
				d.deny(t, s, "Bash", root)
			}
		},
		Scripts: agentclitest.Scripts{
			"main": {
				{agentclitest.Call("call_sh", "exec_command", map[string]any{"cmd": "cat notes.txt > main.txt"})},
				{{ID: "call_spawn", Tool: "spawn_agent", Namespace: "multi_agent_v1", Args: map[string]any{"message": "script:worker"}}},
				{waitFor("call_wait", "call_spawn")},
				{agentclitest.Call("call_denied", "exec_command", map[string]any{"cmd": "touch denied.txt"})},
			},
			"worker": {{agentclitest.Call("call_worker_sh", "exec_command", map[string]any{"cmd": "cat notes.txt > worker.txt"})}},
		},
	})
	if res.ExitCode != 0 || len(res.Unexpected) > 0 {
		t.Fatalf("codex exited %d, unexpected requests %v; stderr: %s", res.ExitCode, res.Unexpected, res.Stderr)
	}
	revoked(t, res, "Command blocked by PreToolUse hook", "revocation:deny", "INC-29", "ledger why", "--call call_denied --session "+root)
	s.why("call_denied", root, "revocation:deny")
	// The order codex 0.169.0 ran them in: the spawn_agent's PostToolUse
	// (which records the spawn) before the sub-agent's first PreToolUse,
	// in every run so far; the hook waits for it anyway (SpawnWait).
	var order []string
	for _, h := range res.Hooks {
		if h.Event() != "SessionStart" {
			order = append(order, codexKind(h)+"/"+str(h, "tool_use_id"))
		}
	}
	t.Logf("hook order: %v", order)
	// The sub-agent: placed under the root, its call decided as its own.
	tr := s.tree("codex", root)
	if tr.Identity == nil || tr.Identity.Runtime != "codex" || tr.Scope != scope {
		t.Errorf("root: scope %q identity %+v", tr.Scope, tr.Identity)
	}
	if len(tr.Children) != 1 {
		t.Fatalf("the root has %d sub-agents, want 1", len(tr.Children))
	}
	s.why("call_worker_sh", string(tr.Children[0].Key), "allow")
	s.verify()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func clientKey(s string) events.SessionKey { return events.SessionKey(s) }
