package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// TestWhyCallCommand: why --call and --record answer the decision
// recorded for a call at its record, naming the revocation that caused
// it, its actor and time; --turn lists the turn's records and calls with
// the --call to run; what cannot be answered says what to do.
func TestWhyCallCommand(t *testing.T) {
	data := twoScopesLedger(t)
	for _, args := range [][]string{{"--call", "c1"}, {"--record", "12"}, {"--call", "c1", "--session", "cc1:sub:1"}} {
		out, errOut, err := runCLI(t, "", append([]string{"why", "--data", data}, args...)...)
		if err != nil {
			t.Fatalf("why %v: %v\n%s", args, err, errOut)
		}
		for _, want := range []string{
			"call c1 of session cc1:sub:1: Bash, tool.checked at seq 12 in turn 1, ",
			"recorded: deny (revocation:deny); scope cc\n",
			"cause:    deny.added at seq 11 by cli at ",
			": deny Bash for session cc1 and its sub-agents (incident 42) (Bash: allow before, deny after)\n",
			"records:\n  seq 12  tool.checked  ",
			"why Bash for cc1:sub:1 at seq 11\n",
			"decision: deny (revocation:deny)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("why %v: no %q in\n%s", args, want, out)
			}
		}
	}
	out, errOut, err := runCLI(t, "", "why", "--json", "--data", data, "--call", "c1")
	var a wire.WhyResult
	if err != nil || json.Unmarshal([]byte(out), &a) != nil || a.Call == nil || a.Call.Cause == nil {
		t.Fatalf("why --json: %v %s %s", err, out, errOut)
	}
	if c := a.Call.Cause; c.Seq != seqDenyCC || c.Type != events.DenyAdded || c.Actor != "cli" || c.Time == "" || c.Before != "allow" || c.After != "deny" {
		t.Errorf("the cause: %+v", c)
	}
	if r := a.Call.Record; r.Seq != seqCheckDenied || r.Reason.Code != "revocation:deny" || r.Scope != "cc" || r.Call != "c1" {
		t.Errorf("the record: %+v", r)
	}

	out, errOut, err = runCLI(t, "", "why", "--data", data, "--session", "cc1:sub:1", "--tool", "Bash", "--input", "ls", "--turn", "1")
	if err != nil {
		t.Fatalf("why --turn: %v %s", err, errOut)
	}
	for _, want := range []string{
		"turn 1 of cc1:sub:1: records 10 to 12; the decision above is at its start (seq 10)\n",
		"calls checked in turn 1:\n  seq 12  Bash  c1  deny (revocation:deny)  ledger why --data " + data + " --call c1 --record 12\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why --turn: no %q in\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "", "why", "--data", data, "--session", "cc1", "--tool", "Bash", "--turn", "1")
	if err != nil || !strings.Contains(out, "turn 1 of cc1: records 8 to 8; ") || !strings.Contains(out, "calls:    none checked in turn 1\n") {
		t.Errorf("why --turn with no calls: %v\n%s", err, out)
	}

	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"an unknown call", []string{"--call", "nope"}, 1, `unknown_call: no tool.checked or tool.effect_started names call "nope": check the id`},
		{"a record that is no call's", []string{"--record", "11"}, 1, "unknown_call: record 11 is a deny.added, not a call's tool.checked or tool.effect_started"},
		{"a record beyond the head", []string{"--record", "99"}, 1, "unknown_call: sequence 99 is beyond the head (13)"},
		{"a call of another session", []string{"--call", "c1", "--session", "cc1"}, 1, `names call "c1"`},
		{"a call and a tool", []string{"--call", "c1", "--tool", "Bash"}, 2, "drop --tool"},
		{"a call and a position", []string{"--call", "c1", "--seq", "3"}, 2, "drop --seq, --turn, --time and --input"},
		{"a record of another call", []string{"--call", "nope", "--record", "12"}, 1, `unknown_call: record 12 is of call "c1", not "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(t, "", append([]string{"why", "--data", data}, tt.args...)...)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != tt.code || !strings.Contains(msg.String(), tt.msg) || out != "" {
				t.Fatalf("exit %d %q (stdout %q), want %d containing %q", code, msg.String(), out, tt.code, tt.msg)
			}
		})
	}
}

// TestDenialsCommand: denials lists the denied and asked calls of every
// session, filtered, as lines and as JSON lines; log lines name the
// actor and a call's tool, decision and reason code.
func TestDenialsCommand(t *testing.T) {
	data := twoScopesLedger(t)
	// A second denial, in the default scope: alice's exec is revoked.
	extra := `{"type":"tool.checked","session":"agent:main:main","actor":"oc","data":{"turn":1,"tool":"exec","call":"x1"}}` + "\n"
	if out, errOut, err := runCLI(t, extra, "append", "--data", data); err != nil {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	out, errOut, err := runCLI(t, "", "denials", "--data", data)
	if err != nil {
		t.Fatalf("denials: %v %s", err, errOut)
	}
	lines := nonEmptyLines(out)
	if len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "    12  ") || !strings.Contains(lines[0], "  deny revocation:deny                Bash             cc1:sub:1 (claude-code 2.1.328, alice@h3, /srv/c)  scope cc  call c1  actor cli  ledger why --data "+data+" --call c1") ||
		!strings.HasPrefix(lines[1], "    14  ") || !strings.Contains(lines[1], "  deny revocation:deny                exec             agent:main:main (openclaw 2026.9.6, alice@h1, /srv/a)  scope default  call x1  actor oc  ledger why --data "+data+" --call x1") {
		t.Fatalf("denials:\n%s", out)
	}
	for _, tt := range []struct {
		name string
		args []string
		want []uint64
	}{
		{"scope", []string{"--scope", "cc"}, []uint64{12}},
		{"default scope", []string{"--scope", "default"}, []uint64{14}},
		{"user", []string{"--user-identity", "alice"}, []uint64{12, 14}},
		{"another user", []string{"--user-identity", "bob"}, nil},
		{"project", []string{"--project", "/srv/a"}, []uint64{14}},
		{"runtime", []string{"--runtime", "claude-code"}, []uint64{12}},
		{"session", []string{"--session", "cc1:sub:1"}, []uint64{12}},
		{"tool", []string{"--tool", "exec"}, []uint64{14}},
		{"reason", []string{"--reason", "revocation:deny"}, []uint64{12, 14}},
		{"another reason", []string{"--reason", "global:deny"}, nil},
		{"from", []string{"--from", "13"}, []uint64{14}},
		{"until the start", []string{"--until", "2000-01-01T00:00:00Z"}, nil},
		{"since the start", []string{"--since", "2000-01-01T01:00:00+01:00"}, []uint64{12, 14}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, "", append([]string{"denials", "--json", "--data", data}, tt.args...)...)
			if err != nil {
				t.Fatalf("%v %s", err, errOut)
			}
			var got []uint64
			for _, l := range nonEmptyLines(out) {
				var d wire.Denial
				if err := json.Unmarshal([]byte(l), &d); err != nil || d.Decision != "deny" || d.Tool == "" || d.Actor == "" || d.Identity == nil {
					t.Fatalf("a line: %v %s", err, l)
				}
				got = append(got, d.Seq)
			}
			if len(got) != len(tt.want) || (len(got) > 0 && !equalSeqs(got, tt.want)) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--since", "yesterday"}, `--since "yesterday": not an RFC 3339 time`},
		{[]string{"--scope", "a.b"}, `--scope "a.b": a scope name is`},
		{[]string{"--tol", "exec"}, "-tol (did you mean --tool?)"},
	} {
		_, _, err := runCLI(t, "", append([]string{"denials", "--data", data}, tt.args...)...)
		var msg strings.Builder
		if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), tt.msg) {
			t.Errorf("%v: exit %d %q, want 2 saying %q", tt.args, code, msg.String(), tt.msg)
		}
	}

	out, _, err = runCLI(t, "", "log", "--data", data, "--from", "11", "--tail", "0")
	lines = nonEmptyLines(out)
	if err != nil || len(lines) != 4 || !strings.Contains(lines[0], "  actor cli  scope cc") ||
		!strings.HasSuffix(lines[1], "  actor cli  tool Bash: deny (revocation:deny)  call c1") ||
		!strings.HasSuffix(lines[3], "  actor oc  tool exec: deny (revocation:deny)  call x1") {
		t.Errorf("log: %v\n%s", err, out)
	}
}

func equalSeqs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDenialsFollowOverNATS: against a served ledger, denials --follow
// prints a denial appended after it started, and why --call explains it.
func TestDenialsFollowOverNATS(t *testing.T) {
	url := serveForTest(t)
	if out, errOut, err := runCLI(t, strings.Join(twoScopes, "\n")+"\n", "append", "--nats", url); err != nil || !strings.Contains(out, "13 accepted") {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"denials", "--nats", url, "--follow", "--json"}, nil, outW, io.Discard)
		outW.Close()
	}()
	lines := make(chan wire.Denial)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var d wire.Denial
			if json.Unmarshal(sc.Bytes(), &d) == nil {
				lines <- d
			}
		}
		close(lines)
	}()
	next := func() wire.Denial {
		t.Helper()
		select {
		case d, ok := <-lines:
			if !ok {
				t.Fatalf("denials --follow ended: %v", <-done)
			}
			return d
		case <-ctx.Done():
			t.Fatal("no denial printed")
		}
		return wire.Denial{}
	}
	if d := next(); d.Seq != seqCheckDenied || d.Call != "c1" {
		t.Fatalf("the first denial: %+v", d)
	}
	late := `{"type":"tool.checked","session":"agent:main:main","actor":"oc","data":{"turn":1,"tool":"exec","call":"late-1"}}` + "\n"
	if out, errOut, err := runCLI(t, late, "append", "--nats", url); err != nil {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	if d := next(); d.Seq != 14 || d.Call != "late-1" || d.Reason.Code != "revocation:deny" || d.Identity == nil || d.Identity.User != "alice" {
		t.Fatalf("the late denial: %+v", d)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("denials --follow after cancel: %v", err)
	}
	out, errOut, err := runCLI(t, "", "why", "--nats", url, "--call", "late-1")
	if err != nil || !strings.Contains(out, "cause:    deny.added at seq 13 by cli at ") || !strings.Contains(out, ": deny exec for user alice (exec: allow before, deny after)\n") {
		t.Errorf("why --call over NATS: %v %s\n%s", err, errOut, out)
	}
}

// TestWhyCallInTheDemo: issue 26's revoke story. The coder's browser call
// checked before the operator revoked its grant is refused when its
// effect starts; why --call names the grant.revoked that caused it, not
// the policy.set whose rule now denies the tool.
func TestWhyCallInTheDemo(t *testing.T) {
	data := t.TempDir()
	if out, errOut, err := runCLI(t, "", "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := runCLI(t, "", "why", "--json", "--data", data, "--call", "call-browse-1")
	var a wire.WhyResult
	if err != nil || json.Unmarshal([]byte(out), &a) != nil || a.Call == nil || a.Call.Cause == nil {
		t.Fatalf("why --call: %v %s %s", err, out, errOut)
	}
	if r := a.Call.Record; r.Decision != "deny" || r.Reason.Code != "effect:authorization_changed" || r.Tool != "browser" {
		t.Errorf("the record answered: %+v", r)
	}
	if c := a.Call.Cause; c.Type != events.GrantRevoked || c.Before != "allow" || c.After != "deny" || c.Seq >= a.Call.Record.Seq {
		t.Errorf("the cause: %+v, want the grant.revoked before the refusal", c)
	}
	if a.Verdict.Reason.Record == nil || a.Verdict.Reason.Record.Type != events.PolicySet {
		t.Errorf("the rule's record: %+v, want the policy.set", a.Verdict.Reason)
	}
}

// TestWhyCallOfOneRecord: a call checked and started by one record (a
// tool.checked with effect: true) is explained like any recorded call,
// and the record says the effect started with it; a denied one started
// nothing; verify decides both again as checks; the report marks the
// started one.
func TestWhyCallOfOneRecord(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	in := strings.Join([]string{
		`{"type":"policy.set","data":{"dialect":"openclaw","document":{"tools":{"deny":["exec"]}},"catalogue":["exec","read"]}}`,
		`{"type":"session.started","session":"agent:main:main","data":{"agent":"main"}}`,
		`{"type":"turn.started","session":"agent:main:main","data":{"turn":1}}`,
		`{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"read","call":"r1","effect":true}}`,
		`{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"e1","effect":true}}`,
	}, "\n") + "\n"
	if out, errOut, err := runCLI(t, in, "append", "--data", data); err != nil || !strings.Contains(out, "5 accepted, 0 refused") {
		t.Fatalf("append: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := runCLI(t, "", "why", "--data", data, "--call", "r1")
	if err != nil || !strings.Contains(out, "  seq 4  tool.checked  ") || !strings.Contains(out, "allow (default:allow), effect started with the check\n") {
		t.Fatalf("why --call r1: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = runCLI(t, "", "why", "--data", data, "--call", "e1")
	if err != nil || !strings.Contains(out, "recorded: deny (global:deny)") || strings.Contains(out, "effect started") {
		t.Fatalf("why --call e1: %v\n%s%s", err, out, errOut)
	}
	if out, errOut, err := runCLI(t, "", "verify", "--data", data); err != nil {
		t.Fatalf("verify: %v\n%s%s", err, out, errOut)
	}
}
