package main

import (
	"errors"
	"strings"
	"testing"
)

// TestHookAgentHelpWithPayloadDenies: 'ledger hook codex|gemini|qwen' with
// --help (or -h, -help) in its command line, given a call's payload,
// denies the call in the runtime's format as any bad flag does, exit 0,
// instead of printing the usage alone (an empty answer, on which the
// runtime runs the call); with no payload it is the usage, exit 0.
func TestHookAgentHelpWithPayloadDenies(t *testing.T) {
	for _, tc := range []struct{ cmd, payload, deny string }{
		{"codex", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`, `"permissionDecision":"deny"`},
		{"qwen", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`, `"permissionDecision":"deny"`},
		{"gemini", `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`, `{"decision":"deny"`},
	} {
		for _, h := range []string{"--help", "-h", "-help"} {
			out, errOut, err := runCLI(t, tc.payload, "hook", tc.cmd, "--nats", "nats://127.0.0.1:1", h)
			if err != nil || !strings.Contains(out, tc.deny) || !strings.Contains(out, "--help is not a hook flag") || !strings.Contains(errOut, "Usage: ledger hook "+tc.cmd) {
				t.Errorf("hook %s %s with a call: %q %q %v", tc.cmd, h, out, errOut, err)
			}
			if out, errOut, err := runCLI(t, "", "hook", tc.cmd, h); err != nil || out != "" || !strings.Contains(errOut, "Usage: ledger hook "+tc.cmd) {
				t.Errorf("hook %s %s alone: %q %q %v", tc.cmd, h, out, errOut, err)
			}
		}
	}
}

// TestHookInstallRefusesOtherRuntimePath: 'hook install --runtime R --url'
// refuses a URL whose path is another runtime's (the thin hook would get
// answers in that runtime's format, which R does not read), naming the
// path to use, and writes nothing; R's own path and the server's address
// are taken.
func TestHookInstallRefusesOtherRuntimePath(t *testing.T) {
	dir := t.TempDir()
	for _, rt := range []string{"codex", "gemini", "qwen"} {
		for _, other := range []string{"codex", "gemini", "qwen"} {
			url := "http://127.0.0.1:8123/hooks/" + other
			_, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", dir, "--url", url, "--no-token", "--dry-run")
			if other == rt {
				if err != nil {
					t.Errorf("%s with its own path: %v", rt, err)
				}
				continue
			}
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "/hooks/"+other+" is where") || !strings.Contains(err.Error(), "http://HOST:PORT/hooks/"+rt) {
				t.Errorf("%s with %s: %v", rt, url, err)
			}
		}
		if _, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", dir, "--url", "http://127.0.0.1:8123", "--no-token", "--dry-run"); err != nil {
			t.Errorf("%s with the server's address: %v", rt, err)
		}
	}
}
