package openclaw

import "strings"

// aliases maps a written name (already trimmed and lower-cased) to its
// canonical name (section 2.1). Aliases apply to the whole string only.
var aliases = map[string]string{
	"bash":        "exec",
	"apply-patch": "apply_patch",
	"cron":        "automations",
	"tool_call":   "dispatch_action",
	"update_plan": "progress_card",
}

// isSpace reports the white space trimmed from names: Unicode white space
// plus the ASCII separators U+001C..U+001F, the set the reference
// implementation strips.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// normalize returns a tool name's canonical form: trimmed, lower-cased and
// mapped through the alias table. The common case (already canonical ASCII)
// does not allocate.
func normalize(s string) string {
	if !asciiCanonical(s) {
		s = strings.ToLower(strings.TrimFunc(s, isSpace))
		// Lower-casing can expose nothing new to trim, but trim again so
		// normalize stays idempotent whatever the tables do.
		s = strings.TrimFunc(s, isSpace)
	}
	if a, ok := aliases[s]; ok {
		return a
	}
	return s
}

// asciiCanonical reports whether s is ASCII with no upper-case letter and
// no white space at either end, so that trimming and lower-casing are no-ops.
func asciiCanonical(s string) bool {
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
	return !(first <= ' ' && isSpace(rune(first))) && !(last <= ' ' && isSpace(rune(last)))
}

// isMCP reports whether a normalized name is an MCP tool, <server>__<tool>
// (section 2.2): it contains "__", the first one not at the start, with at
// least one character after it.
func isMCP(t string) bool {
	i := strings.Index(t, "__")
	return i > 0 && i+2 < len(t)
}

// nameList normalizes a list element by element, drops empty results and
// repeats (keeping the first occurrence), and returns the kept names with
// the strings as written.
func nameList(items []string) (names, written []string) {
	for _, it := range items {
		n := normalize(it)
		if n == "" || contains(names, n) {
			continue
		}
		names = append(names, n)
		written = append(written, it)
	}
	return names, written
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
