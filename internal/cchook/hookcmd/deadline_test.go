package hookcmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
)

// emptyLedger knows no session and takes every append.
type emptyLedger struct{}

func (emptyLedger) Tree(context.Context, events.SessionKey) (*client.TreeNode, error) {
	return nil, nil
}
func (emptyLedger) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	return nil, nil
}
func (emptyLedger) Append(context.Context, client.Event) (client.AppendResult, error) {
	return client.AppendResult{Seq: 1}, nil
}
func (emptyLedger) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{Decision: envelope.Allow, Recorded: 2}, nil
}

func (emptyLedger) Start(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{Decision: envelope.Allow, Recorded: 2}, nil
}

// TestHookDeadline: a run whose work outlasts its budget (here an import
// that never ends, as a quadratic import of a large settings file once
// did, or a file that blocks) is answered when the budget and its grace
// are spent: a call is denied, another event goes on with a warning
// (issue 24, point 2: a hook that outlives Claude Code's timeout lets the
// call run).
func TestHookDeadline(t *testing.T) {
	never := make(chan struct{})
	defer close(never)
	h := &cchook.Hook{L: emptyLedger{}, Opts: cchook.Options{
		Catalogue: []string{"Bash"},
		Import: func(string) (json.RawMessage, error) {
			<-never
			return nil, nil
		},
	}}
	for _, tc := range []struct {
		event string
		deny  bool
	}{{"PreToolUse", true}, {"UserPromptSubmit", false}, {"SessionStart", false}} {
		t.Run(tc.event, func(t *testing.T) {
			raw := `{"session_id":"s1","hook_event_name":"` + tc.event + `","cwd":"/p","prompt_id":"p1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo hi"}}`
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			begin := time.Now()
			res := h.HandleWithin(ctx, []byte(raw), Grace(50*time.Millisecond))
			if took := time.Since(begin); took > 5*time.Second {
				t.Fatalf("answered after %s", took)
			}
			out := string(res.Output)
			if denied := strings.Contains(out, `"permissionDecision":"deny"`); denied != tc.deny || res.Denied != tc.deny {
				t.Fatalf("answer %s (denied %v), want denied %v", out, res.Denied, tc.deny)
			}
			if !strings.Contains(out, "did not finish within its budget") {
				t.Fatalf("answer %s does not say why", out)
			}
		})
	}
	// A run within its budget is answered with its own outcome.
	fast := &cchook.Hook{L: emptyLedger{}}
	res := fast.HandleWithin(t.Context(), []byte(`{"session_id":"s1","hook_event_name":"Stop"}`), time.Second)
	if strings.Contains(string(res.Output), "budget") {
		t.Fatalf("a quick run: %s", res.Output)
	}
}
