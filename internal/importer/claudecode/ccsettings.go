package ccimport

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/jsontree"
)

// Settings are layered as Claude Code 2.1.328 layers them; each rule was
// checked against the CLI with tool calls scripted by a model on loopback,
// by whether the call ran or was refused (permission_denials):
//
//   - the scopes are user (CLAUDE_CONFIG_DIR/settings.json, else
//     ~/.claude/settings.json), project (.claude/settings.json) and local
//     (.claude/settings.local.json), in that order;
//   - allow, ask, deny and additionalDirectories are merged across scopes,
//     in scope order, without repeats. CLI: allow rules from the three
//     scopes all applied; a deny in any scope refused the call whatever
//     another scope allowed (user deny over project allow, project deny
//     over local allow, local deny over user allow); an ask in any scope
//     won over an allow in another;
//   - blockReadsOutsideWorkingDirectories and
//     blockWritesOutsideWorkingDirectories: true when any scope sets it
//     true (blockReadsKey);
//   - defaultMode and disableBypassPermissionsMode: the last scope that
//     sets one wins. CLI: user acceptEdits alone applied; project default
//     over user acceptEdits, local default over project acceptEdits, local
//     acceptEdits over project default, project acceptEdits over user plan;
//   - a file Claude Code cannot read is ignored whole: not strict JSON (a
//     comment or a trailing comma is enough), not an object, or a
//     permissions key of the wrong type (permissions null, deny a string,
//     defaultMode unknown, disableBypassPermissionsMode not "disable",
//     additionalDirectories not a list of strings, env not an object).
//     CLI: each such file's rules did not apply ("Invalid setting skipped"
//     in the debug log), the other files' did. A non-string in allow, ask
//     or deny is dropped alone (CLI: the other rules of the file applied). A repeated key: the last wins (CLI). A
//     byte order mark is fine (CLI).
//
// Claude Code also ignores a file in which a key the importer does not read
// has the wrong type ("model": 5, CLI), or whose hooks are malformed: the
// checks of every such key are CheckSettings' (settingsschema.go), which
// hook install uses too; the import warns about such a file and keeps its
// rules (readSettings).

// settingsModes are the defaultMode values Claude Code accepts (manual is
// default; CLI: "manual" applied, "yolo" and 5 made it ignore the file).
var settingsModes = append([]string{"manual"}, ccModes...)

// settingsFile is one settings file's permissions, checked.
type settingsFile struct {
	file   string
	lists  map[string][]*Value
	keys   map[string]Pos // where each permissions key was written
	modes  map[string]*Value
	depth  *Member // env.CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH
	depthN int
}

