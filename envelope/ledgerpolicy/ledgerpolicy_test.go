package ledgerpolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct{ doc, path string }{
		{`{}`, "document.runtime"},
		{`{"runtime":"codex@9"}`, "document.runtime"},
		{`{"runtime":1}`, "document.runtime"},
		{`{"runtime":"codex@0.169.0","extra":1}`, "document.extra"},
		{`{"runtime":"codex@0.169.0","default":"maybe"}`, "document.default"},
		{`{"runtime":"codex@0.169.0","permissions":{"allow":[""]}}`, "document.permissions.allow[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"allow":"Bash"}}`, "document.permissions.allow"},
		{`{"runtime":"codex@0.169.0","permissions":{"allow":[1]}}`, "document.permissions.allow[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["Read"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["web_search(x)"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["view_image(~/x/**)"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["view_image(a/../b)"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["Bash(ls"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["*(x)"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"deny":["mcp__a__b(x)"]}}`, "document.permissions.deny[0]"},
		{`{"runtime":"gemini@0.61.0","permissions":{"allow":["web_fetch(example.com)"]}}`, "document.permissions.allow[0]"},
		{`{"runtime":"codex@0.169.0","permissions":{"allow":["Bash"],"allow":["Bash"]}}`, "document.permissions.allow"},
		{`{"runtime":"codex@0.169.0","agents":{"-x":{}}}`, "document.agents.-x"},
		{`{"runtime":"codex@0.169.0","agents":{"a":{"tools":[]}}}`, "document.agents.a.tools"},
		{`{"runtime":"codex@0.169.0","subagents":{"maxDepth":-1}}`, "document.subagents.maxDepth"},
		{`{"runtime":"codex@0.169.0","subagents":{"maxDepth":"1"}}`, "document.subagents.maxDepth"},
		{`{"runtime":"codex@0.169.0","subagents":{"allowAgents":["a b"]}}`, "document.subagents.allowAgents[0]"},
		{`[]`, "document"},
	} {
		_, err := New().Compile(json.RawMessage(tc.doc), nil)
		var e *events.Error
		if !errors.As(err, &e) || e.Code != events.CodeInvalidPolicy || !strings.HasPrefix(e.Msg, tc.path+":") {
			t.Errorf("%s: got %v, want invalid_policy at %s", tc.doc, err, tc.path)
		}
	}
	if _, err := New().Compile(json.RawMessage(`{"runtime":"codex@0.169.0"}`), []string{"bad name"}); err == nil {
		t.Error("a catalogue entry that is not a tool name was accepted")
	}
}

func TestCommandUnits(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		known bool
		units []string
	}{
		{"git status", true, []string{"git status"}},
		{"git  status ", true, []string{"git status"}},
		{`"git" 'status'`, true, []string{"git status"}},
		{"git status && go test ./... || true; ls | wc -l", true, []string{"git status", "go test ./...", "true", "ls", "wc -l"}},
		{"a\nb", true, []string{"a", "b"}},
		{"go test 2>&1 >/dev/null", true, []string{"go test"}},
		{"FOO=1 go test", true, []string{"FOO=1 go test"}},
		{`echo a\ b`, true, []string{"echo a b"}},
		{"go test $(cat x)", false, nil},
		{"go test `cat x`", false, nil},
		{"diff <(ls a) <(ls b)", false, nil},
		{"echo $HOME", false, nil},
		{"echo $'\\x41'", false, nil},
		{"ls *.go", false, nil},
		{"{git,status}", false, nil},
		{"(cd x && ls)", false, nil},
		{"if true; then ls; fi", false, nil},
		{"go test > out.txt", false, nil},
		{"cat < secret", false, nil},
		{"f() { ls; }", false, nil},
		{"echo 'unterminated", false, nil},
		{"", false, nil},
	} {
		c := &call{}
		c.readCommand(tc.cmd)
		if c.known != tc.known || tc.known && !slices.Equal(c.units, tc.units) {
			t.Errorf("%q: known %v units %q (why %q), want %v %q", tc.cmd, c.known, c.units, c.why, tc.known, tc.units)
		}
		if !c.known && c.why == "" {
			t.Errorf("%q: not known and no reason why", tc.cmd)
		}
	}
}

func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		pat, text string
		want      bool
	}{
		{"git push *", "git push origin", true},
		{"git push *", "git push", true},
		{"git push *", "git pushx", false},
		{"git push:*", "git push -f", true},
		{"git push:*", "git pushx", false},
		{"git*", "gitk", true},
		{"git status", "git status -s", false},
	} {
		p := compileCommand(tc.pat)
		if got := p.match(tc.text); got != tc.want {
			t.Errorf("command %q ~ %q = %v", tc.pat, tc.text, got)
		}
	}
	for _, tc := range []struct {
		pat, path, project string
		want               bool
	}{
		{"src/**", "/repo/src/a/b.go", "/repo", true},
		{"src/**", "/repo/src", "/repo", true},
		{"src/*", "/repo/src/a/b.go", "/repo", false},
		{"src/*.go", "/repo/src/a.go", "/repo", true},
		{"src/**/*.go", "/repo/src/a/b/c.go", "/repo", true},
		{"src/**", "/other/src/a", "/repo", false},
		{"src/**", "/repo/src/a", "", false},
		{"/etc/**", "/etc/passwd", "", true},
		{"**/**/**/**/x", "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/y", "", false},
	} {
		pp, err := compilePath(tc.pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := pp.match(tc.path, true, tc.project); got != tc.want {
			t.Errorf("path %q ~ %q (project %q) = %v", tc.pat, tc.path, tc.project, got)
		}
	}
	for _, tc := range []struct {
		host string
		want bool
	}{{"example.com", true}, {"docs.example.com", true}, {"notexample.com", false}, {"example.com.evil", false}} {
		if got := domainMatch("example.com", tc.host); got != tc.want {
			t.Errorf("domain:example.com ~ %q = %v", tc.host, got)
		}
	}
}

func TestCallReading(t *testing.T) {
	c := newCall(gemini0610.spec("web_fetch"), json.RawMessage(`{"prompt":"read https://Docs.Example.com/a and http://x.org:8080/b."}`), "/repo")
	if !c.known || !slices.Equal(c.units, []string{"docs.example.com", "x.org"}) {
		t.Errorf("urls: %v %q %s", c.known, c.units, c.why)
	}
	c = newCall(gemini0610.spec("web_fetch"), json.RawMessage(`{"prompt":"summarize this"}`), "/repo")
	if c.known {
		t.Error("a prompt with no URL is known")
	}
	c = newCall(codex0169.spec("apply_patch"), json.RawMessage(`"*** Begin Patch\n*** Update File: a.go\n*** Move to: ../b.go\n*** End Patch"`), "/repo/x")
	if !c.known || !slices.Equal(c.units, []string{"/repo/x/a.go", "/repo/b.go"}) {
		t.Errorf("patch: %v %q", c.known, c.units)
	}
	c = newCall(gemini0610.spec("glob"), json.RawMessage(`{"pattern":"*.go"}`), "/repo")
	if !c.known || !slices.Equal(c.units, []string{"/repo"}) {
		t.Errorf("glob default dir: %v %q", c.known, c.units)
	}
	c = newCall(gemini0610.spec("read_file"), json.RawMessage(`{"file_path":"a.go"}`), "")
	if c.known || c.abs {
		t.Error("a relative path without a project is known")
	}
}

// TestQwenTable: qwen@0.24.4 reads the arguments its recorded payloads
// carry (tests/agentcli/testdata/qwen-code/payloads: run_shell_command's
// command, read_file's file_path) and the bundle's schemas (glob's and
// grep_search's optional path, web_fetch's url); agent is its spawn tool.
func TestQwenTable(t *testing.T) {
	q := tableOf("qwen@0.24.4")
	if q == nil || q.spawn != "agent" || !q.has("agent") {
		t.Fatalf("qwen@0.24.4: %+v", q)
	}
	for _, tc := range []struct {
		tool, input string
		want        []string
	}{
		{"run_shell_command", `{"command":"git status","description":"status"}`, []string{"git status"}},
		{"read_file", `{"file_path":"/repo/notes.txt"}`, []string{"/repo/notes.txt"}},
		{"write_file", `{"file_path":"src/a.go","content":"x"}`, []string{"/repo/src/a.go"}},
		{"edit", `{"file_path":"a.go","old_string":"a","new_string":"b"}`, []string{"/repo/a.go"}},
		{"list_directory", `{"path":"/repo/src"}`, []string{"/repo/src"}},
		{"glob", `{"pattern":"*.go"}`, []string{"/repo"}},
		{"grep_search", `{"pattern":"x","path":"sub"}`, []string{"/repo/sub"}},
		{"web_fetch", `{"url":"https://Go.dev/doc","prompt":"summarize"}`, []string{"go.dev"}},
	} {
		c := newCall(q.spec(tc.tool), json.RawMessage(tc.input), "/repo")
		if !c.known || !slices.Equal(c.units, tc.want) {
			t.Errorf("%s %s: known %v units %q (%s), want %q", tc.tool, tc.input, c.known, c.units, c.why, tc.want)
		}
	}
	if s := q.spec("agent"); s.kind != kindNone {
		t.Errorf("agent reads %s", s.kind)
	}
}

const decideDoc = `{
  "runtime": "codex@0.169.0",
  "permissions": {"allow": ["Bash(git status)", "Bash(go test *)", "view_image(src/**)", "spawn_agent"], "ask": ["Bash(git commit *)"], "deny": ["Bash(git push *)"]},
  "agents": {
    "main": {"permissions": {"deny": ["web_search"]}},
    "default": {"permissions": {"allow": ["Bash(go test *)", "view_image", "spawn_agent"], "ask": ["view_image(src/secret/**)"]}}
  },
  "subagents": {"maxDepth": 2, "allowAgents": ["default"]}
}`

var decideCat = []string{"Bash", "apply_patch", "view_image", "spawn_agent", "web_search"}

func TestDecideOrderAndReasons(t *testing.T) {
	w := newWorld(t, decideDoc, decideCat, events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "allow", Rule: "Bash(make *)"})
	if err := w.spawn(t, "c1", "root", "default"); err != nil {
		t.Fatal(err)
	}
	if err := w.spawn(t, "c2", "c1", "default"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s      events.SessionKey
		tool   string
		input  any
		dec    envelope.Decision
		code   string
		rule   string
		record uint64
	}{
		{"root", "nope", nil, envelope.Deny, codeCatalogueUnknown, "", 1},
		{"root", "Bash", "git status", envelope.Allow, codePermissionAllow, `permissions.allow: "Bash(git status)"`, 1},
		{"root", "Bash", "make all", envelope.Allow, codePermissionAllow, `permissions.allow: "Bash(make *)"`, 5},
		{"root", "Bash", "git status && make all", envelope.Allow, codePermissionAllow, `permissions.allow: "Bash(git status)"; permissions.allow: "Bash(make *)"`, 5},
		{"root", "Bash", "git push", envelope.Deny, codePermissionDeny, `permissions.deny: "Bash(git push *)"`, 1},
		{"root", "Bash", "git commit -m x && git push", envelope.Deny, codePermissionDeny, `permissions.deny: "Bash(git push *)"`, 1},
		{"root", "Bash", "git commit -m x", envelope.Ask, codePermissionAsk, `permissions.ask: "Bash(git commit *)"`, 1},
		{"root", "Bash", "rm x", envelope.Deny, codeDefaultDeny, `default (unset): "deny"`, 1},
		{"root", "web_search", nil, envelope.Deny, codeDefaultDeny, `default (unset): "deny"`, 1},
		{"root", "view_image", map[string]string{"path": "src/a.png"}, envelope.Allow, codePermissionAllow, `permissions.allow: "view_image(src/**)"`, 1},
		{"c1", "Bash", "git status", envelope.Deny, codeAgentNotAllowed, "agents.default.permissions.allow: no rule allows the call", 1},
		{"c1", "Bash", "go test ./...", envelope.Allow, codePermissionAllow, `permissions.allow: "Bash(go test *)"`, 1},
		{"c1", "view_image", map[string]string{"path": "/repo/src/secret/k.png"}, envelope.Ask, codeAgentAsk, `agents.default.permissions.ask: "view_image(src/secret/**)"`, 1},
		{"c1", "web_search", nil, envelope.Deny, codeCeiling, "inherited_allow: the parent's tool set at the spawn", 20},
		{"c2", "web_search", nil, envelope.Deny, codeCeiling, "inherited_allow: the parent's tool set at the spawn", 20},
	} {
		v := w.decide(tc.s, tc.tool, tc.input)
		rec := uint64(0)
		if v.Reason.Record != nil {
			rec = v.Reason.Record.Seq
		}
		if v.Decision != tc.dec || v.Reason.Code != tc.code || v.Reason.Rule != tc.rule || rec != tc.record {
			t.Errorf("%s %s %v: got %s %s %q @%d, want %s %s %q @%d", tc.s, tc.tool, tc.input, v.Decision, v.Reason.Code, v.Reason.Rule, rec, tc.dec, tc.code, tc.rule, tc.record)
		}
		decided := 0
		for _, st := range v.Trace {
			if st.Outcome == envelope.Decided {
				decided++
			}
		}
		if decided != 1 {
			t.Errorf("%s %s %v: %d decided steps in %+v", tc.s, tc.tool, tc.input, decided, v.Trace)
		}
	}
	// The child's ceiling is the root's tool set: Bash, view_image and
	// spawn_agent (web_search is denied to main, apply_patch by default).
	if got := w.sessions["c1"].Envelope.InheritedAllow; !slices.Equal(got, []string{"Bash", "spawn_agent", "view_image"}) {
		t.Errorf("ceiling %q", got)
	}
	// The second child's is the first's tool set: the default layer's
	// allow list names Bash, view_image and spawn_agent.
	if got := w.sessions["c2"].Envelope.InheritedAllow; !slices.Equal(got, []string{"Bash", "spawn_agent", "view_image"}) {
		t.Errorf("ceiling %q", got)
	}
}

func TestSpawnAdmission(t *testing.T) {
	w := newWorld(t, decideDoc, decideCat)
	var e *events.Error
	if err := w.spawn(t, "x", "root", "explorer"); !errors.As(err, &e) || e.Code != events.CodeAgentNotAllowed {
		t.Errorf("allowAgents: %v", err)
	}
	if err := w.spawn(t, "c1", "root", "default"); err != nil {
		t.Fatal(err)
	}
	if err := w.spawn(t, "c2", "c1", "default"); err != nil {
		t.Fatal(err)
	}
	if err := w.spawn(t, "c3", "c2", "default"); !errors.As(err, &e) || e.Code != events.CodeDepthLimit {
		t.Errorf("depth: %v", err)
	}
	w = newWorld(t, `{"runtime":"codex@0.169.0","permissions":{"allow":["spawn_agent"]},"agents":{"main":{"permissions":{"deny":["spawn_agent"]}}}}`, decideCat)
	if err := w.spawn(t, "c1", "root", "default"); !errors.As(err, &e) || e.Code != events.CodeAgentNotAllowed {
		t.Errorf("spawn tool denied: %v", err)
	}
	w = newWorld(t, `{"runtime":"codex@0.169.0","default":"allow","subagents":{"maxDepth":0}}`, decideCat)
	if err := w.spawn(t, "c1", "root", "default"); !errors.As(err, &e) || e.Code != events.CodeDepthLimit {
		t.Errorf("maxDepth 0: %v", err)
	}
	if _, err := New().Start(w, "r2", &events.StartedData{Agent: "explorer"}); !errors.As(err, &e) || e.Code != events.CodeAgentNotConfigured {
		t.Errorf("root of an unconfigured type: %v", err)
	}
}

func TestToolSet(t *testing.T) {
	w := newWorld(t, decideDoc, decideCat)
	got := New().Tools(w, w.sessions["root"])
	want := envelope.ToolSet{Allowed: []string{"Bash", "view_image", "spawn_agent"}, Denied: []envelope.Denial{
		{Tool: "apply_patch", Reason: envelope.Reason{Code: codeDefaultDeny, Rule: `default (unset): "deny"`, Record: &w.p.Revision}},
		{Tool: "web_search", Reason: envelope.Reason{Code: codeDefaultDeny, Rule: `default (unset): "deny"`, Record: &w.p.Revision}},
	}}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Errorf("tool set\n got %s\nwant %s", a, b)
	}
}

// TestDeterministic: the same call decided twice, and by two worlds built
// alike, gives byte-identical verdicts and tool sets.
func TestDeterministic(t *testing.T) {
	enc := func() []byte {
		w := newWorld(t, decideDoc, decideCat, events.GrantData{Kind: events.GrantPermission, Agent: "default", Target: "*", Behavior: "deny", Rule: "Bash(go test ./x)"})
		if err := w.spawn(t, "c1", "root", "default"); err != nil {
			t.Fatal(err)
		}
		var out []byte
		for _, k := range []events.SessionKey{"root", "c1"} {
			for _, in := range []string{"git status && go test ./x", "go test $(x)", "git push"} {
				b, _ := json.Marshal(w.decide(k, "Bash", in))
				out = append(out, b...)
			}
			b, _ := json.Marshal(New().Tools(w, w.sessions[k]))
			out = append(out, b...)
			b, _ = json.Marshal(w.sessions[k].Envelope)
			out = append(out, b...)
		}
		return out
	}
	a, b := enc(), enc()
	if !bytes.Equal(a, b) {
		t.Fatalf("two runs differ:\n%s\n%s", a, b)
	}
}

func TestCatalogueAndRuntimes(t *testing.T) {
	if got := Runtimes(); !slices.Equal(got, []string{"codex@0.169.0", "gemini@0.61.0", "qwen@0.24.4"}) {
		t.Errorf("runtimes %q", got)
	}
	for _, rt := range []string{"codex", "codex@0.169.0", "gemini", "gemini@0.61.0", "qwen", "qwen@0.24.4"} {
		cat, ok := Catalogue(rt)
		if !ok || !slices.IsSorted(cat) || len(cat) < 10 {
			t.Errorf("%s: %v %q", rt, ok, cat)
		}
	}
	if _, ok := Catalogue("claude"); ok {
		t.Error("a runtime without a table has a catalogue")
	}
}

func TestGrantChecks(t *testing.T) {
	for _, g := range []events.GrantData{
		{Kind: events.GrantDelegateTools, Agent: "*", Target: "*", Tools: []string{"Bash"}},
		{Kind: events.GrantPermission, Agent: "*", Target: "x", Behavior: "allow", Rule: "Bash"},
		{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "maybe", Rule: "Bash"},
		{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "allow", Rule: "Nope"},
		{Kind: events.GrantPermission, Agent: "a b", Target: "*", Behavior: "allow", Rule: "Bash"},
	} {
		if err := New().CheckEvent(nil, &g); err == nil {
			t.Errorf("%+v accepted", g)
		}
	}
	ok := events.GrantData{Kind: events.GrantPermission, Agent: "default", Target: "*", Behavior: "allow", Rule: "read_file(src/**)"}
	if err := New().CheckEvent(nil, &ok); err != nil {
		t.Errorf("a gemini rule refused: %v", err)
	}
}

// TestDocExamples: every JSON document of docs/dialects/ledger.md compiles.
func TestDocExamples(t *testing.T) {
	b, err := os.ReadFile("../../docs/dialects/ledger.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "```json\n")
	if len(parts) < 4 {
		t.Fatalf("%d examples", len(parts)-1)
	}
	for _, p := range parts[1:] {
		doc := p[:strings.Index(p, "```")]
		if _, err := New().Compile(json.RawMessage(doc), nil); err != nil {
			t.Errorf("%v\n%s", err, doc)
		}
	}
}
