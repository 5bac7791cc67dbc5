package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

var decideCatalogue = []string{"Read", "Grep", "Glob", "LSP", "Edit", "Write", "MultiEdit", "NotebookEdit", "Bash",
	"Monitor", "PowerShell", "WebFetch", "WebSearch", "Agent", "Skill", "TodoWrite", "AskUserQuestion",
	"EndConversation", "ExitPlanMode", "mcp__github__get_issue"}

type call1 struct {
	tool   string
	input  any
	want   envelope.Decision
	reason string
}

func runCalls(t *testing.T, doc, mode string, calls []call1) {
	t.Helper()
	w := newWorld(t, doc, decideCatalogue...)
	w.start(t, "lead", events.StartedData{Agent: "main", Mode: mode})
	for _, c := range calls {
		v := w.decide("lead", c.tool, c.input)
		if v.Decision != c.want || v.Reason.Code != c.reason {
			in, _ := json.Marshal(c.input)
			t.Errorf("[%s] %s %s = %s (%s), want %s (%s)", mode, c.tool, in, v.Decision, v.Reason.Code, c.want, c.reason)
		}
		if v.Reason.Code == "" {
			t.Errorf("%s: %s without a reason code (issue 15: every decision carries one)", c.tool, v.Decision)
		}
		if len(v.Trace) != int(numLayers)+numSteps {
			t.Errorf("%s: trace has %d steps", c.tool, len(v.Trace))
		}
	}
}

const (
	allow = envelope.Allow
	ask   = envelope.Ask
	deny  = envelope.Deny
)

func TestDecideDefaultMode(t *testing.T) {
	runCalls(t, `{"permissions": {"additionalDirectories": ["/data"]}}`, "", []call1{
		{"Read", "src/a.go", allow, codeDefaultReadOnly},
		{"Read", nil, allow, codeDefaultReadOnly},
		{"Read", map[string]any{"file_path": "/data/x"}, allow, codeDefaultReadOnly},
		{"Read", "/etc/passwd", ask, codeDefaultPrompt},
		{"Read", "../x", ask, codeDefaultPrompt},
		{"Read", "~/.ssh/id_rsa", ask, codeDefaultPrompt},
		{"Grep", map[string]any{"pattern": "x", "path": "/etc"}, ask, codeDefaultPrompt},
		{"Glob", map[string]any{"pattern": "**/*.go"}, allow, codeDefaultReadOnly},
		{"LSP", "src/a.go", allow, codeDefaultReadOnly},
		{"Edit", "src/a.go", ask, codeDefaultPrompt},
		{"Edit", ".git/config", ask, codeProtectedPath},
		{"NotebookEdit", map[string]any{"notebook_path": ".vscode/x.ipynb"}, ask, codeProtectedPath},
		{"Write", nil, ask, codeDefaultPrompt},
		{"Bash", "ls -la", allow, codeDefaultReadOnly},
		{"Bash", "npm test", ask, codeDefaultPrompt},
		{"Bash", nil, ask, codeDefaultPrompt},
		{"Bash", "", ask, codeDefaultPrompt},
		{"Bash", "rm -rf /", ask, codeCriticalPath},
		// Monitor's commands follow the read-only list (CLI:
		// TestDifferential/i25-monitor, Monitor "ls" and "cat a.txt" run).
		{"Monitor", "ls", allow, codeDefaultReadOnly},
		{"PowerShell", "Get-ChildItem", ask, codeDefaultPrompt},
		{"WebFetch", "https://example.com", ask, codeDefaultPrompt},
		{"WebSearch", "q", ask, codeDefaultPrompt},
		{"Agent", "Explore", allow, codeDefaultNoPermFree},
		{"Task", "Explore", allow, codeDefaultNoPermFree},
		{"TodoWrite", nil, allow, codeDefaultNoPermFree},
		{"AskUserQuestion", nil, ask, codeUserInteraction},
		{"EndConversation", nil, allow, codeDefaultNoPermFree},
		{"ExitPlanMode", nil, ask, codeDefaultPrompt},
		{"mcp__github__get_issue", nil, ask, codeDefaultPrompt},
		{"Skill", "deploy", ask, codeDefaultPrompt},
		{"get_weather", nil, deny, codeCatalogueUnknown},
	})
}

