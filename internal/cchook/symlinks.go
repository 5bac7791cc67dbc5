package cchook

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope/claudecode"
)

// Claude Code 2.1.328 checks a Read, Edit or Write path rule against every
// spelling of the tool's path through symbolic links: the path as given,
// each link the path's last component leads through, and the path with
// every link resolved (a name that does not exist yet: its nearest
// existing directory resolved, the rest as given). A deny rule naming the
// target of a link denies the link (internal/claudecodetest
// TestDifferential/files-symlinks-*; its cli.js: the permission spellings
// of a path, Di/bi, read by the Read and Edit permission checks). The fold
// reads no file system, so the hook, which runs where and when the call is
// made, records them under claudecode.PathsKey: "resolved" lists the
// spellings other than the path as given, and "link" says the path is
// itself a symbolic link, through which the CLI writes nothing.

// maxLinkHops bounds the links followed from a path's last component, as
// the CLI's 32.
const maxLinkHops = 32

// procPaths are paths that name another process's view of the file system
// (the hook is not Claude Code's process): never resolved, as the CLI
// leaves them unexamined too.
var procPaths = regexp.MustCompile(`^/(?:dev/fd|proc/(?:self|thread-self|\d+)(?:/task/\d+)?/(?:root|cwd|exe|fd|map_files))(?:/|$)`)

// LinkedPaths returns the spellings of path, an absolute clean path,
// through symbolic links other than path itself, in the order the links
// are met, and whether path itself is a link. Nothing when nothing on the
// path is a link, when path is not absolute and clean, or when it is one
// of procPaths; a link that cannot be read ends what is found.
//
// A spelling under the resolved form of one of roots (the project, the
// home directory) is written under the root as given: the CLI holds a
// working directory and its resolved form for the same (a project under
// a linked /tmp or home is no link to leave it by), and the dialect
// anchors rules and the working directories at the roots as given.
func LinkedPaths(path string, roots ...string) (resolved []string, link bool) {
	return newLinker(roots).linked(path)
}

// linker resolves paths through links against a set of roots
// (LinkedPaths), their resolved forms found once.
type linker struct {
	aliases []alias
	// dirs are the directories resolved so far (realPath), by path.
	dirs map[string]resolvedDir
}

// resolvedDir is realPath's answer for a directory.
type resolvedDir struct {
	real string
	ok   bool
}

// alias is a root's resolved form and the root as given.
type alias struct{ real, given string }

func newLinker(roots []string) *linker {
	var l linker
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			continue
		}
		r = filepath.Clean(r)
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			l.aliases = append(l.aliases, alias{real, r})
		}
	}
	// The longest resolved root first: the project is under the home.
	slices.SortFunc(l.aliases, func(a, b alias) int { return len(b.real) - len(a.real) })
	return &l
}

// linked is LinkedPaths of path against the linker's roots.
func (l *linker) linked(path string) (resolved []string, link bool) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || procPaths.MatchString(path) {
		return nil, false
	}
	aliases := l.aliases
	add := func(p string) {
		p = filepath.Clean(p)
		for _, a := range aliases {
			if rest, ok := cutDir(p, a.real); ok {
				p = filepath.Join(a.given, rest)
				break
			}
		}
		if p != path && !slices.Contains(resolved, p) {
			resolved = append(resolved, p)
		}
	}
	cur := path
	plain := false // cur is no link (or nothing at all)
	for hop := 0; hop < maxLinkHops; hop++ {
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			plain = err == nil || errors.Is(err, fs.ErrNotExist)
			break
		}
		link = link || hop == 0
		target, err := os.Readlink(cur)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(cur), target)
		}
		cur = filepath.Clean(target)
		add(cur)
	}
	if real, ok := l.realPath(cur, plain); ok {
		add(real)
	}
	for i, p := range resolved {
		resolved[i] = filepath.ToSlash(p)
	}
	return resolved, link
}

// realPath is realPath(p); when p's last component is no link (plain),
// its directory resolved (once per linker) and the name as given.
func (l *linker) realPath(p string, plain bool) (string, bool) {
	dir := filepath.Dir(p)
	if !plain || dir == p {
		return realPath(p)
	}
	r, ok := l.dirs[dir]
	if !ok {
		r.real, r.ok = realPath(dir)
		if l.dirs == nil {
			l.dirs = map[string]resolvedDir{}
		}
		l.dirs[dir] = r
	}
	if !r.ok {
		return "", false
	}
	return filepath.Join(r.real, filepath.Base(p)), true
}

// realPath is p with every link resolved; for a name that does not exist
// (yet), its nearest existing directory resolved and the rest as given.
func realPath(p string) (string, bool) {
	rest := ""
	for dir := p; ; {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest), true
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// cutDir returns p below dir ("" for dir itself); false when p is not dir
// or under it.
func cutDir(p, dir string) (string, bool) {
	if p == dir {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
	return rest, ok
}

// CommandLinks resolves, through symbolic links as LinkedPaths does, every
// path the dialect reads from the words of a Bash or Monitor call's
// command (claudecode.CommandPaths: the paths it reads and writes, its
// redirections, after a cd, in a shell -c script), input being the call
// input with claudecode.PathsKey saying where it runs. It returns, for
// each path (absolute, as the dialect reads the word) that meets a link,
// its other spellings: Claude Code 2.1.328 checks a Bash command's paths
// through links (dialect section 9.5, row 41 of section 0.2), and the
// dialect decides on every spelling. nil when no path meets a link. A
// path under /proc/self or /dev/fd is never resolved (procPaths); a path
// that does not resolve is decided as given.
func CommandLinks(tool string, input json.RawMessage, workDir, home string) map[string][]string {
	var out map[string][]string
	var l *linker
	for _, p := range claudecode.CommandPaths(tool, input) {
		if l == nil {
			l = newLinker([]string{workDir, home})
		}
		resolved, _ := l.linked(filepath.FromSlash(p))
		if len(resolved) == 0 {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[p] = resolved
	}
	return out
}
