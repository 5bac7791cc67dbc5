package cchook

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/safefile"
)

// Scopes and identity. A root session is bound to one scope for its life;
// the hook derives it from the project Claude Code runs in, reading the git
// repository's own files (never running git: the hook is a process per
// event, and its start-up is its cost).

// ScopePrefix starts every scope name the hook derives, so that a
// derived scope never takes the name of another runtime's or an operator's.
const ScopePrefix = Dialect + ":"

// Runtime is the runtime session.started names.
const Runtime = "claude-code"

// Repo is what the hook reads of the git repository a project is in.
type Repo struct {
	// Root is the work tree's top directory: the one holding .git.
	Root string
	// Origin is remote "origin"'s url as configured (credentials and
	// all; see RedactRemote), "" when there is none.
	Origin string
	// Branch is the branch HEAD names; "" when HEAD is detached.
	Branch string
}

// Location is where a project is: its directory and the repository it is
// in, if any.
type Location struct {
	// Dir is the project directory (absolute).
	Dir string
	// Repo is the repository Dir is in; nil when it is in none.
	Repo *Repo
	// Sub is Dir relative to Repo.Root, in slash form, when Dir is below the
	// root and holds a .claude directory of its own (a project inside a
	// monorepo: its own policy source); "" otherwise.
	Sub string
}

// Project is the identity's project: the repository's root (with Sub, the
// sub-project's directory), else the project directory.
func (l Location) Project() string {
	if l.Repo != nil && l.Sub == "" {
		return l.Repo.Root
	}
	return l.Dir
}

// PathNamed reports whether the project's scope is named by its path (and
// so by the host's name too): it is in no repository, or in one without a
// remote origin.
func (l Location) PathNamed() bool {
	if l.Repo == nil || l.Repo.Origin == "" {
		return true
	}
	_, local := RemoteIdentity(l.Repo.Origin)
	return local
}

// maxGitFile bounds a read of a repository's HEAD, config, commondir or
// .git file.
const maxGitFile = 1 << 20

