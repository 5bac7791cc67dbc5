package openclaw

import (
	"strings"
	"unicode"
)

// jsLower is JavaScript's String.prototype.toLowerCase, which OpenClaw
// lower-cases tool names, sender keys and senders, channel, provider and
// plugin ids and agent ids with: Unicode's simple lower-case mappings (Go's
// strings.ToLower), except the two mappings JavaScript takes from
// SpecialCasing: U+0130 (İ) becomes "i" and U+0307 (so "VİEW_IMAGE" is not
// view_image), and Σ is ς at the end of a word (Final_Sigma: so
// "ΟΔΥΣΣΕΥΣ" is "οδυσσευς"). Go's strings.ToLower makes İ a plain "i" and
// every Σ a σ.
func jsLower(s string) string {
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + 2)
	for i, c := range rs {
		switch c {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3a3:
			if finalSigma(rs, i) {
				b.WriteRune(0x3c2)
			} else {
				b.WriteRune(0x3c3)
			}
		default:
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for the Σ at rs[i]: a
// cased letter before it and none after it, case-ignorable characters
// skipped on both sides.
func finalSigma(rs []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if caseIgnorable(rs[j]) {
			continue
		}
		before = cased(rs[j])
		break
	}
	if !before {
		return false
	}
	for j := i + 1; j < len(rs); j++ {
		if caseIgnorable(rs[j]) {
			continue
		}
		return !cased(rs[j])
	}
	return true
}

// cased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027, 0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// lower is the release's lower-casing: JavaScript's for the packaged
// releases, Go's for the legacy one (as it always was).
func (r *Release) lower(s string) string {
	if r.Rules == rulesPackage {
		return jsLower(s)
	}
	return strings.ToLower(s)
}
