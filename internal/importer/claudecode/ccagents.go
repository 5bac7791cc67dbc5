package ccimport

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sessionledger/ledger/internal/importer"
	"go.yaml.in/yaml/v3"
)

// The agent front-matter keys the dialect accepts and ignores (section 3.1
// of spec/dialect-claude-code.md). They are left out with a warning.
var ignoredAgentKeys = []string{"prompt", "skills", "hooks", "mcpServers", "maxTurns", "isolation",
	"effort", "memory", "color", "initialPrompt"}

// agentFileLimit is the largest agent file Claude Code reads (1 MiB).
// CLI: a file of 1 MiB and a little more was skipped ("exceeds 1048576 byte
// limit" in the debug log), one just under it loaded.
const agentFileLimit = 1 << 20

// maxAgentName is the longest name Claude Code accepts, in UTF-16 units.
// CLI: a 256-character name loaded, a 257-character one did not.
const maxAgentName = 256

// The permission modes an agent's permissionMode may name in Claude Code
// 2.1.328 (its message for another value lists them); manual is default.
var ccModes = []string{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"}

// memoryTools are the tools Claude Code adds to an agent's tools list when
// the agent has memory, in its order. CLI: "tools: Bash" with "memory:
// project" was listed as "Bash, Write, Edit, Read", and the sub-agent had
// those four tools.
var memoryTools = []string{"Write", "Edit", "Read"}

// agentDef is one agent read from a Markdown file's front matter.
// place is where a path of the document was written (Result.Record's
// arguments), kept per agent until the agent is kept or skipped.
type place struct {
	file string
	pos  Pos
}

type agentDef struct {
	name  string
	file  string
	scope string // "project" or "user"
	at    Pos    // of the name key
	v     *Value
	// warnings are the file's own; they are reported only when the agent
	// is kept.
	warnings []importer.Warning
	places   map[string]place
}

// agentReader reads one agent file.
type agentReader struct {
	file     string
	fm       fmBlock
	text     string // the YAML that parsed: node positions refer to it
	tabs     []int  // tabsPerLine(text), computed at the first position
	warnings []importer.Warning
}

func (a *agentReader) line(n *yaml.Node) int { return a.fm.line + n.Line - 1 }

func (a *agentReader) pos(n *yaml.Node) Pos {
	if a.tabs == nil {
		a.tabs = tabsPerLine(a.text)
	}
	col := n.Column
	if n.Line >= 1 && n.Line <= len(a.tabs) {
		col = tabShift(a.tabs[n.Line-1], col)
	}
	return Pos{Line: a.line(n), Col: col}
}

func (a *agentReader) warn(n *yaml.Node, path, format string, args ...any) {
	a.warnings = append(a.warnings, importer.Warning{File: a.file, Line: a.line(n), Col: a.pos(n).Col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// skipped is the warning that says the file defines no agent.
func skipped(file string, at Pos, format string, args ...any) *importer.Warning {
	return &importer.Warning{File: file, Line: at.Line, Col: at.Col, Msg: "skipped: " + fmt.Sprintf(format, args...)}
}

// readAgent reads one agent file. It returns the agent, or the warning
// saying why Claude Code does not load the file (the file is then skipped;
// the other files still load, as in Claude Code. CLI: of the 55 files of
// testdata/importer-claude-code/agents, the 21 it did not load kept none
// of the 34 others from loading).
func readAgent(file string, src []byte) (*agentDef, *importer.Warning) {
	a, root, w := openAgent(file, src)
	if w != nil {
		return nil, w
	}
	f := a.fields(root)

	// Hooks for PreToolUse or PermissionRequest written outside "hooks"
	// make Claude Code refuse the agent (function bvs).
	for _, k := range []string{"PreToolUse", "PermissionRequest"} {
		if kv, ok := f[k]; ok {
			return nil, skipped(file, a.pos(kv.key), "%s is written at the top of the front matter, outside hooks: Claude Code refuses to load such an agent; move it under hooks", k)
		}
	}
	nf, name, w := a.name(f)
	if w != nil {
		return nil, w
	}
	df, w := a.description(f, nf)
	if w != nil {
		return nil, w
	}

	d := &agentDef{name: name, file: file, at: a.pos(nf.key), v: &Value{Kind: Object}, places: map[string]place{}}
	d.places[importer.JoinPath("agents", d.name)] = place{file, d.at}
	// Claude Code turns a written "\n" into a line break.
	d.add(a, "description", df.key, &Value{Kind: String, Str: strings.ReplaceAll(df.val.Value, `\n`, "\n"), Pos: a.pos(df.val)})
	a.tools(d, f)
	for _, r := range agentFieldReaders {
		if kv, ok := f[r.key]; ok {
			r.read(a, d, kv)
		}
	}
	a.warnOtherKeys(root, f)
	sort.SliceStable(a.warnings, func(i, j int) bool {
		wi, wj := a.warnings[i], a.warnings[j]
		return wi.Line < wj.Line || wi.Line == wj.Line && wi.Col < wj.Col
	})
	d.warnings = a.warnings
	return d, nil
}

// openAgent cuts and parses an agent file's front matter; it returns the
// warning that skips the file when there is none Claude Code can read.
func openAgent(file string, src []byte) (*agentReader, *yaml.Node, *importer.Warning) {
	fm, problem := cutFrontMatter(src)
	if problem != "" {
		return nil, nil, skipped(file, Pos{Line: 1, Col: 1}, "%s", problem)
	}
	root, text, err := parseFrontMatter(fm.text)
	if err != nil {
		at, msg := yamlProblem(fm.text, err)
		at.Line += fm.line - 1
		return nil, nil, skipped(file, at, "the front matter is not YAML Claude Code can read: %s (it also failed with the values quoted, as Claude Code retries): quote the value, or fix the line", msg)
	}
	a := &agentReader{file: file, fm: fm, text: text}
	if root == nil || root.Kind != yaml.MappingNode {
		at := Pos{Line: fm.line, Col: 1}
		what := "empty"
		if root != nil {
			at, what = a.pos(root), kindOf(root)
		}
		return nil, nil, skipped(file, at, "the front matter is %s: it must be a mapping of keys to values with at least name and description", what)
	}
	return a, root, nil
}

// name reads the agent's name (function rGr). CLI: "my agent", "a/b",
// "Ünïcode", "UPPER.case_x", "  spaced  ", "main", "fork" and names of
// built-in agents (Explore, general-purpose: the file replaces the
// built-in) all loaded; "a:b", "a：b" (fullwidth), "-dash", 257
// characters, 42 and true did not, nor a file without name (the file name
// is never used: sub/nested.md with "name: nested-one" loaded as
// nested-one).
func (a *agentReader) name(f map[string]fmField) (fmField, string, *importer.Warning) {
	nf, ok := f["name"]
	if !ok || !truthy(nf.val) {
		at := Pos{Line: a.fm.line, Col: 1}
		if ok {
			at = a.pos(nf.val)
		}
		return nf, "", skipped(a.file, at, "no name: Claude Code loads an agent only with a name: in its front matter (the file name does not count)")
	}
	name := scalarOf(nf.val)
	if nf.val.Kind != yaml.ScalarNode || name.kind != "string" {
		return nf, "", skipped(a.file, a.pos(nf.val), "name is %s: Claude Code loads an agent only when its name is a string (quote it)", kindOf(nf.val))
	}
	switch n := name.str; {
	case strings.HasPrefix(n, "-"):
		return nf, "", skipped(a.file, a.pos(nf.val), "name %q starts with '-', which Claude Code refuses", n)
	case jsLen(n) > maxAgentName:
		return nf, "", skipped(a.file, a.pos(nf.val), "the name is %d characters long; Claude Code refuses names over %d", jsLen(n), maxAgentName)
	case nfkcColon(n):
		return nf, "", skipped(a.file, a.pos(nf.val), "name %q contains ':', which Claude Code reserves for plugin agents", n)
	}
	return nf, name.str, nil
}

// description reads the agent's description. CLI: a description that is
// missing, empty, 42 or true keeps the agent from loading.
func (a *agentReader) description(f map[string]fmField, nf fmField) (fmField, *importer.Warning) {
	df, ok := f["description"]
	switch {
	case !ok:
		return df, skipped(a.file, a.pos(nf.key), "no description: Claude Code loads an agent only with a description")
	case df.val.Kind == yaml.ScalarNode && scalarOf(df.val).kind == "null":
		return df, skipped(a.file, a.pos(df.key), "the description has no value: Claude Code loads an agent only with a description")
	case df.val.Kind != yaml.ScalarNode || scalarOf(df.val).kind != "string":
		return df, skipped(a.file, a.pos(df.val), "description is %s: Claude Code loads an agent only when its description is a string (quote it)", kindOf(df.val))
	case df.val.Value == "":
		return df, skipped(a.file, a.pos(df.val), "the description is empty: Claude Code loads an agent only with a description")
	}
	return df, nil
}

// add sets a field of the agent's value and records where it was written.
func (d *agentDef) add(a *agentReader, key string, k *yaml.Node, v *Value) {
	d.places[importer.JoinPath(importer.JoinPath("agents", d.name), key)] = place{d.file, a.pos(k)}
	d.v.Members = append(d.v.Members, Member{Key: key, Value: v})
}

// tools reads tools (with the memory tools memory: adds, as Claude Code
// does) and disallowedTools.
func (a *agentReader) tools(d *agentDef, f map[string]fmField) {
	at := importer.JoinPath("agents", d.name)
	tools, toolsPresent := a.toolList("tools", f)
	if mf, ok := f["memory"]; ok && toolsPresent && mf.val.Kind == yaml.ScalarNode && contains([]string{"user", "project", "local"}, scalarOf(mf.val).str) && scalarOf(mf.val).kind == "string" {
		var added []string
		for _, t := range memoryTools {
			if !containsValue(tools, t) {
				tools = append(tools, &Value{Kind: String, Str: t, Pos: a.pos(mf.val)})
				added = append(added, t)
			}
		}
		if len(added) > 0 {
			a.warn(mf.key, "memory", "memory: %s adds %s to the tools, as Claude Code does", mf.val.Value, strings.Join(added, ", "))
		}
	}
	if toolsPresent {
		d.add(a, "tools", f["tools"].key, &Value{Kind: Array, Elems: tools})
		for i, e := range tools {
			d.places[importer.IndexPath(importer.JoinPath(at, "tools"), i)] = place{d.file, e.Pos}
		}
	}
	if dis, present := a.toolList("disallowedTools", f); present && len(dis) > 0 {
		d.add(a, "disallowedTools", f["disallowedTools"].key, &Value{Kind: Array, Elems: dis})
		for i, e := range dis {
			d.places[importer.IndexPath(importer.JoinPath(at, "disallowedTools"), i)] = place{d.file, e.Pos}
		}
	}
}

// agentFieldReaders read the agent's other fields, in this order; a field
// whose value Claude Code ignores is dropped with a warning.
var agentFieldReaders = []struct {
	key  string
	read func(a *agentReader, d *agentDef, kv fmField)
}{
	{"permissionMode", readPermissionMode},
	{"background", readBackground},
	{"model", readModel},
}

// readPermissionMode (CLI: "permissionMode: yolo" loaded, the mode
// ignored).
func readPermissionMode(a *agentReader, d *agentDef, pf fmField) {
	if !truthy(pf.val) {
		return
	}
	mode := scalarOf(pf.val)
	if mode.str == "manual" {
		mode.str = "default"
	}
	if pf.val.Kind == yaml.ScalarNode && mode.kind == "string" && contains(ccModes, mode.str) {
		d.add(a, "permissionMode", pf.key, &Value{Kind: String, Str: mode.str, Pos: a.pos(pf.val)})
		return
	}
	a.warn(pf.key, "permissionMode", "dropped permissionMode: %s is not a mode (%s); Claude Code ignores it", describe(pf.val), strings.Join(ccModes, ", "))
}

// readBackground: true or false, as a boolean or a string (CLI:
// "background: yes" loaded, the value ignored).
func readBackground(a *agentReader, d *agentDef, bf fmField) {
	b := scalarOf(bf.val)
	if bf.val.Kind == yaml.ScalarNode && (b.kind == "bool" || b.kind == "string" && (b.str == "true" || b.str == "false")) {
		d.add(a, "background", bf.key, &Value{Kind: Bool, Bool: b.b || b.str == "true", Pos: a.pos(bf.val)})
		return
	}
	a.warn(bf.key, "background", "dropped background: %s is not true or false; Claude Code ignores it", describe(bf.val))
}

// readModel: a non-blank string, trimmed; "inherit" in any case.
func readModel(a *agentReader, d *agentDef, mf fmField) {
	m := scalarOf(mf.val)
	switch s := strings.TrimSpace(m.str); {
	case mf.val.Kind == yaml.ScalarNode && m.kind == "string" && s != "":
		if strings.EqualFold(s, "inherit") {
			s = "inherit"
		}
		d.add(a, "model", mf.key, &Value{Kind: String, Str: s, Pos: a.pos(mf.val)})
	case mf.val.Kind == yaml.ScalarNode && m.kind == "null":
	default:
		a.warn(mf.key, "model", "dropped model: %s is not a model name; Claude Code ignores it", describe(mf.val))
	}
}

// warnOtherKeys warns of every key the readers above do not read.
func (a *agentReader) warnOtherKeys(root *yaml.Node, f map[string]fmField) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := resolve(root.Content[i])
		if k.Kind != yaml.ScalarNode || k.Value == "<<" || f[k.Value].key != k {
			continue
		}
		switch {
		case contains([]string{"name", "description", "tools", "disallowedTools", "permissionMode", "model", "background"}, k.Value):
		case contains(ignoredAgentKeys, k.Value):
			a.warn(k, k.Value, "dropped %s: ignored by the claude-code dialect", k.Value)
		default:
			a.warn(k, k.Value, "dropped %s: not a field of a claude-code agent", k.Value)
		}
	}
}

// describe shows a value in a message: a string quoted, anything else
// named.
func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && scalarOf(n).kind == "string" {
		return `"` + n.Value + `"`
	}
	return kindOf(n)
}

func containsValue(list []*Value, s string) bool {
	for _, v := range list {
		if v.Str == s {
			return true
		}
	}
	return false
}

// toolList reads tools or disallowedTools as Claude Code does (functions
// egn and Pdt): a string or a list of strings, each split by splitTools; a
// '*' among them means every tool, as if the key were left out; any other
// value (no value, ”, a number, a mapping) is an empty list. present is
// false when the key is left out or means every tool.
//
// CLI: "tools:" (no value), "tools: ”", "tools: 5", "tools: {a: 1}" and
// "tools: []" each gave the sub-agent no tools at all (its request had an
// empty tools list); "tools: [Read, 5, Grep]" listed Read and Grep; "tools:
// *", "tools: '*'" and "tools: [Read, '*']" gave every tool. For
// disallowedTools, "*" and no value disallowed nothing (the sub-agent had
// every tool).
func (a *agentReader) toolList(key string, f map[string]fmField) ([]*Value, bool) {
	kv, ok := f[key]
	if !ok {
		return nil, false
	}
	n := kv.val
	var texts []string
	var at []Pos
	switch {
	case n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			e = resolve(e)
			if e.Kind != yaml.ScalarNode || scalarOf(e).kind != "string" {
				a.warn(e, importer.IndexPath(key, i), "dropped %s[%d]: %s, not a string (Claude Code drops it)", key, i, kindOf(e))
				continue
			}
			for _, t := range splitTools(e.Value) {
				texts, at = append(texts, t), append(at, a.pos(e))
			}
		}
	case n.Kind == yaml.ScalarNode && scalarOf(n).kind == "string" && n.Value != "":
		for _, t := range splitTools(n.Value) {
			texts, at = append(texts, t), append(at, a.pos(n))
		}
	default:
		if key == "tools" {
			a.warn(kv.key, key, "tools %s: Claude Code gives the agent no tools (write tools: [] to say so, or leave tools out for every tool)", describeEmpty(n))
		} else {
			a.warn(kv.key, key, "disallowedTools %s: nothing is disallowed", describeEmpty(n))
		}
		return []*Value{}, key == "tools"
	}
	if len(texts) == 0 && !(n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
		if key == "tools" {
			a.warn(kv.key, key, "tools lists no tool: Claude Code gives the agent no tools (write tools: [] to say so, or leave tools out for every tool)")
		} else {
			a.warn(kv.key, key, "disallowedTools lists no tool: nothing is disallowed")
		}
	}
	if contains(texts, "*") {
		switch {
		case key == "disallowedTools":
			a.warn(kv.key, key, "dropped disallowedTools: Claude Code ignores a disallowedTools list that holds '*', and disallows nothing; list the tools to disallow")
		case len(texts) > 1:
			a.warn(kv.key, key, "tools holds '*': Claude Code gives every tool and the other entries change nothing")
		}
		return nil, false
	}
	out := make([]*Value, len(texts))
	for i, t := range texts {
		out[i] = &Value{Kind: String, Str: t, Pos: at[i]}
	}
	return out, true
}

func describeEmpty(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.ScalarNode && scalarOf(n).kind == "string":
		return "is an empty string"
	case n.Kind == yaml.ScalarNode && scalarOf(n).kind == "null":
		return "has no value"
	}
	return "is " + kindOf(n)
}