func TestDecideRules(t *testing.T) {
	doc := `{"permissions": {
		"allow": ["Bash(npm run test *)", "Bash(echo *)", "Edit(src/**)", "WebFetch(domain:*.example.com)", "mcp__github",
		          "Skill(deploy *)", "Agent(model:opus)", "Read(//etc/hosts)", "PowerShell(Get-Item *)", "Monitor(tail -f *)", "*"],
		"ask":   ["Bash(git push *)", "Edit(docs/**)", "Read(.env.*)", "Bash(timeout:*)"],
		"deny":  ["Bash(rm *)", "Read(secrets/**)", "Agent(Explore)", "Agent(model:opus)", "WebFetch(domain:evil.com)",
		          "Bash(curl:*)", "Skill(nuke)", "Bash(timeout:60)", "Agent(run_in_background:true)", "Monitor(cat *)"]}}`
	runCalls(t, doc, "default", []call1{
		// Bash: compound and nested commands.
		{"Bash", "npm run test", allow, codePermissionAllow},
		{"Bash", "timeout 30 npm run test -- --watch", allow, codePermissionAllow},
		{"Bash", "npm run test && curl x", deny, codePermissionDeny},
		{"Bash", "npm run test && make", ask, codeDefaultPrompt},
		{"Bash", "npm run test | grep ok", allow, codePermissionAllow},
		{"Bash", "ls && npm run test", allow, codeDefaultReadOnly},
		{"Bash", "echo $(rm -rf build)", deny, codePermissionDeny},
		{"Bash", "echo `rm x`", deny, codePermissionDeny},
		{"Bash", "FOO=1 rm -rf build", deny, codePermissionDeny},
		// Claude Code 2.1.328 sees through sudo, env, \rm and /bin/rm
		// (internal/claudecodetest TestDifferential/bypass-rm).
		{"Bash", "sudo rm -rf build", deny, codePermissionDeny},
		{"Bash", `\rm -rf build`, deny, codePermissionDeny},
		{"Bash", "/bin/rm -rf build", deny, codePermissionDeny},
		{"Bash", "env FOO=1 rm -rf build", deny, codePermissionDeny},
		{"Bash", "/usr/bin/env rm -rf build", deny, codePermissionDeny},
		// The command word as the shell reads it (not checked against the
		// CLI; stricter at worst: dialect section 0.2 row 22).
		{"Bash", `r\m -rf build`, deny, codePermissionDeny},
		{"Bash", `echo hi; r\m -rf build`, deny, codePermissionDeny},
		{"Bash", `"r"m -rf build`, deny, codePermissionDeny},
		{"Bash", `'rm' -rf build`, deny, codePermissionDeny},
		{"Bash", `echo "a; rm -rf x"`, deny, codePermissionDeny},
		{"Bash", "echo $(cat notes.txt)", ask, codeDefaultPrompt},
		{"Bash", "echo 'open", ask, codeDefaultPrompt},
		{"Bash", "FOO=1 echo hi", ask, codeDefaultPrompt},
		{"Bash", "git push origin main", ask, codePermissionAsk},
		{"Bash", "ls; git push", ask, codePermissionAsk},
		{"Bash", "git push", ask, codePermissionAsk},
		{"Bash", map[string]any{"command": "make", "timeout": 60}, deny, codePermissionDeny},
		{"Bash", map[string]any{"command": "make", "timeout": 30}, ask, codeDefaultPrompt}, // Bash(timeout:*) is a command prefix
		{"Bash", map[string]any{"command": "make"}, ask, codeDefaultPrompt},
		{"Bash", "rm -rf /", deny, codePermissionDeny},
		{"Monitor", "tail -f log", allow, codePermissionAllow},
		{"Monitor", "tail -f log && make", ask, codeDefaultPrompt},
		{"Monitor", "cat x", deny, codePermissionDeny},
		{"Monitor", "rm x", deny, codePermissionDeny}, // Bash(rm *) covers Monitor
		{"PowerShell", "Get-Item   x", allow, codePermissionAllow},
		// Paths and families.
		{"Edit", "src/a.go", allow, codePermissionAllow},
		{"Write", "src/new.go", allow, codePermissionAllow},
		{"MultiEdit", "src/a.go", allow, codePermissionAllow},
		{"NotebookEdit", map[string]any{"notebook_path": "src/n.ipynb"}, allow, codePermissionAllow},
		{"Read", "/etc/hosts", allow, codePermissionAllow},
		{"Read", "src/../../x", ask, codeDefaultPrompt},
		{"Edit", "docs/a.md", ask, codePermissionAsk},
		{"Read", "config/.env.local", ask, codePermissionAsk},
		{"Read", "a/secrets/key", deny, codePermissionDeny},
		{"Grep", map[string]any{"path": "secrets"}, deny, codePermissionDeny},
		{"Edit", "secrets/x", deny, codePermissionDeny},
		{"Write", "secrets/x", deny, codePermissionDeny},
		{"NotebookEdit", map[string]any{"notebook_path": "secrets/x"}, ask, codeDefaultPrompt},
		{"Edit", "src/.git/x", ask, codeProtectedPath},
		// WebFetch, MCP, Skill, Agent.
		{"WebFetch", "https://docs.example.com/x", allow, codePermissionAllow},
		{"WebFetch", "https://example.com/x", ask, codeDefaultPrompt},
		{"WebFetch", "https://evil.com/x", deny, codePermissionDeny},
		{"WebFetch", nil, ask, codeDefaultPrompt},
		{"mcp__github__get_issue", nil, allow, codePermissionAllow},
		{"WebSearch", nil, ask, codeDefaultPrompt}, // the unanchored allow "*" approves nothing
		{"Skill", "deploy prod", allow, codePermissionAllow},
		{"Skill", "nuke", deny, codePermissionDeny},
		{"Agent", "Explore", deny, codePermissionDeny},
		{"Agent", map[string]any{"subagent_type": "gp", "model": "opus"}, deny, codePermissionDeny},
		{"Agent", map[string]any{"subagent_type": "gp", "model": "claude-opus"}, allow, codeDefaultNoPermFree},
		{"Agent", map[string]any{"subagent_type": "gp", "run_in_background": true}, deny, codePermissionDeny},
		{"Agent", map[string]any{"subagent_type": "gp", "run_in_background": false}, allow, codeDefaultNoPermFree},
		{"Agent", map[string]any{"subagent_type": "gp", "model": nil}, allow, codeDefaultNoPermFree},
		{"Agent", nil, allow, codeDefaultNoPermFree},
	})
}

