package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenarioAppends returns the events a scenario file's steps append, as
// the file writes them: no v, no actor.
func scenarioAppends(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Steps []struct {
			Append json.RawMessage `json:"append"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range f.Steps {
		if s.Append != nil {
			lines = append(lines, string(s.Append))
		}
	}
	return lines
}

// TestAppendFillsDefaults: events copied from a scenario file (no v, no
// actor) append as they are; the actor is --actor, or "cli".
func TestAppendFillsDefaults(t *testing.T) {
	evs := scenarioAppends(t, "../../testdata/conformance/openclaw/subagent-15-spec-example.json")[:3]
	policy := `{"type":"policy.set","data":{"dialect":"openclaw","document":{"tools":{"alsoAllow":["gateway"]}},"catalogue":["read","exec","gateway","sessions_spawn"]}}`
	for _, tc := range []struct {
		args  []string
		actor string
	}{
		{nil, "cli"},
		{[]string{"--actor", "ops-bob"}, "ops-bob"},
	} {
		data := filepath.Join(t.TempDir(), "data")
		in := policy + "\n" + strings.Join(evs, "\n") + "\n"
		out, errOut, err := runCLI(t, in, append([]string{"append", "--data", data}, tc.args...)...)
		if err != nil || !strings.Contains(out, "4 accepted, 0 refused") {
			t.Fatalf("append %v: %v\n%s%s", tc.args, err, out, errOut)
		}
		out, errOut, err = runCLI(t, "", "log", "--json", "--data", data)
		if err != nil {
			t.Fatalf("log: %v %s", err, errOut)
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var rec struct {
				V     int
				Actor string
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.V != 1 || rec.Actor != tc.actor {
				t.Errorf("%v: record %s: v %d actor %q, want 1 and %q", tc.args, sc.Text(), rec.V, rec.Actor, tc.actor)
			}
		}
	}
}

// TestAppendDefaultsKeepTheEventsText: filling in v and actor does not
// re-encode the event, so a repeated key is still refused, and an event
// that names its own actor and v keeps them.
func TestAppendDefaultsKeepTheEventsText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"turn.started","session":"s","data":{"turn":1}}`, `{"v":1,"actor":"cli","type":"turn.started","session":"s","data":{"turn":1}}`},
		{` { "type":"x", "v":2, "actor":"me" }`, ` { "type":"x", "v":2, "actor":"me" }`},
		{`{"type":"x","actor":"a","actor":"b"}`, `{"v":1,"type":"x","actor":"a","actor":"b"}`},
		{`{"data":{"actor":"nested","v":3}}`, `{"v":1,"actor":"cli","data":{"actor":"nested","v":3}}`},
		{`{}`, `{"v":1,"actor":"cli"}`},
		{`[1]`, `[1]`},
		{`{"type":`, `{"type":`},
	} {
		if got := string(withDefaults([]byte(tc.in), "cli")); got != tc.want {
			t.Errorf("withDefaults(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestAppendOversizedLine: a line past the limit is refused with its line
// number and the limit, and the lines after it are still appended.
func TestAppendOversizedLine(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	policy := `{"type":"policy.set","data":{"dialect":"openclaw","document":{},"catalogue":["read"]}}`
	huge := `{"type":"session.started","session":"agent:main:main","data":{"agent":"` + strings.Repeat("x", 10<<20) + `"}}`
	start := `{"type":"session.started","session":"agent:main:main","data":{"agent":"main"}}`
	out, errOut, err := runCLI(t, policy+"\n"+huge+"\n"+start+"\n", "append", "--data", data)
	var msg strings.Builder
	if code := exitCode(err, &msg); code != 1 {
		t.Fatalf("exit %d (%s), want 1\n%s%s", code, msg.String(), out, errOut)
	}
	want := "stdin:2: refused invalid_event: the line is 10485834 bytes, over append's limit of 4194304 bytes a line (an event may be at most 512 KiB)\n"
	if !strings.Contains(out, want) || !strings.Contains(out, "stdin:3: seq 2") || !strings.Contains(out, "2 accepted, 1 refused") {
		t.Fatalf("output:\n%s\nwant %q, line 3 at seq 2 and 2 accepted, 1 refused", out, want)
	}
	out, _, _ = runCLI(t, huge+"\n", "append", "--json", "--data", data)
	var line struct {
		Line  int
		Error string
	}
	if err := json.Unmarshal([]byte(out), &line); err != nil || line.Line != 1 || line.Error != "invalid_event" {
		t.Fatalf("--json: %q", out)
	}
}

// TestREADMEEventLine: the event line the README shows under Commands
// appends as it is.
func TestREADMEEventLine(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "echo '"); ok && strings.Contains(l, "| ledger append") {
			lines = append(lines, rest[:strings.Index(rest, "'")])
		}
	}
	if len(lines) == 0 {
		t.Fatal("the README shows no `echo '{...}' | ledger append` line")
	}
	data := filepath.Join(t.TempDir(), "data")
	out, errOut, err := runCLI(t, strings.Join(lines, "\n")+"\n", "append", "--data", data)
	if err != nil || !strings.Contains(out, "0 refused") {
		t.Fatalf("the README's lines:\n%s\nappend: %v\n%s%s", strings.Join(lines, "\n"), err, out, errOut)
	}
}

// FuzzWithDefaults: filling in the defaults never panics, leaves what is
// not an object as it was, and makes an object that has v and actor and
// still holds every member it had.
func FuzzWithDefaults(f *testing.F) {
	for _, s := range []string{`{}`, `{"type":"x"}`, ` {"v":2, "actor":"a"} `, `[1]`, `{"a":{"v":1}}`, `{"a":1,"a":2}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := withDefaults(append([]byte(nil), raw...), "cli")
		before, ok := topLevelKeys(raw)
		if !ok {
			if string(got) != string(raw) {
				t.Fatalf("%q: not an object, but changed to %q", raw, got)
			}
			return
		}
		after, ok := topLevelKeys(got)
		if !ok || !after["v"] || !after["actor"] {
			t.Fatalf("%q became %q: not an object with v and actor", raw, got)
		}
		for k := range before {
			if !after[k] {
				t.Fatalf("%q became %q: lost %q", raw, got, k)
			}
		}
	})
}
