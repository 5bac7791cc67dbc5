package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotActiveBesideTheDecision: check, why and tools of a session that takes
// no recorded check (ended, its root ended, yielded) answer the policy's
// decision (tools: its tool set) as before (tests/org asks it of ended Claude Code sessions) and
// say beside it that a call checked now is refused, with the refusal's
// code and message; at a position where the session was active they say
// nothing more.
func TestNotActiveBesideTheDecision(t *testing.T) {
	sc := `{
  "name": "sessions that take no recorded check",
  "dialect": "claude-code",
  "tools": ["Read", "Bash", "Agent"],
  "policy": {},
  "steps": [
    {"append": {"type": "policy.set", "data": {"dialect": "claude-code", "document": {"permissions": {"deny": ["Bash"]}}, "catalogue": ["Read", "Bash", "Agent"]}}},
    {"append": {"type": "session.started", "session": "r", "data": {"agent": "main"}}},
    {"append": {"type": "turn.started", "session": "r", "data": {"turn": 1}}},
    {"append": {"type": "session.spawned", "session": "r:sub:1", "data": {"parent": "r", "agent": "general-purpose"}}},
    {"append": {"type": "session.ended", "session": "r", "data": {"reason": "prompt_input_exit"}}},
    {"append": {"type": "session.started", "session": "y", "data": {"agent": "main"}}},
    {"append": {"type": "turn.started", "session": "y", "data": {"turn": 1}}},
    {"append": {"type": "session.spawned", "session": "y:sub:1", "data": {"parent": "y", "agent": "general-purpose"}}},
    {"append": {"type": "session.yielded", "session": "y", "data": {"children": ["y:sub:1"]}}}
  ]
}`
	file := filepath.Join(t.TempDir(), "sc.json")
	if err := os.WriteFile(file, []byte(sc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		session, tool, seq string
		decision, inactive string // inactive: "" when the answer says nothing more
	}{
		{"r", "Read", "", "allow", `session "r" has ended`},
		{"r", "Bash", "", "deny", `session "r" has ended`},
		{"r", "Read", "4", "allow", ""},
		{"r:sub:1", "Read", "", "allow", `the root "r" of session "r:sub:1" has ended`},
		{"y", "Read", "", "allow", `session "y" is yielded`},
		{"y:sub:1", "Read", "", "allow", ""},
	} {
		for _, cmd := range []string{"check", "why", "tools"} {
			args := []string{cmd, "--scenario", file, "--session", c.session, "--tool", c.tool}
			if cmd == "tools" {
				args = args[:len(args)-2]
			}
			if c.seq != "" {
				args = append(args, "--seq", c.seq)
			}
			out, errOut, err := runCLI(t, "", args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, errOut)
			}
			line := ""
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "inactive: ") {
					line = l
				}
			}
			if cmd != "tools" && !strings.Contains(out, c.decision+" (") {
				t.Errorf("%v: not %s:\n%s", args, c.decision, out)
			}
			if c.inactive == "" && line != "" || c.inactive != "" && (!strings.Contains(line, c.inactive) || !strings.Contains(line, "(session_not_active)")) {
				t.Errorf("%v: inactive line %q, want one naming %q:\n%s", args, line, c.inactive, out)
			}
			out, errOut, err = runCLI(t, "", append(args, "--json")...)
			if err != nil {
				t.Fatalf("%v --json: %v\n%s", args, err, errOut)
			}
			var got struct {
				Decision  string
				Verdict   struct{ Decision string }
				NotActive *struct{ Code, Message string } `json:"not_active"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v --json: %v\n%s", args, err, out)
			}
			if d := got.Decision + got.Verdict.Decision; cmd != "tools" && d != c.decision {
				t.Errorf("%v --json: decision %q, want %q", args, d, c.decision)
			}
			switch {
			case c.inactive == "" && got.NotActive != nil:
				t.Errorf("%v --json: not_active %+v, want none", args, got.NotActive)
			case c.inactive != "" && (got.NotActive == nil || got.NotActive.Code != "session_not_active" || !strings.Contains(got.NotActive.Message, c.inactive)):
				t.Errorf("%v --json: not_active %+v, want session_not_active naming %q", args, got.NotActive, c.inactive)
			}
		}
	}
}
