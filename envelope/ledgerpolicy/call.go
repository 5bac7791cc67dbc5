package ledgerpolicy

import (
	"encoding/json"
	"net/url"
	"path"
	"strings"
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
	// abs says the path units are absolute (false: relative paths of a
	// session without a project, which no allow rule matches).
	abs   bool
	known bool
	extra []string
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
		c.readURLs(arg)
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
// paths of its Add File, Update File, Delete File and Move to lines.
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
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

// readURLs reads every http(s) URL of a text (web_fetch's prompt): the
// hosts are the units; a URL whose host cannot be read makes the call not
// known, and a text with no URL matches no allow pattern.
func (c *call) readURLs(text string) {
	c.known = true
	for i := 0; i < len(text); {
		j := indexFold(text[i:], "http")
		if j < 0 {
			break
		}
		start := i + j
		rest := text[start:]
		if !hasPrefixFold(rest, "http://") && !hasPrefixFold(rest, "https://") {
			i = start + 4
			continue
		}
		end := start
		for end < len(text) && !strings.ContainsRune(" \t\r\n\"'<>`()[]{}|\\^", rune(text[end])) {
			end++
		}
		u, err := url.Parse(strings.TrimRight(text[start:end], ".,;:!?"))
		host := ""
		if err == nil {
			host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		}
		if host == "" || !validDomain(host) && !strings.ContainsAny(host, ":") && !isIPv4(host) {
			c.known, c.why = false, "a URL whose host cannot be read: "+text[start:end]
			c.extra = append(c.extra, host)
		} else {
			c.units = append(c.units, host)
		}
		i = end
		if end == start {
			i++
		}
	}
	if len(c.units) == 0 && c.known {
		c.known, c.why = false, "the text holds no http(s) URL"
	}
}

func isIPv4(h string) bool {
	parts := strings.Split(h, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
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