func TestDecideModes(t *testing.T) {
	doc := `{"permissions": {"allow": ["Edit", "Bash(npm test)"], "ask": ["Bash(git push *)"], "deny": ["Bash(curl *)"]}}`
	runCalls(t, doc, "acceptEdits", []call1{
		{"Edit", "src/a.ts", allow, codeModeAcceptEdits},
		{"Edit", nil, allow, codeModeAcceptEdits},
		{"Edit", "/etc/hosts", allow, codePermissionAllow},
		{"Edit", ".claude/settings.json", ask, codeProtectedPath},
		{"Bash", "mkdir build && touch build/x", allow, codeModeAcceptEdits},
		{"Bash", "mkdir /tmp/x", ask, codeDefaultPrompt},
		{"Bash", "npm test", allow, codePermissionAllow},
		{"Bash", "rm -rf .", ask, codeCriticalPath},
		{"Bash", "git push x", ask, codePermissionAsk},
	})
	runCalls(t, doc, "plan", []call1{
		{"Edit", "src/a.ts", ask, codeModePlan},
		{"Write", nil, ask, codeModePlan},
		// An allow rule runs the command in plain plan mode in Claude Code
		// 2.1.328 (issue 13's CLI runs; testdata/claude-code-cli).
		{"Bash", "npm test", allow, codePermissionAllow},
		{"Bash", "npm run build", ask, codeModePlan},
		{"Bash", "ls", allow, codeDefaultReadOnly},
		{"Bash", nil, ask, codeModePlan},
		{"Read", "src/a.ts", allow, codeDefaultReadOnly},
		// Monitor's commands follow the read-only list (CLI:
		// TestDifferential/i25-monitor, Monitor "ls" and "cat a.txt" run).
		{"Monitor", "ls", allow, codeDefaultReadOnly},
		{"Edit", ".git/x", ask, codeProtectedPath},
	})
	runCalls(t, doc, "bypassPermissions", []call1{
		{"Edit", ".git/config", allow, codeModeBypass},
		{"Bash", "anything at all", allow, codeModeBypass},
		{"Read", "/etc/passwd", allow, codeModeBypass},
		{"WebSearch", nil, allow, codeModeBypass},
		{"Bash", "rm -rf ~", ask, codeCriticalPath},
		{"Bash", "git push origin", ask, codePermissionAsk},
		{"Bash", "curl x", deny, codePermissionDeny},
		{"AskUserQuestion", nil, ask, codeUserInteraction},
	})
	runCalls(t, doc, "dontAsk", []call1{
		{"Edit", "src/a.ts", allow, codePermissionAllow},
		{"Bash", "npm test", allow, codePermissionAllow},
		{"Bash", "ls", allow, codeDefaultReadOnly},
		{"Bash", "make", deny, codeDontAsk},
		{"Bash", "git push x", deny, codeDontAsk},
		{"Bash", "rm -rf /", deny, codeDontAsk},
		{"AskUserQuestion", nil, deny, codeDontAsk},
		{"Agent", "Explore", allow, codeDefaultNoPermFree},
		{"Read", "/etc/x", deny, codeDontAsk},
	})
}

func TestDecideAgentTypeList(t *testing.T) {
	w := newWorld(t, `{"agents": {"d": {"description": "d", "tools": ["Agent(worker)", "Read"]},
		"any": {"description": "a", "tools": ["Agent(worker)", "Agent"]}, "worker": {"description": "w"}}}`, "Agent", "Read")
	w.start(t, "lead", events.StartedData{Agent: "d"})
	w.start(t, "lead2", events.StartedData{Agent: "any"})
	for _, c := range []struct {
		key, typ string
		want     envelope.Decision
		reason   string
	}{
		{"lead", "worker", allow, codeDefaultNoPermFree},
		{"lead", "Explore", deny, codeTypeNotListed},
		{"lead", "", allow, codeDefaultNoPermFree},
		{"lead2", "Explore", allow, codeDefaultNoPermFree},
	} {
		var in any
		if c.typ != "" {
			in = map[string]any{"subagent_type": c.typ}
		}
		v := w.decide(c.key, "Agent", in)
		if v.Decision != c.want || v.Reason.Code != c.reason {
			t.Errorf("%s Agent(%s) = %s %s", c.key, c.typ, v.Decision, v.Reason.Code)
		}
	}
	v := w.decide("lead", "Agent", "Explore")
	if v.Reason.Rule != `tools: ["Agent(worker)"]` || v.Reason.Record == nil || *v.Reason.Record != w.policy.Revision {
		t.Errorf("reason %+v", v.Reason)
	}
}

