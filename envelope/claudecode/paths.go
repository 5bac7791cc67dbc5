package claudecode

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pathKind is where a path is anchored. The ledger does not know the
// working directory's absolute location, so an absolute path never equals a
// relative one (pinned decision P13).
type pathKind uint8

const (
	pathRel  pathKind = iota // relative to the session's working directory
	pathAbs                  // /...
	pathHome                 // ~ or ~/...
)

// inPath is a cleaned input path: its kind and its segments, with "" and "."
// dropped and ".." resolved (kept as a leading ".." where nothing is left to
// remove, except at the root of an absolute path).
type inPath struct {
	kind pathKind
	segs []string
	// ctx is where the call runs, when its input said (PathsKey): the path
	// is then absolute (kind pathAbs), as Claude Code's tools send it.
	ctx *pathCtx
}

// pathCtx is where a call runs, from its input's PathsKey: the project
// root (the session's working directory), the home directory and the
// directories added outside the policy, each absolute and cleaned.
type pathCtx struct {
	project []string
	home    []string
	hasHome bool
	dirs    [][]string
	// cwd is the shell's directory when it is not the project (Claude
	// Code keeps a cd between Bash calls): a relative path is read from
	// it. nil reads relative paths from the project.
	cwd []string
	// resolved are the other spellings of the call's path through
	// symbolic links, as the hook found them on the machine when the call
	// came ("resolved"), absolute and cleaned; link: the path itself is a
	// symbolic link ("link"). Section 9.5, "Symbolic links".
	resolved [][]string
	link     bool
	// linked are the other spellings through symbolic links of the paths
	// a Bash command reads and writes ("linked"): each path as the dialect
	// reads the command's word, absolute ("/" and its segments joined by
	// "/"), to its spellings, as the hook found them (bashlinks.go).
	linked map[string][][]string
	// collect, when set, is told every path of a command word the
	// decision reads (CommandPaths).
	collect func(inPath)
	// absOf and absDirs: the last working directories absAll made
	// absolute (the policy's, the same slice for every rule of a call).
	absOf   []inPath
	absDirs [][]string
}

// absAll is dirs made absolute where the call runs (abs), made once per
// call for the same slice: every rule of a decision reads them.
func (c *pathCtx) absAll(dirs []inPath) [][]string {
	if len(dirs) == 0 {
		return nil
	}
	if len(c.absOf) == len(dirs) && &c.absOf[0] == &dirs[0] {
		return c.absDirs
	}
	out := make([][]string, 0, len(dirs))
	for _, d := range dirs {
		if a, ok := c.abs(d); ok {
			out = append(out, a)
		}
	}
	c.absOf, c.absDirs = dirs, out
	return out
}

// parsePathCtx reads PathsKey's value (a valid JSON value); nil when it
// names no absolute project (then paths are read as section 9.5 reads them
// without one). The hook's form, an object of plain "project" and "home"
// strings, is read as written (plainPathCtx); anything else is decoded
// (decodePathCtx). TestNewCallIsMapDecode holds the two to the same
// context.
func parsePathCtx(raw json.RawMessage) *pathCtx {
	if project, home, cwd, ok := plainPathCtx(raw); ok {
		return newPathCtx(project, home, cwd, nil)
	}
	return decodePathCtx(raw)
}

// plainPathCtx reads an object whose every key is exactly "project",
// "home" or "cwd" and every value a plain string (plainString), the last
// of a key winning as in a decode; false for any other value.
func plainPathCtx(raw json.RawMessage) (project, home, cwd string, ok bool) {
	ok = true
	isObj := members(raw, func(k, v []byte) {
		s, plain := plainString(v)
		switch {
		case !plain:
			ok = false
		case string(k) == `"project"`:
			project = s
		case string(k) == `"home"`:
			home = s
		case string(k) == `"cwd"`:
			cwd = s
		default:
			ok = false
		}
	})
	return project, home, cwd, ok && isObj
}

