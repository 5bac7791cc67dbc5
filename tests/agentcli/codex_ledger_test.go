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
	s := serveLedger(t)
	const scope = "codex-e2e"
	s.setPolicy(scope, map[string]any{"runtime": "codex@0.169.0",
		"permissions": map[string]any{"allow": []string{"Bash", "view_image", "spawn_agent", "multi_agent_v1wait_agent"}}})
	var hooks string
	var root string
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
	for _, want := range []string{"Command blocked by PreToolUse hook", "revocation:deny", "INC-29", "ledger why", "--call call_denied --session " + root} {
		if !strings.Contains(out, want) {
			t.Errorf("the blocked call's output does not hold %q: %s", want, out)
		}
	}
	t.Logf("call_denied's output, as the model got it: %s", out)
	why := s.cmd("why", "--call", "call_denied", "--session", root)
	t.Logf("ledger why --call call_denied:\n%s", why)
	if !strings.Contains(why, "revocation:deny") {
		t.Errorf("ledger why --call call_denied:\n%s", why)
	}
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
	w := s.cmd("why", "--call", "call_worker_sh", "--session", string(tr.Children[0].Key))
	if !strings.Contains(w, "allow") {
		t.Errorf("ledger why --call call_worker_sh:\n%s", w)
	}
	if v := s.cmd("verify"); !strings.Contains(v, "no drift") {
		t.Errorf("ledger verify: %s", v)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func clientKey(s string) events.SessionKey { return events.SessionKey(s) }
