package cchook

import "testing"

// TestOwnIsWhatInstallWrites: only handlers install writes are the
// ledger's; a user's own that only look like them (an https audit hook on
// the same path, another program's `hook claude-code stop`) are not, so
// install and uninstall leave them alone (found by the install review).
func TestOwnIsWhatInstallWrites(t *testing.T) {
	for _, c := range []struct {
		h   map[string]any
		own bool
	}{
		{map[string]any{"type": "command", "command": "ledger hook claude-code --nats nats://127.0.0.1:4222"}, true},
		{map[string]any{"type": "command", "command": "'/usr/local/bin/ledger' hook claude-code"}, true},
		{map[string]any{"type": "command", "command": "docker exec l ledger hook claude-code --scope cc"}, true},
		{map[string]any{"type": "command", "command": "ledger-hook --hooks http://127.0.0.1:8787/hooks/claude-code"}, true},
		{map[string]any{"type": "http", "url": "http://127.0.0.1:8787/hooks/claude-code"}, true},
		{map[string]any{"type": "http", "url": "HTTP://localhost:8787/hooks/claude-code/"}, true},
		{map[string]any{"type": "http", "url": "https://audit.corp.example/hooks/claude-code"}, false},
		{map[string]any{"type": "command", "command": "npx -y @acme/agent-telemetry hook claude-code stop"}, false},
		{map[string]any{"type": "command", "command": "echo hook"}, false},
	} {
		if got := Own(c.h); got != c.own {
			t.Errorf("Own(%v) = %v, want %v", c.h, got, c.own)
		}
	}
}