func decodePathCtx(raw json.RawMessage) *pathCtx {
	var x struct {
		Project  string              `json:"project"`
		Home     string              `json:"home"`
		Cwd      string              `json:"cwd"`
		Dirs     []string            `json:"dirs"`
		Resolved []string            `json:"resolved"`
		Link     bool                `json:"link"`
		Linked   map[string][]string `json:"linked"`
	}
	if json.Unmarshal(raw, &x) != nil {
		return nil
	}
	c := newPathCtx(x.Project, x.Home, x.Cwd, x.Dirs)
	if c != nil {
		for _, r := range x.Resolved {
			if strings.HasPrefix(r, "/") {
				c.resolved = append(c.resolved, parseInputPath(r).segs)
			}
		}
		c.link = x.Link
		for k, list := range x.Linked {
			if !strings.HasPrefix(k, "/") {
				continue
			}
			var spellings [][]string
			for _, r := range list {
				if strings.HasPrefix(r, "/") {
					spellings = append(spellings, parseInputPath(r).segs)
				}
			}
			if len(spellings) > 0 {
				if c.linked == nil {
					c.linked = map[string][][]string{}
				}
				key := pathKey(parseInputPath(k).segs)
				c.linked[key] = append(c.linked[key], spellings...)
			}
		}
	}
	return c
}

func newPathCtx(project, home, cwd string, dirs []string) *pathCtx {
	if !strings.HasPrefix(project, "/") {
		return nil
	}
	c := &pathCtx{project: parseInputPath(project).segs}
	if strings.HasPrefix(home, "/") {
		c.home, c.hasHome = parseInputPath(home).segs, true
	}
	for _, d := range dirs {
		if strings.HasPrefix(d, "/") {
			c.dirs = append(c.dirs, parseInputPath(d).segs)
		}
	}
	if strings.HasPrefix(cwd, "/") {
		if segs := parseInputPath(cwd).segs; !slices.Equal(segs, c.project) {
			c.cwd = segs
		}
	}
	return c
}

// resolve reads s as Claude Code 2.1.328's tools send a path: absolute,
// "~" at the home directory, anything else under the shell's directory
// (cwd), the project unless a cd in an earlier call moved it: Claude Code
// keeps a Bash call's cd for the next calls, so after cd locked it denies
// rm x.txt under Edit(./locked/**) (TestDifferential/sh3-cwd-*). Without a
// home directory a "~" path stays home-relative.
func (c *pathCtx) resolve(s string) inPath {
	p := parseInputPath(s)
	switch p.kind {
	case pathRel:
		dir := c.project
		if c.cwd != nil {
			dir = c.cwd
		}
		p = parseInputPath("/" + strings.Join(dir, "/") + "/" + s)
	case pathHome:
		if !c.hasHome {
			return p
		}
		p = parseInputPath("/" + strings.Join(c.home, "/") + "/" + strings.TrimPrefix(s, "~"))
	}
	p.ctx = c
	return p
}

// abs resolves a policy path (an additionalDirectories entry) against the
// project and home; false for a home path without a home directory.
func (c *pathCtx) abs(d inPath) ([]string, bool) {
	switch d.kind {
	case pathAbs:
		return d.segs, true
	case pathHome:
		if !c.hasHome {
			return nil, false
		}
		return joinSegs(c.home, d.segs), true
	}
	return joinSegs(c.project, d.segs), true
}

