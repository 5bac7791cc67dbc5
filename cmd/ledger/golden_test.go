package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenDir is testdata/golden, found before any test changes directory.
var goldenDir = func() string {
	d, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		panic(err)
	}
	return d
}()

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./cmd/ledger -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

const (
	ocScenario = "../../testdata/conformance/openclaw/continuation-09-settle-batch-same-policy.json"
	ccScenario = "../../testdata/conformance/claude-code/effect-01-effect-rechecks-at-the-head.json"
)

// TestGoldenCLI pins the human and JSON output of the query commands on
// scenario logs, which are deterministic (fixed clock, reproducible ids).
func TestGoldenCLI(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"why-openclaw.txt", []string{"why", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice", "--tool", "exec"}},
		{"why-openclaw-turn1.json", []string{"why", "--json", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice", "--tool", "read", "--turn", "1"}},
		{"tools-openclaw.txt", []string{"tools", "--scenario", ocScenario, "--session", "agent:main:subagent:a"}},
		{"tools-openclaw.json", []string{"tools", "--json", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--seq", "7"}},
		{"check-claude-code.txt", []string{"check", "--scenario", ccScenario, "--session", "lead", "--tool", "Bash", "--input", "make", "--seq", "4"}},
		{"why-claude-code.txt", []string{"why", "--scenario", ccScenario, "--session", "lead", "--tool", "WebFetch", "--input", "https://example.com/docs"}},
		{"session-openclaw.txt", []string{"session", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice"}},
		{"session-openclaw.json", []string{"session", "--json", "--scenario", ocScenario, "--session", "agent:main:subagent:b"}},
		{"tree-openclaw.txt", []string{"tree", "--scenario", ocScenario}},
		{"tree-openclaw.json", []string{"tree", "--json", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice"}},
		{"why-call-claude-code.txt", []string{"why", "--scenario", ccScenario, "--call", "b1"}},
		{"why-call-claude-code.json", []string{"why", "--json", "--scenario", ccScenario, "--call", "w1"}},
		{"why-record-claude-code.txt", []string{"why", "--scenario", ccScenario, "--record", "12"}},
		{"why-turn-claude-code.txt", []string{"why", "--scenario", ccScenario, "--session", "lead", "--tool", "Bash", "--input", "make", "--turn", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, "", tt.args...)
			if err != nil {
				t.Fatalf("ledger %s: %v\n%s", strings.Join(tt.args, " "), err, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

func TestGoldenTestCommand(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	b, err := os.ReadFile("../../testdata/conformance/openclaw/subagent-15-spec-example.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), `"reason": "subagent:hard_deny"`, `"reason": "subagent:depth_cap"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "", "test", "--memory", bad)
	if code := exitCode(err, &strings.Builder{}); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	golden(t, "test-failure.txt", strings.ReplaceAll(out, bad, "bad.json"))

	out, _, err = runCLI(t, "", "test", "../../testdata/conformance/openclaw/subagent-15-spec-example.json")
	if err != nil {
		t.Fatalf("a passing scenario: %v", err)
	}
	golden(t, "test-pass.txt", out)
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"why", "--scenario", ocScenario, "--session", "x"}, 2, "--tool is required"},
		{[]string{"tools", "--scenario", ocScenario}, 2, "--session is required"},
		{[]string{"test"}, 2, "at least one scenario"},
		{[]string{"tools", "--scenario", ocScenario, "--log", "x", "--session", "s"}, 2, "one of --scenario and --log"},
		{[]string{"tools", "--scenario", ocScenario, "--session", "ghost"}, 1, "unknown_session"},
		{[]string{"tools", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--seq", "2", "--turn", "1"}, 2, "at most one of --seq, --turn and --time"},
		{[]string{"tools", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--turn", "1", "--seq", "3"}, 2, "at most one of --seq, --turn and --time"},
		{[]string{"tools", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--time", "yesterday"}, 2, `--time "yesterday": not an RFC 3339 time`},
		{[]string{"check", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--tool", "read", "--time", "2026-13-45"}, 2, `--time "2026-13-45": not an RFC 3339 time`},
		{[]string{"replay"}, 2, "--out FILE is required"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := runCLI(t, "", tt.args...)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != tt.code || !strings.Contains(msg.String(), tt.msg) {
				t.Fatalf("exit %d %q, want %d containing %q", code, msg.String(), tt.code, tt.msg)
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, "", c.name, "--help")
			if err != nil {
				t.Fatalf("--help: %v", err)
			}
			if !strings.Contains(out, "Usage: ledger "+c.name) {
				t.Fatalf("--help prints no usage:\n%s%s", out, errOut)
			}
		})
	}
}
