package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

func TestCompileAccepts(t *testing.T) {
	for _, doc := range []string{
		`{}`,
		`{"agents": {}, "builtInAgents": true, "permissions": {}, "maxSubagentDepth": 1}`,
		// The example of section 3.1.
		`{"agents": {"coder": {"description": "writes code", "tools": ["Read", "Edit", "Bash", "Agent(tester)"],
		  "disallowedTools": ["mcp__github"], "permissionMode": "acceptEdits", "background": false, "model": "sonnet"}},
		  "builtInAgents": true,
		  "permissions": {"allow": ["Bash(npm test)"], "ask": ["Bash(git push *)"], "deny": ["Read(./.env)"],
		  "defaultMode": "default", "additionalDirectories": ["/data/shared"], "disableBypassPermissionsMode": "disable"},
		  "maxSubagentDepth": 3}`,
		`{"agents": {"a": {"description": "d", "tools": "Agent(worker, researcher), Read", "disallowedTools": "Bash"}}}`,
		`{"agents": {"a": {"description": "d", "name": "a", "prompt": 1, "skills": [], "hooks": {}, "mcpServers": null,
		  "maxTurns": 3, "isolation": "worktree", "effort": "high", "memory": "x", "color": "red", "initialPrompt": "go"}}}`,
		`{"agents": {"Explore": {"description": "mine", "tools": []}}}`,
		`{"agents": {"a": {"description": "d", "permissionMode": "manual"}}}`,
		`{"builtInAgents": false}`,
		`{"builtInAgents": ["Explore", "Plan"]}`,
		`{"builtInAgents": []}`,
		`{"permissions": {"deny": ["Stop Task", "*", "mcp__*", "Write(build/**)", "Agent(model:opus)"]}}`,
		`{"tools": ["Read", "Bash"]}`,
		`{"maxSubagentDepth": 100}`,
	} {
		if _, err := New().Compile(json.RawMessage(doc), []string{"Read"}); err != nil {
			t.Errorf("Compile(%s): %v", doc, err)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want string // a substring of the message: the path and what to fix
	}{
		{`[]`, "document: must be an object"},
		{`{"agent": {}}`, `unknown key "agent"`},
		{`{"permissions": {"allowed": []}}`, `document.permissions: unknown key "allowed"`},
		{`{"permissions": {"allow": "Bash"}}`, "document.permissions.allow: must be a list of strings"},
		{`{"permissions": {"allow": [null]}}`, "document.permissions.allow[0]: must be a string"},
		{`{"permissions": {"deny": ["Bash("]}}`, `document.permissions.deny[0]: rule "Bash(" does not parse`},
		{`{"permissions": {"ask": ["Bash()"]}}`, `document.permissions.ask[0]`},
		{`{"permissions": {"defaultMode": "auto"}}`, `mode "auto" is not supported`},
		{`{"permissions": {"defaultMode": "yolo"}}`, `unknown mode "yolo"`},
		{`{"permissions": {"additionalDirectories": [""]}}`, "additionalDirectories[0]: must be a non-empty path"},
		{`{"permissions": {"additionalDirectories": "/x"}}`, "additionalDirectories: must be a list"},
		{`{"permissions": {"disableBypassPermissionsMode": true}}`, `the only value is "disable"`},
		{`{"permissions": {"disableBypassPermissionsMode": "enable"}}`, `the only value is "disable"`},
		{`{"maxSubagentDepth": 0}`, "document.maxSubagentDepth: must be an integer of at least 1"},
		{`{"maxSubagentDepth": true}`, "maxSubagentDepth"},
		{`{"maxSubagentDepth": 2.0}`, "maxSubagentDepth"},
		{`{"maxSubagentDepth": 1e1}`, "maxSubagentDepth"},
		{`{"maxSubagentDepth": "3"}`, "maxSubagentDepth"},
		{`{"maxSubagentDepth": 99999999999999999999}`, "maxSubagentDepth"},
		{`{"builtInAgents": ["Ghost"]}`, `document.builtInAgents[0]: "Ghost" is not a built-in agent`},
		{`{"builtInAgents": "yes"}`, "document.builtInAgents: must be true, false or a list"},
		{`{"agents": []}`, "document.agents: must be an object"},
		{`{"agents": {"main": {"description": "x"}}}`, `agent name "main" is reserved`},
		{`{"agents": {"fork": {"description": "x"}}}`, `agent name "fork" is reserved`},
		{`{"agents": {"-bad": {"description": "x"}}}`, `agent name "-bad" is invalid`},
		{`{"agents": {"a": {}}}`, "document.agents.a: needs a description"},
		{`{"agents": {"a": {"description": ""}}}`, "document.agents.a.description: must not be empty"},
		{`{"agents": {"a": {"description": 3}}}`, "document.agents.a.description: must be a string"},
		{`{"agents": {"a": {"description": "d", "tools": 3}}}`, "document.agents.a.tools: must be a list of tool entries"},
		{`{"agents": {"a": {"description": "d", "tools": null}}}`, "document.agents.a.tools"},
		{`{"agents": {"a": {"description": "d", "tools": ["Bash("]}}}`, `document.agents.a.tools[0]: entry "Bash(" does not parse`},
		{`{"agents": {"a": {"description": "d", "tools": "Read, Bash("}}}`, `document.agents.a.tools[1]`},
		{`{"agents": {"a": {"description": "d", "disallowedTools": [""]}}}`, "document.agents.a.disallowedTools[0]"},
		{`{"agents": {"a": {"description": "d", "permissionMode": "auto"}}}`, "document.agents.a.permissionMode"},
		{`{"agents": {"a": {"description": "d", "background": "no"}}}`, "document.agents.a.background: must be true or false"},
		{`{"agents": {"a": {"description": "d", "model": 4}}}`, "document.agents.a.model: must be a string"},
		{`{"agents": {"a": {"description": "d", "name": "b"}}}`, `document.agents.a.name: "b" must equal the agent's key`},
		{`{"agents": {"a": {"description": "d", "color": "red", "colour": "red"}}}`, `document.agents.a: unknown key "colour"`},
		{`{"tools": ["Bad Name"]}`, `document.tools[0]: "Bad Name" is not a tool name`},
	} {
		_, err := New().Compile(json.RawMessage(c.doc), nil)
		if codeOf(err) != events.CodeInvalidPolicy || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%s) = %v, want invalid_policy containing %q", c.doc, err, c.want)
		}
	}
}

