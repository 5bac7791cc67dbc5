package claudecodetest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestHookFailureBlocks has 2.1.328 run a call whose PreToolUse hook fails,
// with the hooks 'ledger hook install' writes (cchook.CommandBlock and
// HTTPBlock, onFailure "block" on PreToolUse): a hook that times out, exits
// 1, or whose HTTP server is down or answers 500 blocks the call (issue
// 24, point 2). Without onFailure the CLI runs the call (a hook that exits
// 1, an HTTP server down or answering 500): the finding the option closes. It also has the CLI post through the hook server's own
// handler (serve --hooks: the token in the header hook install writes, its
// Host, Origin and Content-Type checks): the CLI's request is served, an
// allowed call runs and a denied one is blocked.
func TestHookFailureBlocks(t *testing.T) {
	CLI(t)
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		addr := ln.Addr().String()
		must(t, ln.Close())
		return "http://" + addr + cchook.HTTPPath
	}
	fail500 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer fail500.Close()
	const token = "failure-test-token-0123456789"
	served := httptest.NewServer(&cchook.Handler{Hook: &cchook.Hook{L: touchDenier{}}, Token: token})
	defer served.Close()
	withoutOnFailure := func(blk []cchook.EventGroup) []cchook.EventGroup {
		for i := range blk {
			for j := range blk[i].Group.Hooks {
				blk[i].Group.Hooks[j].OnFailure = ""
			}
		}
		return blk
	}
	for _, tc := range []struct {
		name    string
		blk     []cchook.EventGroup
		command string
		runs    bool
	}{
		{"a hook that times out", cchook.CommandBlock("sleep 20", 1), "touch ran.txt", false},
		{"a hook that exits 1", cchook.CommandBlock("exit 1", 10), "touch ran.txt", false},
		{"an HTTP hook whose server is down", cchook.HTTPBlock(closed(), "", 5), "touch ran.txt", false},
		{"an HTTP hook answered 500", cchook.HTTPBlock(fail500.URL+cchook.HTTPPath, "", 5), "touch ran.txt", false},
		{"without onFailure, a hook that exits 1", withoutOnFailure(cchook.CommandBlock("exit 1", 10)), "touch ran.txt", true},
		{"without onFailure, an HTTP hook whose server is down", withoutOnFailure(cchook.HTTPBlock(closed(), "", 5)), "touch ran.txt", true},
		{"without onFailure, an HTTP hook answered 500", withoutOnFailure(cchook.HTTPBlock(fail500.URL+cchook.HTTPPath, "", 5)), "touch ran.txt", true},
		{"the hook server, an allowed call", cchook.HTTPBlock(served.URL+cchook.HTTPPath, token, 5), "touch ran.txt", true},
		{"the hook server, a denied call", cchook.HTTPBlock(served.URL+cchook.HTTPPath, token, 5), "touch blocked.txt", false},
		{"the hook server, a wrong token", cchook.HTTPBlock(served.URL+cchook.HTTPPath, token+"x", 5), "touch ran.txt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Run(t.Context(), t, Case{Name: tc.name, Args: []string{"--permission-mode", "acceptEdits"},
				Setup: func(dir, _ string) {
					out, _, err := cchook.Install(nil, tc.blk)
					must(t, err)
					must(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), out, 0o600))
				},
				Scripts: Scripts{"main": {{{ID: "toolu_call", Tool: "Bash", Input: map[string]any{"command": tc.command, "description": "d"}}}}}})
			file := strings.TrimPrefix(tc.command, "touch ")
			_, err := os.Stat(filepath.Join(res.Dir, file))
			ran := err == nil
			c := res.Call("toolu_call")
			result := ""
			if c != nil && c.Result != nil {
				result = c.Result.Content
			}
			if ran != tc.runs {
				t.Fatalf("the call ran: %v, want %v (tool result %q)", ran, tc.runs, result)
			}
			t.Logf("ran %v; tool result %.200q", ran, result)
		})
	}
}

// touchDenier is a ledger that knows every session and denies a call whose
// input names blocked.txt.
type touchDenier struct{}

func (touchDenier) Tree(_ context.Context, key events.SessionKey) (*client.TreeNode, error) {
	return &client.TreeNode{Key: key, Agent: cchook.MainAgent, State: envelope.Active, Turns: 1}, nil
}
func (touchDenier) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	return nil, nil
}
func (touchDenier) Append(context.Context, client.Event) (client.AppendResult, error) {
	return client.AppendResult{Seq: 1}, nil
}
func (touchDenier) Check(_ context.Context, _ events.SessionKey, _ string, in json.RawMessage, _ string) (client.CheckResult, error) {
	if strings.Contains(string(in), "blocked.txt") {
		return client.CheckResult{Decision: envelope.Deny, Recorded: 2}, nil
	}
	return client.CheckResult{Decision: envelope.Allow, Recorded: 2}, nil
}