// readSettings reads one settings file. It returns nil and a warning when
// Claude Code would ignore the file.
func (c *ccImporter) readSettings(file string, src []byte) (*settingsFile, *importer.Warning, error) {
	root, err := parseStrictJSON(file, src, &c.r.Warnings)
	if err != nil {
		var e *importer.Error
		if errors.As(err, &e) {
			return nil, skipped(file, Pos{Line: e.Line, Col: e.Col}, "%s: Claude Code reads settings as strict JSON (no comments, no trailing commas) and ignores this whole file, so none of its rules apply", e.Msg), nil
		}
		return nil, nil, err
	}
	// A file Claude Code ignores for a key the import reads is skipped, as
	// Claude Code skips it; for another key (its type as the release's
	// schema declares it, or malformed hooks) it is imported with a
	// warning: a file skipped wrongly would drop its deny rules, so the
	// ledger keeps them, a deliberate fail-closed choice (hook install
	// refuses to write into either: CheckSettings;
	// TestClaudeCodeSkipsIgnoredSettings).
	if e := checkSettings(root, false); e != nil {
		return nil, skipped(file, e.Pos, "%s", e.Error()+": Claude Code ignores this whole file when it does not match its settings schema, so none of its rules apply"), nil
	}
	if e := CheckSettings(root); e != nil {
		c.warn(file, e.Pos, e.Path, "%s: by its settings schema Claude Code 2.1.328 ignores this whole file, rules included; the ledger imports its rules all the same (fail closed): fix %s so that both apply them", e.Error(), e.Path)
	}
	s := &settingsFile{file: file, lists: map[string][]*Value{}, keys: map[string]Pos{}, modes: map[string]*Value{}}
	var later []func()
	for _, top := range root.Members {
		switch top.Key {
		case "permissions":
			for _, m := range top.Value.Members {
				key := importer.JoinPath("permissions", m.Key)
				switch {
				case contains(permLists, m.Key):
					s.keys[m.Key] = m.KeyPos
					var list []*Value
					for i, e := range m.Value.Elems {
						if e.Kind != String {
							i, e := i, e
							later = append(later, func() {
								c.warn(file, e.Pos, importer.IndexPath(key, i), "dropped %s[%d]: %s, not a string (Claude Code drops it and keeps the rest of the file)", key, i, e.Kind)
							})
							continue
						}
						list = append(list, e)
					}
					s.lists[m.Key] = list
				case m.Key == "defaultMode", m.Key == "disableBypassPermissionsMode", m.Key == blockReadsKey, m.Key == blockWritesKey:
					s.keys[m.Key], s.modes[m.Key] = m.KeyPos, m.Value
				default:
					later = append(later, func() {
						c.warn(file, m.KeyPos, key, "dropped %s: not part of the claude-code policy document", key)
					})
				}
			}
		case "env":
			top := top
			d := top.Value.Get(depthEnv)
			if d == nil {
				later = append(later, func() {
					c.warn(file, top.KeyPos, "env", "dropped env: not part of the claude-code policy document")
				})
				continue
			}
			n, err := depthOf(file, d)
			if err != nil {
				return nil, nil, err
			}
			s.depth, s.depthN = d, n
			later = append(later, func() {
				if len(top.Value.Members) > 1 {
					c.warn(file, top.KeyPos, "env", "dropped env except %s (imported as maxSubagentDepth %d): not part of the claude-code policy document", depthEnv, n)
				} else {
					c.warn(file, d.KeyPos, "env."+depthEnv, "imported %s as maxSubagentDepth %d", depthEnv, n)
				}
			})
		default:
			top := top
			later = append(later, func() {
				c.warn(file, top.KeyPos, top.Key, "dropped %s: not part of the claude-code policy document", top.Key)
			})
		}
	}
	for _, f := range later {
		f()
	}
	return s, nil, nil
}

// short shows a settings value in a message.
func short(v *Value) string {
	switch v.Kind {
	case String:
		return strconv.Quote(v.Str)
	case Number:
		return v.Num
	case Bool:
		return strconv.FormatBool(v.Bool)
	}
	return v.Kind.String()
}

var (
	permLists   = []string{"allow", "ask", "deny", "additionalDirectories"}
	permScalars = []string{"defaultMode", "disableBypassPermissionsMode"}
)

// blockReadsKey is permissions.blockReadsOutsideWorkingDirectories. It is
// imported true when any scope sets it true: a scope that sets it false
// does not lift another's block ("true in any settings source wins", the
// release's settings schema says).
const blockReadsKey = "blockReadsOutsideWorkingDirectories"

// blockWritesKey is permissions.blockWritesOutsideWorkingDirectories,
// imported as blockReadsKey is ("true in any settings source wins", the
// release's schema says of both).
const blockWritesKey = "blockWritesOutsideWorkingDirectories"

