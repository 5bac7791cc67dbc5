package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ClaudeCodeOptions sets the document keys that no project file holds. The
// zero value leaves them out (the dialect's defaults).
type ClaudeCodeOptions struct {
	// BuiltInAgents is builtInAgents as written on a command line: "true",
	// "false" or a comma-separated list of built-in agent names.
	BuiltInAgents string
	// MaxSubagentDepth, when positive, is maxSubagentDepth; it replaces the
	// CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH a settings file sets in env.
	MaxSubagentDepth int
}

// The agent front-matter keys the dialect accepts and ignores (section 3.1
// of spec/dialect-claude-code.md). They are left out with a warning.
var ignoredAgentKeys = []string{"prompt", "skills", "hooks", "mcpServers", "maxTurns", "isolation",
	"effort", "memory", "color", "initialPrompt"}

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// depthEnv is the environment variable Claude Code reads for its subagent
// depth limit (reference/claude-code.md rule 2.10).
const depthEnv = "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH"

// ClaudeCode reads a project's Claude Code configuration into the
// claude-code policy document: the agents of .claude/agents/*.md and the
// permissions of .claude/settings.json and .claude/settings.local.json.
// dir is the project root (holding .claude) or the .claude directory.
func ClaudeCode(dir string, opt ClaudeCodeOptions) (*Result, error) {
	claude := filepath.Join(dir, ".claude")
	if st, err := os.Stat(claude); err != nil || !st.IsDir() {
		claude = dir
		if !isClaudeDir(dir) {
			return nil, &Error{File: dir, Msg: "no .claude directory here: give the project root or its .claude directory"}
		}
	}
	return ClaudeCodeFS(os.DirFS(claude), claude, opt)
}

// isClaudeDir reports whether dir looks like a .claude directory itself.
func isClaudeDir(dir string) bool {
	if filepath.Base(filepath.Clean(dir)) == ".claude" {
		st, err := os.Stat(dir)
		return err == nil && st.IsDir()
	}
	for _, name := range []string{"agents", "settings.json", "settings.local.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// ClaudeCodeFS is ClaudeCode over fsys, the contents of a .claude
// directory; prefix is that directory's name in errors and warnings.
func ClaudeCodeFS(fsys fs.FS, prefix string, opt ClaudeCodeOptions) (*Result, error) {
	c := &ccImporter{fsys: fsys, prefix: prefix, r: &Result{Dialect: DialectClaudeCode, Source: prefix}}
	agents, err := c.agents()
	if err != nil {
		return nil, err
	}
	perms, err := c.settings()
	if err != nil {
		return nil, err
	}
	doc := &Value{Kind: Object}
	doc.Members = append(doc.Members, Member{Key: "agents", Value: agents})
	if opt.BuiltInAgents != "" {
		v, err := builtInAgents(opt.BuiltInAgents)
		if err != nil {
			return nil, err
		}
		doc.Members = append(doc.Members, Member{Key: "builtInAgents", Value: v})
	}
	if perms != nil {
		doc.Members = append(doc.Members, Member{Key: "permissions", Value: perms})
	}
	switch {
	case opt.MaxSubagentDepth > 0:
		if c.depth != nil {
			c.warn(c.depth.file, c.depth.pos, "env."+depthEnv, "the depth given on the command line (%d) replaces %s=%s", opt.MaxSubagentDepth, depthEnv, c.depthText)
		}
		doc.Members = append(doc.Members, Member{Key: "maxSubagentDepth", Value: &Value{Kind: Number, Num: strconv.Itoa(opt.MaxSubagentDepth)}})
	case opt.MaxSubagentDepth < 0:
		return nil, &Error{Msg: fmt.Sprintf("the maximum subagent depth must be at least 1, got %d", opt.MaxSubagentDepth)}
	case c.depth != nil:
		c.r.record("maxSubagentDepth", c.depth.file, c.depth.pos)
		doc.Members = append(doc.Members, Member{Key: "maxSubagentDepth", Value: &Value{Kind: Number, Num: c.depthText}})
	}
	if c.r.Document, err = doc.AppendJSON(nil, prefix); err != nil {
		return nil, err
	}
	return c.r, nil
}

func builtInAgents(s string) (*Value, error) {
	switch strings.TrimSpace(s) {
	case "true", "false":
		return &Value{Kind: Bool, Bool: strings.TrimSpace(s) == "true"}, nil
	}
	list := &Value{Kind: Array}
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			list.Elems = append(list.Elems, &Value{Kind: String, Str: name})
		}
	}
	return list, nil
}

