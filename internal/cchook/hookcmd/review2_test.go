package hookcmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestRunPanicDenies: a panic in 'ledger hook claude-code' denies a call,
// the reason naming an internal error of the ledger's hook, and lets a
// prompt go on with a systemMessage, exit 0, the stack on standard error;
// before the fix the process died of it (the Go runtime's exit 2, which
// blocks a prompt as well as a call).
func TestRunPanicDenies(t *testing.T) {
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"a call", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"rm -rf /"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"The session policy ledger's hook hit an internal error (panic: a writer it did not expect)`},
		{"a prompt", `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi"}`,
			`{"systemMessage":"ledger hook: internal error in the ledger hook (panic: a writer it did not expect)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			// The ledger cannot be reached: the run warns (under
			// --unreachable allow a call would go ahead unchecked), and
			// the warning's line panics.
			errOut := &ledgertest.PanicWriter{Marker: "cannot be reached"}
			err := Run(context.Background(), []string{"--nats", "nats://127.0.0.1:1", "--timeout", "1s", "--import-cache", "off", "--no-import", "--unreachable", "allow"},
				strings.NewReader(tc.payload), &out, errOut)
			var ee *ExitError
			if errors.As(err, &ee) || !strings.HasPrefix(out.String(), tc.want) {
				t.Fatalf("%q %v, want %s...", out.String(), err, tc.want)
			}
			if s := errOut.String(); !strings.Contains(s, "ledger hook: internal error in the ledger hook") || !strings.Contains(s, "goroutine") {
				t.Errorf("standard error holds no panic with its stack: %q", s)
			}
		})
	}
}
