package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"

	"github.com/sessionledger/ledger/internal/agenthook"
)

// TestHookAgentPanicDenies: a panic in 'ledger hook codex|gemini|qwen'
// denies a call in the runtime's format, the reason naming an internal
// error of the ledger's hook, even under --unreachable allow, and answers
// any other event with no opinion, exit 0, the stack on standard error;
// before the fix the process died of it (the Go runtime's exit 2, which
// gemini reads as a denial of its BeforeAgent: the user's prompt).
func TestHookAgentPanicDenies(t *testing.T) {
	for _, tc := range []struct {
		rt            agenthook.Runtime
		payload, want string
	}{
		{agenthook.Codex, `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"The session policy ledger's hook hit an internal error`},
		{agenthook.Gemini, `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`, `{"decision":"deny","reason":"The session policy ledger's hook hit an internal error`},
		{agenthook.Gemini, `{"session_id":"s1","hook_event_name":"BeforeAgent","prompt":"hi"}`, ``},
		{agenthook.Qwen, `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi","prompt_id":"p1"}`, ``},
	} {
		var out bytes.Buffer
		errOut := &ledgertest.PanicWriter{Marker: "cannot be reached"}
		err := runHookAgent(context.Background(), tc.rt, []string{"--nats", "nats://127.0.0.1:1", "--timeout", "1s", "--unreachable", "allow"}, strings.NewReader(tc.payload), &out, errOut)
		if err != nil || tc.want == "" && out.Len() != 0 || !strings.HasPrefix(out.String(), tc.want) {
			t.Errorf("%s %.60s: %q %v, want %q...", tc.rt.Name, tc.payload, out.String(), err, tc.want)
		}
		if s := errOut.String(); !strings.Contains(s, "ledger hook: internal error in the ledger hook (panic: a writer it did not expect)") || !strings.Contains(s, "goroutine") {
			t.Errorf("%s: standard error holds no panic with its stack: %q", tc.rt.Name, s)
		}
	}
}
