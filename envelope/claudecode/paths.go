package claudecode

import (
	"strings"
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
// bypassPermissions (section 9.5).
func (p inPath) protected() bool {
	for i, s := range p.segs {
		switch s {
		case ".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn":
			return true
		case ".config":
			if i+1 < len(p.segs) && p.segs[i+1] == "git" {
				return true
			}
		case ".claude":
			if i+1 >= len(p.segs) || p.segs[i+1] != "worktrees" {
				return true
			}
		}
	}
	if len(p.segs) == 0 {
		return false
	}
	switch p.segs[len(p.segs)-1] {
	case ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".bash_login", ".bash_aliases",
		".bash_logout", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".profile", ".envrc",
		".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs", ".pnpmfile.cjs",
		"bunfig.toml", ".bunfig.toml", ".bazelrc", ".bazelversion", ".bazeliskrc",
		".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml",
		"gradle-wrapper.properties", "maven-wrapper.properties", ".devcontainer.json", ".ripgreprc",
		"pyrightconfig.json", ".mcp.json", ".claude.json":
		return true
	}
	return false
}

// pathPattern is a compiled Read/Edit specifier (section 9.5).
type pathPattern struct {
	kind pathKind
	segs []string // "**" matches zero or more whole segments
	// floating patterns (a plain relative pattern without an inner '/')
	// match at any depth in deny and ask rules.
	floating bool
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
		p.segs = append(p.segs, "**")
	}
	if plain {
		core := strings.TrimSuffix(rest, "/**")
		if core == rest {
			core = strings.TrimSuffix(rest, "/")
		}
		p.floating = core != "" && !strings.Contains(core, "/")
	}
	return p
}

// match reports whether path p matches; b decides whether a floating
// pattern floats (deny and ask) or stays at the working directory (allow).
func (pp *pathPattern) match(p inPath, b behavior) bool {
	if pp.floating && b != bAllow {
		for i := 0; i <= len(p.segs); i++ {
			if matchSegs(pp.segs, p.segs[i:]) {
				return true
			}
		}
		return false
	}
	return pp.kind == p.kind && matchSegs(pp.segs, p.segs)
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

// segMatch matches one segment: '*' any characters but '/', '?' exactly one
// character, everything else (brackets included) literal.
func segMatch(p, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		if px < len(p) {
			switch c := p[px]; {
			case c == '*':
				starP, starS = px, sx
				px++
				continue
			case c == '?':
				_, w := utf8.DecodeRuneInString(s[sx:])
				px++
				sx += w
				continue
			case c == s[sx]:
				px++
				sx++
				continue
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
