package hookwire

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON a hook process reads and writes, without encoding/json: a hook
// is a process per event, and encoding/json's first use in a process
// (reflection over the types, its caches) cost the thin hook more than
// everything else it does but start (issue 28). What these functions read
// and write is encoding/json's, byte for byte and input for input, which
// json_test.go checks against encoding/json itself (FuzzJSON).

// appendString appends s as encoding/json writes a string: with
// escapeHTML, as json.Marshal does (<, > and & escaped); without, as an
// Encoder with SetEscapeHTML(false).
func appendString(dst []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
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
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// maxNestingDepth is encoding/json's bound on the nesting of a value.
const maxNestingDepth = 10000

// errSyntax is any JSON that does not read.
var errSyntax = errors.New("hookwire: not JSON")

// The states of a lexer: encoding/json's Decoder's token states.
const (
	tokenTopValue = iota
	tokenArrayStart
	tokenArrayValue
	tokenArrayComma
	tokenObjectStart
	tokenObjectKey
	tokenObjectColon
	tokenObjectValue
	tokenObjectComma
)

// A token is one token of a lexer: kind is one of { } [ ], '"' for a
// string (an object's key, or a value), '0' for a number, 't', 'f' or 'n'
// for true, false and null; raw is its bytes (a string's with its quotes).
type token struct {
	kind  byte
	raw   []byte
	start int // its offset in the input
}

// A lexer reads JSON tokens as encoding/json's Decoder.Token does: it
// checks the nesting of the delimiters, that an object's keys are strings
// followed by a colon, and the commas; and, with floats, that a number
// fits a float64 (Decoder.Token decodes a number as one, and fails on one
// that does not). It bounds the nesting of arrays and objects to limit
// when limit is not 0 (Token has no bound; json.Unmarshal's is
// maxNestingDepth).
type lexer struct {
	data   []byte
	off    int
	state  int
	stack  []int
	floats bool
	limit  int
}

func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n') }

// peek skips white space and returns the next byte; false at the end.
func (l *lexer) peek() (byte, bool) {
	for l.off < len(l.data) {
		if c := l.data[l.off]; !isSpace(c) {
			return c, true
		}
		l.off++
	}
	return 0, false
}

// more is Decoder.More: whether another element of the array or object
// follows.
func (l *lexer) more() bool {
	c, ok := l.peek()
	return ok && c != ']' && c != '}'
}

func (l *lexer) valueAllowed() bool {
	switch l.state {
	case tokenTopValue, tokenArrayStart, tokenArrayValue, tokenObjectValue:
		return true
	}
	return false
}

func (l *lexer) valueEnd() {
	switch l.state {
	case tokenArrayStart, tokenArrayValue:
		l.state = tokenArrayComma
	case tokenObjectValue:
		l.state = tokenObjectComma
	}
}

// depth is the number of arrays and objects open.
func (l *lexer) depth() int { return len(l.stack) }

// next is the next token: errEOF at the end of the input, errSyntax for
// anything Decoder.Token would fail on.
func (l *lexer) next() (token, error) {
	for {
		c, ok := l.peek()
		if !ok {
			return token{}, errEOF
		}
		switch c {
		case '[', '{':
			if !l.valueAllowed() || l.limit > 0 && len(l.stack) >= l.limit {
				return token{}, errSyntax
			}
			l.off++
			l.stack = append(l.stack, l.state)
			l.state = tokenArrayStart
			if c == '{' {
				l.state = tokenObjectStart
			}
			return token{kind: c, start: l.off - 1}, nil
		case ']', '}':
			if c == ']' && l.state != tokenArrayStart && l.state != tokenArrayComma ||
				c == '}' && l.state != tokenObjectStart && l.state != tokenObjectComma {
				return token{}, errSyntax
			}
			l.off++
			l.state = l.stack[len(l.stack)-1]
			l.stack = l.stack[:len(l.stack)-1]
			l.valueEnd()
			return token{kind: c, start: l.off - 1}, nil
		case ':':
			if l.state != tokenObjectColon {
				return token{}, errSyntax
			}
			l.off++
			l.state = tokenObjectValue
			continue
		case ',':
			switch l.state {
			case tokenArrayComma:
				l.state = tokenArrayValue
			case tokenObjectComma:
				l.state = tokenObjectKey
			default:
				return token{}, errSyntax
			}
			l.off++
			continue
		case '"':
			if l.state == tokenObjectStart || l.state == tokenObjectKey {
				n := scanString(l.data[l.off:])
				if n < 0 {
					return token{}, errSyntax
				}
				t := token{kind: '"', raw: l.data[l.off : l.off+n], start: l.off}
				l.off += n
				l.state = tokenObjectColon
				return t, nil
			}
		}
		if !l.valueAllowed() {
			return token{}, errSyntax
		}
		var n int
		kind := c
		switch {
		case c == '"':
			n = scanString(l.data[l.off:])
		case c == '-' || '0' <= c && c <= '9':
			kind = '0'
			n = scanNumber(l.data[l.off:])
			if n > 0 && l.floats {
				if _, err := strconv.ParseFloat(string(l.data[l.off:l.off+n]), 64); err != nil {
					n = -1
				}
			}
		case c == 't':
			n = scanLiteral(l.data[l.off:], "true")
		case c == 'f':
			n = scanLiteral(l.data[l.off:], "false")
		case c == 'n':
			n = scanLiteral(l.data[l.off:], "null")
		default:
			n = -1
		}
		if n < 0 {
			return token{}, errSyntax
		}
		t := token{kind: kind, raw: l.data[l.off : l.off+n], start: l.off}
		l.off += n
		l.valueEnd()
		return t, nil
	}
}

// errEOF is the end of a lexer's input.
var errEOF = errors.New("hookwire: end of JSON")

// skip reads the rest of the value whose first token is t: nothing for a
// scalar, up to the delimiter that closes an array or object.
func (l *lexer) skip(t token) error {
	if t.kind != '{' && t.kind != '[' {
		return nil
	}
	for d := l.depth() - 1; l.depth() > d; {
		if _, err := l.next(); err != nil {
			return err
		}
	}
	return nil
}

// scanString is the length of the JSON string at the start of b (its
// quotes included), -1 if there is none.
func scanString(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < ' ':
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// scanNumber is the length of the JSON number at the start of b, -1 if
// there is none. It ends at the first byte that cannot go on with it, as
// encoding/json's scanner does.
func scanNumber(b []byte) int {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		digits()
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

// scanLiteral is len(lit) if b starts with it, else -1.
func scanLiteral(b []byte, lit string) int {
	if len(b) < len(lit) || string(b[:len(lit)]) != lit {
		return -1
	}
	return len(lit)
}

// unquote is the string a JSON string token (one scanString accepts)
// decodes to, as encoding/json decodes it: ill-formed UTF-8 and unpaired
// surrogates become U+FFFD.
func unquote(raw []byte) string {
	s := raw[1 : len(raw)-1]
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return string(s)
	}
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	b = append(b, s[:r]...)
	for r < len(s) {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch e := s[r]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, e)
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b)
}

// getu4 decodes \uXXXX at the start of s, -1 if there is none.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// member is one member of an object: its key, decoded, the first token of
// its value, and the value's bytes.
type member struct {
	key   string
	value token
	raw   []byte
}

// objectMembers reports whether raw is one JSON object, as encoding/json
// reads one (json.Unmarshal into a map succeeds and gives a map, not nil:
// valid JSON, nested at most maxNestingDepth deep, that is an object), and
// its members in order.
func objectMembers(raw []byte) ([]member, bool) {
	l := lexer{data: raw, limit: maxNestingDepth}
	if t, err := l.next(); err != nil || t.kind != '{' {
		return nil, false
	}
	var ms []member
	for {
		k, err := l.next()
		if err != nil {
			return nil, false
		}
		if k.kind == '}' {
			break
		}
		v, err := l.next()
		if err != nil || l.skip(v) != nil {
			return nil, false
		}
		ms = append(ms, member{unquote(k.raw), v, raw[v.start:l.off]})
	}
	if _, more := l.peek(); more {
		return nil, false
	}
	return ms, true
}

// IsObject reports whether raw is one JSON object, as encoding/json reads
// one: json.Unmarshal of raw into a map succeeds and gives a map.
func IsObject(raw []byte) bool {
	_, ok := objectMembers(raw)
	return ok
}

// DenialReason is the permissionDecisionReason of a hook answer, as
// json.Unmarshal of it into a struct with the field
// hookSpecificOutput.permissionDecisionReason reads it: keys matched
// regardless of case, the last one read winning, a value of another type
// (or null) passed over; "" when there is none, or answer is not one
// object (IsObject).
func DenialReason(answer []byte) string {
	ms, ok := objectMembers(answer)
	if !ok {
		return ""
	}
	reason := ""
	for _, m := range ms {
		if m.value.kind != '{' || !strings.EqualFold(m.key, "hookSpecificOutput") {
			continue
		}
		inner, _ := objectMembers(m.raw)
		for _, im := range inner {
			if im.value.kind == '"' && strings.EqualFold(im.key, "permissionDecisionReason") {
				reason = unquote(im.value.raw)
			}
		}
	}
	return reason
}
