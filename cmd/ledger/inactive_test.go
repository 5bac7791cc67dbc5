package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOfInactiveSession: `ledger check` and `ledger why` of a
// session whose recorded check `ledger append` refuses session_not_active
// (it or its root has ended, it is yielded, it has completed) answer deny
// with that code, the record that put the session in its state and what
// to do; at its turn they answer as decided then, and `ledger tools` says
// the state above the set. A running session is unaffected. (A review
// found `check` answering allow for an ended session; internal/service
// TestPlainCheckOfInactiveSession holds the rule.)
func TestCheckOfInactiveSession(t *testing.T) {
	data := filepath.Join(t.TempDir(), "l")
	log := strings.Join([]string{
		`{"type":"policy.set","actor":"ops","data":{"dialect":"openclaw","document":{"tools":{}},"catalogue":["read","exec"]}}`,
		// 2-6: s1 started, turn 1, ended (the review's case), with its
		// sub-agent d.
		`{"type":"session.started","actor":"acme","session":"s1","data":{"agent":"main"}}`,
		`{"type":"turn.started","actor":"acme","session":"s1","data":{"turn":1}}`,
		`{"type":"session.spawned","actor":"acme","session":"agent:main:subagent:d","data":{"parent":"s1","agent":"main"}}`,
		`{"type":"turn.started","actor":"acme","session":"agent:main:subagent:d","data":{"turn":1}}`,
		`{"type":"session.ended","actor":"acme","session":"s1","data":{}}`,
		// 7-12: p yields for its sub-agent c, which completes.
		`{"type":"session.started","actor":"acme","session":"p","data":{"agent":"main"}}`,
		`{"type":"turn.started","actor":"acme","session":"p","data":{"turn":1}}`,
		`{"type":"session.spawned","actor":"acme","session":"agent:main:subagent:c","data":{"parent":"p","agent":"main"}}`,
		`{"type":"turn.started","actor":"acme","session":"agent:main:subagent:c","data":{"turn":1}}`,
		`{"type":"session.yielded","actor":"acme","session":"p","data":{"children":["agent:main:subagent:c"]}}`,
		`{"type":"session.completed","actor":"acme","session":"agent:main:subagent:c","data":{"status":"ok"}}`,
		// 13-14: s2 runs.
		`{"type":"session.started","actor":"acme","session":"s2","data":{"agent":"main"}}`,
		`{"type":"turn.started","actor":"acme","session":"s2","data":{"turn":1}}`,
	}, "\n") + "\n"
	if out, errOut, err := runCLI(t, log, "append", "--data", data); err != nil || !strings.Contains(out, "14 accepted, 0 refused") {
		t.Fatalf("append: %v\n%s%s", err, out, errOut)
	}
	for _, c := range []struct {
		session, state, record, todo string
	}{
		{"s1", "ended", "session.ended at seq 6", "until it is reopened (session.reopened)"},
		{"agent:main:subagent:d", "ended", "session.ended at seq 6", `the root "s1" of session "agent:main:subagent:d" has ended`},
		{"p", "yielded", "session.yielded at seq 11", "until it is resumed"},
		{"agent:main:subagent:c", "completed", "session.completed at seq 12", "start or spawn a new session"},
	} {
		t.Run(c.session, func(t *testing.T) {
			// The recorded check is refused ...
			rec := `{"type":"tool.checked","actor":"acme","session":"` + c.session + `","data":{"turn":1,"tool":"exec","call":"c1"}}` + "\n"
			out, _, err := runCLI(t, rec, "append", "--data", data)
			if err == nil || !strings.Contains(out, "refused session_not_active") {
				t.Fatalf("the recorded check: %v\n%s; want it refused session_not_active", err, out)
			}
			// ... and the plain check says so.
			out, errOut, err := runCLI(t, "", "check", "--data", data, "--session", c.session, "--tool", "exec")
			if err != nil {
				t.Fatalf("check: %v\n%s", err, errOut)
			}
			want := c.session + " exec: deny (session_not_active) in scope default\nnot active: " + c.record
			if !strings.HasPrefix(out, want) || !strings.Contains(out, c.state) || !strings.Contains(out, c.todo) {
				t.Errorf("check:\n%s\nwant it to start %q, and say %q and %q", out, want, c.state, c.todo)
			}
			out, errOut, err = runCLI(t, "", "check", "--json", "--data", data, "--session", c.session, "--tool", "exec")
			var got struct {
				Decision string
				Reason   struct {
					Code, Rule string
					Record     *struct {
						Seq  uint64
						Type string
					}
				}
			}
			if err != nil || json.Unmarshal([]byte(out), &got) != nil || got.Decision != "deny" || got.Reason.Code != "session_not_active" ||
				got.Reason.Record == nil || !strings.HasPrefix(c.record, got.Reason.Record.Type) {
				t.Errorf("check --json: %v\n%s%s", err, out, errOut)
			}
			out, errOut, err = runCLI(t, "", "why", "--data", data, "--session", c.session, "--tool", "exec")
			if err != nil || !strings.Contains(out, "decision: deny (session_not_active)\ninactive: "+c.record) || !strings.Contains(out, "   1  lifecycle ") {
				t.Errorf("why: %v\n%s%s\nwant the deny, the record and the lifecycle layer first", err, out, errOut)
			}
			// At its turn, as decided then.
			for _, cmd := range []string{"check", "why"} {
				out, errOut, err = runCLI(t, "", cmd, "--data", data, "--session", c.session, "--tool", "exec", "--turn", "1")
				if err != nil || !strings.Contains(out, "allow (default:allow)") || strings.Contains(out, "session_not_active") {
					t.Errorf("%s --turn 1: %v\n%s%s\nwant allow, as decided then", cmd, err, out, errOut)
				}
			}
			out, errOut, err = runCLI(t, "", "tools", "--data", data, "--session", c.session)
			if err != nil || !strings.Contains(out, "\nstate:   "+c.state+"; every check answers deny (session_not_active): "+c.record) || !strings.Contains(out, "\nallowed: read, exec\n") {
				t.Errorf("tools: %v\n%s%s\nwant the state above the set", err, out, errOut)
			}
			out, errOut, err = runCLI(t, "", "tools", "--json", "--data", data, "--session", c.session)
			if err != nil || !strings.Contains(out, `"not_active": {`) || !strings.Contains(out, `"state": "`+c.state+`"`) {
				t.Errorf("tools --json: %v\n%s%s\nwant not_active", err, out, errOut)
			}
			out, errOut, err = runCLI(t, "", "tools", "--data", data, "--session", c.session, "--turn", "1")
			if err != nil || strings.Contains(out, "state:") {
				t.Errorf("tools --turn 1: %v\n%s%s\nwant the turn's set alone", err, out, errOut)
			}
		})
	}
	t.Run("a running session", func(t *testing.T) {
		out, errOut, err := runCLI(t, "", "check", "--data", data, "--session", "s2", "--tool", "exec")
		if err != nil || out != "s2 exec: allow (default:allow) in scope default\n" {
			t.Errorf("check: %v\n%s%s", err, out, errOut)
		}
		out, errOut, err = runCLI(t, "", "tools", "--json", "--data", data, "--session", "s2")
		if err != nil || strings.Contains(out, "not_active") {
			t.Errorf("tools --json: %v\n%s%s", err, out, errOut)
		}
		rec := `{"type":"tool.checked","actor":"acme","session":"s2","data":{"turn":1,"tool":"exec","call":"c1"}}` + "\n"
		if out, errOut, err := runCLI(t, rec, "append", "--data", data); err != nil || !strings.Contains(out, "1 accepted") {
			t.Errorf("the recorded check: %v\n%s%s", err, out, errOut)
		}
	})
}
