package cchook

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// lockedLedger serialises each request to a svcLedger (whose test log is
// not safe for concurrent use) while letting requests of concurrent hooks
// interleave between one another, as they do on the real ledger; before
// the first `race` turn appends it lands a turn of another prompt first.
type lockedLedger struct {
	mu   sync.Mutex
	l    *svcLedger
	race int
	n    int
}

func (x *lockedLedger) Tree(ctx context.Context, key events.SessionKey) (*client.TreeNode, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.l.Tree(ctx, key)
}
func (x *lockedLedger) Policy(ctx context.Context, key events.SessionKey) (*envelope.PolicyState, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.l.Policy(ctx, key)
}
func (x *lockedLedger) Append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if ev.Type == events.TurnStarted && x.n < x.race {
		x.n++
		if n, err := x.l.Tree(ctx, ev.Session); err == nil && n != nil {
			other := TurnEvent(ev.Session, n.Turns+1, fmt.Sprintf("prompt:other-%d", x.n))
			if _, err := x.l.Append(ctx, other); err != nil {
				return client.AppendResult{}, err
			}
		}
	}
	return x.l.Append(ctx, ev)
}
func (x *lockedLedger) Check(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.l.Check(ctx, key, tool, in, call)
}

func (x *lockedLedger) Start(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.l.Start(ctx, key, tool, in, call)
}

func prompt(id string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": UserPromptSubmit, "prompt_id": id, "cwd": "/home/dev/project"})
	return b
}

// TestConcurrentPrompts: every prompt records its turn, however many other
// prompts of the session land theirs first (issue 24, point 7: 10
// concurrent prompts recorded 5 turns); one delivered twice lands once.
func TestConcurrentPrompts(t *testing.T) {
	opts := Options{Catalogue: testCatalogue, Scope: testScope, Locate: func(string) Location { return testLoc }}
	t.Run("raced five times", func(t *testing.T) {
		x := &lockedLedger{l: newLedger(t, testDoc), race: 5}
		h := &Hook{L: x, Opts: opts}
		x.l.must(t, StartEventOf("s1", events.StartedData{Agent: MainAgent, Scope: testScope}))
		res := h.Handle(t.Context(), prompt("p1"))
		if len(res.Warnings) > 0 {
			t.Fatalf("warnings %v", res.Warnings)
		}
		n, _ := x.Tree(t.Context(), "s1")
		if n.Turns != 6 {
			t.Fatalf("%d turns, want 6 (five raced in, and the prompt's)", n.Turns)
		}
	})
	t.Run("ten at once", func(t *testing.T) {
		x := &lockedLedger{l: newLedger(t, testDoc)}
		h := &Hook{L: x, Opts: opts}
		x.l.must(t, StartEventOf("s1", events.StartedData{Agent: MainAgent, Scope: testScope}))
		var wg sync.WaitGroup
		warns := make(chan []string, 20)
		for i := range 10 {
			for range 2 { // each prompt delivered twice (a command and an HTTP hook)
				wg.Add(1)
				go func() {
					defer wg.Done()
					warns <- h.Handle(context.Background(), prompt(fmt.Sprintf("p%d", i))).Warnings
				}()
			}
		}
		wg.Wait()
		close(warns)
		for w := range warns {
			if len(w) > 0 {
				t.Errorf("warnings %v", w)
			}
		}
		n, _ := x.Tree(t.Context(), "s1")
		if n.Turns != 10 {
			t.Fatalf("%d turns for 10 prompts", n.Turns)
		}
	})
}
