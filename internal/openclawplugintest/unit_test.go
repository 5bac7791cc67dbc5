package openclawplugintest

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// TestPluginUnitTests runs the plugin's own tests (bridge.test.ts, with
// Node 24's test runner) against the pinned nats package: a scripted
// ledger's odd answers, refused connections, lost turns, reused call ids.
// None may be skipped here, where nats is installed.
func TestPluginUnitTests(t *testing.T) {
	Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, NodePath(), "--test", "bridge.test.ts")
	cmd.Dir = PluginDir()
	cmd.Env = append(os.Environ(), "LEDGER_NPM_DIR="+NPMDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test bridge.test.ts: %v\n%s", err, out)
	}
	if m := regexp.MustCompile(`(?m)^ℹ skipped (\d+)$`).FindSubmatch(out); m == nil || string(m[1]) != "0" {
		t.Fatalf("the plugin's tests skipped some, or did not say:\n%s", out)
	}
	if m := regexp.MustCompile(`(?m)^ℹ pass (\d+)$`).FindSubmatch(out); m == nil || string(m[1]) == "0" {
		t.Fatalf("the plugin's tests passed none:\n%s", out)
	}
}
