package agenthook

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
)

// countedLedger is a Ledger that notes every request it passes on.
type countedLedger struct {
	cchook.Ledger
	asked []string
}

func (l *countedLedger) Tree(ctx context.Context, key events.SessionKey) (*client.TreeNode, error) {
	l.asked = append(l.asked, "tree")
	return l.Ledger.Tree(ctx, key)
}
func (l *countedLedger) Policy(ctx context.Context, key events.SessionKey) (*envelope.PolicyState, error) {
	l.asked = append(l.asked, "policy")
	return l.Ledger.Policy(ctx, key)
}
func (l *countedLedger) Append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	l.asked = append(l.asked, "append")
	return l.Ledger.Append(ctx, ev)
}
func (l *countedLedger) Check(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	l.asked = append(l.asked, "check")
	return l.Ledger.Check(ctx, key, tool, in, call)
}
func (l *countedLedger) Start(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	l.asked = append(l.asked, "start")
	return l.Ledger.Start(ctx, key, tool, in, call)
}

// TestCallRequests: a call of a running session is decided in two requests
// to the ledger, the policy read and the recorded check that starts it (no
// Tree before them: one round trip less on every call serve --hooks takes
// at /hooks/codex, /hooks/gemini, /hooks/qwen); a call of an ended session
// is refused that way with nothing recorded, and then reopens it and is
// decided as before.
func TestCallRequests(t *testing.T) {
	f := newFixture(t, Codex, Dialect)
	l := &countedLedger{Ledger: f.h.L}
	f.h.L = l
	f.handle("SessionStart", nil)
	f.handle("UserPromptSubmit", nil)
	for i, tt := range []struct {
		before   string // a payload handled first
		asked    string
		appended []events.Type
	}{
		{asked: "[policy start]", appended: []events.Type{events.ToolChecked}},
		{asked: "[policy start]", appended: []events.Type{events.ToolChecked}},
		{before: "SessionEnd", asked: "[policy start tree append tree policy start]", appended: []events.Type{events.SessionReopened, events.ToolChecked}},
		{asked: "[policy start]", appended: []events.Type{events.ToolChecked}},
	} {
		if tt.before != "" {
			f.handle(tt.before, nil)
		}
		l.asked = nil
		res := f.handle("PreToolUse-Bash", map[string]any{"tool_use_id": fmt.Sprintf("call_REQ_%d", i)})
		if res.Denied || res.Decision != envelope.Allow {
			t.Errorf("call %d: denied %v %s, want allowed", i, res.Denied, res.Reason)
		}
		wantTypes(t, "PreToolUse-Bash", res, tt.appended...)
		if got := fmt.Sprint(l.asked); got != tt.asked {
			t.Errorf("call %d asked %s, want %s", i, got, tt.asked)
		}
	}
}
