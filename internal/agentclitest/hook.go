package agentclitest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// HookEnv names the directory a recorder hook writes to. The recorder is the
// test binary itself: a suite's TestMain calls HookIfAsked first, and a CLI's
// hook command is HookCommand(dir).
const HookEnv = "AGENTCLITEST_HOOK_DIR"

// Rule says how the recorder answers an invocation whose payload matches:
// hook_event_name Event ("" any), tool_name Tool ("" any), and the JSON of
// tool_input (or tool_args) holding Contains ("" any). The first rule that
// matches answers; with none the hook writes nothing and exits 0 (no
// opinion, which both CLIs read as allow).
type Rule struct {
	Event, Tool, Contains string
	// Sleep before answering (a hook that outlives the CLI's timeout).
	Sleep time.Duration
	// Stdout and Stderr are written, then the hook exits with Exit.
	Stdout, Stderr string
	Exit           int
}

// Invocation is one recorded run of the hook: what it read on stdin, its
// environment and arguments, and the rule it answered with (-1: none).
type Invocation struct {
	Payload map[string]any    `json:"payload"`
	Raw     json.RawMessage   `json:"raw"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	Rule    int               `json:"rule"`
}

// Event is the payload's hook_event_name.
func (i Invocation) Event() string { s, _ := i.Payload["hook_event_name"].(string); return s }

// Tool is the payload's tool_name.
func (i Invocation) Tool() string { s, _ := i.Payload["tool_name"].(string); return s }

// HookCommand is the shell command line that runs the recorder writing to
// dir (which must hold the rules WriteRules wrote, or none).
func HookCommand(t testing.TB, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("env %s=%s %s", HookEnv, shellQuote(dir), shellQuote(self))
}

// WriteRules writes the rules the recorder in dir answers by.
func WriteRules(t testing.TB, dir string, rules []Rule) {
	t.Helper()
	b, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// HookIfAsked runs the recorder and exits when the process was started as
// one (HookEnv set); otherwise it returns at once. It records before it
// answers, so a hook killed in its sleep is still on record.
func HookIfAsked() {
	dir := os.Getenv(HookEnv)
	if dir == "" {
		return
	}
	os.Exit(record(dir, os.Stdin, os.Stdout, os.Stderr))
}

func record(dir string, stdin io.Reader, stdout, stderr io.Writer) int {
	raw, _ := io.ReadAll(stdin)
	inv := Invocation{Raw: json.RawMessage(raw), Env: map[string]string{}, Rule: -1}
	if json.Unmarshal(raw, &inv.Payload) != nil {
		inv.Raw, _ = json.Marshal(string(raw))
	}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k != HookEnv {
			inv.Env[k] = v
		}
	}
	inv.Cwd, _ = os.Getwd()
	var rules []Rule
	if b, err := os.ReadFile(filepath.Join(dir, "rules.json")); err == nil {
		_ = json.Unmarshal(b, &rules)
	}
	var rule *Rule
	for i := range rules {
		if rules[i].matches(inv) {
			inv.Rule, rule = i, &rules[i]
			break
		}
	}
	b, _ := json.MarshalIndent(inv, "", "  ")
	name := fmt.Sprintf("%020d-%d.json", time.Now().UnixNano(), os.Getpid())
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		fmt.Fprintln(stderr, "agentclitest hook:", err)
	}
	if rule == nil {
		return 0
	}
	time.Sleep(rule.Sleep)
	io.WriteString(stdout, rule.Stdout)
	io.WriteString(stderr, rule.Stderr)
	return rule.Exit
}

func (r Rule) matches(inv Invocation) bool {
	if r.Event != "" && r.Event != inv.Event() {
		return false
	}
	if r.Tool != "" && r.Tool != inv.Tool() {
		return false
	}
	if r.Contains != "" {
		in, _ := json.Marshal(inv.Payload["tool_input"])
		if !strings.Contains(string(in), r.Contains) {
			return false
		}
	}
	return true
}

// ReadHooks returns the invocations recorded in dir, in the order they
// started.
func ReadHooks(t testing.TB, dir string) []Invocation {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); n != "rules.json" && strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	sort.Strings(names) // a nanosecond time first: the order of capture
	out := make([]Invocation, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		var inv Invocation
		if err := json.Unmarshal(b, &inv); err != nil {
			t.Fatalf("hook record %s: %v", n, err)
		}
		out = append(out, inv)
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