// layer merges the settings files, in scope order, into the permissions
// object (nil when no file has permissions) and sets the depth.
func (c *ccImporter) layer(files []*settingsFile) (*Value, error) {
	lists := map[string]*Value{}
	have := map[string]map[string]bool{} // the rules of each list, against repeats
	// Sized once for every rule: a large file's maps would otherwise be
	// rebuilt as they grow.
	total := map[string]int{}
	for _, s := range files {
		for k, l := range s.lists {
			total[k] += len(l)
		}
	}
	c.r.Reserve(total["allow"] + total["ask"] + total["deny"] + total["additionalDirectories"])
	scalars := map[string]*Value{}
	from := map[string]string{}
	for _, s := range files {
		for _, k := range permLists {
			l, ok := s.lists[k]
			if !ok {
				continue
			}
			key := importer.JoinPath("permissions", k)
			list := lists[k]
			if list == nil {
				list = &Value{Kind: Array}
				lists[k], have[k] = list, make(map[string]bool, total[k])
				c.r.Record(key, s.file, s.keys[k])
			}
			for _, e := range l {
				if have[k][e.Str] {
					continue
				}
				have[k][e.Str] = true
				c.r.Record(importer.IndexPath(key, len(list.Elems)), s.file, e.Pos)
				list.Elems = append(list.Elems, e)
			}
		}
		for _, k := range permScalars {
			v, ok := s.modes[k]
			if !ok {
				continue
			}
			key := importer.JoinPath("permissions", k)
			if prev := scalars[k]; prev != nil && prev.Str != v.Str {
				c.warn(s.file, s.keys[k], key, "%s %q replaces %q from %s", key, v.Str, prev.Str, from[k])
			}
			scalars[k], from[k] = v, s.file
			c.r.Record(key, s.file, s.keys[k])
		}
		for _, k := range []string{blockReadsKey, blockWritesKey} {
			if v, ok := s.modes[k]; ok && v.Bool && scalars[k] == nil {
				scalars[k] = v
				c.r.Record(importer.JoinPath("permissions", k), s.file, s.keys[k])
			}
		}
		if s.depth != nil {
			n := strconv.Itoa(s.depthN)
			if c.depth != nil && c.depthText != n {
				c.warn(s.file, s.depth.KeyPos, "env."+depthEnv, "%s=%s replaces %s from %s", depthEnv, n, c.depthText, c.depth.file)
			}
			c.depth, c.depthText = &place{s.file, s.depth.KeyPos}, n
		}
	}
	if len(lists) == 0 && len(scalars) == 0 {
		return nil, nil
	}
	out := &Value{Kind: Object}
	for _, k := range []string{"allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode", blockReadsKey,
		blockWritesKey} {
		if v := lists[k]; v != nil {
			out.Members = append(out.Members, Member{Key: k, Value: v})
		}
		if v := scalars[k]; v != nil {
			out.Members = append(out.Members, Member{Key: k, Value: v})
		}
	}
	return out, nil
}

// depthOf reads the subagent depth limit of a settings file's env.
func depthOf(file string, d *Member) (int, error) {
	text := d.Value.Str
	if d.Value.Kind == Number {
		text = d.Value.Num
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if (d.Value.Kind != String && d.Value.Kind != Number) || err != nil || n < 1 {
		return 0, &importer.Error{File: file, Line: d.Value.Pos.Line, Col: d.Value.Pos.Col, Msg: "env." + depthEnv + " must be a whole number of at least 1"}
	}
	return n, nil
}

// parseStrictJSON reads one JSON value as JavaScript's JSON.parse does, with
// positions: a repeated key keeps the last value (reported in warns).
// Errors are *importer.Error naming file, line and column.
func parseStrictJSON(file string, src []byte, warns *[]importer.Warning) (*Value, error) {
	return jsontree.ParseStrict(file, src, func(m Member, first Pos) {
		*warns = append(*warns, importer.Warning{File: file, Line: m.KeyPos.Line, Col: m.KeyPos.Col, Path: m.Key,
			Msg: fmt.Sprintf("key %q repeated (first at %d:%d): Claude Code keeps the last", m.Key, first.Line, first.Col)})
	})
}

// UserRule rewrites a rule of the user's settings (in userDir, the user's
// Claude Code directory) as the document reads it: Claude Code 2.1.328
// anchors a Read or Edit path "/x" at the directory of the settings file
// that holds it, so in user settings "/x" is userDir/x, not the project's
// (internal/claudecodetest TestDifferential/i25-user-settings-anchor). It
// becomes "~/REL/x" when userDir is under home, else "//ABS/x"; any other
// rule is returned as it is, with false.
func UserRule(rule, userDir, home string) (string, bool) {
	open := strings.IndexByte(rule, '(')
	if open < 0 || !strings.HasSuffix(rule, ")") {
		return rule, false
	}
	name, spec := rule[:open], rule[open+1:len(rule)-1]
	if name != "Read" && name != "Edit" || !strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "//") {
		return rule, false
	}
	dir := filepath.ToSlash(filepath.Clean(userDir))
	if !strings.HasPrefix(dir, "/") {
		return rule, false
	}
	anchor := "/" + dir
	if h := filepath.ToSlash(filepath.Clean(home)); strings.HasPrefix(h, "/") {
		if dir == h {
			anchor = "~"
		} else if rel, ok := strings.CutPrefix(dir, strings.TrimSuffix(h, "/")+"/"); ok {
			anchor = "~/" + rel
		}
	}
	return name + "(" + anchor + spec + ")", true
}
