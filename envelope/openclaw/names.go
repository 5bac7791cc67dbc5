package openclaw

import "strings"

// isSpace reports the white space the legacy release trims from names:
// Unicode white space plus the ASCII separators U+001C..U+001F, the set the
// spec's reference implementation strips.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// isJSSpace reports the white space JavaScript's String.prototype.trim
// strips (WhiteSpace and LineTerminator of ECMA-262), which OpenClaw's
// normalizers use.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// space is the release's trim set.
func (r *Release) space(c rune) bool {
	if r.Rules == rulesPackage {
		return isJSSpace(c)
	}
	return isSpace(c)
}

// trim trims the release's white space from both ends of s.
func (r *Release) trim(s string) string { return strings.TrimFunc(s, r.space) }

// normalize returns a tool name's canonical form under the release:
// trimmed, lower-cased and mapped through the alias table. The common case
// (already canonical ASCII) does not allocate.
func (r *Release) normalize(s string) string {
	if !r.asciiCanonical(s) {
		s = r.lower(r.trim(s))
		// Lower-casing can expose nothing new to trim, but trim again so
		// normalize stays idempotent whatever the tables do.
		s = r.trim(s)
	}
	if a, ok := r.Aliases[s]; ok {
		return a
	}
	return s
}

// normalize is the legacy release's normalization (the dialect's
// release-free Normalize, grant identities, session-tool checks).
func normalize(s string) string { return releaseLegacy.normalize(s) }

// asciiCanonical reports whether s is ASCII with no upper-case letter and
// no white space at either end, so that trimming and lower-casing are no-ops.
func (r *Release) asciiCanonical(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	if s == "" {
		return true
	}
	first, last := s[0], s[len(s)-1]
	return !(first <= ' ' && r.space(rune(first))) && !(last <= ' ' && r.space(rune(last)))
}

// isMCP reports whether a normalized name is an MCP tool, <server>__<tool>
// (section 2.2): it contains "__", the first one not at the start, with at
// least one character after it.
func isMCP(t string) bool {
	i := strings.Index(t, "__")
	return i > 0 && i+2 < len(t)
}

// nameList normalizes a list element by element under the release, drops
// empty results and repeats (keeping the first occurrence), and returns the
// kept names with the strings as written.
func (r *Release) nameList(items []string) (names, written []string) {
	for _, it := range items {
		n := r.normalize(it)
		if n == "" || contains(names, n) {
			continue
		}
		names = append(names, n)
		written = append(written, it)
	}
	return names, written
}

// nameList is the legacy release's.
func nameList(items []string) (names, written []string) { return releaseLegacy.nameList(items) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