// LocateProject finds the repository dir is in (see FindRepo) and whether
// dir is a sub-project of it. read reads a file (when nil,
// safefile.ReadFile with a limit of maxGitFile bytes: the repository's
// files are the project's, which may be a clone of anyone's).
func LocateProject(dir string, read func(string) ([]byte, error)) Location {
	if read == nil {
		read = func(path string) ([]byte, error) { return safefile.ReadFile(path, maxGitFile) }
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	loc := Location{Dir: dir, Repo: FindRepo(dir, read)}
	if loc.Repo != nil && loc.Repo.Root != dir {
		if st, err := os.Stat(filepath.Join(dir, ".claude")); err == nil && st.IsDir() {
			if rel, err := filepath.Rel(loc.Repo.Root, dir); err == nil && !strings.HasPrefix(rel, "..") {
				loc.Sub = filepath.ToSlash(rel)
			}
		}
	}
	return loc
}

// maxGitWalk bounds how many directories FindRepo climbs.
const maxGitWalk = 64

// FindRepo finds the git repository holding dir, as git does: the nearest
// directory at or above dir with a .git directory, or a .git file naming
// the git directory ("gitdir: PATH", a linked worktree's or a
// submodule's). It reads HEAD from the git directory and remote "origin"
// from the config of the common directory (a linked worktree's
// "commondir"). nil when there is no repository.
//
// It does not follow include.path, url.<base>.insteadOf, GIT_DIR or
// core.worktree: the origin is the url as the repository's own config
// writes it.
func FindRepo(dir string, read func(string) ([]byte, error)) *Repo {
	dir = filepath.Clean(dir)
	for range maxGitWalk {
		if gitDir := gitDirAt(dir, read); gitDir != "" {
			repo := &Repo{Root: dir}
			if head, err := read(filepath.Join(gitDir, "HEAD")); err == nil {
				repo.Branch = ParseHEAD(head)
			}
			common := gitDir
			if b, err := read(filepath.Join(gitDir, "commondir")); err == nil {
				if c := strings.TrimSpace(string(b)); c != "" {
					if !filepath.IsAbs(c) {
						c = filepath.Join(gitDir, c)
					}
					common = filepath.Clean(c)
				}
			}
			if cfg, err := read(filepath.Join(common, "config")); err == nil {
				repo.Origin = ParseOrigin(cfg)
			}
			return repo
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
	return nil
}

// gitDirAt is the git directory of a work tree rooted at dir, or "".
func gitDirAt(dir string, read func(string) ([]byte, error)) string {
	dotGit := filepath.Join(dir, ".git")
	if _, err := read(filepath.Join(dotGit, "HEAD")); err == nil {
		return dotGit
	}
	b, err := read(dotGit)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if p = strings.TrimSpace(p); !ok || p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// ParseHEAD is the branch a HEAD file names ("ref: refs/heads/NAME"); ""
// for a detached HEAD (a commit id) or anything else.
func ParseHEAD(b []byte) string {
	s := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(s, "ref:")
	if !ok {
		return ""
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
	if !ok {
		return ""
	}
	return branch
}

// ParseOrigin is remote "origin"'s url in a git config file (the first
// one, as fetch uses); "" when there is none. It reads git's syntax:
// sections [remote "origin"] (and the old [remote.origin]), names case
// insensitive, values with quotes, escapes and # or ; comments.
func ParseOrigin(cfg []byte) string {
	inOrigin := false
	for _, line := range strings.Split(string(cfg), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				inOrigin = false
				continue
			}
			inOrigin = isOriginSection(line[1:end])
			line = strings.TrimSpace(line[end+1:])
		}
		if !inOrigin || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, value, _ := strings.Cut(line, "=")
		if strings.EqualFold(strings.TrimSpace(name), "url") {
			return configValue(value)
		}
	}
	return ""
}

// isOriginSection reports whether a section header's inside names remote
// "origin": `remote "origin"` or the old `remote.origin`.
func isOriginSection(h string) bool {
	h = strings.TrimSpace(h)
	if name, sub, ok := strings.Cut(h, " "); ok {
		return strings.EqualFold(name, "remote") && strings.TrimSpace(sub) == `"origin"`
	}
	name, sub, ok := strings.Cut(h, ".")
	return ok && strings.EqualFold(name, "remote") && strings.EqualFold(sub, "origin")
}

// configValue reads a git config value: quotes removed, \" \\ \n \t
// escapes, a # or ; outside quotes starting a comment, outer spaces
// trimmed.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	pending := 0 // spaces seen outside quotes, kept only if more follows
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			default:
				c = v[i]
			}
		case c == '"':
			quoted = !quoted
			continue
		case !quoted && (c == '#' || c == ';'):
			return b.String()
		case !quoted && (c == ' ' || c == '\t'):
			if b.Len() > 0 {
				pending++
			}
			continue
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// RedactRemote is a remote url without its credentials: an http(s) url
// loses its whole user part (a token is often the user name), any other
// url with a scheme its password; an scp-like [user@]host:path keeps its
// user (ssh's, not a secret) but loses a password. Anything else (a path)
// is returned as it is.
func RedactRemote(remote string) string {
	if i := strings.Index(remote, "://"); i > 0 {
		u, err := url.Parse(remote)
		if err != nil {
			// Unparseable: drop anything up to the last @ of the authority.
			auth, path, slash := strings.Cut(remote[i+3:], "/")
			if at := strings.LastIndexByte(auth, '@'); at >= 0 {
				auth = auth[at+1:]
			}
			if slash {
				path = "/" + path
			}
			return remote[:i+3] + auth + path
		}
		if u.User == nil {
			return remote
		}
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			u.User = nil
		default:
			if _, has := u.User.Password(); has {
				u.User = url.User(u.User.Username())
			}
		}
		return u.String()
	}
	if user, host, ok := scpLike(remote); ok && strings.Contains(user, ":") {
		name, _, _ := strings.Cut(user, ":")
		return name + "@" + host
	}
	return remote
}

// scpLike splits git's scp-like remote syntax, [user@]host:path (no
// "://", and a colon before any slash), into its user and the rest.
func scpLike(remote string) (user, hostPath string, ok bool) {
	colon := strings.IndexByte(remote, ':')
	slash := strings.IndexByte(remote, '/')
	if colon <= 0 || (slash >= 0 && slash < colon) || strings.Contains(remote, "://") {
		return "", "", false
	}
	if at := strings.LastIndexByte(remote[:strings.LastIndexByte(remote, ':')+1], '@'); at >= 0 {
		rest := remote[at+1:]
		if strings.IndexByte(rest, ':') > 0 {
			return remote[:at], rest, true
		}
	}
	return "", remote, true
}

// RemoteIdentity is what names a repository across its clones: the host
// (lower case, without port or user) and path (without a .git suffix or
// outer slashes) of its remote url, as "host/path". A local remote (a path
// or a file:// url) is "" with local true: a path names a repository on
// one machine only. Path case is kept: two hosts may tell it apart.
func RemoteIdentity(remote string) (id string, local bool) {
	var host, path string
	if i := strings.Index(remote, "://"); i > 0 {
		u, err := url.Parse(remote)
		if err != nil {
			return "", true
		}
		if strings.EqualFold(u.Scheme, "file") || u.Host == "" {
			return "", true
		}
		host, path = u.Hostname(), u.Path
	} else if _, hp, ok := scpLike(remote); ok {
		host, path, _ = strings.Cut(hp, ":")
	} else {
		return "", true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	path = strings.Trim(path, "/")
	if host == "" {
		return "", true
	}
	if path == "" {
		return host, false
	}
	return host + "/" + path, false
}

// hashLen is how many hex digits of SHA-256 a derived scope name ends
// with.
const hashLen = 8

// ScopeOf is the scope the hook derives for a project (deterministic, and
// a function of the project only, not of the session):
//
//   - a repository with a non-local origin: ScopePrefix + its remote
//     identity (RemoteIdentity) made readable + "-" + 8 hex digits of
//     SHA-256 over "repo", the identity and Sub. Every clone of one
//     repository is one scope, on every machine;
//     https://github.com/acme/api.git is claude-code:github-com-acme-api-<hash>.
//   - a repository without one (or with a local path as origin): the root's
//     base name + "-" + the hash of "path", host and root (and Sub);
//   - no repository: the directory's base name + "-" + the hash of
//     "path", host and the directory.
//
// A sub-project (Location.Sub) adds its path to the readable part and the
// hash. The readable part is the identity with every character other
// than [A-Za-z0-9_] made "-", runs of "-" made one, cut from the left to
// fit 128 characters in all; the hash keeps apart what it makes alike
// (acme/api-x and acme-api/x). A path names a project on one machine
// only, so a path-derived scope includes the host's name.
func ScopeOf(loc Location, host string) string {
	var readable, key string
	sub := ""
	if loc.Sub != "" {
		sub = "/" + loc.Sub
	}
	switch {
	case !loc.PathNamed():
		id, _ := RemoteIdentity(loc.Repo.Origin)
		readable, key = id+sub, "repo\x00"+id+"\x00"+loc.Sub
	case loc.Repo != nil:
		readable, key = filepath.Base(loc.Repo.Root)+sub, "path\x00"+host+"\x00"+loc.Repo.Root+"\x00"+loc.Sub
	default:
		readable, key = filepath.Base(loc.Dir), "path\x00"+host+"\x00"+loc.Dir+"\x00"
	}
	sum := sha256.Sum256([]byte(key))
	hash := hex.EncodeToString(sum[:])[:hashLen]
	readable = scopeWord(readable)
	if room := 128 - len(ScopePrefix) - 1 - hashLen; len(readable) > room {
		readable = strings.TrimLeft(readable[len(readable)-room:], "-")
	}
	if readable == "" {
		readable = "project"
	}
	return ScopePrefix + readable + "-" + hash
}

// scopeWord makes s fit a scope name: every character other than
// [A-Za-z0-9_] becomes "-", runs of "-" one, none at either end.
func scopeWord(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r < utf8.RuneSelf && (r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// Who is what the hook knows of who runs Claude Code and where.
type Who struct {
	// RuntimeVersion is Claude Code's version (RuntimeVersionOf).
	RuntimeVersion string
	// User is the configured identity, else the OS user's name.
	User string
	// Host is the machine's name.
	Host string
}

// RuntimeVersionOf reads Claude Code's version from the AI_AGENT variable
// Claude Code 2.1.328 sets for its hooks and tools:
// "claude-code_<version with dots as dashes>_<harness|agent>"
// ("claude-code_2-1-328_harness" is 2.1.328). "" when it is not of that
// form, or the version is not plain numbers (a dash in a prerelease could
// not be told from a dot).
func RuntimeVersionOf(aiAgent string) string {
	rest, ok := strings.CutPrefix(aiAgent, Runtime+"_")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "_")
	parts := strings.Split(v, "-")
	if len(parts) < 2 || len(parts) > 4 {
		return ""
	}
	for _, p := range parts {
		if p == "" || len(p) > 9 || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return strings.Join(parts, ".")
}

// StartData is the session.started of a root: the main thread in mode,
// bound to scope, with the identity the hook could know (each field cut
// to the ledger's bound; an unknown one left out).
func StartData(mode, scope string, loc *Location, who Who, model string) events.StartedData {
	d := events.StartedData{Agent: MainAgent, Mode: mode, Scope: scope, Runtime: Runtime,
		RuntimeVersion: who.RuntimeVersion, User: who.User, Host: who.Host, Model: model}
	if loc != nil {
		d.Project = loc.Project()
		if loc.Repo != nil {
			d.Repository = RedactRemote(loc.Repo.Origin)
			d.Branch = loc.Repo.Branch
		}
	}
	for _, f := range []*string{&d.RuntimeVersion, &d.Project, &d.Repository, &d.Branch, &d.User, &d.Host, &d.Model} {
		*f = cut(*f, events.MaxIdentityLen)
	}
	return d
}

// cut shortens s to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