type ccImporter struct {
	fsys   fs.FS
	prefix string
	r      *Result

	depth     *place // where settings set the depth variable, nil when none did
	depthText string
}

func (c *ccImporter) name(rel string) string { return filepath.Join(c.prefix, filepath.FromSlash(rel)) }

func (c *ccImporter) warn(file string, at Pos, path, format string, args ...any) {
	c.r.Warnings = append(c.r.Warnings, Warning{File: file, Line: at.Line, Col: at.Col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// agents reads agents/*.md, sorted by agent name.
func (c *ccImporter) agents() (*Value, error) {
	out := &Value{Kind: Object}
	entries, err := fs.ReadDir(c.fsys, "agents")
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, &Error{File: c.name("agents"), Msg: err.Error()}
	}
	type named struct {
		name string
		file string
		line int
		v    *Value
	}
	var all []named
	for _, e := range entries {
		rel := path.Join("agents", e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			c.warn(c.name(rel), Pos{}, "", "skipped: only agents/*.md files define agents")
			continue
		}
		src, err := fs.ReadFile(c.fsys, rel)
		if err != nil {
			return nil, &Error{File: c.name(rel), Msg: err.Error()}
		}
		a, err := c.agent(c.name(rel), src)
		if err != nil {
			return nil, err
		}
		for _, prev := range all {
			if prev.name == a.name {
				return nil, &Error{File: a.file, Line: a.line, Msg: fmt.Sprintf("front matter: agent %q is already defined in %s", a.name, prev.file)}
			}
		}
		all = append(all, named{a.name, a.file, a.line, a.v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	for _, a := range all {
		out.Members = append(out.Members, Member{Key: a.name, Value: a.v})
	}
	return out, nil
}

// settings reads settings.json then settings.local.json and merges their
// permissions: rule lists and directories in file order without
// duplicates; a scalar in the local file replaces the shared one. It
// returns nil when neither file has permissions.
func (c *ccImporter) settings() (*Value, error) {
	m := &permMerge{c: c, lists: map[string]*Value{}, scalars: map[string]*Value{}, from: map[string]string{}}
	found := false
	for _, rel := range []string{"settings.json", "settings.local.json"} {
		src, err := fs.ReadFile(c.fsys, rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &Error{File: c.name(rel), Msg: err.Error()}
		}
		has, err := m.file(c.name(rel), src)
		if err != nil {
			return nil, err
		}
		found = found || has
	}
	if !found {
		return nil, nil
	}
	out := &Value{Kind: Object}
	for _, k := range []string{"allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"} {
		if v := m.lists[k]; v != nil {
			out.Members = append(out.Members, Member{Key: k, Value: v})
		}
		if v := m.scalars[k]; v != nil {
			out.Members = append(out.Members, Member{Key: k, Value: v})
		}
	}
	return out, nil
}

type permMerge struct {
	c       *ccImporter
	lists   map[string]*Value
	scalars map[string]*Value
	from    map[string]string // scalar key -> file that set it
}

var (
	permLists   = []string{"allow", "ask", "deny", "additionalDirectories"}
	permScalars = []string{"defaultMode", "disableBypassPermissionsMode"}
)

// file merges one settings file and reports whether it has permissions.
func (m *permMerge) file(file string, src []byte) (bool, error) {
	c := m.c
	root, err := ParseJSON5(file, src)
	if err != nil {
		return false, err
	}
	if root.Kind != Object {
		return false, &Error{File: file, Line: root.Pos.Line, Col: root.Pos.Col, Msg: "settings must be an object, got " + root.Kind.String()}
	}
	has := false
	for _, top := range root.Members {
		switch top.Key {
		case "permissions":
			has = true
			if err := m.permissions(file, top.Value); err != nil {
				return false, err
			}
		case "env":
			if err := m.env(file, top); err != nil {
				return false, err
			}
		default:
			c.warn(file, top.KeyPos, top.Key, "dropped %s: not part of the claude-code policy document", top.Key)
		}
	}
	return has, nil
}

func (m *permMerge) permissions(file string, v *Value) error {
	c := m.c
	if v.Kind != Object {
		return &Error{File: file, Line: v.Pos.Line, Col: v.Pos.Col, Msg: "permissions must be an object, got " + v.Kind.String()}
	}
	for _, p := range v.Members {
		key := join("permissions", p.Key)
		switch {
		case contains(permLists, p.Key):
			if p.Value.Kind != Array {
				return &Error{File: file, Line: p.Value.Pos.Line, Col: p.Value.Pos.Col, Msg: key + " must be a list of strings, got " + p.Value.Kind.String()}
			}
			list := m.lists[p.Key]
			if list == nil {
				list = &Value{Kind: Array}
				m.lists[p.Key] = list
				c.r.record(key, file, p.KeyPos)
			}
		rules:
			for i, e := range p.Value.Elems {
				if e.Kind != String {
					return &Error{File: file, Line: e.Pos.Line, Col: e.Pos.Col, Msg: fmt.Sprintf("%s[%d] must be a string, got %s", key, i, e.Kind)}
				}
				for _, have := range list.Elems {
					if have.Str == e.Str {
						continue rules
					}
				}
				c.r.record(index(key, len(list.Elems)), file, e.Pos)
				list.Elems = append(list.Elems, e)
			}
		case contains(permScalars, p.Key):
			if p.Value.Kind != String {
				return &Error{File: file, Line: p.Value.Pos.Line, Col: p.Value.Pos.Col, Msg: key + " must be a string, got " + p.Value.Kind.String()}
			}
			if prev := m.scalars[p.Key]; prev != nil && prev.Str != p.Value.Str {
				c.warn(file, p.KeyPos, key, "%s %q replaces %q from %s", key, p.Value.Str, prev.Str, m.from[p.Key])
			}
			m.scalars[p.Key], m.from[p.Key] = p.Value, file
			c.r.record(key, file, p.KeyPos)
		default:
			c.warn(file, p.KeyPos, key, "dropped %s: not part of the claude-code policy document", key)
		}
	}
	return nil
}

// env reads the subagent depth limit from a settings file's env section;
// the rest of env is dropped.
func (m *permMerge) env(file string, top Member) error {
	c := m.c
	v := top.Value
	d := v.Get(depthEnv)
	if v.Kind != Object || d == nil {
		c.warn(file, top.KeyPos, "env", "dropped env: not part of the claude-code policy document")
		return nil
	}
	text := d.Value.Str
	if d.Value.Kind == Number {
		text = d.Value.Num
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if (d.Value.Kind != String && d.Value.Kind != Number) || err != nil || n < 1 {
		return &Error{File: file, Line: d.Value.Pos.Line, Col: d.Value.Pos.Col, Msg: "env." + depthEnv + " must be a whole number of at least 1"}
	}
	if m.c.depth != nil && m.c.depthText != strconv.Itoa(n) {
		c.warn(file, d.KeyPos, "env."+depthEnv, "%s=%d replaces %s from %s", depthEnv, n, m.c.depthText, m.c.depth.file)
	}
	m.c.depth, m.c.depthText = &place{file, d.KeyPos}, strconv.Itoa(n)
	if len(v.Members) > 1 {
		c.warn(file, top.KeyPos, "env", "dropped env except %s (imported as maxSubagentDepth %d): not part of the claude-code policy document", depthEnv, n)
	} else {
		c.warn(file, d.KeyPos, "env."+depthEnv, "imported %s as maxSubagentDepth %d", depthEnv, n)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
