package claudecodetest

import (
	"context"
	"encoding/json"
	"os"
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
	"github.com/sessionledger/ledger/wire"
)

// TestWhyCallNamesTheRevocation (issue 26, point 1, with the real CLI):
// the main thread's Bash calls run until an operator revokes Bash for the
// project's scope mid-run (deny.added); the next Bash call is blocked by
// the ledger's hook, Claude Code lists it in its own permission_denials,
// and `ledger why --call` with that tool_use_id answers the denial the
// ledger recorded for it and names the revocation, its operator and its
// time as the cause.
func TestWhyCallNamesTheRevocation(t *testing.T) {
	CLI(t)
	bin := ledgertest.BuildLedger(t)
	url := ledgertest.ServeLedger(t, bin)
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	must(t, err)
	defer nc.Close()
	ops := client.New(nc, client.Options{Actor: "ops-alice"})

	var scope string
	var revoke sync.Once
	var revoked atomic.Uint64
	res := Run(t.Context(), t, Case{
		Name:     "whycall",
		Settings: Settings{Allow: []string{"Bash(echo *)", "Bash(touch *)"}},
		Scripts: Scripts{
			"main": {
				{{ID: "toolu_echo_before", Tool: "Bash", Input: map[string]any{"command": "echo before", "description": "d"}}},
				{{ID: "toolu_touch_after", Tool: "Bash", Input: map[string]any{"command": "touch after.txt", "description": "d"}}},
			},
		},
		Setup: func(dir, home string) {
			ledgertest.LedgerCmd(t, bin, "hook", "install", "--project", dir, "--", "--nats", url)
			host, _ := os.Hostname()
			scope = cchook.ScopeOf(cchook.LocateProject(dir, nil), host)
		},
		// The operator revokes Bash before the model's second request is
		// answered: that turn's call is the one to be blocked.
		BeforeAnswer: func(q Request) {
			if q.Script != "main" || q.Turn != 1 {
				return
			}
			revoke.Do(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				r, err := ops.Append(ctx, client.Deny(events.DenyData{Scope: scope, Rule: "Bash", Note: "issue 26"}))
				if err != nil {
					t.Errorf("deny.added: %v", err)
				}
				revoked.Store(r.Seq)
			})
		},
	})
	denySeq := revoked.Load()
	if denySeq == 0 {
		t.Fatalf("the second request never came: %d requests", len(res.Requests))
	}
	if c := res.Call("toolu_echo_before"); c == nil || !c.PostToolUse {
		t.Errorf("echo before did not run: %+v", c)
	}
	// The denied call's id, as Claude Code itself reports it.
	var denied string
	for _, d := range res.PermissionDenials {
		if d.ToolName == "Bash" {
			denied = d.ToolUseID
		}
	}
	if denied == "" {
		t.Fatalf("Claude Code's permission_denials list no Bash call: %+v", res.PermissionDenials)
	}
	out := ledgertest.LedgerCmd(t, bin, "why", "--json", "--nats", url, "--data", t.TempDir(), "--call", denied)
	var a wire.WhyResult
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Call == nil {
		t.Fatalf("why --call %s: %v\n%s", denied, err, out)
	}
	if r := a.Call.Record; r.Type != events.ToolChecked || r.Tool != "Bash" || r.Decision != "deny" || r.Reason.Code != "revocation:deny" || r.Seq <= denySeq {
		t.Errorf("the record answered: %+v, want the tool.checked after the revocation at %d, denied by it", r, denySeq)
	}
	c := a.Call.Cause
	if c == nil || c.Seq != denySeq || c.Type != events.DenyAdded || c.Actor != "ops-alice" || c.Time == "" ||
		c.Before != "allow" || c.After != "deny" || c.Text != "deny Bash for every session (issue 26)" {
		t.Errorf("the cause: %+v, want the deny.added at %d by ops-alice", c, denySeq)
	}
	text := ledgertest.LedgerCmd(t, bin, "why", "--nats", url, "--data", t.TempDir(), "--call", denied)
	if !strings.Contains(text, "cause:    deny.added at seq ") || !strings.Contains(text, " by ops-alice at ") {
		t.Errorf("why --call prints no cause naming the revocation:\n%s", text)
	}
	t.Logf("ledger why --call %s:\n%s", denied, text)
}
