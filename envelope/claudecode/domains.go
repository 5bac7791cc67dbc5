package claudecode

import "strings"

// hostOf extracts the host of a WebFetch url input (section 9.6): drop a
// scheme, cut at the first '/', '?' or '#', drop user@, drop a port, unwrap
// [...], lower-case, drop a trailing '.'.
func hostOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 && !strings.ContainsAny(u[:i], "/?#") {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if strings.HasPrefix(u, "[") {
		if i := strings.IndexByte(u, ']'); i >= 0 {
			u = u[1:i]
		} else {
			u = u[1:]
		}
	} else if i := strings.IndexByte(u, ':'); i >= 0 {
		u = u[:i]
	}
	return strings.TrimSuffix(strings.ToLower(u), ".")
}

// domainPattern is a compiled WebFetch(domain:...) pattern.
type domainPattern struct {
	all    bool     // "*": every host
	sub    bool     // leading "*.": at least one extra label in front of labels
	labels []string // matched label by label, '*' within one label
}

func compileDomain(d string) domainPattern {
	d = strings.TrimSuffix(strings.ToLower(d), ".")
	if d == "*" {
		return domainPattern{all: true}
	}
	var p domainPattern
	if rest, ok := strings.CutPrefix(d, "*."); ok {
		p.sub, d = true, rest
	}
	p.labels = strings.Split(d, ".")
	return p
}

func (p *domainPattern) match(host string) bool {
	if p.all {
		return true
	}
	n := strings.Count(host, ".") + 1
	if p.sub && n <= len(p.labels) || !p.sub && n != len(p.labels) {
		return false
	}
	// Compare the last len(labels) labels of host, right to left.
	rest := host
	for i := len(p.labels) - 1; i >= 0; i-- {
		j := strings.LastIndexByte(rest, '.')
		label := rest[j+1:]
		if j >= 0 {
			rest = rest[:j]
		} else {
			rest = ""
		}
		if !globMatch(p.labels[i], label) {
			return false
		}
	}
	return true
}