func TestDecideReasonProvenance(t *testing.T) {
	w := newWorld(t, `{"permissions": {"deny": ["Bash(rm *)"]}}`, "Bash", "Edit")
	rev := w.policy.Revision
	s := w.start(t, "lead", events.StartedData{Agent: "main", Mode: "dontAsk"})
	g := w.grant(t, "allow", "Bash(make *)")
	v := w.decide("lead", "Bash", "rm x")
	if v.Reason.Rule != `permissions.deny: "Bash(rm *)"` || *v.Reason.Record != rev {
		t.Errorf("deny: %+v", v.Reason)
	}
	v = w.decide("lead", "Bash", "make all")
	if v.Reason.Code != codePermissionAllow || v.Reason.Rule != `permissions.allow: "Bash(make *)"` || *v.Reason.Record != g {
		t.Errorf("grant: %+v", v.Reason)
	}
	v = w.decide("lead", "Edit", "a")
	if v.Reason.Code != codeDontAsk || v.Reason.Rule != `mode: "dontAsk"` || *v.Reason.Record != s.Origin {
		t.Errorf("dontAsk: %+v", v.Reason)
	}
	steps := map[string]envelope.Step{}
	for _, st := range v.Trace {
		steps[st.Layer] = st
	}
	if steps["defaults"].Outcome != envelope.Decided || steps["defaults"].Reason.Code != codeDefaultPrompt ||
		steps["dont_ask"].Outcome != envelope.Decided || steps["dont_ask"].Reason.Code != codeDontAsk {
		t.Errorf("trace: %+v", v.Trace)
	}
}

func TestDecideCompoundTrace(t *testing.T) {
	w := newWorld(t, `{"permissions": {"allow": ["Bash(npm test)"]}}`, "Bash")
	w.start(t, "lead", events.StartedData{Agent: "main"})
	v := w.decide("lead", "Bash", "npm test && make && ls")
	if v.Decision != ask || v.Reason.Code != codeDefaultPrompt {
		t.Fatalf("%+v", v)
	}
	var got []string
	for _, st := range v.Trace[numLayers:] {
		got = append(got, st.Layer+"="+string(st.Outcome))
		if st.Layer == "allow_rules" && !strings.Contains(st.Detail, `"npm test": allow (permission:allow)`) {
			t.Errorf("allow_rules detail %q", st.Detail)
		}
	}
	want := "agent_type=absent end_conversation=absent deny_rules=kept ask_rules=kept user_interaction=absent " +
		"critical_path=kept protected_path=absent mode=kept allow_rules=kept defaults=decided dont_ask=absent"
	if strings.Join(got, " ") != want {
		t.Errorf("trace\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestDecideInputForms(t *testing.T) {
	w := newWorld(t, `{"permissions": {"deny": ["Read(x)"]}}`, "Read")
	w.start(t, "lead", events.StartedData{Agent: "main"})
	for _, in := range []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`"x"`), json.RawMessage(`{"file_path": "x"}`),
		json.RawMessage(`{"file_path": 3}`), json.RawMessage(`{`), json.RawMessage(`[1]`), json.RawMessage(`""`)} {
		v := w.d.Decide(w, w.sessions["lead"], "Read", in)
		wantDeny := string(in) == `"x"` || string(in) == `{"file_path": "x"}`
		if (v.Decision == deny) != wantDeny {
			t.Errorf("input %s: %s %s", in, v.Decision, v.Reason.Code)
		}
	}
	if v := w.d.Decide(w, nil, "Read", nil); v.Decision != deny {
		t.Error("no session: deny")
	}
}

// TestCutParameters: a deny or ask parameter rule on a parameter the
// attach point left out as too long (CutKey) matches whatever its value,
// and on one it did not leave out matches as before.
func TestCutParameters(t *testing.T) {
	// The ask rule's value does not start with *: Claude Code 2.1.328
	// reads no parameter rule on Read, Edit or Write whose text holds ":*"
	// (TestDifferential/genparams-tools-*: Write(content:*key*) stops no
	// write), so this test's rule changed from Write(content:*TODO*).
	doc := `{"permissions": {"allow": ["Bash(echo *)", "Write"], "ask": ["Write(content:TODO*)"],
		"deny": ["Bash(description:*deploy*)", "mcp__github__get_issue(target:prod*)"]}}`
	runCalls(t, doc, "default", []call1{
		{"Bash", map[string]any{"command": "echo hi", "description": "ok"}, allow, codePermissionAllow},
		{"Bash", map[string]any{"command": "echo hi", "description": "deploy it"}, deny, codePermissionDeny},
		{"Bash", map[string]any{"command": "echo hi", CutKey: []string{"description"}}, deny, codePermissionDeny},
		{"Bash", map[string]any{"command": "echo hi", CutKey: []string{"other"}}, allow, codePermissionAllow},
		{"Write", map[string]any{"file_path": "a.txt", CutKey: []string{"content"}}, ask, codePermissionAsk},
		{"Write", map[string]any{"file_path": "a.txt", "content": "done"}, allow, codePermissionAllow},
		// MCP parameter rules stay ignored, as Claude Code 2.1.328 ignores
		// them (TestDifferential/i25-mcp-param-rules).
		{"mcp__github__get_issue", map[string]any{"target": "prod-1", CutKey: []string{"target"}}, ask, codeDefaultPrompt},
	})
}

