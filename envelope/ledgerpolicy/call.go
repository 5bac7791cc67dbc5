package ledgerpolicy

import (
	"encoding/json"
	"net/netip"
	"path"
	"strings"
	"unicode"
)

// call is one call read for matching: the units its patterns are matched
// against (a command's simple commands, a path, a patch's paths, a text's
// URL hosts) and whether they are all of it (known). An allow pattern
// matches only a known call, every unit matched by some allow rule; deny
// and ask patterns match when any unit, or any of the extra texts (what a
// command holds that is not statically known, and its literal text), does.
type call struct {
	tool  string
	spec  toolSpec
	units []string
	// abs says every path unit is absolute (false: a relative path of a
	// session without a project, which no allow rule matches). Deny and ask
	// patterns read each unit's own form (view.matches).
	abs   bool
	known bool
	extra []string
	// unsure says the text holds a URL whose host the ledger cannot be
	// sure of: no allow pattern matches the call and every deny or ask
	// domain pattern does (TestURLHostUnreadableMatchesDomainDeny).
	unsure bool
	// why says, for the trace, why no allow pattern can match.
	why string
}

// newCall reads the call's argument: the table's field of an object
// input, or a JSON string input as that field's value.
func newCall(spec toolSpec, input json.RawMessage, project string) *call {
	c := &call{tool: spec.name, spec: spec}
	if spec.kind == kindNone {
		return c
	}
	arg, ok := argument(input, spec.field)
	if !ok {
		if spec.dflt == "" {
			c.why = "the input has no " + spec.field + " string"
			return c
		}
		arg = spec.dflt
	}
	switch spec.kind {
	case kindCommand:
		c.readCommand(arg)
	case kindPath:
		c.known, c.abs = true, true
		c.addPath(arg, project)
	case kindPatch:
		c.known, c.abs = true, true
		paths := patchPaths(arg)
		for _, p := range paths {
			c.addPath(p, project)
		}
		if len(paths) == 0 {
			c.known, c.why = false, "the patch names no file"
		}
	case kindURL:
		c.readURLs(arg, spec.oneURL)
	}
	return c
}

func argument(input json.RawMessage, field string) (string, bool) {
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s, s != ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(input, &obj) != nil {
		return "", false
	}
	raw, ok := obj[field]
	if !ok || json.Unmarshal(raw, &s) != nil || s == "" {
		return "", false
	}
	return s, true
}

// addPath adds a path unit: cleaned, a relative one resolved against the
// project, so that '..' is resolved before matching. Without a project a
// relative path stays relative and the call is not known.
func (c *call) addPath(p, project string) {
	switch {
	case strings.HasPrefix(p, "/"):
		c.units = append(c.units, path.Clean(p))
	case strings.HasPrefix(project, "/"):
		c.units = append(c.units, path.Join(path.Clean(project), p))
	default:
		c.units = append(c.units, path.Clean(p))
		c.abs, c.known = false, false
		c.why = "a relative path of a session whose root names no absolute project"
	}
}

// patchPaths returns the files an apply_patch text names, in order: the
// paths of its Add File, Update File, Delete File and Move to lines. A
// line is read with the white space around it trimmed, as codex reads a
// hunk header ("extra padding around marker strings"), so an indented
// header names its file too (TestPatchIndentedHeaderNamesItsFile).
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, h); ok {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// readURLs reads the http(s) URLs of a text, their hosts as the units. In
// free text (gemini's web_fetch prompt) a URL starts at "http:" or
// "https:" (any case), holds "://" and ends only at ASCII white space, as
// the CLI's tokens do; a one-URL field (qwen's url) is the whole value.
// The host is read as a WHATWG URL parser reads it (hostOfURL). A URL the
// ledger cannot be sure of makes the call not known and unsure, and so
// does a URL holding other white space (the vertical tab, a non-ASCII
// space), where a runtime splitting on /\s+/ would end it. A text with no
// URL matches no allow pattern (TestURLHostAsTheRuntimeReadsIt).
func (c *call) readURLs(text string, one bool) {
	c.known = true
	if one {
		c.readURL(text)
	}
	for i := 0; !one && i < len(text); {
		j := indexFold(text[i:], "http")
		if j < 0 {
			break
		}
		start := i + j
		end := start
		for end < len(text) && !strings.ContainsRune(" \t\n\f\r", rune(text[end])) {
			end++
		}
		i = start + 4
		tok := text[start:end]
		if !hasPrefixFold(tok, "http:") && !hasPrefixFold(tok, "https:") || !strings.Contains(tok, "://") {
			continue
		}
		i = end
		if strings.ContainsFunc(tok, func(r rune) bool { return r == '\ufeff' || unicode.IsSpace(r) }) {
			c.known, c.unsure = false, true
			c.why = "a URL holding white space a runtime may split it at: " + tok
			continue
		}
		c.readURL(tok)
	}
	if len(c.units) == 0 && c.known {
		c.known, c.why = false, "the text holds no http(s) URL"
	}
}

// readURL adds one URL's host as a unit, or marks the call unsure; a text
// that is not an http(s) URL adds nothing.
func (c *call) readURL(u string) {
	host, isHTTP, ok := hostOfURL(u)
	switch {
	case ok:
		c.units = append(c.units, host)
	case isHTTP:
		c.known, c.unsure = false, true
		c.why = "a URL whose host cannot be read for sure: " + u
	}
}

// hostOfURL reads the host of an http(s) URL as a WHATWG URL parser (the
// runtimes' new URL) does: white space and controls around it dropped,
// tab and newlines in it removed; after the scheme any run of '/' and '\'
// skipped; the authority ends at '/', '\', '?' or '#'; what precedes its
// last '@' is user info; the port is dropped; a trailing '.' is dropped.
// isHTTP is false when u is not an http(s) URL. ok is false when the
// ledger cannot be sure of the host: none, a non-ASCII or percent-escaped
// one (IDNA and escapes are not read), one with a character other than
// letters, digits, '-' and '.', or a number that is not a dotted-decimal
// IPv4 address (2130706433, 0x7f.1, 010.0.0.1 are other addresses to that
// parser).
func hostOfURL(u string) (host string, isHTTP, ok bool) {
	u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	u = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
	i := strings.IndexByte(u, ':')
	if i < 0 || !strings.EqualFold(u[:i], "http") && !strings.EqualFold(u[:i], "https") {
		return "", false, false
	}
	u = strings.TrimLeft(u[i+1:], "/\\")
	if j := strings.IndexAny(u, "/\\?#"); j >= 0 {
		u = u[:j]
	}
	if j := strings.LastIndexByte(u, '@'); j >= 0 {
		u = u[j+1:]
	}
	if strings.HasPrefix(u, "[") {
		j := strings.IndexByte(u, ']')
		if j < 0 {
			return u, true, false
		}
		a, err := netip.ParseAddr(u[1:j])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return u, true, false
		}
		return a.String(), true, true
	}
	if j := strings.IndexByte(u, ':'); j >= 0 {
		u = u[:j]
	}
	host = strings.TrimSuffix(strings.ToLower(u), ".")
	if !validDomain(host) {
		return host, true, false
	}
	last := host[strings.LastIndexByte(host, '.')+1:]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == "" {
		return host, true, isIPv4(host)
	}
	return host, true, true
}

// isIPv4 reports a dotted-decimal IPv4 address as WHATWG writes one: four
// numbers 0-255 without leading zeros (010 is octal to that parser).
func isIPv4(h string) bool {
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is4() && a.String() == h
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case; indexFold the
// index of the first such match. Both keep byte offsets into s.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}
