package cchook

import (
	"strings"
	"testing"
)

// TestModeFollowsTurns: the mode a main-thread payload reports is recorded
// with the turn it opens (issue 25, point 3: runs under --permission-mode
// acceptEdits were decided as default), and the ledger decides under it
// from that turn: an Edit of a project file asks under default and is
// allowed under acceptEdits. A sub-agent's payload, and a mode the dialect
// does not have (auto, bubble), record none: the mode in force stays.
func TestModeFollowsTurns(t *testing.T) {
	l := newLedger(t, `{"permissions":{}}`)
	h := &Hook{L: l, Opts: Options{Catalogue: testCatalogue, Scope: testScope, Locate: func(string) Location { return testLoc }}}
	prompt := func(id, mode string) {
		t.Helper()
		res := h.Handle(t.Context(), loadPayload(t, "UserPromptSubmit.json", map[string]any{"prompt_id": id, "permission_mode": mode}))
		if len(res.Warnings) > 0 {
			t.Fatalf("warnings %v", res.Warnings)
		}
	}
	edit := func(call string) string {
		t.Helper()
		res := h.Handle(t.Context(), loadPayload(t, "PreToolUse.json", map[string]any{"session_id": smoke, "tool_name": "Edit", "tool_use_id": call,
			"tool_input": map[string]any{"file_path": "/home/dev/project/src/a.go", "old_string": "a", "new_string": "b"}}))
		return string(res.Decision)
	}
	prompt("p1", "default")
	if d := edit("t1"); d != "ask" {
		t.Fatalf("under default: %s", d)
	}
	prompt("p2", "acceptEdits")
	if d := edit("t2"); d != "allow" {
		t.Fatalf("under acceptEdits: %s", d)
	}
	prompt("p3", "auto")
	if d := edit("t3"); d != "allow" {
		t.Fatalf("after auto (not the dialect's): %s", d)
	}
	prompt("p4", "manual")
	if d := edit("t4"); d != "ask" {
		t.Fatalf("under manual (default): %s", d)
	}
	var turns []string
	for _, line := range l.log {
		if strings.HasPrefix(line, "turn.started "+smoke) {
			turns = append(turns, strings.TrimPrefix(line, "turn.started "+smoke+" "))
		}
	}
	want := []string{`{"turn":1,"mode":"default"}`, `{"turn":2,"mode":"acceptEdits"}`, `{"turn":3}`, `{"turn":4,"mode":"default"}`}
	if strings.Join(turns, " ") != strings.Join(want, " ") {
		t.Fatalf("turns %v, want %v", turns, want)
	}
	// A sub-agent's payload names no mode.
	sub := &Payload{AgentID: "a1", PermissionMode: "plan"}
	if m := sub.TurnMode(); m != "" {
		t.Fatalf("a sub-agent's turn mode %q", m)
	}
}
