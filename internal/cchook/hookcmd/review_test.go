package hookcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpWithPayloadDenies: --help (or -h, -help) in the hook's command
// line, given a call's payload, denies the call as any bad flag does,
// exit 0, instead of printing the usage alone (an empty answer, which
// Claude Code runs the call on); another event goes on with the message;
// with no payload it is the usage, exit 0.
func TestHelpWithPayloadDenies(t *testing.T) {
	const call = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"rm -rf /"}}`
	const other = `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi"}`
	for _, h := range []string{"--help", "-h", "-help"} {
		run := func(stdin string) (string, string, error) {
			var out, errOut bytes.Buffer
			err := Run(context.Background(), []string{"--nats", "nats://127.0.0.1:1", h}, strings.NewReader(stdin), &out, &errOut)
			return out.String(), errOut.String(), err
		}
		out, errOut, err := run(call)
		if err != nil || !strings.HasPrefix(out, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"`) ||
			!strings.Contains(out, "--help is not a hook flag") || !strings.Contains(errOut, "Usage: ledger hook claude-code") {
			t.Errorf("%s with a call: %q %q %v", h, out, errOut, err)
		}
		if out, _, err := run(other); err != nil || !strings.HasPrefix(out, `{"systemMessage":"ledger hook claude-code: --help is not a hook flag`) {
			t.Errorf("%s with another event: %q %v", h, out, err)
		}
		if out, errOut, err := run(""); err != nil || out != "" || !strings.Contains(errOut, "Usage: ledger hook claude-code") {
			t.Errorf("%s alone: %q %q %v", h, out, errOut, err)
		}
	}
}
