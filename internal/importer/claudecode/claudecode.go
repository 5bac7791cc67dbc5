package ccimport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/safefile"
)

// ClaudeCodeOptions sets what the import reads besides the project and the
// document keys that no project file holds. The zero value reads the
// project alone and leaves those keys out (the dialect's defaults).
type ClaudeCodeOptions struct {
	// BuiltInAgents is builtInAgents as written on a command line: "true",
	// "false" or a comma-separated list of built-in agent names.
	BuiltInAgents string
	// MaxSubagentDepth, when positive, is maxSubagentDepth; it replaces the
	// CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH a settings file sets in env.
	MaxSubagentDepth int
	// UserDir, when set, is the user's Claude Code directory (what Claude
	// Code finds in CLAUDE_CONFIG_DIR, or ~/.claude): its settings.json is
	// the user scope under the project's settings, and its agents/** are
	// loaded under the project's (a project agent of the same name wins).
	// A missing directory or file there is no error: nothing is read.
	UserDir string
	// FollowSymlinks reads what a symbolic link in the project leads to
	// outside the project directory. By default such a link refuses the
	// import, naming the link and its target. Links in UserDir, the user's
	// own files, are always followed.
	FollowSymlinks bool
	// MaxFileSize bounds one settings file, and MaxTotalSize everything one
	// import reads (settings and agent files, in every scope), in bytes;
	// zero means importer.DefaultMaxFileSize and importer.DefaultMaxTotalSize. A file past
	// either refuses the import with an *importer.Error naming it and the limit.
	// Agent files have Claude Code's own limit (1 MiB; a larger one is
	// skipped with a warning, as Claude Code skips it).
	MaxFileSize, MaxTotalSize int64
}

// ClaudeUserDir is the user's Claude Code directory as Claude Code finds it:
// $CLAUDE_CONFIG_DIR, else ~/.claude ("" when there is no home). CLI: with
// CLAUDE_CONFIG_DIR set, its settings.json applied and ~/.claude's did not.
func ClaudeUserDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// depthEnv is the environment variable Claude Code reads for its subagent
// depth limit (reference/claude-code.md rule 2.10).
const depthEnv = "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH"

// ClaudeCode reads a project's Claude Code configuration into the
// claude-code policy document: the agents of .claude/agents/**/*.md and the
// permissions of .claude/settings.json and .claude/settings.local.json, with
// the user's scope under them when opt.UserDir is set. dir is the project
// root (holding .claude) or the .claude directory.
//
// A file Claude Code would not load is skipped with a warning saying why;
// the rest loads. See docs/importer-claude-code.md.
//
// Every file is read through safefile: a named pipe, a device or a socket
// refuses the import (an agent file is skipped), and so does a file over
// the size limits. A symbolic link that leads out of the project directory
// (the one holding .claude, or dir itself when it is a .claude directory
// by its contents) refuses the import unless opt.FollowSymlinks is set.
//
// Nothing here can block once the limits hold, so ClaudeCode takes no
// context: see the Caveats of package safefile for file systems that can.
func ClaudeCode(dir string, opt ClaudeCodeOptions) (*importer.Result, error) {
	claude, project := filepath.Join(dir, ".claude"), dir
	if st, err := os.Stat(claude); err != nil || !st.IsDir() {
		claude = dir
		if !isClaudeDir(dir) {
			return nil, &importer.Error{File: dir, Msg: "no .claude directory here: give the project root or its .claude directory"}
		}
		if filepath.Base(filepath.Clean(dir)) == ".claude" {
			project = filepath.Dir(filepath.Clean(dir))
		}
	}
	s := scope{fsys: os.DirFS(claude), prefix: claude, name: "project", disk: true}
	if !opt.FollowSymlinks {
		root, err := realPath(project)
		if err != nil {
			return nil, &importer.Error{File: project, Msg: unwrapPath(err).Error()}
		}
		s.root = root
		if err := s.confine("."); err != nil {
			return nil, err
		}
	}
	return claudeCode(s, opt)
}

