package claudecodetest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
)

// A round on how sub-agents get their tools: custom agents' tools and
// disallowedTools values the custom-agents, mcp and pools cases do not
// write (unknown names, duplicates, other case, blanks, '*' beside names,
// MCP server wildcards, rule specifiers, empty values, YAML lists)
// (matrixAgentTools, matrixAgentDisallowed); an agent's permissionMode
// under each session mode and the session's rules (matrixAgentModes);
// Agent(type) rules on spawns a sub-agent makes (matrixAgentNesting); and
// two Bash leftovers: pushd before a write or read, and a command word
// set by an assignment in front of a path command (matrixAgentBash).

// agProbes are the calls each agent of matrixAgentTools and
// matrixAgentDisallowed makes: a read, read-only and rule-matched
// commands, a write, and the MCP tools.
func agProbes(s string) [][]probe {
	return [][]probe{{rd("a.txt"), sh("ls"), sh("git status"), wr("w-" + s + ".txt"), {"mcp__srv__echo", map[string]any{"text": "a"}},
		{"mcp__srv__danger", map[string]any{"text": "b"}}, {"mcp__other__ping", map[string]any{}}, globP()}}
}

var agMCP = map[string][]string{"srv": {"echo", "danger"}, "other": {"ping"}}

// agCase is one case of agents, each spawned from the main thread with
// agProbes.
func agCase(name, group, mode string, settings Settings, agents []Agent) dcase {
	sessions := []session{root(nil)}
	for _, a := range agents {
		sessions = append(sessions, child(a.Name, a.Name, "main", agProbes(a.Name)))
	}
	return dcase{name: name, group: group, mode: mode, settings: settings, agents: agents, mcp: agMCP, sessions: sessions}
}

// matrixAgentTools: tools values of custom agents.
func matrixAgentTools() []dcase {
	return []dcase{agCase("agents-tools", "agents tools lists", "", Settings{}, []Agent{
		{Name: "t-unknown", Tools: "Read, Nope, Bash"},
		{Name: "t-dup", Tools: "Read, Read, Bash, Bash"},
		{Name: "t-case", Tools: "read, BASH, Write"},
		{Name: "t-blank", Tools: "Read, , Bash,"},
		{Name: "t-star-mix", Tools: "Read, *"},
		{Name: "t-mcp-star", Tools: "Read, mcp__srv__*"},
		{Name: "t-mcp-other", Tools: "Bash, mcp__other"},
		{Name: "t-spec", Tools: "Read, Bash(git:*)"},
		{Name: "t-empty", Tools: `""`},
		{Name: "t-list", Tools: "[Read, Bash]"},
		{Name: "t-emptylist", Tools: "[]"},
		{Name: "t-task-glob", Tools: "Glob, Task"},
	})}
}

// matrixAgentDisallowed: disallowedTools values, alone and with tools.
func matrixAgentDisallowed() []dcase {
	return []dcase{agCase("agents-disallowed", "agents disallowedTools", "", Settings{}, []Agent{
		{Name: "d-unknown", DisallowedTools: "Nope"},
		{Name: "d-case", DisallowedTools: "bash, write"},
		{Name: "d-mcp-star", DisallowedTools: "mcp__srv__*"},
		{Name: "d-mcp-tool", DisallowedTools: "mcp__srv__danger"},
		{Name: "d-spec", DisallowedTools: "Bash(git:*)"},
		{Name: "d-both", Tools: "Read, Bash, Write", DisallowedTools: "Write, Read"},
		{Name: "d-list", DisallowedTools: "[Bash, Write]"},
		{Name: "d-star", DisallowedTools: "*"},
		{Name: "d-glob-all", Tools: "*", DisallowedTools: "Glob"},
		{Name: "d-mcp-all", DisallowedTools: "mcp__*"},
	}), agCase("agents-disallowed-bash", "agents disallowedTools", "", Settings{}, []Agent{
		// What goes with Bash when an agent's disallowedTools removes it.
		{Name: "b-alone", DisallowedTools: "Bash"},
		{Name: "b-named", Tools: "Read, Grep, Glob, Bash", DisallowedTools: "Bash"},
		{Name: "b-star", Tools: "*", DisallowedTools: "Bash"},
		{Name: "b-monitor", DisallowedTools: "Monitor"},
		{Name: "b-with-monitor", Tools: "Read, Bash, Monitor, Grep", DisallowedTools: "Bash"},
		{Name: "b-grep-only", Tools: "Read, Grep", DisallowedTools: "Glob"},
		{Name: "b-no-bash", Tools: "Read, Grep, Glob", DisallowedTools: "Bash"},
		{Name: "b-lower", DisallowedTools: "bash"},
	})}
}

