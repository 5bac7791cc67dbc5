package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHelpGoesToStdout: a command's --help is what was asked for, so it is
// printed on stdout with exit status 0, and nothing on stderr.
func TestHelpGoesToStdout(t *testing.T) {
	for _, c := range commands() {
		for _, h := range []string{"--help", "-h"} {
			t.Run(c.name+" "+h, func(t *testing.T) {
				out, errOut, err := runCLI(t, "", c.name, h)
				if code := exitCode(err, &strings.Builder{}); code != 0 {
					t.Fatalf("exit %d: %v", code, err)
				}
				if !strings.Contains(out, "Usage: ledger "+c.name) || errOut != "" {
					t.Fatalf("stdout %q, stderr %q; want the usage on stdout only", out, errOut)
				}
			})
		}
	}
	out, errOut, err := runCLI(t, "", "policy", "import", "--help")
	if err != nil || !strings.Contains(out, "Usage: ledger policy import") || errOut != "" {
		t.Fatalf("policy import --help: %v, stdout %q, stderr %q", err, out, errOut)
	}
}

// TestMistypedFlag: a flag that does not exist is one line, with the flag
// it probably meant, and no page of usage.
func TestMistypedFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--sesion", "s"}, "ledger: flag provided but not defined: -sesion (did you mean --session?)\n"},
		{[]string{"why", "-tol", "exec"}, "ledger: flag provided but not defined: -tol (did you mean --tool?)\n"},
		{[]string{"verify", "--dat", "x"}, "ledger: flag provided but not defined: -dat (did you mean --data?)\n"},
		{[]string{"log", "--zzzzzz"}, "ledger: flag provided but not defined: -zzzzzz (run 'ledger log --help' for the flags)\n"},
		{[]string{"tools", "--seq", "abc"}, "ledger: invalid value \"abc\" for flag -seq: parse error (run 'ledger tools --help' for the flags)\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, err := runCLI(t, "", tt.args...)
			var msg strings.Builder
			code := exitCode(err, &msg)
			if code != 2 || msg.String() != tt.want || out != "" || errOut != "" {
				t.Fatalf("exit %d, message %q, stdout %q, stderr %q; want exit 2 and %q alone", code, msg.String(), out, errOut, tt.want)
			}
		})
	}
}

// TestJSONErrors: with --json, the error is a JSON object on stderr, with
// the same exit status.
func TestJSONErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tools", "--json", "--scenario", ocScenario, "--session", "ghost"}, 1, "unknown_session"},
		{[]string{"tools", "--json", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--seq", "3", "--turn", "1"}, 2, "usage"},
		{[]string{"tools", "--json", "--sesion", "x"}, 2, "usage"},
		{[]string{"tools", "--json", "--scenario", ocScenario, "--session", "agent:main:subagent:a", "--time", "yesterday"}, 2, "usage"},
		{[]string{"tree", "--json=true", "--data", "{tmp}/no-ledger"}, 2, "no_ledger"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := append([]string(nil), tt.args...)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "{tmp}", t.TempDir())
			}
			_, _, err := runCLI(t, "", args...)
			var msg strings.Builder
			code := exitCode(err, &msg)
			var body struct {
				Error struct{ Code, Message string }
			}
			if jerr := json.Unmarshal([]byte(msg.String()), &body); jerr != nil || code != tt.code || body.Error.Code != tt.want || body.Error.Message == "" {
				t.Fatalf("exit %d, stderr %q (%v); want exit %d and {\"error\":{\"code\":%q,...}}", code, msg.String(), jerr, tt.code, tt.want)
			}
			if strings.Count(msg.String(), "\n") != 1 {
				t.Fatalf("stderr %q: want one line", msg.String())
			}
		})
	}
}

// TestTimePositions: --time is a time, not text: the same instant written
// with Z, another offset, or fewer fraction digits lands on the same
// record, the last one at or before it.
func TestTimePositions(t *testing.T) {
	// The scenario's records are stamped 1 ms apart from
	// 2026-01-01T00:00:00.000Z; seq 12 is at .011Z and seq 13 at .014Z.
	alice := "agent:main:discord:direct:alice"
	for _, tm := range []string{
		"2026-01-01T00:00:00.0125Z",
		"2026-01-01T01:00:00.0125+01:00",
		"2025-12-31T23:30:00.012-00:30",
		"2026-01-01T00:00:00.013999Z",
	} {
		out, errOut, err := runCLI(t, "", "why", "--json", "--scenario", ocScenario, "--session", alice, "--tool", "read", "--time", tm)
		var got struct{ Seq uint64 }
		if err != nil || json.Unmarshal([]byte(out), &got) != nil || got.Seq != 12 {
			t.Errorf("--time %s: seq %d (%v %s), want 12", tm, got.Seq, err, errOut)
		}
	}
	// A whole second, with no fraction, is before the record at .001Z
	// (the first session's start): no tree yet.
	out, errOut, err := runCLI(t, "", "tree", "--json", "--scenario", ocScenario, "--time", "2026-01-01T00:00:00Z")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("tree at 00:00:00Z: %q (%v %s), want []", out, err, errOut)
	}
}