// joinSegs is the absolute path rel leads to from base (both cleaned
// segments, base absolute), as parseInputPath reads "/base/rel": a ".."
// goes up, never above the root. One allocation.
func joinSegs(base, rel []string) []string {
	out := make([]string, len(base), len(base)+len(rel))
	copy(out, base)
	for _, s := range rel {
		if s == ".." {
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

func parseInputPath(s string) inPath {
	var p inPath
	rest := s
	switch {
	case s == "~" || strings.HasPrefix(s, "~/"):
		p.kind, rest = pathHome, s[1:]
	case strings.HasPrefix(s, "/"):
		p.kind = pathAbs
	}
	if n := strings.Count(rest, "/") + 1; n > 1 {
		p.segs = make([]string, 0, n) // room for every segment: one allocation
	}
	for seg := range strings.SplitSeq(rest, "/") {
		switch seg {
		case "", ".":
		case "..":
			if n := len(p.segs); n > 0 && p.segs[n-1] != ".." {
				p.segs = p.segs[:n-1]
			} else if p.kind != pathAbs {
				p.segs = append(p.segs, "..")
			}
		default:
			p.segs = append(p.segs, seg)
		}
	}
	return p
}

// inside reports whether p lies inside the working directories: the
// session's own (relative, not escaping with "..") or one of dirs.
func (p inPath) inside(dirs []inPath) bool {
	if c := p.ctx; c != nil && p.kind == pathAbs {
		// Claude Code 2.1.328's working directories: the project, the
		// policy's additionalDirectories (relative ones under the project)
		// and the added ones (--add-dir), matched against the absolute
		// path its tools send (TestDifferential/i25-added-dirs-*).
		if hasSegPrefix(p.segs, c.project) {
			return true
		}
		for _, a := range c.absAll(dirs) {
			if hasSegPrefix(p.segs, a) {
				return true
			}
		}
		for _, d := range c.dirs {
			if hasSegPrefix(p.segs, d) {
				return true
			}
		}
		return false
	}
	if p.kind == pathRel && (len(p.segs) == 0 || p.segs[0] != "..") {
		return true
	}
	for _, d := range dirs {
		if d.kind == p.kind && hasSegPrefix(p.segs, d.segs) {
			return true
		}
	}
	return false
}

func hasSegPrefix(s, prefix []string) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i := range prefix {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

// protected reports whether writes to p are never auto-approved outside
// bypassPermissions (section 9.5). Names match in either case: Claude Code
// 2.1.328 asks in acceptEdits for Write .GIT/x1, .Git/hooks/x2,
// .Claude/settings.json, sub/.Bashrc, .gitConfig, .MCP.json and for
// echo x > .GIT/x7 (TestDifferential/files-protected-case-acceptEdits).
// Unicode folding (strings.EqualFold) is the wider reading: it holds the
// Kelvin sign for k, as JavaScript's toLowerCase does.
func (p inPath) protected() bool {
	for i, s := range p.segs {
		s = protectedName(s)
		next := ""
		if i+1 < len(p.segs) {
			next = protectedName(p.segs[i+1])
		}
		switch {
		case foldAny(s, protectedDirs[:]):
			return true
		case strings.EqualFold(s, ".config"):
			if strings.EqualFold(next, "git") {
				return true
			}
		case strings.EqualFold(s, ".claude"):
			if i+1 >= len(p.segs) || !strings.EqualFold(next, "worktrees") {
				return true
			}
		}
	}
	return len(p.segs) > 0 && foldAny(protectedName(p.segs[len(p.segs)-1]), protectedFiles[:])
}

// protectedName is a path segment as Claude Code 2.1.328 compares it with
// the protected names (cli.js Za): a dotless i read as i and a long s as
// s, the invisible format characters U+200C to U+200F, U+202A to U+202E,
// U+206A to U+206F and U+FEFF removed, what follows a ':' dropped, and
// trailing dots and blanks trimmed (the whole segment kept when nothing
// is left). So .bashrc:x, .git:x/config, .gıt/config,
// .vs‍code/x.json and .bashrc‏ are protected (row 124,
// TestDifferential/protspell-acceptEdits; TestProtectedNames). Case is
// compared by foldAny.
func protectedName(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c == ':' {
			plain = false
			break
		}
	}
	if plain && s != "" && s[len(s)-1] != '.' && s[len(s)-1] != ' ' {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\u0131':
			b.WriteByte('i')
		case r == '\u017f':
			b.WriteByte('s')
		case r >= '\u200c' && r <= '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u206a' && r <= '\u206f', r == '\ufeff':
		default:
			b.WriteRune(r)
		}
	}
	t := b.String()
	if i := strings.IndexByte(t, ':'); i >= 0 {
		t = t[:i]
	}
	if t = strings.TrimRight(t, ". "); t == "" {
		return s
	}
	return t
}

// suspicious reports a path Claude Code 2.1.328 will not write without
// asking, whatever mode or allow rule would approve it, as it names a
// Windows path pattern (cli.js $xn): a segment ending in a dot or a blank
// (x., sub./y.txt, "a /b.txt", x.., ...), a ~ followed by a digit
// (PROGRA~1.txt, a~1/b.txt), or a DOS device name as the last extension
// (x.nul, x.CON, a.com1). bypassPermissions writes them (row 123,
// TestDifferential/winpatterns-*; TestSuspiciousPaths).
func (p inPath) suspicious() bool {
	for i, s := range p.segs {
		if s == "" || s == "." || s == ".." {
			continue
		}
		if i == len(p.segs)-1 {
			// A file tool's path is trimmed (Write "a.txt " writes
			// a.txt: TestDifferential/pathspellings-acceptEdits).
			if s = strings.TrimRight(s, blankRunes); s == "" {
				continue
			}
		}
		if strings.TrimRight(s, blankRunes) != s || s[len(s)-1] == '.' {
			return true
		}
		for j := 0; j+1 < len(s); j++ {
			if s[j] == '~' && s[j+1] >= '0' && s[j+1] <= '9' {
				return true
			}
		}
		if i == len(p.segs)-1 {
			if k := strings.LastIndexByte(s, '.'); k >= 0 && dosDevice(s[k+1:]) {
				return true
			}
		}
	}
	return false
}

// blankRunes are the blanks a segment may end in (JavaScript's \s, ASCII).
const blankRunes = " \t\n\r\f\v"

// writeGuarded reports a path no mode but bypassPermissions writes without
// asking: protected, or suspicious.
func (p inPath) writeGuarded() bool { return p.protected() || p.suspicious() }

// dosDevice reports a DOS device name, in either case: CON, PRN, AUX,
// NUL, COM1 to COM9, LPT1 to LPT9.
func dosDevice(x string) bool {
	switch len(x) {
	case 3:
		return strings.EqualFold(x, "CON") || strings.EqualFold(x, "PRN") || strings.EqualFold(x, "AUX") || strings.EqualFold(x, "NUL")
	case 4:
		return x[3] >= '1' && x[3] <= '9' && (strings.EqualFold(x[:3], "COM") || strings.EqualFold(x[:3], "LPT"))
	}
	return false
}

var protectedDirs = [...]string{".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn"}

var protectedFiles = [...]string{".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".bash_login", ".bash_aliases",
	".bash_logout", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".profile", ".envrc",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs", ".pnpmfile.cjs",
	"bunfig.toml", ".bunfig.toml", ".bazelrc", ".bazelversion", ".bazeliskrc",
	".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml",
	"gradle-wrapper.properties", "maven-wrapper.properties", ".devcontainer.json", ".ripgreprc",
	"pyrightconfig.json", ".mcp.json", ".claude.json"}

// foldAny reports whether s is one of names in either case.
func foldAny(s string, names []string) bool {
	for _, n := range names {
		if len(s) >= len(n)/2 && strings.EqualFold(s, n) {
			return true
		}
	}
	return false
}

// pathPattern is a compiled Read/Edit specifier (section 9.5).
type pathPattern struct {
	kind pathKind
	segs []string // "**" matches zero or more whole segments
	// floating patterns (a plain relative pattern without an inner '/')
	// match at any depth in deny and ask rules; in allow rules only a
	// plain pattern without any '/' floats (allowFloats).
	floating, allowFloats bool
	// full is what a path relative to the pattern's root is matched
	// against, as the gitignore rules Claude Code 2.1.328 applies read a
	// pattern: segs, then "**" (a pattern that matches a directory matches
	// everything under it), after a leading "**" when floating; fullAllow
	// is the same for allow rules.
	full, fullAllow []string
	// star: the specifier is "*" alone, which approves nothing in an allow
	// rule (TestDifferential/i25-read-edit-star: Read(*) still asks for
	// /etc/hostname, Edit(*) for a file at the project root).
	star bool
	// rooted: "/x", anchored at the settings file's directory (the
	// project); "x" and "./x" have no root of their own (matchBelow).
	rooted bool
}

func compilePathPattern(spec string) pathPattern {
	var p pathPattern
	rest, plain := spec, false
	switch {
	case strings.HasPrefix(spec, "//"):
		p.kind, rest = pathAbs, spec[2:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		p.kind, rest = pathHome, spec[1:]
	case strings.HasPrefix(spec, "/"):
		rest = spec[1:] // relative to the settings file: the working directory
		p.rooted = true
	case strings.HasPrefix(spec, "./"):
		// Claude Code 2.1.328 floats "./x" as it floats "x": Read(./.env)
		// denies sub/.env, Read(./docs/**) denies sub/docs/a.md, while
		// Read(./docs/x.md) stays anchored (testdata/claude-code-cli).
		rest, plain = spec[2:], true
	default:
		plain = true
	}
	for seg := range strings.SplitSeq(rest, "/") {
		if seg != "" && seg != "." {
			p.segs = append(p.segs, seg)
		}
	}
	if strings.HasSuffix(spec, "/") {
		// A directory pattern (gitignore's trailing slash) matches what is
		// below the directory, not a path of that name: the release tests
		// a call's path without a trailing slash, so under Edit(./fx/) it
		// asks for Write fx, under Read(./rx/) it reads the file rx and
		// runs ls rdir, and it denies rdir/a.md (row 99,
		// TestDifferential/genpaths-slash-*).
		p.segs = append(p.segs, "*", "**")
	}
	if plain {
		core := strings.TrimSuffix(rest, "/**")
		if core == rest {
			core = strings.TrimSuffix(rest, "/")
		}
		p.floating = core != "" && !strings.Contains(core, "/")
	}
	p.star = spec == "*"
	// Claude Code 2.1.328 floats Edit(*.txt) and Edit(docs2) in allow
	// rules, not Edit(src/**), Edit(./lib/**) or Edit(/top/**)
	// (TestDifferential/i25-gitignore-semantics, i25-allow-floating-dirs);
	// "./x" is kept anchored there, unobserved, as the stricter reading.
	p.allowFloats = p.floating && !strings.HasPrefix(spec, "./") && !strings.Contains(spec, "/")
	dir := func(float bool) []string {
		var full []string
		if float {
			full = append(full, "**")
		}
		full = append(full, p.segs...)
		if len(p.segs) > 0 && p.segs[len(p.segs)-1] != "**" {
			full = append(full, "**")
		}
		return full
	}
	p.full, p.fullAllow = dir(p.floating), dir(p.allowFloats)
	return p
}

// match reports whether path p matches in a rule of behavior b. Claude
// Code 2.1.328 matches a pattern against the path relative to the
// pattern's root (/ for "//x", the home directory for "~/x", the project
// for the rest) with gitignore's rules: a floating pattern at any depth
// (in allow rules only one without '/': Edit(*.txt) approves
// other/deep/q.txt, Edit(src/**) does not approve vendor/pkg/src/n1.js),
// and a pattern that matches a directory matches what is under it
// (Read(./priv) denies priv/x.txt and sub/priv/y.txt, Edit(docs2) approves
// docs2/sub/n.md: TestDifferential/i25-gitignore-semantics,
// i25-allow-floating-dirs). A path outside the root matches nothing.
func (pp *pathPattern) match(p inPath, b behavior) bool {
	if pp.star && b == bAllow {
		return false
	}
	full, floating := pp.full, pp.floating
	if b == bAllow {
		full, floating = pp.fullAllow, pp.allowFloats
	}
	if c := p.ctx; c != nil && p.kind == pathAbs {
		segs := p.segs
		switch pp.kind {
		case pathAbs:
		case pathHome:
			if !c.hasHome || !hasSegPrefix(segs, c.home) {
				return false
			}
			segs = segs[len(c.home):]
		default:
			root := c.project
			if b == bAllow && !pp.rooted && c.cwd != nil {
				// An allow pattern without a root of its own is read from
				// the shell's directory once a cd has moved it: after cd gp
				// the release approves Write x/n9.txt under Edit(./x/**)
				// and asks for n8.txt under Edit(gp/**) (row 101,
				// TestDifferential/gencwd-*). Deny and ask patterns are
				// read from both (matchBelow).
				root = c.cwd
			}
			if !hasSegPrefix(segs, root) {
				return false
			}
			segs = segs[len(root):]
		}
		if len(segs) == 0 && b == bAllow {
			// The root itself is no path below it: Claude Code 2.1.328
			// asks for Glob {"path": "~"} under Read(~/**)
			// (TestDifferential/files-read-allow-default). Deny and ask
			// rules keep matching it, the stricter reading.
			return false
		}
		return matchSegs(full, segs)
	}
	// Without where the call ran (records written before PathsKey), a
	// path has the kind it was written in. A deny or ask pattern "//**/x"
	// matches a relative path anywhere below its unknown root, so an
	// absolute anchor never fails open on a relative path.
	// An allow pattern is not known to hold a path of another kind, or one
	// that leaves the working directory.
	if floating {
		if b == bAllow && (p.kind != pathRel || len(p.segs) > 0 && p.segs[0] == "..") {
			return false
		}
		return matchSegs(full, p.segs)
	}
	if pp.kind == pathAbs && p.kind != pathAbs && b != bAllow && len(pp.segs) > 0 && pp.segs[0] == "**" {
		return matchSegs(full, p.segs)
	}
	return pp.kind == p.kind && matchSegs(full, p.segs)
}

// matchIn is match, and for deny and ask rules matchBelow too: the
// pattern read where the call runs, dirs being the policy's
// additionalDirectories.
func (pp *pathPattern) matchIn(p inPath, b behavior, dirs []inPath) bool {
	return pp.match(p, b) || pp.matchBelow(p, b, dirs)
}

// matchBelow reports whether a deny or ask pattern without a root of its
// own ("x", "./x": neither "//x", "~/x" nor "/x") matches absolute path p
// below a working directory other than the project that holds it (dirs,
// the policy's additionalDirectories, and the added ones of p's input).
// Claude Code 2.1.328 reads such a pattern from the working directory that
// holds the path as well as from the project: under Edit(*.txt),
// Edit(./sub/**) and Read(e.txt) with additionalDirectories ../extra and
// --add-dir ../extra2 it denies Write ../extra/n1.txt, ../extra2/n5.txt,
// ../extra/sub/n6.md, Read ../extra/e.txt and rm ../extra/e.txt, in
// bypassPermissions too, and under an ask rule it asks for them; Edit(/sub/**)
// stays at the project, and allow rules are read from the project or, after
// a cd, the shell's directory (match) (row 96;
// TestDifferential/genscopes-dirs-*). Every working directory holding p is
// tried, where the release tries the deepest: with nested added
// directories the ledger may deny more (section 0.3).
func (pp *pathPattern) matchBelow(p inPath, b behavior, dirs []inPath) bool {
	c := p.ctx
	if b == bAllow || pp.kind != pathRel || pp.rooted || c == nil || p.kind != pathAbs {
		return false
	}
	below := func(root []string) bool {
		return len(p.segs) > len(root) && hasSegPrefix(p.segs, root) && matchSegs(pp.full, p.segs[len(root):])
	}
	for _, a := range c.absAll(dirs) {
		if below(a) {
			return true
		}
	}
	for _, d := range c.dirs {
		if below(d) {
			return true
		}
	}
	// The shell's directory, once a cd has moved it, is read as well:
	// after cd gp the release denies Write sub/x/n10.txt under
	// Edit(sub/x/**) (row 101, TestDifferential/gencwd-*).
	return c.cwd != nil && below(c.cwd)
}

// matchSegs matches pattern segments against path segments, consuming all
// of both. A table over suffixes keeps it O(len(pat)*len(segs)) however many
// "**" a pattern holds.
func matchSegs(pat, segs []string) bool {
	n := len(segs)
	var buf [2][17]bool
	next, cur := buf[0][:], buf[1][:]
	if n+1 > len(next) {
		next, cur = make([]bool, n+1), make([]bool, n+1)
	} else {
		next, cur = next[:n+1], cur[:n+1]
	}
	next[n] = true
	for i := len(pat) - 1; i >= 0; i-- {
		for j := n; j >= 0; j-- {
			if pat[i] == "**" {
				cur[j] = next[j] || j < n && cur[j+1]
			} else {
				cur[j] = j < n && next[j+1] && segMatch(pat[i], segs[j])
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// segMatch matches one segment as the gitignore matcher Claude Code
// 2.1.328 applies to path rules reads it: '*' any characters but '/', '?'
// exactly one character, "[...]" one character of a class (a-z a range;
// no negation), a backslash and a character that character (but before
// '?'), letters in either case (Read(./cls/[ab].txt) denies cls/a.txt,
// Read(./secret/**) denies Secret/s.txt, Edit(./Up/**) approves up/n9.txt,
// Read(./e1/\*.txt) denies e1/*.txt, Read(./e12/a\ b.txt) e12/a b.txt:
// TestDifferential/files-paths-*, files-rule-forms-*, files-glob-edges-*);
// everything else literal, braces included.
func segMatch(p, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		if px < len(p) {
			r, w := utf8.DecodeRuneInString(s[sx:])
			switch c := p[px]; {
			case c == '*':
				starP, starS = px, sx
				px++
				continue
			case c == '?':
				px++
				sx += w
				continue
			case c == '\\' && px+1 < len(p) && p[px+1] != '?':
				// An escaped character is itself (\* is '*', "\ " a
				// blank); "\?" the CLI's matcher turns into a literal
				// "[^/]", which the backslash read literally comes near.
				pr, pw := utf8.DecodeRuneInString(p[px+1:])
				if foldEq(pr, r) {
					px += 1 + pw
					sx += w
					continue
				}
			case c == '[':
				if n, ok := classMatch(p[px:], r); n > 0 {
					if ok {
						px += n
						sx += w
						continue
					}
					break
				}
				if r == '[' {
					px++
					sx += w
					continue
				}
			default:
				pr, pw := utf8.DecodeRuneInString(p[px:])
				if foldEq(pr, r) {
					px += pw
					sx += w
					continue
				}
			}
		}
		if starP >= 0 {
			_, w := utf8.DecodeRuneInString(s[starS:])
			starS += w
			sx = starS
			px = starP + 1
			continue
		}
		return false
	}
	for px < len(p) && p[px] == '*' {
		px++
	}
	return px == len(p)
}

// classMatch reads the class at the start of p ("[...]") and reports its
// length and whether r is in it, letters in either case; n is 0 when p
// holds no closed class (its '[' is then literal). A leading '!' or '^' is
// a member, not a negation: the CLI denies e3/a.txt and reads e3/b.txt
// under Read(./e3/[!a].txt) (TestDifferential/files-glob-edges-*).
func classMatch(p string, r rune) (n int, ok bool) {
	i := 1
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return i + 1, ok
		}
		first = false
		lo, w := utf8.DecodeRuneInString(p[i:])
		i += w
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, w = utf8.DecodeRuneInString(p[i+1:])
			i += 1 + w
		}
		for _, f := range [3]rune{r, unicode.ToUpper(r), unicode.ToLower(r)} {
			if lo <= f && f <= hi && foldEq(f, r) {
				ok = true
			}
		}
	}
	return 0, false
}

// foldEq reports whether two runes are the same letter in either case, as
// a JavaScript regular expression with the i flag (and no u flag) compares
// them: by their upper case, which never takes a rune above ASCII to one in
// it (the Kelvin sign is not k, the long s not s).
func foldEq(a, b rune) bool {
	return a == b || foldCanon(a) == foldCanon(b)
}

func foldCanon(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	if u := unicode.ToUpper(r); u >= utf8.RuneSelf {
		return u
	}
	return r
}

// PathsKey is the key of a check's input object under which the caller
// says where the call runs: {"project": ABS, "home": ABS, "cwd": ABS,
// "dirs": [ABS, ...]} (the project root the session's working directory
// is, the user's home directory, the shell's directory when an earlier
// call's cd left it elsewhere, and working directories added outside the
// policy, such as Claude Code's --add-dir). With it, paths are read as Claude Code 2.1.328
// reads them: absolute, as its tools send them (section 0.2). It is never a
// parameter of the tool.
const PathsKey = "ledger:paths"

// CutKey is the key of a check's input that lists the string parameters
// an attach point left out because they were too long to record (the
// Claude Code hook keeps 256 bytes of a parameter). A deny or ask
// parameter rule on a parameter it lists matches whatever the rule's
// value: the value cannot be read, so the rule fails closed
// (TestCutParameters; the hostile pass saw a 300-byte target evade
// Bash(description:*deploy*)). It is never a parameter of the tool.
const CutKey = "ledger:cut"
