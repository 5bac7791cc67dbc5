package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPrintedWhySelectsTheRecord: the why command a denial line prints
// selects that denial's record, with the call's id beside it: a refused
// effect retried under the same call id (as the refusal tells the
// orchestrator to do) is explained as refused, not as the retry's later
// allow, which 'why --call' alone answers (found by the why review).
func TestPrintedWhySelectsTheRecord(t *testing.T) {
	data := filepath.Join(t.TempDir(), "l")
	in := strings.Join([]string{
		`{"type":"policy.set","actor":"ops","data":{"dialect":"openclaw","document":{"tools":{"deny":[]}},"catalogue":["read","exec","browser"]}}`,
		`{"type":"session.started","actor":"acme","session":"s1","data":{"agent":"main"}}`,
		`{"type":"turn.started","actor":"acme","session":"s1","data":{"turn":1}}`,
		`{"type":"tool.checked","actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
		`{"type":"deny.added","actor":"ops","data":{"rule":"browser","session":"s1","note":"incident 42"}}`,
		`{"type":"tool.effect_started","actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
		`{"type":"deny.lifted","actor":"ops","data":{"rule":"browser","session":"s1"}}`,
		`{"type":"tool.checked","actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
		`{"type":"tool.effect_started","actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
	}, "\n") + "\n"
	// The refused effect is recorded (its refusal), and append goes on.
	_, _, _ = runCLI(t, in, "append", "--data", data)
	out, stderr, err := runCLI(t, "", "denials", "--data", data)
	if err != nil {
		t.Fatalf("denials: %v\n%s", err, stderr)
	}
	m := regexp.MustCompile(`ledger why .*--call c1 --record (\d+)`).FindStringSubmatch(out)
	if m == nil || m[1] != "6" {
		t.Fatalf("denials prints no why of record 6 naming c1:\n%s", out)
	}
	why, stderr, err := runCLI(t, "", "why", "--data", data, "--call", "c1", "--record", m[1])
	if err != nil || !strings.Contains(why, "recorded: deny (effect:authorization_changed)") {
		t.Errorf("the printed why: %v\n%s%s", err, why, stderr)
	}
	last, _, err := runCLI(t, "", "why", "--data", data, "--call", "c1")
	if err != nil || !strings.Contains(last, "at seq 9") {
		t.Errorf("why --call alone answers the call's last record: %v\n%s", err, last)
	}
}