// matrixAgentModes: an agent's permissionMode under each session mode,
// with the session's deny, ask and allow rules.
func matrixAgentModes() []dcase {
	probes := func(s string) [][]probe {
		return [][]probe{{sh("rm -f gone-" + s + ".txt"), sh("git push origin main"), sh("make test"), sh("touch t-" + s + ".txt"),
			wr("w-" + s + ".txt"), rd("a.txt"), rd(".env"), wr("src/w-" + s + ".go")}}
	}
	agents := []Agent{{Name: "pm-default", PermissionMode: "default"}, {Name: "pm-accept", PermissionMode: "acceptEdits"},
		{Name: "pm-plan", PermissionMode: "plan"}, {Name: "pm-dontask", PermissionMode: "dontAsk"},
		{Name: "pm-bypass", PermissionMode: "bypassPermissions"}, {Name: "pm-none"}}
	var out []dcase
	for _, m := range []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"} {
		mode := cliMode(m)
		sessions := []session{root(nil)}
		for _, a := range agents {
			sessions = append(sessions, child(a.Name, a.Name, "main", probes(strings.TrimPrefix(a.Name, "pm-"))))
		}
		sessions = append(sessions, child("gp", "general-purpose", "main", probes("gp")))
		out = append(out, dcase{name: "agents-modes-" + m, group: "agents permissionMode", mode: mode,
			settings: Settings{Allow: []string{"Bash(make test)", "Edit(./src/**)"}, Ask: []string{"Bash(git push:*)"},
				Deny: []string{"Bash(rm:*)", "Read(./.env)"}},
			agents: agents, sessions: sessions})
	}
	return out
}

// matrixAgentNesting: spawns a sub-agent makes under Agent(type) rules,
// from a custom agent listing Agent, one listing Agent(Plan), one without
// Agent, and general-purpose.
func matrixAgentNesting() []dcase {
	spawn := func(typ, script string) probe {
		return probe{"Agent", map[string]any{"description": "probe " + script, "prompt": "script:" + script, "subagent_type": typ,
			"run_in_background": false}}
	}
	probes := func(s string) [][]probe {
		return [][]probe{{spawn("Explore", s+"x"), spawn("plain", s+"p"), spawn("Plan", s+"l"), spawn("general-purpose", s+"g")}}
	}
	var out []dcase
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "agents-nesting-" + m, group: "agents nesting", mode: mode,
			settings: Settings{Deny: []string{"Agent(Explore)"}, Ask: []string{"Agent(plain)"}, Allow: []string{"Agent(Plan)"}},
			agents: []Agent{{Name: "plain"}, {Name: "nester", Tools: "Agent, Read"}, {Name: "planonly", Tools: "Agent(Plan), Read"},
				{Name: "noagent", Tools: "Read, Bash"}},
			sessions: []session{root(nil), child("nester", "nester", "main", probes("n")),
				child("planonly", "planonly", "main", probes("o")), child("noagent", "noagent", "main", probes("a")),
				child("gp", "general-purpose", "main", probes("q")), child("plain", "plain", "main", probes("p"))}})
	}
	return out
}

// matrixAgentBash: pushd before a write and a read (is it counted as a
// cd for acceptEdits and for reads while a Read deny rule exists?), and a
// command word an assignment sets in front of a path under an Edit deny
// rule.
func matrixAgentBash() []dcase {
	probes := shs("pushd sub && touch p1.txt; popd", "pushd sub; touch p2.txt; popd", "pushd sub > /dev/null && cat s.txt; popd",
		"pushd sub && cat ../a.txt; popd", "pushd sub && cat ../secret/s.txt; popd", "pushd sub > /dev/null; rm p3.txt; popd",
		"X=rm; $X locked/x1.txt", "X=rm && $X locked/x2.txt", "X=touch; $X locked/x3.txt", "X=cat; $X secret/s.txt",
		"X=rm; $X free1.txt", "popd; touch p4.txt", "cd sub && popd && touch p5.txt")
	files := map[string]string{"secret/s.txt": "s\n", "sub/s.txt": "s\n", "sub/p3.txt": "p\n", "locked/x1.txt": "x\n",
		"locked/x2.txt": "x\n", "free1.txt": "f\n"}
	out := sh3Cases("agents-bash", "agents Bash leftovers", true,
		Settings{Deny: []string{"Read(./secret/**)", "Edit(./locked/**)"}}, files, probes)
	// pushd without popd (a popd in the line asks: "Multiple directory
	// changes"); the shell stays where pushd went, so a cd .. follows each.
	pushd := shs("pushd sub && touch p6.txt", "cd ..", "pushd sub; touch p7.txt", "cd ..", "pushd sub > /dev/null && cat s.txt", "cd ..",
		"pushd sub && cat ../secret/s.txt", "cd ..", "pushd locked && touch p8.txt", "cd ..", "pushd sub > /dev/null; ls", "cd ..",
		"cd sub && touch p9.txt", "cd ..")
	return append(out, sh3Cases("agents-pushd", "agents Bash leftovers", true,
		Settings{Deny: []string{"Read(./secret/**)", "Edit(./locked/**)"}}, files, pushd)...)
}

// matrixAgents is the round's cases.
func matrixAgents() []dcase {
	var out []dcase
	for _, f := range []func() []dcase{matrixAgentTools, matrixAgentDisallowed, matrixAgentModes, matrixAgentNesting, matrixAgentBash, matrixAgentFiles, matrixAgentType} {
		out = append(out, f()...)
	}
	return out
}

