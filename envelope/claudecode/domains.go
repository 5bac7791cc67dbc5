package claudecode

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// hostOf extracts the host of a WebFetch url input (section 9.6) as the
// WHATWG URL parser Claude Code 2.1.328 uses reads it: blanks and control
// characters around the URL and tabs and newlines in it are dropped; after
// a special scheme (http, https, ws, wss, ftp, file) any run of '/' and '\'
// starts the host, and a '\' ends it as '/' does; otherwise the scheme's
// "://" is dropped. The host ends at the first '/', '?' or '#'; user@ and a
// port are dropped, [...] unwrapped; then canonHost. The CLI denies
// https:evil.test/, https:/evil.test/, https://evil.test\@example.com/,
// https://evil.te<TAB>st/ under WebFetch(domain:evil.test)
// (TestDifferential/files-domain-tricks-*).
func hostOf(u string) string {
	h, _ := hostRead(u)
	return h
}

// hostRead is hostOf, and whether the host could not be read: a non-ASCII
// host that IDNA refuses (hostIDNA), which the URL parser refuses too, and
// which a deny or ask domain rule then matches whatever it names
// (decide.go: fail closed).
func hostRead(u string) (string, bool) {
	u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(u, "\t\n\r") {
		u = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, u)
	}
	special := false
	if i := strings.IndexByte(u, ':'); i > 0 && isScheme(u[:i]) && isSpecialScheme(strings.ToLower(u[:i])) {
		special = true
		u = strings.TrimLeft(u[i+1:], "/\\")
	} else if i := strings.Index(u, "://"); i >= 0 && !strings.ContainsAny(u[:i], "/?#") {
		u = u[i+3:]
	}
	ends := "/?#"
	if special {
		ends = "/?#\\"
	}
	if i := strings.IndexAny(u, ends); i >= 0 {
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
	h, ok := canonHost(strings.TrimSuffix(strings.ToLower(u), "."))
	return h, !ok
}

// isScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-', '.'.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('a' <= c && c <= 'z') && (i == 0 || !('0' <= s[i] && s[i] <= '9') && s[i] != '+' && s[i] != '-' && s[i] != '.') {
			return false
		}
	}
	return s != ""
}

func isSpecialScheme(s string) bool {
	switch s {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}

// canonHost reads a host as the URL parser Claude Code 2.1.328 uses does
// before it matches domain rules: percent-escapes decoded; a non-ASCII host
// mapped and written in ASCII by IDNA as that parser's domain-to-ASCII
// does (hostIDNA: UTS #46 mapping with NFC, full-width forms and the
// ideographic full stops, Punycode labels); an IPv4 address written in any
// of the forms that parser takes (2130706433, 0x7f.0.0.1, 127.1,
// 0177.0.0.1) as dotted decimal, an IPv6 address in its shortest form.
// WebFetch(domain:127.0.0.1) denies http://2130706433:9/,
// WebFetch(domain:evil.test) https://evil%2etest/, https://ｅｖｉｌ.test/ and
// https://evil。test/, WebFetch(domain:xn--mnchen-3ya.test)
// https://münchen.test/ (TestDifferential/files-domains-*,
// files-domain-tricks-*). ok is false when IDNA refuses the host (h is
// then returned as it was).
func canonHost(h string) (string, bool) {
	if strings.Contains(h, "%") {
		if d, err := url.PathUnescape(h); err == nil {
			h = strings.TrimSuffix(strings.ToLower(d), ".")
		}
	}
	if !isASCII(h) {
		a, err := hostIDNA.ToASCII(h)
		if err != nil {
			return h, false
		}
		h = strings.TrimSuffix(strings.ToLower(a), ".")
	}
	if strings.Contains(h, ":") {
		if a, err := netip.ParseAddr(h); err == nil {
			return a.String(), true
		}
		return h, true
	}
	if ip, ok := parseIPv4(h); ok {
		return ip, true
	}
	return h, true
}

// hostIDNA is the WHATWG URL standard's domain to ASCII (UTS #46 ToASCII
// with CheckHyphens and UseSTD3ASCIIRules off, CheckBidi and CheckJoiners
// on, nontransitional, no DNS length check), which Node's URL parser
// applies to a non-ASCII host.
var hostIDNA = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.CheckHyphens(false),
	idna.StrictDomainName(false), idna.VerifyDNSLength(false), idna.BidiRule(), idna.CheckJoiners(true))

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// parseIPv4 parses a host the WHATWG URL parser reads as IPv4: one to
// four dot-separated numbers, each decimal, 0x hex or 0-led octal, the
// last filling the bytes the others leave.
func parseIPv4(h string) (string, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 || len(parts) == 0 {
		return "", false
	}
	var nums []uint64
	for _, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		if p == "" {
			if base != 16 {
				return "", false
			}
			p = "0"
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil {
			return "", false
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", false
	}
	v |= last
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255), true
}

// domainPattern is a compiled WebFetch(domain:...) pattern.
type domainPattern struct {
	all    bool     // "*": every host
	sub    bool     // leading "*.": at least one extra label in front of labels
	labels []string // matched label by label, '*' within one label
}

func compileDomain(d string) domainPattern {
	d = strings.TrimSuffix(strings.ToLower(d), ".")
	if strings.HasPrefix(d, "[") && strings.HasSuffix(d, "]") {
		d = d[1 : len(d)-1] // a host as the URL names it: [::1]
	}
	if !strings.Contains(d, "*") && isASCII(d) {
		// A pattern is not read as a URL's host: Claude Code 2.1.328
		// matches WebFetch(domain:bücher.test) against no URL (the host
		// is xn--bcher-kva.test). Its IP addresses are read as a host's.
		d, _ = canonHost(d)
	}
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
