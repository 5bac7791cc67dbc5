package events

// The JSON lexer behind CheckJSON, CanonicalJSON, Parse and DecodeRecord:
// strings, numbers and literals as RFC 8259 and encoding/json define them,
// scanned in place without allocating. Its errors are worded as
// encoding/json words them ("invalid character 'x' in string literal",
// "unexpected EOF"), so that a refusal reads the same as it did when these
// paths decoded with encoding/json.

import (
	"encoding/binary"
	"io"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// syntaxError is a JSON syntax error in encoding/json's words.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// invalidChar reports c where it may not be; context starts with a space
// or is empty, as encoding/json's contexts do.
func invalidChar(c byte, context string) error {
	return &syntaxError{"invalid character " + quoteChar(c) + context}
}

// quoteChar formats c for an error message as encoding/json does (a byte
// of 0x80 or more shows as the Latin-1 character of that value).
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// isSpace reports JSON white space.
func isSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n')
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// strFlags says what a JSON string holds besides plain text: a string with
// none of them reads as its raw bytes, and is already in canonical form.
type strFlags uint8

const (
	strEscaped       strFlags = 1 << iota // a backslash escape
	strNonASCII                           // a byte of 0x80 or more, maybe not UTF-8
	strLoneSurrogate                      // a \uD800-\uDFFF escape that is not half of a pair
)

// scanString scans the string whose opening quote is b[i] and returns the
// offset after its closing quote. A lone surrogate escape is flagged, not
// refused: CheckJSON refuses it, the decoders turn it into U+FFFD.
func scanString(b []byte, i int) (int, strFlags, error) {
	var f strFlags
	for i++; ; {
		// Eight bytes at a time up to the first that needs a look: most
		// strings (ids, hashes, names) are plain text.
		var high uint64
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if m := needsLook(w); m != 0 {
				n := bits.TrailingZeros64(m) / 8
				high |= w & msb & (1<<(8*n) - 1)
				i += n
				break
			}
			high |= w & msb
			i += 8
		}
		if high != 0 {
			f |= strNonASCII
		}
		if i == len(b) {
			return 0, f, io.ErrUnexpectedEOF
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, f, nil
		case c == '\\':
			f |= strEscaped
			if i+1 == len(b) {
				return 0, f, io.ErrUnexpectedEOF
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				v, err := scanHex4(b, i+2)
				if err != nil {
					return 0, f, err
				}
				i += 6
				if !utf16.IsSurrogate(rune(v)) {
					continue
				}
				// A high surrogate pairs with a low one right after it
				// (the rule of loneSurrogate, kept for its answers).
				if v <= 0xDBFF && i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if w, ok := hex4(b[i+2 : i+6]); ok && w >= 0xDC00 && w <= 0xDFFF {
						i += 6
						continue
					}
				}
				f |= strLoneSurrogate
			default:
				return 0, f, invalidChar(b[i+1], " in string escape code")
			}
		case c < ' ':
			return 0, f, invalidChar(c, " in string literal")
		default:
			if c >= utf8.RuneSelf {
				f |= strNonASCII
			}
			i++
		}
	}
}

// Byte-wise tests on eight bytes at once (the "has zero byte" trick).
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// needsLook marks the bytes of w that are control characters, '"' or '\\'
// with their high bit. It may also mark bytes after the first one it marks
// (a borrow runs upwards), never one before: the lowest mark is exact.
func needsLook(w uint64) uint64 {
	quote, backslash := w^(lsb*'"'), w^(lsb*'\\')
	control := (w - lsb*' ') &^ w
	return (control | (quote-lsb)&^quote | (backslash-lsb)&^backslash) & msb
}

// scanHex4 checks the four hex digits of a \u escape at b[i:].
func scanHex4(b []byte, i int) (int, error) {
	for k := i; k < i+4; k++ {
		if k == len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		if c := b[k]; !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return 0, invalidChar(c, ` in \u hexadecimal character escape`)
		}
	}
	v, _ := hex4(b[i : i+4])
	return v, nil
}

// scanNumber scans the number that starts at b[i] ('-' or a digit) and
// returns the offset after it.
func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
		if i == len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		if !isDigit(b[i]) {
			return 0, invalidChar(b[i], " in numeric literal")
		}
	}
	if b[i] == '0' {
		i++
	} else {
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i == len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		if !isDigit(b[i]) {
			return 0, invalidChar(b[i], " after decimal point in numeric literal")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		if !isDigit(b[i]) {
			return 0, invalidChar(b[i], " in exponent of numeric literal")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

// scanLiteral scans true, false or null, whose first byte is b[i].
func scanLiteral(b []byte, i int, lit string) (int, error) {
	for k := 1; k < len(lit); k++ {
		if i+k == len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		if b[i+k] != lit[k] {
			return 0, invalidChar(b[i+k], " in literal "+lit+" (expecting "+quoteChar(lit[k])+")")
		}
	}
	return i + len(lit), nil
}

// scanScalar scans the string, number or literal that starts at b[i], as
// its node kind: '"', '0' (any number), 't', 'f' or 'n'.
func scanScalar(b []byte, i int) (end int, kind byte, f strFlags, err error) {
	switch c := b[i]; {
	case c == '"':
		end, f, err = scanString(b, i)
		return end, '"', f, err
	case c == '-' || isDigit(c):
		end, err = scanNumber(b, i)
		return end, '0', 0, err
	case c == 't':
		end, err = scanLiteral(b, i, "true")
	case c == 'f':
		end, err = scanLiteral(b, i, "false")
	case c == 'n':
		end, err = scanLiteral(b, i, "null")
	default:
		return 0, 0, 0, invalidChar(c, " looking for beginning of value")
	}
	return end, b[i], 0, err
}

// appendUnquoted appends what the JSON string s (quotes included, already
// scanned) decodes to, exactly as encoding/json decodes it: bytes that are
// not UTF-8 and lone surrogate escapes become U+FFFD, one per byte and one
// per escape.
func appendUnquoted(dst, s []byte) []byte {
	s = s[1 : len(s)-1]
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != utf8.RuneError {
						dst = utf8.AppendRune(dst, dec)
						r += 6
						continue
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
			default:
				dst = append(dst, unescape[e])
				r += 2
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			dst = utf8.AppendRune(dst, rr)
			r += size
		}
	}
	return dst
}

// unescape maps the character after a backslash to what it stands for.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// getu4 decodes the \uXXXX escape at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	v, ok := hex4(s[2:6])
	if !ok {
		return -1
	}
	return rune(v)
}

// appendQuoted appends s as a JCS string (RFC 8785 section 3.2.2.2): only
// '"', '\' and control characters are escaped. s must be UTF-8; see
// appendQuotedString for a string that may not be.
func appendQuoted[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendQuotedString appends a Go string as the canonical encoding of its
// json.Marshal encoding: each byte that is not UTF-8 becomes U+FFFD, then
// the JCS escapes apply.
func appendQuotedString(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return appendQuoted(dst, s)
	}
	valid := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		valid = utf8.AppendRune(valid, r) // RuneError for a bad byte, as json.Marshal writes \ufffd
		i += size
	}
	return appendQuoted(dst, valid)
}