// TestAssignmentPrefixes: what a command rule sees after assignments, as
// Claude Code 2.1.328 decides (TestDifferential/assign-prefix-*). Deny
// rules see through every assignment Bash runs a command after: appends
// (A+=x, A+=), subscripts (A[0]=x), subscripts holding blanks or a ;
// (A[ ]=y, A[x;y]=2), so none of them hides rm from Bash(rm:*). Allow
// rules see through LANG=, LC_ALL= and NO_COLOR= only: not LANG+=x or
// LANG[0]=C. A command of one plain assignment runs nothing and needs no
// approval, unless it changes how later commands run (PATH=/tmp).
func TestAssignmentPrefixes(t *testing.T) {
	doc := `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(touch:*)"]}}`
	rms := []string{"A+=x rm -rf y", "A+= rm -rf y", "A=x rm -rf y", "A[0]=x rm -rf y", "A[0]+=x rm -rf y",
		"A+=(x) rm -rf y", "A[ ]=y rm -rf y", "A[ x ]+=2 rm -rf y", "A[x;y]=2 rm -rf y", "A[$(echo 1)]=2 rm -rf y",
		`A+="a b" rm y`, "env A[0]=x rm y", "env a-b=x rm -rf y", "env A+=x rm y", "A+= sudo rm -rf y"}
	for _, mode := range []string{"", "bypassPermissions"} {
		var calls []call1
		for _, c := range rms {
			calls = append(calls, call1{"Bash", c, deny, codePermissionDeny})
		}
		touch, bare := call1{"Bash", "", ask, codeDefaultPrompt}, call1{"Bash", "", allow, codeDefaultReadOnly}
		if mode != "" {
			touch.want, touch.reason = allow, codeModeBypass
		}
		for _, c := range []string{"A+=x touch t", "LANG+=x touch t", "LC_ALL+=C touch t", "LANG[0]=C touch t"} {
			touch.input = c
			calls = append(calls, touch)
		}
		if mode == "" {
			calls = append(calls, call1{"Bash", "LANG=C touch t", allow, codePermissionAllow})
		}
		for _, c := range []string{"A+=", "A+=x", "A=x", `A="x y"`, "A=x; ls", "A=x && ls"} {
			bare.input = c
			if mode != "" {
				bare.want, bare.reason = allow, codeModeBypass
			}
			calls = append(calls, bare)
		}
		// An assignment of a subscript is not read-only. An assignment of
		// a substitution is decided as its command (row 85): under
		// Bash(touch:*) Claude Code 2.1.328 runs A=$(touch x) and
		// A=`touch x` (TestDifferential/genassign-rules-default; the
		// ask this list expected before is contradicted there).
		for _, c := range []string{"A=$(touch x)", "A=`touch x`"} {
			if mode == "" {
				calls = append(calls, call1{"Bash", c, allow, codePermissionAllow})
			} else {
				calls = append(calls, call1{"Bash", c, allow, codeModeBypass})
			}
		}
		for _, c := range []string{"A[0]=x", "A=x B+=y", "PATH=/tmp", "PATH=/tmp; ls",
			"ld_preload=x", "IFS=x", "LANG=C"} {
			x := call1{"Bash", c, ask, codeDefaultPrompt}
			if mode != "" {
				x.want, x.reason = allow, codeModeBypass
			}
			calls = append(calls, x)
		}
		runCalls(t, doc, mode, calls)
	}
}

