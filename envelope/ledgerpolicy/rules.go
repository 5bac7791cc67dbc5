package ledgerpolicy

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// behavior is the list a rule sits in.
type behavior uint8

const (
	bAllow behavior = iota
	bAsk
	bDeny
)

func (b behavior) String() string { return [...]string{"allow", "ask", "deny"}[b] }

func parseBehavior(s string) (behavior, bool) {
	switch s {
	case "allow":
		return bAllow, true
	case "ask":
		return bAsk, true
	case "deny":
		return bDeny, true
	}
	return 0, false
}

func (b behavior) decision() envelope.Decision {
	return [...]envelope.Decision{envelope.Allow, envelope.Ask, envelope.Deny}[b]
}

// rule is one compiled rule: Tool, * or Tool(pattern). Immutable once
// compiled.
type rule struct {
	text   string
	name   string // the tool, or "*" for every catalogue tool
	hasPat bool
	kind   argKind
	cmd    cmdPattern
	path   pathPattern
	domain string
}

// compileRule parses a rule against a runtime table. A pattern's meaning
// is its tool's argument kind; a tool of kind none takes no pattern, and a
// name must be "*", a tool of the table or an MCP tool name.
func compileRule(t *runtimeTable, text string) (*rule, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, errors.New("the rule is empty; write Tool or Tool(pattern)")
	}
	if s != text {
		return nil, errors.New("the rule has white space around it; remove it")
	}
	r := &rule{text: text, name: s}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return nil, errors.New("a rule with '(' must end with ')'; write Tool(pattern)")
		}
		r.name, r.hasPat = s[:i], true
		pat := s[i+1 : len(s)-1]
		if strings.TrimSpace(pat) == "" {
			return nil, errors.New("the pattern between '(' and ')' is empty; write the bare tool name instead")
		}
		if err := r.compilePattern(t, pat); err != nil {
			return nil, err
		}
		return r, nil
	}
	if r.name != "*" && !t.has(r.name) && !validMCPName(r.name) {
		return nil, unknownTool(t, r.name)
	}
	return r, nil
}

func unknownTool(t *runtimeTable, name string) error {
	names, _ := Catalogue(t.id)
	return fmt.Errorf("%q is not a tool of %s nor an MCP tool name (mcp__<server>__<tool>); its tools are %s", name, t.id, strings.Join(names, ", "))
}

func (r *rule) compilePattern(t *runtimeTable, pat string) error {
	if r.name == "*" {
		return errors.New("\"*\" takes no pattern: a pattern's meaning is its tool's argument kind; name the tool")
	}
	if !t.has(r.name) {
		if validMCPName(r.name) {
			return fmt.Errorf("%s is an MCP tool, whose arguments the policy does not read: write the bare name", r.name)
		}
		return unknownTool(t, r.name)
	}
	r.kind = t.spec(r.name).kind
	switch r.kind {
	case kindCommand:
		// A unit's words are joined by single spaces: a pattern with white
		// space at an end or two spaces in a row ("x :*" is "x  *") would
		// match no command (TestCommandPatternSpacingRefused).
		if strings.TrimSpace(pat) != pat || strings.Contains(pat, "  ") || strings.HasSuffix(pat, " :*") {
			return fmt.Errorf("the command pattern %q has white space at an end or two spaces in a row; the words of a command are matched joined by single spaces", pat)
		}
		r.cmd = compileCommand(pat)
	case kindPath, kindPatch:
		p, err := compilePath(pat)
		if err != nil {
			return err
		}
		r.path = p
	case kindURL:
		d, ok := strings.CutPrefix(pat, "domain:")
		if !ok || !validDomain(d) {
			return fmt.Errorf("%s reads URLs: write %s(domain:example.com), a host name without scheme, port or wildcard", r.name, r.name)
		}
		r.domain = strings.ToLower(d)
	default:
		return fmt.Errorf("%s has no argument the policy reads (kind none): write the bare name %q", r.name, r.name)
	}
	return nil
}