// frontValue is a raw front-matter value of tools or disallowedTools as
// the document holds it (what 'ledger policy import' writes): a YAML flow
// list ([a, b]) is a list, a quoted string its text, anything else the
// comma-separated string as written.
func frontValue(raw string) any {
	s := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		out := []string{}
		for _, e := range strings.Split(s[1:len(s)-1], ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
		return out
	case len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0]:
		return s[1 : len(s)-1]
	}
	return raw
}

// importAgents is the agents member of what 'ledger policy import' writes
// for the run's project with the run's user directory.
func importAgents(t *testing.T, res *Result) json.RawMessage {
	t.Helper()
	if a, ok := importDoc(t, res)["agents"]; ok {
		return a
	}
	return json.RawMessage(`{}`)
}

// importPermissions is the permissions 'ledger policy import' makes of a
// run's settings files (the user's, the project's and the local one), as
// the dialect's document holds them.
func importPermissions(t *testing.T, res *Result) json.RawMessage {
	t.Helper()
	if p, ok := importDoc(t, res)["permissions"]; ok {
		// The user's rules anchored at its directory name the run's
		// temporary directory, which the dialect reads as runBase.
		return bytes.ReplaceAll(p, []byte(res.base), []byte(runBase))
	}
	return json.RawMessage(`{}`)
}

// importDoc is the document 'ledger policy import' makes of a run's
// project and user directory, its warnings logged.
func importDoc(t *testing.T, res *Result) map[string]json.RawMessage {
	t.Helper()
	r, err := ccimport.ClaudeCode(res.Dir, ccimport.ClaudeCodeOptions{UserDir: filepath.Join(res.Home, ".claude")})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(r.Document, &doc); err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Warnings {
		t.Logf("import: %v", w)
	}
	return doc
}

// matrixAgentFiles: agent files the importer reads for the dialect: one
// name in the project and the user scope, a user-scope agent, malformed
// front matter, and tools as a YAML block list.
func matrixAgentFiles() []dcase {
	md := func(front string) string { return "---\n" + front + "---\nDo what the prompt says.\n" }
	files := map[string]string{
		".claude/agents/dup.md":           md("name: dup\ndescription: project dup\ntools: Read\n"),
		"../home/.claude/agents/dup.md":   md("name: dup\ndescription: user dup\ntools: Bash, Write\n"),
		"../home/.claude/agents/uonly.md": md("name: uonly\ndescription: user only\ntools: Read, Bash\n"),
		".claude/agents/bad1.md":          md("name: bad1\ndescription: [unclosed\ntools: Read\n"),
		".claude/agents/bad2.md":          "---\nname: bad2\ndescription: no end\ntools: Read\nDo it.\n",
		".claude/agents/bad3.md":          md("name: bad3\ntools: Read\n"),
		".claude/agents/block.md":         md("name: block\ndescription: block list\ntools:\n  - Read\n  - Bash\n"),
		".claude/agents/tabs.md":          md("name: tabs\ndescription: tab\ntools:\tRead,\tWrite\n"),
		".claude/agents/other-name.md":    md("name: renamed\ndescription: file name differs\ntools: Read\n"),
		".claude/agents/dupkey.md":        md("name: dupkey\ndescription: two tools keys\ntools: Read\ntools: Bash\n"),
		".claude/agents/nulltools.md":     md("name: nulltools\ndescription: tools null\ntools:\n"),
		"../home/.claude/agents/umode.md": md("name: umode\ndescription: user mode\npermissionMode: acceptEdits\n"),
		".claude/agents/numtools.md":      md("name: numtools\ndescription: tools a number\ntools: 5\n"),
		".claude/agents/disallow-list.md": md("name: disallow-list\ndescription: d\ndisallowedTools:\n  - Bash\n  - Write\n"),
		".claude/agents/spaced-name.md":   md("name: spaced name\ndescription: name with a blank\ntools: Read\n"),
		".claude/agents/upper.md":         md("name: Upper\ndescription: upper case name\ntools: Read\n"),
	}
	var sessions []session
	sessions = append(sessions, root(nil))
	for _, n := range []string{"dup", "uonly", "bad1", "bad2", "bad3", "block", "tabs", "renamed", "other-name", "dupkey", "nulltools",
		"umode", "numtools", "disallow-list", "spaced name", "Upper", "upper"} {
		script := strings.ReplaceAll(n, " ", "-") + "-s"
		turns := agProbes(script)
		if n == "spaced name" || n == "upper" {
			// A spawn the dialect refuses (testdata/deliberate.json), and
			// one naming Upper in another case: the spawn and pool alone
			// are compared.
			turns = nil
		}
		s := child(script, n, "main", turns)
		if n == "upper" {
			// The CLI launches Upper for "upper", and its hooks report
			// Upper (matrixAgentType).
			s.typ, s.asked = "Upper", "upper"
		}
		sessions = append(sessions, s)
	}
	return []dcase{{name: "agents-files", group: "agents files", imported: true, mcp: agMCP, files: files, sessions: sessions}}
}