// TestLaunchersAndReservedWords: deny rules see the command after the
// launchers and reserved words Claude Code 2.1.328 reads through (exec,
// setsid, ionice, watch; if, then, do, else, elif, while, until, !) and a
// >| redirection's target (TestDifferential/sh3-wrap-*, sh3-compound-*,
// sh3-redirect-*).
func TestLaunchersAndReservedWords(t *testing.T) {
	doc := `{"permissions": {"deny": ["Bash(rm:*)", "Edit(./locked/**)"], "allow": ["Bash(echo:*)"]}}`
	var calls []call1
	for _, c := range []string{"exec rm w", "exec -a x rm w", "setsid rm w", "setsid -f rm w", "ionice -c3 rm w",
		"ionice -c 3 rm w", "watch -n 1 -g rm w", "watch rm w", "if true; then rm k; fi", "if rm k; then :; fi",
		"for f in k; do rm $f; done", "! rm k", "while true; do rm k; done", "if false; then :; else rm k; fi",
		"if false; then :; elif rm k; then :; fi", "until rm k; do :; done"} {
		calls = append(calls, call1{"Bash", c, deny, codePermissionDeny})
	}
	calls = append(calls, call1{"Bash", cmdAt("echo x >| locked/r.txt"), deny, codePermissionDeny},
		call1{"Bash", cmdAt("echo x >| out.txt"), allow, codeModeBypass}, call1{"Bash", "if true; then echo rm; fi", allow, codeModeBypass})
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestVariableCommandWord: a command word that is a variable an
// assignment alone in the line sets is read as its value by deny rules
// (Claude Code 2.1.328 denies X=rm; $X f and X=rm && $X f under
// Bash(rm:*) and runs X=ls; $X f: TestDifferential/sh3-quote-*).
func TestVariableCommandWord(t *testing.T) {
	doc := `{"permissions": {"deny": ["Bash(rm:*)"]}}`
	var calls []call1
	for _, c := range []string{"X=rm; $X f", "X=rm && $X f", "X=rm; ${X} f", `X='rm'; "$X" f`, "X=rm; echo a; $X f",
		"X=rm; true && $X -rf f", `X="rm -rf"; $X f`, "X=sudo; $X rm f"} {
		calls = append(calls, call1{"Bash", c, deny, codePermissionDeny})
	}
	for _, c := range []string{"X=ls; $X f", "$X f", "X=rm ls; $X f", "X=rm; echo $X"} {
		calls = append(calls, call1{"Bash", c, allow, codeModeBypass})
	}
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestMoreLaunchers: the other launchers Claude Code 2.1.328 reads through
// in front of a denied command, and command -v, which runs nothing
// (TestDifferential/sh3-launchers-*).
func TestMoreLaunchers(t *testing.T) {
	doc := `{"permissions": {"deny": ["Bash(rm:*)"]}}`
	var calls []call1
	for _, c := range []string{"doas rm v", "doas -u root rm v", "chrt 1 rm v", "chrt -f 1 rm v", "taskset 1 rm v", "taskset -c 0 rm v",
		"flock /tmp/l rm v", "flock -w 5 /tmp/l rm v", "strace -o /dev/null rm v", "ltrace rm v", "env -S 'rm v'", `env -S "rm v"`,
		"command rm v", "command -p rm v"} {
		calls = append(calls, call1{"Bash", c, deny, codePermissionDeny})
	}
	for _, c := range []string{"command -v rm", "command -V rm", "command -pv rm"} {
		calls = append(calls, call1{"Bash", c, allow, codeModeBypass})
	}
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestFileToolsRound: the file tools' paths and WebFetch's hosts as Claude
// Code 2.1.328 reads them (TestDifferential/files-*): path rules match
// letters in either case and read [...] as a class, a bare Read deny rule
// refuses Write and Edit, an absolute Glob pattern is checked at its
// directory, and a host is read as the URL parser reads it.
func TestFileToolsRound(t *testing.T) {
	at := func(tool, key, v string) map[string]any {
		return map[string]any{key: v, PathsKey: map[string]any{"project": "/r/project", "home": "/r/home"}}
	}
	doc := `{"permissions": {"deny": ["Read(./secret/**)", "Edit(./locked/**)", "Read(./cls/[ab].txt)",
		"WebFetch(domain:127.0.0.1)", "WebFetch(domain:[::1])", "WebFetch(domain:evil.test)",
		"WebFetch(domain:xn--mnchen-3ya.test)", "WebFetch(domain:b\u00fccher.test)"]}}`
	calls := []call1{
		{"Read", at("Read", "file_path", "Secret/s.txt"), deny, codePermissionDeny},
		{"Read", at("Read", "file_path", "SECRET/s.txt"), deny, codePermissionDeny},
		{"Write", at("Write", "file_path", "Locked/n6.txt"), deny, codePermissionDeny},
		{"Read", at("Read", "file_path", "cls/a.txt"), deny, codePermissionDeny},
		{"Read", at("Read", "file_path", "cls/c.txt"), allow, codeModeBypass},
		{"Glob", at("Glob", "pattern", "/r/project/secret/*"), deny, codePermissionDeny},
		{"Glob", map[string]any{"pattern": "/r/project/secret/*", "path": "/r/project/sub",
			PathsKey: map[string]any{"project": "/r/project", "home": "/r/home"}}, deny, codePermissionDeny},
		{"Glob", at("Glob", "pattern", "/r/project/sub/*"), allow, codeModeBypass},
		{"Glob", at("Glob", "pattern", "secret/**"), allow, codeModeBypass},
		{"WebFetch", map[string]any{"url": "http://2130706433:9/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "http://0x7f.0.0.1:9/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "http://127.1:9/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "http://0177.0.0.1/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "http://[0:0:0:0:0:0:0:1]:9/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "https://evil%2etest/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "http://127.0.0.2/"}, allow, codeModeBypass},
		{"WebFetch", map[string]any{"url": "https://evil.test\\@example.com/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "https:evil.test/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "https://\uff45vil.test/"}, deny, codePermissionDeny},
		// Punycode after NFC: both URLs' host is xn--mnchen-3ya.test. A
		// host IDNA refuses (a joiner between letters) matches every deny
		// rule (section 0.3).
		{"WebFetch", map[string]any{"url": "https://m\u00fcnchen.test/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "https://mu\u0308nchen.test/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "https://ok\u200dhost.test/"}, deny, codePermissionDeny},
		{"WebFetch", map[string]any{"url": "https://\u0441\u0430\u0439\u0442.test/"}, allow, codeModeBypass},
		{"WebFetch", map[string]any{"url": "https://xn--bcher-kva.test/"}, allow, codeModeBypass},
		{"WebFetch", map[string]any{"url": "https://b\u00fccher.test/"}, allow, codeModeBypass},
	}
	runCalls(t, doc, "bypassPermissions", calls)
	home := func(tool, key, v string) map[string]any {
		return map[string]any{key: v, "pattern": "*", PathsKey: map[string]any{"project": "/r/project", "home": "/r/home"}}
	}
	runCalls(t, `{"permissions": {"allow": ["Read(~/**)"]}}`, "", []call1{
		{"Glob", home("Glob", "path", "~"), ask, codeDefaultPrompt},
		{"Glob", home("Glob", "path", "/r/home"), ask, codeDefaultPrompt},
		{"Read", at("Read", "file_path", "~/notes.txt"), allow, codePermissionAllow},
	})
	runCalls(t, `{"permissions": {"deny": ["Read"]}}`, "bypassPermissions", []call1{
		{"Write", at("Write", "file_path", "b1.txt"), deny, codePermissionDeny},
		{"Edit", at("Edit", "file_path", "e1.txt"), deny, codePermissionDeny},
		{"Bash", "ls", allow, codeModeBypass},
	})
}

// TestVariableCommandPaths: a command word an assignment in the line sets
// is read as its value by Read and Edit deny rules too: Claude Code
// 2.1.328 denies X=rm; $X locked/x1.txt under Edit(./locked/**) and
// X=cat; $X secret/s.txt under Read(./secret/**), in every mode
// (TestDifferential/agents-bash-*).
func TestVariableCommandPaths(t *testing.T) {
	at := func(cmd string) map[string]any {
		return map[string]any{"command": cmd, PathsKey: map[string]any{"project": "/r/project", "home": "/r/home"}}
	}
	doc := `{"permissions": {"deny": ["Read(./secret/**)", "Edit(./locked/**)"]}}`
	var calls []call1
	for _, c := range []string{"X=rm; $X locked/x1.txt", "X=rm && $X locked/x2.txt", "X=touch; $X locked/x3.txt",
		"X=cat; $X secret/s.txt", `X=rm; "$X" locked/x4.txt`, "X=rm; ${X} locked/x5.txt"} {
		calls = append(calls, call1{"Bash", at(c), deny, codePermissionDeny})
	}
	for _, c := range []string{"X=rm; $X free1.txt", "X=cat; $X a.txt", "$X locked/x6.txt"} {
		calls = append(calls, call1{"Bash", at(c), allow, codeModeBypass})
	}
	runCalls(t, doc, "bypassPermissions", calls)
}

// TestDecideAgentTypeCase: an Agent(type) rule or a main thread's type
// list names the subagent_type as written and the agent it launches,
// found by its folded name when no agent has exactly that name (Claude
// Code 2.1.328: TestDifferential/agents-type-case-*; agenttype.go).
func TestDecideAgentTypeCase(t *testing.T) {
	w := newWorld(t, `{"release": "2.1.328", "agents": {"worker": {"description": "w"}, "Other": {"description": "o"},
		"twin": {"description": "t"}, "Twin": {"description": "T"},
		"lead": {"description": "l", "tools": ["Agent(worker, Plan)", "Read"]}, "uplead": {"description": "u", "tools": ["Agent(Worker)"]}},
		"permissions": {"deny": ["Agent(Explore)", "Agent(Worker)", "Agent(plan)", "Agent(twin)"], "ask": ["Agent(Other)"]}}`, "Agent", "Read")
	w.start(t, "main", events.StartedData{Agent: "main"})
	w.start(t, "lead", events.StartedData{Agent: "lead"})
	w.start(t, "uplead", events.StartedData{Agent: "uplead"})
	for _, c := range []struct {
		key, typ string
		want     envelope.Decision
		reason   string
	}{
		// Deny rules: the type as written, or the agent it launches.
		{"main", "Explore", deny, codePermissionDeny},
		{"main", "explore", deny, codePermissionDeny},
		{"main", "EXPLORE", deny, codePermissionDeny},
		{"main", "e_x-p l\u2010ore", deny, codePermissionDeny},
		{"main", "\uff25xplore", deny, codePermissionDeny}, // NFKC: full-width E
		{"main", "Worker", deny, codePermissionDeny},       // written as the rule names it
		{"main", "worker", allow, codeDefaultNoPermFree},
		{"main", "WORKER", allow, codeDefaultNoPermFree},
		{"main", "plan", deny, codePermissionDeny},
		{"main", "Plan", allow, codeDefaultNoPermFree},
		{"main", "PLAN", allow, codeDefaultNoPermFree},
		{"main", "General_Purpose", allow, codeDefaultNoPermFree},
		{"main", "TWIN", allow, codeDefaultNoPermFree}, // twin and Twin: launches none
		{"main", "Twin", allow, codeDefaultNoPermFree},
		{"main", "twin", deny, codePermissionDeny},
		// Ask rules read the same.
		{"main", "other", ask, codePermissionAsk},
		{"main", "Other", ask, codePermissionAsk},
		// A main thread's type list: the type as written and the agent it
		// launches, both listed exactly.
		{"lead", "worker", allow, codeDefaultNoPermFree},
		{"lead", "Worker", deny, codeTypeNotListed},
		{"lead", "WORKER", deny, codeTypeNotListed},
		{"lead", "plan", deny, codeTypeNotListed},
		{"uplead", "Worker", deny, codeTypeNotListed},
		{"uplead", "worker", deny, codeTypeNotListed},
	} {
		v := w.decide(c.key, "Agent", map[string]any{"subagent_type": c.typ})
		if v.Decision != c.want || v.Reason.Code != c.reason {
			t.Errorf("%s Agent(%q) = %s %s, want %s %s", c.key, c.typ, v.Decision, v.Reason.Code, c.want, c.reason)
		}
	}
	// A revocation's Agent(type) rule reads the same.
	d := New()
	for typ, want := range map[string]bool{"explore": true, "Explore": true, "Plan": false, "worker": false} {
		if got := d.MatchRule(w.policy, "Agent(Explore)", "Agent", json.RawMessage(`{"subagent_type":"`+typ+`"}`), false); got != want {
			t.Errorf("revocation Agent(Explore) against %q = %v", typ, got)
		}
	}
}

func TestFoldAgentType(t *testing.T) {
	for in, want := range map[string]string{"General_Purpose": "generalpurpose", "statusline setup": "statuslinesetup",
		"EXPLORE": "explore", "\uff45xplore": "explore", "\u0130": "i\u0307", "a\u2014b\tc": "abc", "x.y": "x.y"} {
		if got := foldAgentType(in); got != want {
			t.Errorf("foldAgentType(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDecideThroughSymlinks: a call's path is also decided through the
// spellings the hook found through symbolic links (PathsKey "resolved",
// "link"): deny and ask rules on any, the working directories and allow
// rules on all, protected names on any, and no write through a path that
// is itself a link (Claude Code 2.1.328: TestDifferential/files-symlinks-*).
func TestDecideThroughSymlinks(t *testing.T) {
	doc := `{"permissions": {"deny": ["Read(./secret/**)", "Edit(./locked/**)", "Read(./rlink.txt)"],
		"ask": ["Read(./asked/**)"], "allow": ["Read(./free/**)", "Edit(./free/**)"]}}`
	in := func(path string, resolved []string, link bool) map[string]any {
		where := map[string]any{"project": "/p", "home": "/h"}
		if resolved != nil {
			where["resolved"] = resolved
		}
		if link {
			where["link"] = true
		}
		return map[string]any{"file_path": path, "content": "x", PathsKey: where}
	}
	for _, mode := range []string{"default", "acceptEdits", "bypassPermissions"} {
		byMode := func(d, a, b envelope.Decision) envelope.Decision {
			return map[string]envelope.Decision{"default": d, "acceptEdits": a, "bypassPermissions": b}[mode]
		}
		reason := func(d, a, b string) string {
			return map[string]string{"default": d, "acceptEdits": a, "bypassPermissions": b}[mode]
		}
		runCalls(t, doc, mode, []call1{
			// Deny and ask rules name the target.
			{"Read", in("/p/ls1.txt", []string{"/p/secret/s.txt"}, true), deny, codePermissionDeny},
			{"Read", in("/p/ldir/s.txt", []string{"/p/secret/s.txt"}, false), deny, codePermissionDeny},
			{"Read", in("/p/lchain.txt", []string{"/p/ls1.txt", "/p/secret/s.txt"}, true), deny, codePermissionDeny},
			{"Write", in("/p/lldir/w.txt", []string{"/p/locked/w.txt"}, false), deny, codePermissionDeny},
			{"Write", in("/p/ls1.txt", []string{"/p/secret/s.txt"}, true), deny, codePermissionDeny}, // Read deny covers writes
			{"Read", in("/p/la.txt", []string{"/p/asked/k.txt"}, true), ask, codePermissionAsk},
			// The reverse: a rule naming the link's path does not name its
			// target.
			{"Read", in("/p/free/f2.txt", nil, false), allow, reason(codePermissionAllow, codePermissionAllow, codeModeBypass)},
			{"Read", in("/p/rlink.txt", []string{"/p/free/f2.txt"}, true), deny, codePermissionDeny},
			// No write through a link.
			{"Write", in("/p/lfree.txt", []string{"/p/free/f2.txt"}, true), deny, codeSymlinkWrite},
			{"Edit", in("/p/lfree.txt", []string{"/p/free/f2.txt"}, true), deny, codeSymlinkWrite},
			// Working directories and allow rules: every spelling.
			{"Read", in("/p/lout.txt", []string{"/o/o.txt"}, true), byMode(ask, ask, allow),
				reason(codeDefaultPrompt, codeDefaultPrompt, codeModeBypass)},
			{"Read", in("/p/free/lo.txt", []string{"/o/o.txt"}, true), byMode(ask, ask, allow),
				reason(codeDefaultPrompt, codeDefaultPrompt, codeModeBypass)},
			{"Write", in("/p/lfd/n.txt", []string{"/p/free/n.txt"}, false), byMode(ask, allow, allow),
				reason(codeDefaultPrompt, codeModeAcceptEdits, codeModeBypass)},
			{"Write", in("/p/lod/n.txt", []string{"/o/n.txt"}, false), byMode(ask, ask, allow),
				reason(codeDefaultPrompt, codeDefaultPrompt, codeModeBypass)},
			{"Read", in("/p/lfd/f.txt", []string{"/p/free/f.txt"}, false), allow,
				reason(codeDefaultReadOnly, codeDefaultReadOnly, codeModeBypass)},
			// Protected names through a link.
			{"Write", in("/p/lg/x", []string{"/p/.git/x"}, false), byMode(ask, ask, allow),
				reason(codeProtectedPath, codeProtectedPath, codeModeBypass)},
			// Without "resolved" the path is decided as given.
			{"Read", in("/p/ls1.txt", nil, false), allow, reason(codeDefaultReadOnly, codeDefaultReadOnly, codeModeBypass)},
		})
	}
	if p, ok := CallPath("Read", json.RawMessage(`{"file_path":"a/../b.txt","ledger:paths":{"project":"/p"}}`)); !ok || p != "/p/b.txt" {
		t.Errorf("CallPath = %q %v", p, ok)
	}
	if _, ok := CallPath("Bash", json.RawMessage(`{"command":"cat x","ledger:paths":{"project":"/p"}}`)); ok {
		t.Errorf("CallPath of a Bash call")
	}
}
