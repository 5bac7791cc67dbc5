package ccimport

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/importer"
)

const ccData = "testdata/importer-claude-code/"

// cliRecord is what the pinned Claude Code CLI offered for a fixture
// project (testdata/importer-claude-code/*.cli-2.1.328.json).
type cliRecord struct {
	Agents map[string]struct {
		Description string `json:"description"`
		Tools       string `json:"tools"`
	} `json:"agents"`
	Pools map[string][]string `json:"pools"`
}

func readCLIRecord(t *testing.T, name string) cliRecord {
	t.Helper()
	var rec cliRecord
	if err := json.Unmarshal(readFile(t, ccData+name), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// ccAgent is one agent of an imported document.
type ccAgent struct {
	Description     string   `json:"description"`
	Tools           []string `json:"tools"`
	DisallowedTools []string `json:"disallowedTools"`
	PermissionMode  string   `json:"permissionMode"`
	Background      *bool    `json:"background"`
	Model           string   `json:"model"`
}

func importedAgents(t *testing.T, r *importer.Result) map[string]ccAgent {
	t.Helper()
	var doc struct {
		Agents map[string]json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(r.Document, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]ccAgent{}
	for name, raw := range doc.Agents {
		var a ccAgent
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("agent %s: %v", name, err)
		}
		if a.Tools == nil && strings.Contains(string(raw), `"tools":[]`) {
			a.Tools = []string{}
		}
		out[name] = a
	}
	return out
}

// listedTools renders an agent's tools as Claude Code lists them in its
// system prompt (function OUs), so that an import can be compared with
// what the CLI offered.
func listedTools(tools, disallowed []string) string {
	switch {
	case len(tools) > 0 && len(disallowed) > 0:
		var left []string
		for _, t := range tools {
			if !slices.Contains(disallowed, t) {
				left = append(left, t)
			}
		}
		if len(left) == 0 {
			return "None"
		}
		return strings.Join(left, ", ")
	case len(tools) > 0:
		return strings.Join(tools, ", ")
	case len(disallowed) > 0:
		return "All tools except " + strings.Join(disallowed, ", ")
	}
	return "All tools"
}

// TestClaudeCodeLoadsWhatTheCLILoads imports the agents fixture, 55 files
// with every quirk of front matter seen in real projects, and compares the
// agents with what Claude Code 2.1.328 offered for the same folder
// (agents.cli-2.1.328.json, recorded from the CLI): the same names,
// descriptions and tools, except the agents the ledger's dialect cannot
// hold, each left out with a warning. Every file that defines no agent is
// named by a warning with its line and column.
func TestClaudeCodeLoadsWhatTheCLILoads(t *testing.T) {
	rec := readCLIRecord(t, "agents.cli-2.1.328.json")
	root := ccData + "agents"
	r, err := ClaudeCode(root, ClaudeCodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := importedAgents(t, r)
	var warnings []string
	for _, w := range r.Warnings {
		warnings = append(warnings, w.String())
	}
	all := strings.Join(warnings, "\n")

	// The agents the dialect cannot hold today; a dialect that learns to
	// hold one of them makes it imported, and compared, instead.
	gaps := []string{"code reviewer", "main", "auto-mode", "revisor-código", strings.Repeat("b", 256)}
	for name, want := range rec.Agents {
		a, ok := got[name]
		if !ok {
			if strings.Contains(all, "Claude Code loads agent "+jsonQuote(name)+", but the ledger cannot hold it") {
				if !slices.Contains(gaps, name) {
					t.Errorf("agent %q: left out for the dialect, which holds it", name)
				}
				continue
			}
			t.Errorf("agent %q: Claude Code loads it, the import does not", name)
			continue
		}
		if a.Description != want.Description {
			t.Errorf("agent %q: description %q, Claude Code %q", name, a.Description, want.Description)
		}
		if l := listedTools(a.Tools, a.DisallowedTools); l != want.Tools {
			t.Errorf("agent %q: tools listed %q, Claude Code %q", name, l, want.Tools)
		}
	}
	for name := range got {
		if _, ok := rec.Agents[name]; !ok {
			t.Errorf("agent %q imported, but Claude Code does not load it", name)
		}
	}

	// The CLI's list does not tell an empty tools list from none: the
	// sub-agents' own requests do.
	for name, pool := range rec.Pools {
		a := got[name]
		switch {
		case len(pool) == 0:
			if a.Tools == nil || len(a.Tools) != 0 {
				t.Errorf("agent %q: tools %q, want [] (Claude Code gave it no tools)", name, a.Tools)
			}
		case name == "disallow-star":
			if a.Tools != nil || a.DisallowedTools != nil {
				t.Errorf("agent %q: tools %q, disallowed %q, want neither (Claude Code gave it every tool)", name, a.Tools, a.DisallowedTools)
			}
		case name == "memory-keeper":
			tools := slices.Sorted(slices.Values(a.Tools))
			if !slices.Equal(tools, pool) {
				t.Errorf("agent %q: tools %q, Claude Code gave %q", name, tools, pool)
			}
		}
	}

	// Every file is an imported agent's or named by a warning.
	defined := map[string]bool{}
	for _, f := range r.Files() {
		defined[f] = true
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !defined[p] && !strings.Contains(all, p+":") {
			t.Errorf("%s: neither imported nor named by a warning", p)
		}
		return nil
	})
	for _, w := range r.Warnings {
		if strings.HasPrefix(w.Msg, "skipped:") && strings.HasSuffix(w.File, ".md") && (w.Line == 0 || w.Col == 0) {
			t.Errorf("skipped file without line and column: %s", w)
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), `\u0026`, "&")
}

// TestClaudeCodeSkips checks the warning of each file Claude Code does not
// load, as printed.
func TestClaudeCodeSkips(t *testing.T) {
	r, err := ClaudeCode(ccData+"agents", ClaudeCodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, w := range r.Warnings {
		if strings.HasPrefix(w.Msg, "skipped:") {
			got[filepath.ToSlash(strings.TrimPrefix(w.File, ccData+"agents/.claude/agents/"))] = strings.TrimPrefix(w.String(), w.File)
		}
	}
	want := map[string]string{
		"notes/README.md":        ":1:1: warning: skipped: no front matter: the first line must be '---' (Claude Code skips a file that does not start with it)",
		"open-long.md":           `:1:1: warning: skipped: no front matter: the first line must be '---' alone (Claude Code skips a file whose first line is "----")`,
		"leading-blank.md":       ":1:1: warning: skipped: no front matter: the first line must be '---' (Claude Code skips a file that does not start with it)",
		"unclosed.md":            ":1:1: warning: skipped: the front matter has no closing '---' (Claude Code skips the file)",
		"no-name.md":             ":2:1: warning: skipped: no name: Claude Code loads an agent only with a name: in its front matter (the file name does not count)",
		"numeric-name.md":        ":2:7: warning: skipped: name is a number (42): Claude Code loads an agent only when its name is a string (quote it)",
		"colon-name.md":          `:2:7: warning: skipped: name "review:quick" contains ':', which Claude Code reserves for plugin agents`,
		"fullwidth-colon.md":     `:2:7: warning: skipped: name "review：quick" contains ':', which Claude Code reserves for plugin agents`,
		"dash-name.md":           `:2:7: warning: skipped: name "-hidden" starts with '-', which Claude Code refuses`,
		"long-name.md":           ":2:7: warning: skipped: the name is 257 characters long; Claude Code refuses names over 256",
		"no-description.md":      ":2:1: warning: skipped: no description: Claude Code loads an agent only with a description",
		"empty-description.md":   ":3:14: warning: skipped: the description is empty: Claude Code loads an agent only with a description",
		"numeric-description.md": ":3:14: warning: skipped: description is a number (404): Claude Code loads an agent only when its description is a string (quote it)",
		"quoted-prefix.md":       ":3:14: warning: skipped: the front matter is not YAML Claude Code can read: did not find expected key (it also failed with the values quoted, as Claude Code retries): quote the value, or fix the line",
		"digit-key.md":           ":4:11: warning: skipped: the front matter is not YAML Claude Code can read: mapping values are not allowed in this context (it also failed with the values quoted, as Claude Code retries): quote the value, or fix the line",
		"crlf-colon.md":          ":3:14: warning: skipped: the front matter is not YAML Claude Code can read: mapping values are not allowed in this context (it also failed with the values quoted, as Claude Code retries): quote the value, or fix the line",
		"list-root.md":           ":2:1: warning: skipped: the front matter is a list: it must be a mapping of keys to values with at least name and description",
		"indented.md":            ":3:16: warning: skipped: the front matter is not YAML Claude Code can read: mapping values are not allowed in this context (it also failed with the values quoted, as Claude Code retries): quote the value, or fix the line",
		"top-level-hook.md":      ":4:1: warning: skipped: PreToolUse is written at the top of the front matter, outside hooks: Claude Code refuses to load such an agent; move it under hooks",
		"style.MD":               ": warning: skipped: only .md files define agents (Claude Code ignores this file)",
		"notes.txt":              ": warning: skipped: only .md files define agents (Claude Code ignores this file)",
		"team/code reviewer.md":  `:2:1: warning: skipped: Claude Code loads agent "code reviewer", but the ledger cannot hold it (sessions cannot spawn it under the ledger): agent name "code reviewer" is invalid: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit`,
		"i18n/revisor.md":        `:2:1: warning: skipped: Claude Code loads agent "revisor-código", but the ledger cannot hold it (sessions cannot spawn it under the ledger): agent name "revisor-código" is invalid: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit`,
		"main.md":                `:2:1: warning: skipped: Claude Code loads agent "main", but the ledger cannot hold it (sessions cannot spawn it under the ledger): agent name "main" is reserved; choose another name`,
		"auto-mode.md":           `:4:1: warning: skipped: Claude Code loads agent "auto-mode", but the ledger cannot hold it (sessions cannot spawn it under the ledger): agents.auto-mode.permissionMode: mode "auto" is not supported in the claude-code dialect; use one of default, manual, acceptEdits, plan, bypassPermissions, dontAsk`,
	}
	// Left out for the dialect only: a dialect that holds them imports them.
	dialectOnly := []string{"team/code reviewer.md", "i18n/revisor.md", "main.md", "auto-mode.md", "just-long-enough.md"}
	for file, w := range want {
		if _, ok := got[file]; !ok && slices.Contains(dialectOnly, file) {
			continue
		}
		if got[file] != w {
			t.Errorf("%s\n got %s\nwant %s", file, got[file], w)
		}
	}
	for file, w := range got {
		if _, ok := want[file]; !ok && file != "just-long-enough.md" {
			t.Errorf("%s skipped too: %s", file, w)
		}
	}
}

// writeTree lays out files (relative paths to contents) under a new
// temporary directory and returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// project lays out a .claude directory from relative paths and contents
// and returns the project root.
func project(t testing.TB, files map[string]string) string {
	t.Helper()
	dot := map[string]string{}
	for name, content := range files {
		dot[".claude/"+name] = content
	}
	return writeTree(t, dot)
}

// warningsOf prints the warnings with the project root cut from the file
// names.
func warningsOf(r *importer.Result, roots ...string) []string {
	var out []string
	for _, w := range r.Warnings {
		s := w.String()
		for _, root := range roots {
			s = strings.ReplaceAll(s, root+string(filepath.Separator), "")
		}
		out = append(out, s)
	}
	return out
}

func TestClaudeCodeShapes(t *testing.T) {
	fm := func(lines ...string) string { return "---\n" + strings.Join(lines, "\n") + "\n---\nbody\n" }
	tests := []struct {
		name     string
		files    map[string]string
		opt      ClaudeCodeOptions
		want     string
		warnings []string
	}{
		{"empty project", map[string]string{"settings.json": `{}`}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{}}`, nil},
		// CLI: "Read Grep  Bash(git diff *)" was three tools.
		{"tools split at commas and spaces outside parentheses",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools: Agent(x, y), Read,, Bash(git diff:*) Grep")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":["Agent(x, y)","Read","Bash(git diff:*)","Grep"]}}}`, nil},
		{"list entries are split too",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools: [Read Grep, 'Bash(npm test)']")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":["Read","Grep","Bash(npm test)"]}}}`, nil},
		{"empty list means no tools",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools: []")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":[]}}}`, nil},
		// CLI: the sub-agent of "tools:" had no tools at all.
		{"tools with no value means no tools",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools:")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":[]}}}`,
			[]string{".claude/agents/a.md:4:1: warning: tools has no value: Claude Code gives the agent no tools (write tools: [] to say so, or leave tools out for every tool)"}},
		// CLI: "tools: 5" and "tools: {a: 1}" gave no tools.
		{"tools of the wrong type means no tools",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools: {read: true}")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":[]}}}`,
			[]string{".claude/agents/a.md:4:1: warning: tools is a mapping: Claude Code gives the agent no tools (write tools: [] to say so, or leave tools out for every tool)"}},
		// CLI: "tools: *" (unquoted) and "tools: '*'" gave every tool.
		{"tools: * is every tool",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools: *"), "agents/b.md": fm("name: b", "description: d", "tools: '*'")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d"},"b":{"description":"d"}}}`, nil},
		// CLI: disallowedTools "*" left the sub-agent every tool.
		{"disallowedTools with a star disallows nothing",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "disallowedTools: Bash, *")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d"}}}`,
			[]string{".claude/agents/a.md:4:1: warning: dropped disallowedTools: Claude Code ignores a disallowedTools list that holds '*', and disallows nothing; list the tools to disallow"}},
		{"agents sorted by name, CRLF and aliases",
			map[string]string{
				"agents/z.md": "---\r\nname: alpha\r\ndescription: &d shared\r\nmodel: *d\r\nbackground: false\r\n---\r\n",
				"agents/a.md": fm("name: beta", "description: other"),
				"agents/b.md": fm("name: gamma", "description: other", "disallowedTools: &w [Write]", "tools: *w"),
			}, ClaudeCodeOptions{},
			`{"release":"2.1.328","agents":{"alpha":{"description":"shared","background":false,"model":"shared"},"beta":{"description":"other"},"gamma":{"description":"other","tools":["Write"],"disallowedTools":["Write"]}}}`, nil},
		{"unknown and ignored keys dropped",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "effort: high", "version: 2"), "agents/README.txt": "x"},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d"}}}`, []string{
				".claude/agents/README.txt: warning: skipped: only .md files define agents (Claude Code ignores this file)",
				".claude/agents/a.md:4:1: warning: dropped effort: ignored by the claude-code dialect",
				".claude/agents/a.md:5:1: warning: dropped version: not a field of a claude-code agent",
			}},
		// CLI: "description: Use when: the user asks" loaded as written.
		{"a colon in a value is quoted and read again",
			map[string]string{"agents/a.md": fm("name: a", "description: Use when: the tests fail", "tools: Read, Bash(go test *)")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"Use when: the tests fail","tools":["Read","Bash(go test *)"]}}}`, nil},
		// CLI: "tools: Read # only read" became four tools once quoting applied.
		{"quoting is all or nothing",
			map[string]string{"agents/a.md": fm("name: a", "description: Use when: red", "tools: Read # only"), "agents/b.md": fm("name: b", "description: d", "tools: Read # only")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"Use when: red","tools":["Read","#","only"]},"b":{"description":"d","tools":["Read"]}}}`, nil},
		// CLI: closing "----" and "---x" closed; "a --- b" cut the value.
		{"the front matter ends at the first ---",
			map[string]string{
				"agents/a.md": "---\nname: a\ndescription: d\ntools: Read\n----\nbody\n",
				"agents/b.md": "---\nname: b\ndescription: one --- two\ntools: Read\n---\n",
				"agents/c.md": "---\n\n\nname: c  \ndescription: d\n---   \n",
			}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":["Read"]},"b":{"description":"one"},"c":{"description":"d"}}}`, nil},
		// CLI: agents/sub/deep/er/s01.md and a hidden folder loaded.
		{"agents in folders",
			map[string]string{"agents/team/backend/api.md": fm("name: api", "description: d"), "agents/.drafts/x.md": fm("name: x", "description: d")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"api":{"description":"d"},"x":{"description":"d"}}}`, nil},
		// CLI: tools merged from an anchored mapping; the last repeated key won.
		{"merge keys and repeated keys",
			map[string]string{"agents/a.md": fm("base: &b", "  tools: Read", "  model: haiku", "name: a", "description: first", "<<: *b", "model: opus", "description: second")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"second","tools":["Read"],"model":"opus"}}}`, []string{
				".claude/agents/a.md:2:1: warning: dropped base: not a field of a claude-code agent",
				`.claude/agents/a.md:9:1: warning: key "description" repeated (first at line 6): Claude Code keeps the last`,
			}},
		// CLI: "tools: Bash" with "memory: project" had Bash, Write, Edit, Read.
		{"memory adds tools",
			map[string]string{"agents/a.md": fm("name: a", "description: d", "tools: Bash, Read", "memory: project"), "agents/b.md": fm("name: b", "description: d", "memory: user")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"d","tools":["Bash","Read","Write","Edit"]},"b":{"description":"d"}}}`, []string{
				".claude/agents/a.md:5:1: warning: memory: project adds Write, Edit to the tools, as Claude Code does",
				".claude/agents/a.md:5:1: warning: dropped memory: ignored by the claude-code dialect",
				".claude/agents/b.md:4:1: warning: dropped memory: ignored by the claude-code dialect",
			}},
		// CLI: "permissionMode: yolo" and "background: yes" loaded, ignored.
		{"fields Claude Code ignores or normalizes",
			map[string]string{"agents/a.md": fm("name: a", `description: line\nnext`, "permissionMode: manual", "background: 'true'", "model: ' Inherit '"),
				"agents/b.md": fm("name: b", "description: d", "permissionMode: yolo", "background: yes", "model: 4")},
			ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{"a":{"description":"line\nnext","permissionMode":"default","background":true,"model":"inherit"},"b":{"description":"d"}}}`, []string{
				`.claude/agents/b.md:4:1: warning: dropped permissionMode: "yolo" is not a mode (acceptEdits, auto, bypassPermissions, default, dontAsk, plan); Claude Code ignores it`,
				`.claude/agents/b.md:5:1: warning: dropped background: "yes" is not true or false; Claude Code ignores it`,
				".claude/agents/b.md:6:1: warning: dropped model: a number (4) is not a model name; Claude Code ignores it",
			}},
		{"settings merged in order without duplicates",
			map[string]string{
				"settings.json":       `{"permissions": {"allow": ["A", "B", "A"], "deny": ["D"], "defaultMode": "plan"}}`,
				"settings.local.json": `{"permissions": {"allow": ["C", "B"], "ask": ["Q"], "defaultMode": "plan"}, "env": {"CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH": 1}}`,
			}, ClaudeCodeOptions{},
			`{"release":"2.1.328","agents":{},"permissions":{"allow":["A","B","C"],"ask":["Q"],"deny":["D"],"defaultMode":"plan"},"maxSubagentDepth":1}`,
			[]string{".claude/settings.local.json:1:85: warning: imported CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH as maxSubagentDepth 1"}},
		// CLI: local default over project acceptEdits.
		{"local mode replaces shared mode",
			map[string]string{
				"settings.json":       `{"permissions": {"defaultMode": "plan"}}`,
				"settings.local.json": `{"permissions": {"defaultMode": "acceptEdits"}}`,
			}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{},"permissions":{"defaultMode":"acceptEdits"}}`,
			[]string{`.claude/settings.local.json:1:18: warning: permissions.defaultMode "acceptEdits" replaces "plan" from .claude/settings.json`}},
		// CLI: bypassPermissions in a project's settings or its local
		// ones runs the session in default mode (row 97,
		// TestDifferential/genscopes-bypass-*).
		{"bypassPermissions from the project is default",
			map[string]string{"settings.json": `{"permissions": {"defaultMode": "bypassPermissions"}}`}, ClaudeCodeOptions{},
			`{"release":"2.1.328","agents":{},"permissions":{"defaultMode":"default"}}`,
			[]string{`.claude/settings.json:1:33: warning: imported defaultMode "bypassPermissions" as "default": Claude Code ignores bypassPermissions in a project's settings (only user, managed or command-line settings may grant it) and runs the session in default mode`}},
		{"bypassPermissions from the local settings replaces the project's mode with default",
			map[string]string{
				"settings.json":       `{"permissions": {"defaultMode": "plan"}}`,
				"settings.local.json": `{"permissions": {"defaultMode": "bypassPermissions"}}`,
			}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{},"permissions":{"defaultMode":"default"}}`,
			[]string{`.claude/settings.local.json:1:18: warning: permissions.defaultMode "default" replaces "plan" from .claude/settings.json`,
				`.claude/settings.local.json:1:33: warning: imported defaultMode "bypassPermissions" as "default": Claude Code ignores bypassPermissions in a project's settings (only user, managed or command-line settings may grant it) and runs the session in default mode`}},
		{"options", map[string]string{"settings.json": `{"env": {"CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH": "3", "X": "y"}}`},
			ClaudeCodeOptions{BuiltInAgents: "false", MaxSubagentDepth: 2},
			`{"release":"2.1.328","agents":{},"builtInAgents":false,"maxSubagentDepth":2}`, []string{
				".claude/settings.json:1:2: warning: dropped env except CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH (imported as maxSubagentDepth 3): not part of the claude-code policy document",
				".claude/settings.json:1:10: warning: the depth given on the command line (2) replaces CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH=3",
			}},
		// CLI: a trailing comma or a comment made Claude Code ignore the file
		// (its deny did not apply), the other file still applied.
		{"a settings file that is not strict JSON is skipped",
			map[string]string{
				"settings.json":       "{\n  // shared rules\n  \"permissions\": {\"deny\": [\"Bash(rm *)\"]}\n}",
				"settings.local.json": `{"permissions": {"allow": ["Bash(make *)"],}}`,
			}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{}}`, []string{
				".claude/settings.json:2:3: warning: skipped: not JSON: invalid character '/': Claude Code reads settings as strict JSON (no comments, no trailing commas) and ignores this whole file, so none of its rules apply",
				".claude/settings.local.json:1:44: warning: skipped: not JSON: invalid character '}' looking for beginning of object key string: Claude Code reads settings as strict JSON (no comments, no trailing commas) and ignores this whole file, so none of its rules apply",
			}},
		// CLI: deny written as a string, defaultMode "yolo" or 5, and
		// "permissions": [] each made Claude Code ignore the whole file.
		{"a settings file of the wrong shape is skipped",
			map[string]string{
				"settings.json":       `{"permissions": {"allow": ["Read"], "deny": "Bash"}}`,
				"settings.local.json": `{"permissions": {"allow": ["Edit"], "defaultMode": "yolo"}}`,
			}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{}}`, []string{
				".claude/settings.json:1:45: warning: skipped: permissions.deny must be a list of strings, got string: Claude Code ignores this whole file when it does not match its settings schema, so none of its rules apply",
				`.claude/settings.local.json:1:52: warning: skipped: permissions.defaultMode must be one of manual, acceptEdits, auto, bypassPermissions, default, dontAsk, plan, got "yolo": Claude Code ignores this whole file when it does not match its settings schema, so none of its rules apply`,
			}},
		// CLI: a number in allow or deny was dropped, the rest applied; the
		// last of a repeated key won; a byte order mark was fine.
		{"settings: a non-string rule dropped, the last repeated key kept, a BOM",
			map[string]string{
				"settings.json": "\ufeff{\"permissions\": {\"allow\": [1, \"Read\"]}, \"permissions\": {\"deny\": [\"Bash\", true]}}",
			}, ClaudeCodeOptions{}, `{"release":"2.1.328","agents":{},"permissions":{"deny":["Bash"]}}`, []string{
				`.claude/settings.json:1:41: warning: key "permissions" repeated (first at 1:2): Claude Code keeps the last`,
				".claude/settings.json:1:74: warning: dropped permissions.deny[1]: boolean, not a string (Claude Code drops it and keeps the rest of the file)",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t, tt.files)
			r, err := ClaudeCode(root, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Document) != tt.want {
				t.Errorf("document\n got %s\nwant %s", r.Document, tt.want)
			}
			if got := warningsOf(r, root); strings.Join(got, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings\n got %q\nwant %q", got, tt.warnings)
			}
		})
	}
}