// realPath is path absolute, with every symbolic link resolved.
func realPath(path string) (string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
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
// Its files are read with safefile.ReadFS (the limits hold; a named pipe
// is refused by a stat before it is opened) and symbolic links are not
// checked: fsys decides what they lead to.
func ClaudeCodeFS(fsys fs.FS, prefix string, opt ClaudeCodeOptions) (*importer.Result, error) {
	return claudeCode(scope{fsys: fsys, prefix: prefix, name: "project"}, opt)
}

func claudeCode(project scope, opt ClaudeCodeOptions) (*importer.Result, error) {
	prefix := project.prefix
	c := &ccImporter{r: &importer.Result{Dialect: importer.DialectClaudeCode, Source: prefix}, maxFile: opt.MaxFileSize, maxTotal: opt.MaxTotalSize}
	if c.maxFile <= 0 {
		c.maxFile = importer.DefaultMaxFileSize
	}
	if c.maxTotal <= 0 {
		c.maxTotal = importer.DefaultMaxTotalSize
	}
	var user *scope
	if opt.UserDir != "" {
		if st, err := os.Stat(opt.UserDir); err == nil && st.IsDir() {
			user = &scope{fsys: os.DirFS(opt.UserDir), prefix: opt.UserDir, name: "user", disk: true}
		}
	}

	// Agents: the user's first, so that a project agent of the same name
	// replaces it (Claude Code's order: built-in, plugin, user, project).
	var agents []*agentDef
	if user != nil {
		a, err := c.agents(*user)
		if err != nil {
			return nil, err
		}
		agents = a
	}
	a, err := c.agents(project)
	if err != nil {
		return nil, err
	}
	agentsDoc := c.keep(append(agents, a...))

	var files []*settingsFile
	// userBypass: the user's own settings set defaultMode
	// bypassPermissions, which grants it to the project's files too.
	userBypass := false
	if user != nil {
		s, err := c.settings(*user, "settings.json")
		if err != nil {
			return nil, err
		}
		home, _ := os.UserHomeDir()
		dir, _ := filepath.Abs(opt.UserDir)
		for _, f := range s {
			for _, k := range []string{"allow", "ask", "deny"} {
				for _, e := range f.lists[k] {
					if to, ok := UserRule(e.Str, dir, home); ok {
						c.warn(f.file, e.Pos, "permissions."+k, "imported %q as %q: in user settings Claude Code anchors a path starting with / at the settings file's directory, not the project", e.Str, to)
						e.Str = to
					}
				}
			}
		}
		for _, f := range s {
			if m := f.modes["defaultMode"]; m != nil && m.Str == "bypassPermissions" {
				userBypass = true
			}
		}
		files = append(files, s...)
	}
	for _, rel := range []string{"settings.json", "settings.local.json"} {
		s, err := c.settings(project, rel)
		if err != nil {
			return nil, err
		}
		for _, f := range s {
			// Claude Code 2.1.328 grants bypassPermissions from user,
			// managed or command-line settings only: in the project's
			// files (which the repository controls) it reads the mode as
			// default, which still replaces a mode the user's settings set
			// (user acceptEdits under project bypassPermissions asks for a
			// Write; row 97, TestDifferential/genscopes-bypass-*), unless
			// the user's settings say bypassPermissions themselves, which
			// grants it (genscopes-bypass-project-and-user).
			if m := f.modes["defaultMode"]; m != nil && m.Str == "bypassPermissions" && !userBypass {
				c.warn(f.file, m.Pos, "permissions.defaultMode", "imported defaultMode %q as %q: Claude Code ignores bypassPermissions in a project's settings (only user, managed or command-line settings may grant it) and runs the session in default mode", m.Str, "default")
				m.Str = "default"
			}
		}
		files = append(files, s...)
	}
	perms, err := c.layer(files)
	if err != nil {
		return nil, err
	}

	// The document names the release whose tables decide its pools (the
	// pinned CLI's catalogue, built-in agents and release layer).
	doc := &Value{Kind: Object}
	doc.Members = append(doc.Members, Member{Key: "release", Value: &Value{Kind: String, Str: claudecode.LatestRelease}})
	doc.Members = append(doc.Members, Member{Key: "agents", Value: agentsDoc})
	if opt.BuiltInAgents != "" {
		doc.Members = append(doc.Members, Member{Key: "builtInAgents", Value: builtInAgents(opt.BuiltInAgents)})
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
		return nil, &importer.Error{Msg: fmt.Sprintf("the maximum subagent depth must be at least 1, got %d", opt.MaxSubagentDepth)}
	case c.depth != nil:
		c.r.Record("maxSubagentDepth", c.depth.file, c.depth.pos)
		doc.Members = append(doc.Members, Member{Key: "maxSubagentDepth", Value: &Value{Kind: Number, Num: c.depthText}})
	}
	// The document is about as large as the settings it came from: sized
	// once, it is not copied over and over as it grows.
	if c.r.Document, err = doc.AppendJSON(make([]byte, 0, c.read+512), prefix); err != nil {
		return nil, err
	}
	c.sortWarnings(user)
	return c.r, nil
}

// sortWarnings orders the warnings by scope (the user's first), file and
// place, so that they do not follow the order in which a file system lists
// a folder.
func (c *ccImporter) sortWarnings(user *scope) {
	rank := func(file string) int {
		if user != nil && strings.HasPrefix(file, user.prefix+string(filepath.Separator)) {
			return 0
		}
		return 1
	}
	sort.SliceStable(c.r.Warnings, func(i, j int) bool {
		a, b := c.r.Warnings[i], c.r.Warnings[j]
		if ra, rb := rank(a.File), rank(b.File); ra != rb {
			return ra < rb
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
}

func builtInAgents(s string) *Value {
	switch strings.TrimSpace(s) {
	case "true", "false":
		return &Value{Kind: Bool, Bool: strings.TrimSpace(s) == "true"}
	}
	list := &Value{Kind: Array}
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			list.Elems = append(list.Elems, &Value{Kind: String, Str: name})
		}
	}
	return list
}

type ccImporter struct {
	r     *importer.Result
	files fileSet // the agent files read, in every scope

	maxFile, maxTotal int64 // the limits, set
	read              int64 // the bytes read so far, in every scope

	depth     *place // where settings set the depth variable, nil when none did
	depthText string
}

// scope is one directory Claude Code reads: the project's .claude or the
// user's.
type scope struct {
	fsys   fs.FS
	prefix string
	name   string
	// disk says prefix is the directory on disk that fsys shows: files are
	// then read by name, with O_NONBLOCK.
	disk bool
	// root, when set, is the project directory (absolute, links resolved)
	// that every file read must resolve into.
	root string
}

func (s scope) file(rel string) string { return filepath.Join(s.prefix, filepath.FromSlash(rel)) }

// confine refuses rel when it resolves outside s.root. A name that does
// not resolve (missing, a dangling link) passes: reading it says why.
//
// Caveats: the check resolves the name and the read opens it again, so a
// link swapped in between is followed; the threat is a project's files as
// they were cloned, not a process racing the import.
func (s scope) confine(rel string) error {
	if s.root == "" {
		return nil
	}
	name := s.file(rel)
	real, err := realPath(name)
	if err != nil || real == s.root || strings.HasPrefix(real, s.root+string(filepath.Separator)) || s.root == string(filepath.Separator) {
		return nil
	}
	what := "resolves to " + real
	if target, err := os.Readlink(name); err == nil {
		what = "is a symbolic link to " + target
		if target != real {
			what += " (" + real + ")"
		}
	}
	return &importer.Error{File: name, Msg: what + ", outside the project " + s.root + ": a link out of the project is not followed unless asked (ledger policy import --follow-symlinks, or ClaudeCodeOptions.FollowSymlinks)"}
}

// readFile reads one file of s, at most limit bytes, and counts it against
// the import's total.
func (c *ccImporter) readFile(s scope, rel string, limit int64) ([]byte, error) {
	var src []byte
	var err error
	if s.disk {
		src, err = safefile.ReadFile(s.file(rel), limit)
	} else {
		src, err = safefile.ReadFS(s.fsys, rel, limit)
	}
	if err != nil {
		return nil, err
	}
	c.read += int64(len(src))
	if c.read > c.maxTotal {
		return nil, &importer.Error{File: s.file(rel), Msg: fmt.Sprintf("the import reads more than its limit of %s in all with this file: nothing was imported", safefile.Size(c.maxTotal))}
	}
	return src, nil
}

func (c *ccImporter) warn(file string, at Pos, path, format string, args ...any) {
	c.r.Warnings = append(c.r.Warnings, importer.Warning{File: file, Line: at.Line, Col: at.Col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (c *ccImporter) add(w *importer.Warning) { c.r.Warnings = append(c.r.Warnings, *w) }

// agents reads the agent files of one scope, in the order Claude Code
// reads them.
//
// Claude Code reads agents/ and every folder under it, following symbolic
// links, hidden names included, and takes every regular file whose name
// ends in ".md" (case matters) up to 1 MiB. CLI: agents/sub/deep/er/s01.md,
// agents/.hidden.md, agents/.hdir/x.md and a symbolic link to a file
// outside loaded; s04.MD, s05.markdown and s06.md.txt did not.
//
// The order is the directories' own (not sorted: what readdir gives,
// depth first), because the last of two agents with one name wins in
// Claude Code. CLI: of agents/n13.md and agents/sub/n13.md, both "name:
// dup-top", the one read last (n13.md, after the folder sub) was the one
// offered, and the debug log named both.
func (c *ccImporter) agents(s scope) ([]*agentDef, error) {
	var out []*agentDef
	var dirs fileSet // the folders visited, against link cycles
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := s.confine(dir); err != nil {
			return err
		}
		fi, err := fs.Stat(s.fsys, dir)
		if err != nil {
			if dir == "agents" && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			c.add(skipped(s.file(dir), Pos{}, "%v", unwrapPath(err)))
			return nil
		}
		if !fi.IsDir() {
			if dir == "agents" {
				c.add(skipped(s.file(dir), Pos{}, "agents is not a directory"))
			}
			return nil
		}
		if dirs.add(fi) {
			c.add(skipped(s.file(dir), Pos{}, "this folder was read already (a symbolic link loops back to it)"))
			return nil
		}
		entries, err := readDirUnsorted(s.fsys, dir)
		if err != nil {
			c.add(skipped(s.file(dir), Pos{}, "cannot read the folder: %v", unwrapPath(err)))
			return nil
		}
		for _, e := range entries {
			rel := path.Join(dir, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				if err := s.confine(rel); err != nil {
					return err
				}
			}
			fi, err := fs.Stat(s.fsys, rel) // follows a symbolic link
			if err != nil {
				c.add(skipped(s.file(rel), Pos{}, "%v", unwrapPath(err)))
				continue
			}
			if fi.IsDir() {
				if err := walk(rel); err != nil {
					return err
				}
				continue
			}
			if !strings.HasSuffix(e.Name(), ".md") {
				c.add(skipped(s.file(rel), Pos{}, "only .md files define agents (Claude Code ignores this file)"))
				continue
			}
			if !fi.Mode().IsRegular() {
				c.add(skipped(s.file(rel), Pos{}, "not a regular file"))
				continue
			}
			if fi.Size() > agentFileLimit {
				c.add(skipped(s.file(rel), Pos{}, "%d bytes: Claude Code skips agent files over %d bytes", fi.Size(), agentFileLimit))
				continue
			}
			// Claude Code reads a file once when two paths lead to it and
			// the path itself is not a link: lstat tells (a hard link, or a
			// file under a linked folder). A symbolic link to a file is read
			// again (CLI: again.md -> a.md gave the agent twice, a duplicate
			// name in the debug log).
			if li, err := lstat(s.fsys, rel); err == nil && c.files.add(li) {
				c.add(skipped(s.file(rel), Pos{}, "the same file was read already under another name: Claude Code reads it once"))
				continue
			}
			src, err := c.readFile(s, rel, agentFileLimit)
			var ie *importer.Error
			switch {
			case errors.As(err, &ie):
				return err
			case errors.Is(err, safefile.ErrTooLarge): // it grew since the stat
				c.add(skipped(s.file(rel), Pos{}, "over %d bytes: Claude Code skips agent files over %d bytes", agentFileLimit, agentFileLimit))
				continue
			case err != nil:
				c.add(skipped(s.file(rel), Pos{}, "cannot read the file: %v", unwrapPath(err)))
				continue
			}
			a, skip := readAgent(s.file(rel), src)
			if skip != nil {
				c.add(skip)
				continue
			}
			a.scope = s.name
			out = append(out, a)
		}
		return nil
	}
	return out, walk("agents")
}

// lstat is fs.Lstat where fsys can tell, else fs.Stat.
func lstat(fsys fs.FS, name string) (fs.FileInfo, error) {
	if _, ok := fsys.(fs.ReadLinkFS); ok {
		return fs.Lstat(fsys, name)
	}
	return fs.Stat(fsys, name)
}

// readDirUnsorted lists a directory in the order the file system gives,
// which fs.ReadDir would sort away.
func readDirUnsorted(fsys fs.FS, dir string) ([]fs.DirEntry, error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if d, ok := f.(fs.ReadDirFile); ok {
		return d.ReadDir(-1)
	}
	return fs.ReadDir(fsys, dir)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// keep settles which definition of each name is kept (the last read, as in
// Claude Code), checks each kept agent against the dialect and returns the
// agents object, sorted by name.
func (c *ccImporter) keep(all []*agentDef) *Value {
	last := map[string]int{}
	for i, a := range all {
		last[a.name] = i
	}
	var kept []*agentDef
	for i, a := range all {
		if last[a.name] != i {
			w := all[last[a.name]]
			if w.scope != a.scope {
				c.warn(a.file, a.at, importer.JoinPath("agents", a.name), "agent %q of the %s scope is replaced by the one in %s, as in Claude Code", a.name, a.scope, w.file)
				continue
			}
			c.warn(a.file, a.at, importer.JoinPath("agents", a.name), "skipped: agent %q is defined again in %s, and Claude Code keeps the one it reads last (in directory order, which another copy of this folder may change): give one of them another name", a.name, w.file)
			continue
		}
		if reason := dialectRefuses(a); reason != nil {
			c.add(reason)
			continue
		}
		kept = append(kept, a)
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].name < kept[j].name })
	out := &Value{Kind: Object}
	for _, a := range kept {
		c.r.Warnings = append(c.r.Warnings, a.warnings...)
		for p, pl := range a.places {
			c.r.Record(p, pl.file, pl.pos)
		}
		out.Members = append(out.Members, Member{Key: a.name, Value: a.v})
	}
	return out
}

// dialectRefuses checks one agent with the claude-code dialect's own
// Compile. Claude Code loads agents the dialect cannot hold (a name with a
// space, "main", permissionMode auto): such an agent is left out with a
// warning, so that a session cannot spawn it under the ledger, rather than
// the whole import refused.
func dialectRefuses(a *agentDef) *importer.Warning {
	one := &Value{Kind: Object, Members: []Member{{Key: "agents", Value: &Value{Kind: Object, Members: []Member{{Key: a.name, Value: a.v}}}}}}
	doc, err := one.AppendJSON(nil, a.file)
	if err != nil {
		return skipped(a.file, a.at, "%v", err)
	}
	r := &importer.Result{Dialect: importer.DialectClaudeCode, Source: a.file, Document: doc}
	r.Reserve(len(a.places))
	for p, pl := range a.places {
		r.Record(p, pl.file, pl.pos)
	}
	err = r.Check(claudecode.New(), nil)
	if err == nil {
		return nil
	}
	var e *importer.Error
	if !errors.As(err, &e) {
		return skipped(a.file, a.at, "%v", err)
	}
	at := Pos{Line: e.Line, Col: e.Col}
	if at.Line == 0 {
		at = a.at
	}
	return skipped(a.file, at, "Claude Code loads agent %q, but the ledger cannot hold it (sessions cannot spawn it under the ledger): %s", a.name, strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(e.Msg, "invalid claude-code policy: "), "document.", ""), "agents: "))
}

// settings reads one settings file of a scope; none when it is missing.
//
// A settings file that cannot be read refuses the import, whatever the
// reason (a named pipe, a device, over the limit): skipping it would drop
// its deny rules.
func (c *ccImporter) settings(s scope, rel string) ([]*settingsFile, error) {
	if err := s.confine(rel); err != nil {
		return nil, err
	}
	src, err := c.readFile(s, rel, c.maxFile)
	var ie *importer.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.As(err, &ie):
		return nil, err
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, &importer.Error{File: s.file(rel), Msg: fmt.Sprintf("larger than the limit of %s for a settings file: nothing was imported", safefile.Size(c.maxFile))}
	case errors.Is(err, safefile.ErrNotRegular):
		return nil, &importer.Error{File: s.file(rel), Msg: unwrapPath(err).Error() + ": settings are read only from regular files, so nothing was imported"}
	case err != nil:
		return nil, &importer.Error{File: s.file(rel), Msg: unwrapPath(err).Error()}
	}
	f, skip, err := c.readSettings(s.file(rel), src)
	if err != nil {
		return nil, err
	}
	if skip != nil {
		c.add(skip)
		return nil, nil
	}
	return []*settingsFile{f}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fileSet holds the files (or folders) read, against reading one twice. A
// lookup is O(1) where the file system gives device and inode numbers
// (comparing each with all the others made many files quadratic), and a
// comparison with os.SameFile for the others (an fs.FS in memory).
type fileSet struct {
	ids  map[fileID]bool
	rest []fs.FileInfo
}

// add adds fi and reports whether it was there already.
func (s *fileSet) add(fi fs.FileInfo) bool {
	if id, ok := idOf(fi); ok {
		if s.ids[id] {
			return true
		}
		if s.ids == nil {
			s.ids = map[fileID]bool{}
		}
		s.ids[id] = true
		return false
	}
	for _, v := range s.rest {
		if os.SameFile(v, fi) {
			return true
		}
	}
	s.rest = append(s.rest, fi)
	return false
}
