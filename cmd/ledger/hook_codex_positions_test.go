package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/agenthook"
)

// addCodexUserHook appends a handler of the user's (./audit.sh) to the
// PreToolUse list of the project's codex hooks file, after the ledger's,
// as install/review 6's reproduction does.
func addCodexUserHook(t *testing.T, project string) {
	t.Helper()
	file := filepath.Join(project, ".codex", "hooks.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	hooks := v["hooks"].(map[string]any)
	hooks["PreToolUse"] = append(hooks["PreToolUse"].([]any), map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "./audit.sh", "timeout": 5}}})
	b, _ = json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHookInstallCodexMovedWarns: codex trusts a handler by its position
// (FILE:pre_tool_use:GROUP:INDEX). A reinstall with another command line
// replaces the ledger's handler in place, so the user's audit hook after
// it keeps its key and nothing is said of it; an uninstall, which moves
// it up, warns on standard error that it moved and must be trusted again
// in codex, naming it with its key before and after, and with --json
// reports it as "codex_moved" (before the fix: the reinstall moved it
// onto the ledger's old key, silently, and the uninstall said nothing).
func TestHookInstallCodexMovedWarns(t *testing.T) {
	project := t.TempDir()
	install := []string{"hook", "install", "--runtime", "codex", "--project", project, "--command", "ledger"}
	if _, _, err := runCLI(t, "", append(install, "--scope", "a", "--", "--nats", "nats://127.0.0.1:4222")...); err != nil {
		t.Fatal(err)
	}
	addCodexUserHook(t, project)
	abs, _ := filepath.Abs(filepath.Join(project, ".codex", "hooks.json"))
	from, to := abs+":pre_tool_use:1:0", abs+":pre_tool_use:0:0"

	_, errOut, err := runCLI(t, "", append(install, "--scope", "b", "--", "--nats", "nats://127.0.0.1:4222")...)
	if err != nil || strings.Contains(errOut, "codex trusts a hook by its position") {
		t.Fatalf("reinstall: %v %s", err, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(project, ".codex", "hooks.json"))
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if pre := f.Hooks["PreToolUse"]; len(pre) != 2 || !strings.Contains(pre[0].Hooks[0].Command, "--scope b") || pre[1].Hooks[0].Command != "./audit.sh" {
		t.Fatalf("the reinstall moved the user's hook:\n%s", b)
	}

	dry, errOut, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", project, "--uninstall", "--dry-run", "--json")
	var dr struct {
		Files []struct {
			CodexMoved []struct{ Event, Command, From, To string } `json:"codex_moved"`
		}
	}
	if err != nil || json.Unmarshal([]byte(dry), &dr) != nil || len(dr.Files) != 1 || len(dr.Files[0].CodexMoved) != 1 || dr.Files[0].CodexMoved[0].From != from {
		t.Errorf("--uninstall --dry-run --json: %v %s %s", err, dry, errOut)
	}

	out, errOut, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", project, "--uninstall", "--json")
	var r []struct {
		Removed    []string `json:"removed"`
		CodexMoved []struct {
			Event, Command, From, To string
		} `json:"codex_moved"`
		Note string `json:"note"`
	}
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || len(r) != 1 || len(r[0].Removed) != 6 || r[0].Note != "" {
		t.Fatalf("--uninstall --json: %v %s", err, out)
	}
	if m := r[0].CodexMoved; len(m) != 1 || m[0].Event != "PreToolUse" || m[0].Command != "./audit.sh" || m[0].From != from || m[0].To != to {
		t.Errorf("--uninstall --json reports moved %+v, want ./audit.sh from %s to %s", m, from, to)
	}

	// Again, as text, in a project of the same shape.
	project = t.TempDir()
	if _, _, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", project, "--command", "ledger"); err != nil {
		t.Fatal(err)
	}
	addCodexUserHook(t, project)
	abs, _ = filepath.Abs(filepath.Join(project, ".codex", "hooks.json"))
	from, to = abs+":pre_tool_use:1:0", abs+":pre_tool_use:0:0"
	out, errOut, err = runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", project, "--uninstall")
	if err != nil || !strings.Contains(out, "removed the ledger's codex hooks") {
		t.Fatalf("--uninstall: %v %s", err, out)
	}
	for _, want := range []string{"codex trusts a hook by its position", "codex will not run them until they are trusted again", `PreToolUse "./audit.sh": ` + from + " is now " + to} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--uninstall's warning does not say %q:\n%s", want, errOut)
		}
	}
}

// TestHookInstallCodexJSONNote: with --json the report of an install holds
// what the text report ends with (the runtime's note: for codex, that it
// runs a hook only once trusted, and how to trust it), and for codex
// without --trust "codex_trust_needed" when the ledger's handlers were
// added or changed, none when the file is unchanged; gemini's report has
// its note and no codex field (before the fix --json returned before the
// note, and an automated install learnt nothing of codex's trust).
func TestHookInstallCodexJSONNote(t *testing.T) {
	project := t.TempDir()
	type report struct {
		Changed          bool    `json:"changed"`
		CodexTrustNeeded *bool   `json:"codex_trust_needed"`
		Note             *string `json:"note"`
	}
	install := func(rt string) report {
		t.Helper()
		out, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", project, "--command", "ledger", "--json", "--", "--nats", "nats://127.0.0.1:4222")
		var r []report
		if err != nil || json.Unmarshal([]byte(out), &r) != nil || len(r) != 1 {
			t.Fatalf("%s --json: %v %s", rt, err, out)
		}
		return r[0]
	}
	r := install("codex")
	if !r.Changed || r.CodexTrustNeeded == nil || !*r.CodexTrustNeeded || r.Note == nil || *r.Note != agentInstallNote(agenthook.Codex, false) ||
		!strings.Contains(*r.Note, "runs a hook only once it is trusted") || !strings.Contains(*r.Note, "--trust") {
		t.Errorf("codex install --json: %+v", r)
	}
	if r := install("codex"); r.Changed || r.CodexTrustNeeded != nil || r.Note == nil {
		t.Errorf("codex install --json, unchanged: %+v", r)
	}
	if r := install("gemini"); !r.Changed || r.CodexTrustNeeded != nil || r.Note == nil || !strings.Contains(*r.Note, "gemini-cli reads project hooks only in a trusted folder") {
		t.Errorf("gemini install --json: %+v", r)
	}
}
