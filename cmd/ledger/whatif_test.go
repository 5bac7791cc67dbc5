package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhatIf replays the demo's history under candidate policies: the
// policy in force flips nothing (exit 0); one that also denies exec flips
// it for every turn that had it (exit 3), with both reasons.
func TestWhatIf(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if _, errOut, err := runCLI(t, "", "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v\n%s", err, errOut)
	}
	dir := t.TempDir()
	same := filepath.Join(dir, "same.json")
	stricter := filepath.Join(dir, "stricter.json")
	if err := os.WriteFile(same, []byte(demoPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stricter, []byte(strings.Replace(demoPolicy, `"deny": ["gateway"]`, `"deny": ["gateway", "exec"]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "", "replay", "--data", data, "--policy", same)
	if err != nil || !strings.Contains(out, "no flips") {
		t.Fatalf("same policy: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "replay", "--data", data, "--policy", stricter)
	if code := exitCode(err, &strings.Builder{}); code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, out)
	}
	golden(t, "whatif-demo.txt", strings.ReplaceAll(out, stricter, "stricter.json"))
	out, _, _ = runCLI(t, "", "replay", "--data", data, "--policy", stricter, "--from", "12", "--json")
	if !strings.Contains(out, `"allow_to_deny": 1`) || !strings.Contains(out, `"would_reason": "global:deny"`) {
		t.Fatalf("--from 12 --json:\n%s", out)
	}
}
