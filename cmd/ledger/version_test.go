package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
)

// TestVersion: 'ledger version' and '--version' name the module, the
// embedded components and the runtime releases the dialects reproduce, in
// text and as JSON.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, err := runCLI(t, "", args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"github.com/sessionledger/ledger", "go1.", "nats-server  v2.", "bbolt        v1.",
			"dialects: claude-code " + claudecode.LatestRelease + ", openclaw " + openclaw.NewestRelease()} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: %q lacks %q", args, out, want)
			}
		}
	}
	out, _, err := runCLI(t, "", "version", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v buildVersion
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Dialects["claude-code"] != claudecode.LatestRelease || v.Deps["nats-server"] == "" {
		t.Fatalf("%v %+v", err, v)
	}
	var msg strings.Builder
	if _, _, err := runCLI(t, "", "version", "extra"); exitCode(err, &msg) != 2 {
		t.Fatalf("version extra: %v", err)
	}
}

// TestSuggestCommand: a mistyped command is answered with the command it
// probably meant; one far from every command with none.
func TestSuggestCommand(t *testing.T) {
	for in, want := range map[string]string{"sevre": "serve", "repot": "report", "verfy": "verify", "polic": "policy",
		"hoo": "hook", "versoin": "version", "xyzzy": ""} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", in)
		if code := exitCode(err, &msg); code != 2 {
			t.Fatalf("%s: exit %d", in, code)
		}
		got := msg.String()
		if want != "" && !strings.Contains(got, "did you mean '"+want+"'?") || want == "" && strings.Contains(got, "did you mean") {
			t.Errorf("%s: %q, want a suggestion of %q", in, got, want)
		}
	}
}