func TestCompileCatalogue(t *testing.T) {
	for _, c := range []struct {
		cat  []string
		want string
	}{
		{[]string{"Read", "Bash", "mcp__github__get_issue"}, ""},
		{[]string{}, ""},
		{[]string{"Read", "Read"}, `catalogue[1]: "Read" repeats catalogue[0]`},
		{[]string{"Agent", "Task"}, `catalogue[1]: "Task" repeats catalogue[0]`},
		{[]string{"mcp__github"}, "MCP name without a tool part"},
		{[]string{"mcp__github__"}, "MCP name without a tool part"},
		{[]string{"Stop Task"}, `catalogue[0]: "Stop Task" is not a tool name`},
		{[]string{strings.Repeat("x", 65)}, "is not a tool name"},
	} {
		_, err := New().Compile(json.RawMessage(`{}`), c.cat)
		if c.want == "" {
			if err != nil {
				t.Errorf("catalogue %q: %v", c.cat, err)
			}
			continue
		}
		if codeOf(err) != events.CodeInvalidPolicy || !strings.Contains(err.Error(), c.want) {
			t.Errorf("catalogue %q = %v, want %q", c.cat, err, c.want)
		}
	}
}

func TestCompiledDocument(t *testing.T) {
	raw, err := New().Compile(json.RawMessage(`{
		"agents": {"d": {"description": "x", "tools": "Agent(worker, researcher), Read, Agent(tester)"},
		           "w": {"description": "x", "tools": ["*", "Read"], "background": true},
		           "Explore": {"description": "mine", "tools": ["Read"]}},
		"builtInAgents": ["Plan", "Explore"],
		"permissions": {"deny": ["Bash(*)", "WebFetch(domain:*)", "Read(x)"]},
		"maxSubagentDepth": 2}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := raw.(*Compiled)
	if d := c.agent("d"); d.anyType || strings.Join(d.types, ",") != "worker,researcher,tester" || !d.limited() {
		t.Errorf("agent d: anyType %v types %q", d.anyType, d.types)
	}
	if w := c.agent("w"); !w.anyType || !w.wildcard || w.limited() || !w.background {
		t.Errorf("agent w: %+v", w)
	}
	if e := c.agent("Explore"); e.builtIn || len(e.tools) != 1 {
		t.Error("a configured Explore replaces the built-in")
	}
	if c.agent("Plan") == nil || !c.agent("Plan").builtIn || c.agent("general-purpose") != nil {
		t.Error("builtInAgents keeps only the listed built-ins")
	}
	if c.maxDepth != 2 {
		t.Errorf("maxDepth %d", c.maxDepth)
	}
	// WebFetch(domain:*) is a domain rule, not the bare rule: Claude Code
	// 2.1.328 keeps WebFetch in the pool under its deny and denies each
	// call (TestDifferential/gentools-domainstar-deny-*).
	if c.rules[bDeny][0].spec != "" || c.rules[bDeny][1].spec != "domain:*" || c.rules[bDeny][2].spec != "x" {
		t.Error("Bash(*) is bare, WebFetch(domain:*) a domain rule")
	}
}

func TestEffectiveGrants(t *testing.T) {
	w := newWorld(t, `{"permissions": {"allow": ["Bash(make)"], "deny": ["WebFetch"]}}`, "Bash", "WebFetch", "Read")
	w.grant(t, "allow", "Bash(make)") // already in the document: changes nothing
	g := w.grant(t, "deny", "Read")
	w.grant(t, "ask", "Bash(git push *)")
	e := w.policy.Effective.(*Effective)
	if len(e.rules[bAllow]) != 1 || len(e.rules[bDeny]) != 2 || len(e.rules[bAsk]) != 1 {
		t.Fatalf("rules %d %d %d", len(e.rules[bAllow]), len(e.rules[bAsk]), len(e.rules[bDeny]))
	}
	if e.rules[bDeny][1].rec != g || e.rules[bDeny][0].rec != w.policy.Revision {
		t.Error("each rule keeps the record that introduced it")
	}
	if len(e.bareDeny) != 2 {
		t.Error("bare deny list")
	}
	// A later policy.set keeps the grants.
	w.setPolicy(t, `{}`, nil)
	e = w.policy.Effective.(*Effective)
	if len(e.rules[bDeny]) != 1 || e.rules[bDeny][0].rec != g || len(e.rules[bAllow]) != 1 {
		t.Error("grants apply to the new document")
	}
	w.revoke(t, "deny", "Read")
	if e = w.policy.Effective.(*Effective); len(e.rules[bDeny]) != 0 {
		t.Error("revoked")
	}
	// A foreign compiled document is refused.
	if _, err := New().Effective(&envelope.PolicyState{Compiled: 3}); codeOf(err) != events.CodeInvalidPolicy {
		t.Errorf("foreign compiled: %v", err)
	}
}

func TestGrantIdentity(t *testing.T) {
	d := New()
	a := d.GrantIdentity(&events.GrantData{Kind: "permission", Behavior: "allow", Rule: "Bash(x)"})
	b := d.GrantIdentity(&events.GrantData{Kind: "permission", Behavior: "deny", Rule: "Bash(x)"})
	c := d.GrantIdentity(&events.GrantData{Kind: "permission", Behavior: "allow", Rule: "Bash( x)"})
	if a == b || a == c || a != d.GrantIdentity(&events.GrantData{Kind: "permission", Agent: "*", Target: "*", Behavior: "allow", Rule: "Bash(x)"}) {
		t.Error("identity is (behavior, exact rule)")
	}
}