// TestClaudeCodeSkipsOneFile: each file below defines no agent in Claude
// Code, and is skipped with a warning while the other file loads.
func TestClaudeCodeSkipsOneFile(t *testing.T) {
	good := "---\nname: good\ndescription: d\n---\n"
	tests := []struct {
		name, src, warning string
	}{
		{"empty front matter", "---\n---\n", "2:1: warning: skipped: the front matter is empty: it must be a mapping of keys to values with at least name and description"},
		{"comments only", "---\n# nothing here\n---\n", "2:1: warning: skipped: the front matter is empty: it must be a mapping of keys to values with at least name and description"},
		{"a scalar", "---\njust text\n---\n", "2:1: warning: skipped: the front matter is a string: it must be a mapping of keys to values with at least name and description"},
		{"no name, a file name", "---\n\ndescription: d\n---\n", "3:1: warning: skipped: no name: Claude Code loads an agent only with a name: in its front matter (the file name does not count)"},
		{"empty name", "---\nname: ''\ndescription: d\n---\n", "2:7: warning: skipped: no name: Claude Code loads an agent only with a name: in its front matter (the file name does not count)"},
		{"name false", "---\nname: false\ndescription: d\n---\n", "2:7: warning: skipped: no name: Claude Code loads an agent only with a name: in its front matter (the file name does not count)"},
		{"name a list", "---\nname: [a]\ndescription: d\n---\n", "2:7: warning: skipped: name is a list: Claude Code loads an agent only when its name is a string (quote it)"},
		{"description with no value", "---\nname: a\ndescription:\n---\n", "3:1: warning: skipped: the description has no value: Claude Code loads an agent only with a description"},
		{"description a mapping", "---\nname: a\ndescription: {x: y}\n---\n", "3:14: warning: skipped: description is a mapping: Claude Code loads an agent only when its description is a string (quote it)"},
		{"YAML that no quoting fixes", "---\nname: a\ndescription: d\ntools: [Read\n  Grep: x\n---\n", "4:8: warning: skipped: the front matter is not YAML Claude Code can read: did not find expected ',' or ']' (it also failed with the values quoted, as Claude Code retries): quote the value, or fix the line"},
		{"PermissionRequest at the top", "---\nname: a\ndescription: d\nPermissionRequest: []\n---\n", "4:1: warning: skipped: PermissionRequest is written at the top of the front matter, outside hooks: Claude Code refuses to load such an agent; move it under hooks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t, map[string]string{"agents/bad.md": tt.src, "agents/good.md": good})
			r, err := ClaudeCode(root, ClaudeCodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"release":"2.1.328","agents":{"good":{"description":"d"}}}`; string(r.Document) != want {
				t.Errorf("document %s, want %s", r.Document, want)
			}
			want := ".claude/agents/bad.md:" + tt.warning
			if got := warningsOf(r, root); len(got) != 1 || got[0] != want {
				t.Errorf("warnings\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestClaudeCodeQuirksKept: values Claude Code reads differently from how
// they look, each loaded as the CLI does.
func TestClaudeCodeQuirksKept(t *testing.T) {
	tests := []struct {
		name, src, agent string
		warnings         []string
	}{
		{"a list item not a string is dropped", "---\nname: a\ndescription: d\ntools:\n  - Read\n  - 7\n---\n", `{"description":"d","tools":["Read"]}`,
			[]string{".claude/agents/a.md:6:5: warning: dropped tools[1]: a number (7), not a string (Claude Code drops it)"}},
		{"a tools string of commas is no tools", "---\nname: a\ndescription: d\ntools: ' , '\n---\n", `{"description":"d","tools":[]}`,
			[]string{".claude/agents/a.md:4:1: warning: tools lists no tool: Claude Code gives the agent no tools (write tools: [] to say so, or leave tools out for every tool)"}},
		{"a disallowedTools string of commas disallows nothing", "---\nname: a\ndescription: d\ndisallowedTools: ' , '\n---\n", `{"description":"d"}`,
			[]string{".claude/agents/a.md:4:1: warning: disallowedTools lists no tool: nothing is disallowed"}},
		{"a repeated name: the last wins", "---\nname: first\ndescription: d\nname: second\n---\n", `{"description":"d"}`,
			[]string{`.claude/agents/a.md:4:1: warning: key "name" repeated (first at line 2): Claude Code keeps the last`}},
		{"a mode in a list is dropped", "---\nname: a\ndescription: d\npermissionMode: [plan]\n---\n", `{"description":"d"}`,
			[]string{".claude/agents/a.md:4:1: warning: dropped permissionMode: a list is not a mode (acceptEdits, auto, bypassPermissions, default, dontAsk, plan); Claude Code ignores it"}},
		// CLI: the names 2024-01-01, 1_000 and 0b101 loaded as strings.
		{"YAML 1.2 core scalars", "---\nname: 2024-01-01\ndescription: 1_000\nmodel: 0b101\n---\n", `{"description":"1_000","model":"0b101"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t, map[string]string{"agents/a.md": tt.src})
			r, err := ClaudeCode(root, ClaudeCodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Agents map[string]json.RawMessage `json:"agents"`
			}
			json.Unmarshal(r.Document, &doc)
			if len(doc.Agents) != 1 {
				t.Fatalf("document %s: want one agent", r.Document)
			}
			for _, a := range doc.Agents {
				if string(a) != tt.agent {
					t.Errorf("agent\n got %s\nwant %s", a, tt.agent)
				}
			}
			if got := warningsOf(r, root); strings.Join(got, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings\n got %q\nwant %q", got, tt.warnings)
			}
		})
	}
}