func (d touchDenier) Start(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	return d.Check(ctx, key, tool, in, call)
}

// TestUnreadableCallDenied has 2.1.328 send the installed hook (the built
// ledger binary's 'hook claude-code') an MCP call whose argument is nested
// 1,500 deep, past the hook's bound of cchook.MaxDepth (the tool's schema
// admits it as an extra property): the hook does not read the payload,
// and denies the call, where the finding of issue 24 (point 1) saw one
// nested 9,999 deep run. (9,999 is past what the scripted model server's
// JSON decoder takes when the CLI sends the call back, so the bound is
// shown with 1,500; the unit tests cover 9,999.) The hook is told to let calls
// through while the ledger is unreachable (--unreachable allow, and no
// ledger at its URL), so the same call with a flat argument runs: the
// denial is the unreadable payload's, not the ledger's.
func TestUnreadableCallDenied(t *testing.T) {
	CLI(t)
	bin := ledgertest.BuildLedger(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	nowhere := "nats://" + ln.Addr().String()
	must(t, ln.Close())
	command := cchook.Quote(bin, "hook", "claude-code", "--nats", nowhere, "--unreachable", "allow", "--import-cache", "off")
	deep := any("x")
	for range 1500 {
		deep = []any{deep}
	}
	res := Run(t.Context(), t, Case{Name: "unreadable call", Settings: Settings{Allow: []string{"mcp__srv__echo"}},
		MCP: map[string][]string{"srv": {"echo"}},
		Setup: func(dir, _ string) {
			out, _, err := cchook.Install(nil, cchook.CommandBlock(command, 10))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), out, 0o600))
		},
		Scripts: Scripts{"main": {{
			{ID: "toolu_flat", Tool: "mcp__srv__echo", Input: map[string]any{"text": "hi", "x": "flat"}},
			{ID: "toolu_deep", Tool: "mcp__srv__echo", Input: map[string]any{"text": "hi", "x": deep}},
		}}}})
	flat, deepCall := res.Call("toolu_flat"), res.Call("toolu_deep")
	if flat == nil || !flat.PostToolUse {
		t.Fatalf("the flat call did not run: %+v", flat)
	}
	if deepCall == nil || deepCall.PostToolUse || deepCall.Result == nil || !strings.Contains(deepCall.Result.Content, "could not read") {
		t.Fatalf("the deep call was not denied as unreadable: %+v", deepCall)
	}
	t.Logf("deep call: %.300q", deepCall.Result.Content)
}

// TestLedgerDownDenies (docs/claude-code-hooks.md, "When the ledger cannot
// be reached"): with the hooks 'ledger hook install' writes pointing at a
// ledger that is not there (the default --unreachable deny), 2.1.328 runs
// the session, its prompt and its end, and blocks its Bash call with the
// hook's reason, which names the URL and says it fails closed.
func TestLedgerDownDenies(t *testing.T) {
	CLI(t)
	bin := ledgertest.BuildLedger(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	nowhere := "nats://" + ln.Addr().String()
	must(t, ln.Close())
	res := Run(t.Context(), t, Case{Name: "ledger down", Settings: Settings{Allow: []string{"Bash(touch *)"}},
		Setup: func(dir, _ string) {
			ledgertest.LedgerCmd(t, bin, "hook", "install", "--project", dir, "--", "--nats", nowhere, "--import-cache", "off")
		},
		Scripts: Scripts{"main": {{{ID: "toolu_touch", Tool: "Bash", Input: map[string]any{"command": "touch down.txt", "description": "d"}}}}}})
	c := res.Call("toolu_touch")
	if c == nil || c.PostToolUse || c.Result == nil {
		t.Fatalf("the call ran, or got no result: %+v", c)
	}
	for _, want := range []string{"PreToolUse:Bash hook error", "cannot be reached", nowhere, "--unreachable deny"} {
		if !strings.Contains(c.Result.Content, want) {
			t.Errorf("the blocked call's result does not say %q: %s", want, c.Result.Content)
		}
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "down.txt")); !os.IsNotExist(err) {
		t.Errorf("down.txt exists (err %v): the call ran", err)
	}
	// The session went on: its prompt reached the model, and it ended.
	events := map[string]bool{}
	for _, h := range res.Hooks {
		events[h["hook_event_name"].(string)] = true
	}
	if len(res.Requests) < 2 || !events["SessionEnd"] || !events["UserPromptSubmit"] {
		t.Errorf("the session did not go on: %d requests, events %v", len(res.Requests), events)
	}
}
