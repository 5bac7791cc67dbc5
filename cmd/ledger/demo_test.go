package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoThenVerify runs the README's run command on a kept data dir and
// verifies its log: no drift, and the projection equals a clean rebuild.
func TestDemoThenVerify(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out, errOut, err := runCLI(t, "", "demo", "--data", data)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, errOut)
	}
	for _, want := range []string{
		"refused: authorization_changed",
		"main's continuation: settle_batch",
		"decision: deny (agent:allow)",
		"└── agent:reviewer:subagent:review-login",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// The why the demo prints is what its printed command answers.
	_, after, ok := strings.Cut(out, "\n$ ledger ")
	if !ok {
		t.Fatalf("the demo prints no command:\n%s", out)
	}
	line, printed, _ := strings.Cut(after, "\n")
	printed, _, _ = strings.Cut(printed, "\nthe log and projection are in")
	whyOut, errOut, err := runCLI(t, "", strings.Fields(line)...)
	if err != nil || strings.TrimSpace(whyOut) != strings.TrimSpace(printed) {
		t.Fatalf("ledger %s: %v %s\n%s\nthe demo printed:\n%s", line, err, errOut, whyOut, printed)
	}
	scratch := t.TempDir()
	out, errOut, err = runCLI(t, "", "verify", "--json", "--data", data, "--scratch", scratch)
	if err != nil {
		t.Fatalf("verify: %v\n%s%s", err, out, errOut)
	}
	if left, err := os.ReadDir(scratch); err != nil || len(left) != 0 {
		t.Fatalf("verify left %d entries in its --scratch directory (%v)", len(left), err)
	}
	var rep struct {
		Records    int   `json:"records"`
		DriftCount int   `json:"drift_count"`
		Match      *bool `json:"projection_matches"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Records != 19 || rep.DriftCount != 0 || rep.Match == nil || !*rep.Match {
		t.Fatalf("verify report: %s", out)
	}
	// The other commands read the same data dir.
	out, _, err = runCLI(t, "", "tools", "--data", data, "--session", "agent:coder:subagent:fix-login", "--turn", "1")
	if err != nil || !strings.Contains(out, "browser") {
		t.Fatalf("tools at turn 1: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "log", "--data", data, "--tail", "2")
	if err != nil || strings.Count(out, "\n") != 2 {
		t.Fatalf("log --tail 2: %v\n%s", err, out)
	}
}