// TestClaudeCodeSettingsSkipped: more settings files Claude Code ignores
// whole (CLI: "Invalid setting skipped", the file's allow did not apply).
func TestClaudeCodeSettingsSkipped(t *testing.T) {
	tests := []struct{ name, src, warning string }{
		{"permissions null", `{"permissions": null}`, "1:17: warning: skipped: permissions must be an object, got null"},
		{"a directory not a string", `{"permissions": {"allow": ["Read"], "additionalDirectories": [5]}}`, "1:63: warning: skipped: permissions.additionalDirectories[0] must be a string, got number"},
		{"env a list", `{"permissions": {"allow": ["Read"]}, "env": []}`, "1:45: warning: skipped: env must be an object, got list"},
		{"bypass not disable", `{"permissions": {"disableBypassPermissionsMode": "yes"}}`, `1:50: warning: skipped: permissions.disableBypassPermissionsMode must be "disable", got "yes"`},
		{"not an object", `["Read"]`, "1:1: warning: skipped: settings must be an object, got list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t, map[string]string{"settings.json": tt.src, "settings.local.json": `{"permissions": {"allow": ["Edit"]}}`})
			r, err := ClaudeCode(root, ClaudeCodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"release":"2.1.328","agents":{},"permissions":{"allow":["Edit"]}}`; string(r.Document) != want {
				t.Errorf("document %s, want %s", r.Document, want)
			}
			want := ".claude/settings.json:" + tt.warning + ": Claude Code ignores this whole file when it does not match its settings schema, so none of its rules apply"
			if got := warningsOf(r, root); len(got) != 1 || got[0] != want {
				t.Errorf("warnings\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestClaudeCodeRefusals: what still refuses the whole import.
func TestClaudeCodeRefusals(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // after the project root
	}{
		{"bad depth", map[string]string{"settings.json": `{"env": {"CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH": "0"}}`}, "/.claude/settings.json:1:50: env.CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH must be a whole number of at least 1"},
		{"depth not a number", map[string]string{"settings.local.json": `{"env": {"CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH": true}}`}, "/.claude/settings.local.json:1:50: env.CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH must be a whole number of at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t, tt.files)
			r, err := ClaudeCode(root, ClaudeCodeOptions{})
			if err == nil {
				t.Fatalf("import succeeded with %s", r.Document)
			}
			if got := strings.TrimPrefix(err.Error(), root); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// dirOrder lists the .md files under dir as Claude Code reads them: each
// folder in the order the file system gives, depth first.
func dirOrder(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			out = append(out, dirOrder(t, p)...)
		} else if strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
	}
	return out
}

// TestClaudeCodeDuplicateNames: of two files with one name, the one read
// last wins, as in Claude Code (CLI: agents/n13.md over agents/sub/n13.md,
// read after it; zz-dup1.md over aa-dup2.md), and the other is named by a
// warning. Which one is last depends on the file system's order, so the
// test asks it.
func TestClaudeCodeDuplicateNames(t *testing.T) {
	root := project(t, map[string]string{
		"agents/a.md":         "---\nname: helper\ndescription: from a\n---\n",
		"agents/b.md":         "---\nname: helper\ndescription: from b\n---\n",
		"agents/team/c.md":    "---\nname: helper\ndescription: from c\n---\n",
		"agents/team/solo.md": "---\nname: solo\ndescription: alone\n---\n",
	})
	order := dirOrder(t, filepath.Join(root, ".claude", "agents"))
	var helpers []string
	for _, p := range order {
		if !strings.HasSuffix(p, "solo.md") {
			helpers = append(helpers, p)
		}
	}
	last := helpers[len(helpers)-1]
	r, err := ClaudeCode(root, ClaudeCodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := "from " + strings.TrimSuffix(filepath.Base(last), ".md")
	if want := `{"release":"2.1.328","agents":{"helper":{"description":"` + from + `"},"solo":{"description":"alone"}}}`; string(r.Document) != want {
		t.Errorf("document\n got %s\nwant %s (files read in the order %q)", r.Document, want, order)
	}
	var skipped []string
	for _, w := range r.Warnings {
		if strings.Contains(w.Msg, `agent "helper" is defined again in `+last) {
			skipped = append(skipped, w.File)
		}
	}
	slices.Sort(skipped)
	want := slices.DeleteFunc(slices.Clone(helpers), func(p string) bool { return p == last })
	slices.Sort(want)
	if !slices.Equal(skipped, want) {
		t.Errorf("warned about %q, want %q:\n%s", skipped, want, strings.Join(warningsOf(r), "\n"))
	}
}

// TestClaudeCodeLinks: with FollowSymlinks, symbolic links are followed
// (CLI: a link to a file outside the project loaded), a loop is read once
// (CLI: "Skipping already visited directory"), a hard link is read once,
// and a symbolic link to a file is read again (CLI: a duplicate agent
// name). Without it the link out of the project refuses the import
// (TestClaudeCodeRefusesLinksOut).
func TestClaudeCodeLinks(t *testing.T) {
	root := project(t, map[string]string{"agents/a.md": "---\nname: a\ndescription: d\n---\n"})
	outside := writeTree(t, map[string]string{"shared.md": "---\nname: shared\ndescription: from outside\n---\n"})
	agents := filepath.Join(root, ".claude", "agents")
	for link, target := range map[string]string{
		"shared.md":   filepath.Join(outside, "shared.md"),
		"loop":        ".",
		"again.md":    "a.md",
		"dangling.md": "nowhere.md",
	} {
		if err := os.Symlink(target, filepath.Join(agents, link)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	if err := os.Link(filepath.Join(agents, "a.md"), filepath.Join(agents, "hard.md")); err != nil {
		t.Skip("no hard links here:", err)
	}
	r, err := ClaudeCode(root, ClaudeCodeOptions{FollowSymlinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"release":"2.1.328","agents":{"a":{"description":"d"},"shared":{"description":"from outside"}}}`; string(r.Document) != want {
		t.Errorf("document\n got %s\nwant %s", r.Document, want)
	}
	got := strings.Join(warningsOf(r, root), "\n")
	for _, want := range []string{
		"loop: warning: skipped: this folder was read already (a symbolic link loops back to it)",
		"md: warning: skipped: the same file was read already under another name: Claude Code reads it once",
		`warning: skipped: agent "a" is defined again in `,
		"dangling.md: warning: skipped: no such file or directory",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
}

// TestClaudeCodeUserScope: the user's directory is layered under the
// project (CLI: project agents replace user agents of the same name, user
// allow and deny rules apply with the project's, the project's defaultMode
// over the user's).
func TestClaudeCodeUserScope(t *testing.T) {
	user := writeTree(t, map[string]string{
		"settings.json":       `{"permissions": {"allow": ["Read(~/notes/**)", "Bash(make)"], "deny": ["WebFetch"], "defaultMode": "plan"}}`,
		"agents/mine.md":      "---\nname: mine\ndescription: personal\n---\n",
		"agents/reviewer.md":  "---\nname: reviewer\ndescription: the user's\n---\n",
		"agents/sub/other.md": "---\nname: other\ndescription: in a folder\ntools: Read\n---\n",
	})
	root := project(t, map[string]string{
		"settings.json":      `{"permissions": {"allow": ["Bash(make)", "Bash(npm test)"]}}`,
		"agents/reviewer.md": "---\nname: reviewer\ndescription: the project's\n---\n",
	})
	r, err := ClaudeCode(root, ClaudeCodeOptions{UserDir: user})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"release":"2.1.328","agents":{"mine":{"description":"personal"},"other":{"description":"in a folder","tools":["Read"]},"reviewer":{"description":"the project's"}},` +
		`"permissions":{"allow":["Read(~/notes/**)","Bash(make)","Bash(npm test)"],"deny":["WebFetch"],"defaultMode":"plan"}}`
	if string(r.Document) != want {
		t.Errorf("document\n got %s\nwant %s", r.Document, want)
	}
	if got, want := warningsOf(r, user, root), []string{
		`agents/reviewer.md:2:1: warning: agent "reviewer" of the user scope is replaced by the one in .claude/agents/reviewer.md, as in Claude Code`,
	}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}

	// A user directory that does not exist reads nothing.
	r, err = ClaudeCode(root, ClaudeCodeOptions{UserDir: filepath.Join(user, "missing")})
	if err != nil || string(r.Document) != `{"release":"2.1.328","agents":{"reviewer":{"description":"the project's"}},"permissions":{"allow":["Bash(make)","Bash(npm test)"]}}` {
		t.Errorf("missing user dir: %s, %v", r.Document, err)
	}
}

// TestClaudeCodeBypassFromUser: a project's bypassPermissions is read as
// default unless the user's own settings say bypassPermissions, which
// grants it (Claude Code 2.1.328 grants it when a user, managed or
// command-line source sets it; TestDifferential/genscopes-bypass-*).
func TestClaudeCodeBypassFromUser(t *testing.T) {
	for _, c := range []struct {
		name, user, proj, local, want string
		warned                        bool
	}{
		{"project and user", "bypassPermissions", "bypassPermissions", "", "bypassPermissions", false},
		{"local and user", "bypassPermissions", "plan", "bypassPermissions", "bypassPermissions", false},
		{"project over user acceptEdits", "acceptEdits", "bypassPermissions", "", "default", true},
		{"project plan over user bypass", "bypassPermissions", "plan", "", "plan", false},
		{"project alone", "", "bypassPermissions", "", "default", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			mode := func(m string) string {
				if m == "" {
					return `{}`
				}
				return `{"permissions": {"defaultMode": "` + m + `"}}`
			}
			user := writeTree(t, map[string]string{"settings.json": mode(c.user)})
			root := project(t, map[string]string{"settings.json": mode(c.proj), "settings.local.json": mode(c.local)})
			r, err := ClaudeCode(root, ClaudeCodeOptions{UserDir: user})
			if err != nil {
				t.Fatal(err)
			}
			if want := `"defaultMode":"` + c.want + `"`; !strings.Contains(string(r.Document), want) {
				t.Errorf("document %s lacks %s", r.Document, want)
			}
			warned := strings.Contains(strings.Join(warningsOf(r, user, root), "\n"), `imported defaultMode "bypassPermissions" as "default"`)
			if warned != c.warned {
				t.Errorf("warned %v, want %v: %q", warned, c.warned, warningsOf(r, user, root))
			}
		})
	}
}

// FuzzClaudeCodeAgent: any file either defines an agent whose document
// encodes, or is skipped with a warning placed in it; nothing panics.
func FuzzClaudeCodeAgent(f *testing.F) {
	filepath.WalkDir(ccData, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
		return nil
	})
	f.Add([]byte("---\nname: a\ndescription: Use when: x\ntools: *\n---\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		a, skip := readAgent("f.md", src)
		switch {
		case a == nil && skip == nil:
			t.Fatal("neither an agent nor a warning")
		case a != nil && skip != nil:
			t.Fatal("both an agent and a warning")
		case skip != nil:
			if skip.File != "f.md" || !strings.HasPrefix(skip.Msg, "skipped: ") {
				t.Fatalf("warning %+v", skip)
			}
		default:
			if a.name == "" {
				t.Fatal("an agent without a name")
			}
			if _, err := a.v.AppendJSON(nil, "f.md"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzClaudeCodeSettings: the settings reader accepts exactly what JSON
// accepts (after a byte order mark), places its errors in the file, and
// holds the same value.
func FuzzClaudeCodeSettings(f *testing.F) {
	for _, s := range []string{`{}`, `{"permissions": {"allow": ["Read"], "deny": [1]}}`, `{"a": 1, "a": 2}`, "\ufeff[1, 2.5e3, null, true]", `{"x":}`, "{\n// c\n}", `"s"`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var warns []importer.Warning
		v, err := parseStrictJSON("s.json", src, &warns)
		body := bytes.TrimPrefix(src, []byte("\ufeff"))
		if valid := json.Valid(body); valid != (err == nil) {
			t.Fatalf("json.Valid %v, parseStrictJSON error %v", valid, err)
		}
		if err != nil {
			if e, ok := err.(*importer.Error); !ok || e.File != "s.json" || e.Line < 1 || e.Col < 1 {
				t.Fatalf("error %#v", err)
			}
			return
		}
		got, err := v.AppendJSON(nil, "s.json")
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		decode := func(src []byte, v *any) error {
			d := json.NewDecoder(bytes.NewReader(src))
			d.UseNumber()
			return d.Decode(v)
		}
		decode(body, &a) // the last of a repeated key wins, as here
		if err := decode(got, &b); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("read %s as %s", body, got)
		}
	})
}

// TestUserRule: a user-settings Read or Edit path "/x" is anchored at the
// user's Claude Code directory (CLI: TestDifferential/i25-user-settings-anchor,
// Read(/x.txt) in ~/.claude/settings.json denies ~/.claude/x.txt, not the
// project's x.txt).
func TestUserRule(t *testing.T) {
	for _, tt := range []struct {
		rule, dir, home, want string
		changed               bool
	}{
		{"Read(/x.txt)", "/home/u/.claude", "/home/u", "Read(~/.claude/x.txt)", true},
		{"Edit(/notes/**)", "/home/u/.claude", "/home/u", "Edit(~/.claude/notes/**)", true},
		{"Read(/x)", "/etc/claude", "/home/u", "Read(//etc/claude/x)", true},
		{"Read(/x)", "/home/u", "/home/u", "Read(~/x)", true},
		{"Read(/x)", "/home/u/.claude", "", "Read(//home/u/.claude/x)", true},
		{"Read(//etc/x)", "/home/u/.claude", "/home/u", "Read(//etc/x)", false},
		{"Read(~/x)", "/home/u/.claude", "/home/u", "Read(~/x)", false},
		{"Read(./x)", "/home/u/.claude", "/home/u", "Read(./x)", false},
		{"Read(x)", "/home/u/.claude", "/home/u", "Read(x)", false},
		{"Bash(/bin/ls)", "/home/u/.claude", "/home/u", "Bash(/bin/ls)", false},
		{"Read", "/home/u/.claude", "/home/u", "Read", false},
		{"Read(/x)", "rel/.claude", "/home/u", "Read(/x)", false},
		{"Read(/x)", "/home/user2/.claude", "/home/u", "Read(//home/user2/.claude/x)", true},
	} {
		got, changed := UserRule(tt.rule, tt.dir, tt.home)
		if got != tt.want || changed != tt.changed {
			t.Errorf("UserRule(%q, %q, %q) = %q, %v; want %q, %v", tt.rule, tt.dir, tt.home, got, changed, tt.want, tt.changed)
		}
	}
}

// TestClaudeCodeUserAnchors: the import rewrites the user's "/x" rules and
// says so; the project's stay relative to the project.
func TestClaudeCodeUserAnchors(t *testing.T) {
	user := writeTree(t, map[string]string{
		"settings.json": `{"permissions": {"deny": ["Read(/x.txt)", "Read(./y.txt)"], "allow": ["Edit(/notes/**)"]}}`,
	})
	root := project(t, map[string]string{"settings.json": `{"permissions": {"deny": ["Read(/z.txt)"]}}`})
	r, err := ClaudeCode(root, ClaudeCodeOptions{UserDir: user})
	if err != nil {
		t.Fatal(err)
	}
	anchor := "/" + filepath.ToSlash(user)
	if home, _ := os.UserHomeDir(); home != "" {
		if rel, ok := strings.CutPrefix(filepath.ToSlash(user), filepath.ToSlash(home)+"/"); ok {
			anchor = "~/" + rel
		}
	}
	want := `"permissions":{"allow":["Edit(` + anchor + `/notes/**)"],"deny":["Read(` + anchor + `/x.txt)","Read(./y.txt)","Read(/z.txt)"]}`
	if !strings.Contains(string(r.Document), want) {
		t.Errorf("document %s\nlacks %s", r.Document, want)
	}
	n := 0
	for _, w := range r.Warnings {
		if strings.Contains(w.Msg, "anchors a path starting with /") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d rewrite warnings, want 2: %+v", n, r.Warnings)
	}
}

// TestClaudeCodeBlockReads: permissions.blockReadsOutsideWorkingDirectories
// is imported true when any scope sets it true (a false does not lift
// another scope's block), and a file giving it another type is skipped as
// Claude Code skips a file with a key of the wrong type.
func TestClaudeCodeBlockReads(t *testing.T) {
	block := func(v string) string {
		if v == "" {
			return `{}`
		}
		return `{"permissions": {"blockReadsOutsideWorkingDirectories": ` + v + `, "blockWritesOutsideWorkingDirectories": ` + v + `, "allow": ["Read"]}}`
	}
	for _, c := range []struct {
		name, user, proj, local string
		want                    bool
	}{
		{"none", "", "", "", false},
		{"project", "", "true", "", true},
		{"user", "true", "", "", true},
		{"local false over project true", "", "true", "false", true},
		{"all false", "false", "false", "false", false},
		{"not a boolean", "", `"yes"`, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			user := writeTree(t, map[string]string{"settings.json": block(c.user)})
			root := project(t, map[string]string{"settings.json": block(c.proj), "settings.local.json": block(c.local)})
			r, err := ClaudeCode(root, ClaudeCodeOptions{UserDir: user})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"blockReadsOutsideWorkingDirectories", "blockWritesOutsideWorkingDirectories"} {
				if got := strings.Contains(string(r.Document), `"`+k+`":true`); got != c.want {
					t.Errorf("document %s: %s %v, want %v", r.Document, k, got, c.want)
				}
			}
		})
	}
}
