package hookwire

import (
	"errors"
	"fmt"
	"testing"
)

// TestMessagesAreFmts: the messages, built without fmt, are what fmt made
// of them until issue 28.
func TestMessagesAreFmts(t *testing.T) {
	for _, err := range []error{errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), errors.New("%v 100% {}"), nil} {
		for _, s := range []string{"http://127.0.0.1:1/hooks/claude-code", "unix:/tmp/x%s.sock", ""} {
			for _, c := range []struct{ got, want string }{
				{UnreachableReason(s, "Bash", err), fmt.Sprintf("The session policy ledger at %s cannot be reached (%v), so the hook denies %s (it fails closed: --unreachable deny). Start the ledger, or run the hook with --unreachable allow to let Claude Code decide alone while it is down.", s, err, "Bash")},
				{UnreachableAllowed(s, "this call", err), fmt.Sprintf("the ledger at %s cannot be reached (%v): %s goes ahead unchecked (--unreachable allow)", s, err, "this call")},
				{UnreachableOther(s, "Stop", err), fmt.Sprintf("the ledger at %s cannot be reached: %v (nothing was recorded for this %s)", s, err, "Stop")},
				{Agents["gemini"].UnreachableReason(s, "run_shell_command", err), fmt.Sprintf("The session policy ledger at %s cannot be reached (%v), so the hook denies %s (it fails closed: --unreachable deny). Start the ledger, or run 'ledger hook %s' with --unreachable allow to let %s decide alone while it is down.", s, err, "run_shell_command", "gemini", "gemini-cli")},
			} {
				if c.got != c.want {
					t.Errorf("%q\nwant %q", c.got, c.want)
				}
			}
		}
		for _, told := range []bool{true, false} {
			what := "this call's payload"
			if !told {
				what = "this hook payload (not even which hook event it is)"
			}
			want := fmt.Sprintf("The session policy ledger's hook could not read %s, so it denies it: %v. "+
				"The ledger checks only calls it can read: a JSON object under %d MiB, nested at most %d levels, "+
				"whose tool_input is an object with the tool's main parameter as a string. Make the call again with a smaller, flatter input.",
				what, err, MaxPayload>>20, MaxDepth)
			if got := UnreadableReason(told, err); got != want {
				t.Errorf("%q\nwant %q", got, want)
			}
		}
	}
}
