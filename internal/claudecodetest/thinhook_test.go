package claudecodetest

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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

// TestThinHookSessionStart (issue 28, point 2): 'ledger hook install --url'
// against 'ledger serve --hooks' writes HTTP hooks for every event but
// SessionStart and, for SessionStart, the thin ledger-hook posting to the
// same server. With the real CLI the root is started at SessionStart by the
// thin hook, with what only a command hook knows (runtime_version 2.1.328
// from AI_AGENT; an HTTP hook names no version), and a call the ledger
// denies (an operator's grant, appended before the model's first answer)
// is blocked inside Claude Code with the ledger's reason.
func TestThinHookSessionStart(t *testing.T) {
	CLI(t)
	bin := ledgertest.BuildLedger(t)
	slim := filepath.Join(t.TempDir(), cchook.SlimBinary)
	build := exec.Command("go", "build", "-o", slim, "./cmd/"+cchook.SlimBinary)
	build.Dir = ledgertest.Root()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/%s: %v\n%s", cchook.SlimBinary, err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	must(t, ln.Close())
	tokenFile := filepath.Join(t.TempDir(), "hooks-token")
	must(t, os.WriteFile(tokenFile, []byte("thin-hook-test-token-0123456789\n"), 0o600))
	url := ledgertest.ServeLedgerWith(t, bin, "--hooks", addr, "--hooks-token-file", tokenFile, "--hooks-roots", "/")
	hooksURL := "http://" + addr + cchook.HTTPPath
	// serve prints its NATS URL before the hooks listen.
	ledgertest.WaitFor(t, 10*time.Second, "serve --hooks to listen", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	must(t, err)
	defer nc.Close()
	ops := client.New(nc, client.Options{})
	view := client.New(nc, client.Options{Owner: hookOwner})

	var scope string
	var once sync.Once
	var granted atomic.Uint64
	var settings []byte
	res := Run(t.Context(), t, Case{
		Name:     "thin hook",
		Settings: Settings{Allow: []string{"Bash(touch *)"}},
		Scripts:  Scripts{"main": {{{ID: "toolu_touch", Tool: "Bash", Input: map[string]any{"command": "touch thin.txt", "description": "d"}}}}},
		Setup: func(dir, _ string) {
			ledgertest.LedgerCmd(t, bin, "hook", "install", "--project", dir, "--url", hooksURL, "--token-file", tokenFile, "--hook-binary", slim)
			settings, _ = os.ReadFile(filepath.Join(dir, ".claude", "settings.local.json"))
			host, _ := os.Hostname()
			scope = cchook.ScopeOf(cchook.LocateProject(dir, nil), host)
		},
		// The operator denies Bash in the project's scope before the model
		// answers the prompt: the scope's policy is in force by then.
		BeforeAnswer: func(q Request) {
			once.Do(func() {
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
	var blk struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command, URL string } `json:"hooks"`
		} `json:"hooks"`
	}
	must(t, json.Unmarshal(settings, &blk))
	for ev, groups := range blk.Hooks {
		h := groups[0].Hooks[0]
		if ev == cchook.SessionStart && (h.Type != "command" || !strings.Contains(h.Command, slim) || !strings.Contains(h.Command, "--hooks "+hooksURL)) ||
			ev != cchook.SessionStart && (h.Type != "http" || h.URL != hooksURL) {
			t.Errorf("%s: installed %+v", ev, h)
		}
	}
	if granted.Load() == 0 {
		t.Fatal("the model was never asked")
	}
	c := res.Call("toolu_touch")
	if c == nil || c.PostToolUse || c.Result == nil {
		t.Fatalf("the call ran, or got no result: %+v", c)
	}
	for _, want := range []string{"PreToolUse:Bash hook error", "The session policy ledger denied Bash", "grant.added"} {
		if !strings.Contains(c.Result.Content, want) {
			t.Errorf("the blocked call's result does not say %q: %s", want, c.Result.Content)
		}
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "thin.txt")); !os.IsNotExist(err) {
		t.Errorf("thin.txt exists (err %v): the call ran", err)
	}
	var out struct {
		SessionID string `json:"session_id"`
	}
	must(t, json.Unmarshal(res.Output, &out))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	trees, err := view.Tree(ctx, events.SessionKey(out.SessionID))
	if err != nil || len(trees) == 0 || trees[0].Identity == nil {
		t.Fatalf("the root %s: %v %+v", out.SessionID, err, trees)
	}
	tree := trees[0]
	// Only a command hook's process knows the version (AI_AGENT): the
	// root was started by the thin hook at SessionStart, before any HTTP
	// hook's event, in the project's scope.
	if tree.Identity.RuntimeVersion != Pin(t) || tree.Scope != scope {
		t.Errorf("the root's identity %+v in scope %q, want runtime_version %s in %s", tree.Identity, tree.Scope, Pin(t), scope)
	}
}
