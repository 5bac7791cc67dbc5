package claudecode

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
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

// hostRead is hostOf, and whether the host held a character whose IDNA
// mapping (NFC, compatibility forms) the dialect does not hold: any
// non-ASCII character but the letters of Latin-1, basic Cyrillic, CJK
// ideographs, kana and Hangul syllables. Claude Code 2.1.328 reads
// https://mu<U+0308>nchen.test/ as xn--mnchen-3ya.test (NFC); a deny or ask
// domain rule matches such a host whatever it names (decide.go).
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
	h := strings.TrimSuffix(strings.ToLower(u), ".")
	return canonHost(h), unsureIDN(h)
}

// unsureIDN reports whether a lower-cased host holds a character whose
// IDNA mapping the dialect does not hold (hostRead).
func unsureIDN(h string) bool {
	if isASCII(h) {
		return false
	}
	for _, r := range h {
		switch {
		case r < 0x80, r >= 0xFF01 && r <= 0xFF5E, r == 0x3002, r == 0xFF61, r == '%':
		case r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7:
		case r >= 0x400 && r <= 0x45F:
		case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3041 && r <= 0x3096, r >= 0x30A1 && r <= 0x30FA, r >= 0xAC00 && r <= 0xD7A3:
		default:
			return true
		}
	}
	return false
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
// before it matches domain rules: percent-escapes decoded, an IPv4 address
// written in any of the forms that parser takes (2130706433, 0x7f.0.0.1,
// 127.1, 0177.0.0.1) as dotted decimal, an IPv6 address in its shortest
// form. WebFetch(domain:127.0.0.1) denies http://2130706433:9/,
// WebFetch(domain:evil.test) https://evil%2etest/
// (TestDifferential/files-domains-*).
func canonHost(h string) string {
	if strings.Contains(h, "%") {
		if d, err := url.PathUnescape(h); err == nil {
			h = strings.TrimSuffix(strings.ToLower(d), ".")
		}
	}
	if !isASCII(h) {
		// The IDNA mapping the parser applies, as far as it makes an ASCII
		// host: full-width forms are their ASCII letters, the ideographic
		// and full-width full stops are '.' (the CLI denies
		// https://ｅｖｉｌ.test/ and https://evil。test/ under
		// WebFetch(domain:evil.test)); a label still not ASCII is written
		// in Punycode (https://münchen.test/ is xn--mnchen-3ya.test).
		h = strings.TrimSuffix(strings.ToLower(strings.Map(func(r rune) rune {
			switch {
			case r >= 0xFF01 && r <= 0xFF5E:
				return r - 0xFEE0
			case r == 0x3002 || r == 0xFF61:
				return '.'
			}
			return r
		}, h)), ".")
		if !isASCII(h) {
			h = punycodeHost(h)
		}
	}
	if strings.Contains(h, ":") {
		if a, err := netip.ParseAddr(h); err == nil {
			return a.String()
		}
		return h
	}
	if ip, ok := parseIPv4(h); ok {
		return ip
	}
	return h
}

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
		d = canonHost(d)
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

// punycodeHost writes each non-ASCII label of a lower-cased host as IDNA
// does, "xn--" and its Punycode (RFC 3492), as the URL parser gives the
// host to Claude Code's domain rules. (The parser also normalises to NFC,
// which this does not.)
func punycodeHost(h string) string {
	labels := strings.Split(h, ".")
	for i, l := range labels {
		if !isASCII(l) {
			if p, ok := punycode(l); ok {
				labels[i] = "xn--" + p
			}
		}
	}
	return strings.Join(labels, ".")
}

// punycode encodes s by RFC 3492's algorithm.
func punycode(s string) (string, bool) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	rs := []rune(s)
	var out []byte
	for _, r := range rs {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	n, delta, bias := initialN, 0, initialBias
	for h < len(rs) {
		m := int(^uint(0) >> 1)
		for _, r := range rs {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		if (m-n)*(h+1) < 0 || delta+(m-n)*(h+1) < delta {
			return "", false
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range rs {
			if int(r) < n {
				delta++
			}
			if int(r) == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out), true
}