// where renders the rule as a reason names it: the list and the rule,
// e.g. permissions.deny: "Bash(git push *)".
func where(list string, b behavior, text string) string {
	return list + "." + b.String() + ": " + strconv.Quote(text)
}

// names reports whether the rule's tool position names tool.
func (r *rule) names(tool string) bool { return r.name == "*" || r.name == tool }

// cmdPattern is a command pattern as Claude Code's Bash rules read it: a
// '*' matches any run of characters (including none); "x *" also matches
// "x" alone; "x:*" is the legacy prefix form of "x *"; without '*' the
// text must equal the pattern.
type cmdPattern struct {
	glob     string
	prefix   string
	boundary bool
}

func compileCommand(s string) cmdPattern {
	if strings.HasSuffix(s, ":*") {
		s = s[:len(s)-2] + " *"
	}
	p := cmdPattern{glob: s}
	if strings.HasSuffix(s, " *") {
		p.boundary, p.prefix = true, s[:len(s)-2]
	}
	return p
}

func (p *cmdPattern) match(text string) bool {
	return envelope.GlobMatch(p.glob, text) || p.boundary && envelope.GlobMatch(p.prefix, text)
}

// pathPattern is a path glob: absolute (/...) or relative to the root
// session's project; '*' matches within one segment, '**' any number of
// segments (none included).
type pathPattern struct {
	abs  bool
	segs []string
}

func compilePath(pat string) (pathPattern, error) {
	switch {
	case strings.HasPrefix(pat, "~"):
		return pathPattern{}, errors.New("a path pattern may not start with '~': the ledger does not know the session's home; write the absolute path")
	case strings.ContainsRune(pat, '\\'):
		return pathPattern{}, errors.New("a path pattern uses '/' as separator and no '\\'")
	}
	for _, seg := range strings.Split(pat, "/") {
		if seg == ".." {
			return pathPattern{}, errors.New("a path pattern may not hold '..'; write the path it means")
		}
		if strings.Contains(seg, "**") && seg != "**" {
			return pathPattern{}, fmt.Errorf("'**' must be a whole segment (dir/**/x), got %q", seg)
		}
	}
	abs := strings.HasPrefix(pat, "/")
	return pathPattern{abs: abs, segs: splitPath(path.Clean(pat))}, nil
}

// splitPath splits a cleaned path into its segments ("/" and "." have none).
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// match reports whether the pattern matches a cleaned path p: absolute,
// or relative (abs false) when the session has no project. project is the
// root session's project ("" when it has none): a relative pattern is
// anchored there, or, without one, matches relative paths only.
func (pp *pathPattern) match(p string, abs bool, project string) bool {
	segs := pp.segs
	if !pp.abs && abs {
		if project == "" || !strings.HasPrefix(project, "/") {
			return false
		}
		segs = append(splitPath(path.Clean(project)), segs...)
	} else if pp.abs && !abs {
		return false
	}
	return segMatch(segs, splitPath(p))
}

// segMatch matches segments against pattern segments, "**" matching any
// run of segments: a table over (pattern, name) positions, so that many
// "**" cost O(len(pat)*len(name)) and never backtrack.
func segMatch(pat, name []string) bool {
	// ok[j]: pat[:i] matches name[:j], row by row.
	ok := make([]bool, len(name)+1)
	ok[0] = true
	for _, p := range pat {
		if p == "**" {
			for j := 1; j <= len(name); j++ {
				ok[j] = ok[j] || ok[j-1]
			}
			continue
		}
		for j := len(name); j >= 1; j-- {
			ok[j] = ok[j-1] && envelope.GlobMatch(p, name[j-1])
		}
		ok[0] = false
	}
	return ok[len(name)]
}

// validDomain reports a host name: labels of letters, digits and '-',
// separated by dots.
func validDomain(d string) bool {
	if d == "" || len(d) > 253 {
		return false
	}
	for _, l := range strings.Split(d, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// domainMatch: domain:example.com matches example.com and every
// subdomain of it (docs.example.com), not notexample.com.
func domainMatch(domain, host string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}
