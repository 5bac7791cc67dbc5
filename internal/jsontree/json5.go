package jsontree

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the JSON5 reader (https://spec.json5.org, version 1.0.0).
//
// It is hand-written because the importer names a line and column in every
// warning and refusal about an OpenClaw config (TestParseJSON5Positions,
// TestJSON5Errors), and no JSON5 reader the module could use records a
// position for every value and key. FuzzJSON5 holds it to encoding/json on
// every input that is also JSON.

// Two choices go beyond the spec, both because the tree feeds policy
// documents: a key repeated in one object is refused (JSON5 and
// encoding/json would silently keep the last value, hiding a setting), and
// Infinity and NaN are read but cannot be written as JSON (AppendJSON refuses
// them with their position), since JSON has no such numbers.

// maxDepth bounds nesting like encoding/json does, so that hostile input
// cannot exhaust the stack.
const maxDepth = 10000

// ParseJSON5 reads one JSON5 value from src. Errors are *Error naming file,
// line and column.
func ParseJSON5(file string, src []byte) (*Value, error) {
	p := &parser{file: file, src: src, line: 1, col: 1}
	p.skipSpace()
	if p.err != nil {
		return nil, p.err
	}
	v := p.value()
	if p.err != nil {
		return nil, p.err
	}
	p.skipSpace()
	if p.err != nil {
		return nil, p.err
	}
	if p.off < len(p.src) {
		return nil, p.errorf(p.pos(), "unexpected %s after the top-level value", p.describeHere())
	}
	return v, nil
}

// JSON5ToJSON converts a JSON5 text to compact JSON, keeping the order of
// object members. Besides syntax errors it refuses repeated keys and the
// numbers JSON cannot hold (Infinity, NaN).
func JSON5ToJSON(file string, src []byte) ([]byte, error) {
	v, err := ParseJSON5(file, src)
	if err != nil {
		return nil, err
	}
	return v.AppendJSON(nil, file)
}

// AppendJSON appends v as compact JSON. file names the source in the error
// for a non-finite number.
func (v *Value) AppendJSON(dst []byte, file string) ([]byte, error) {
	switch v.Kind {
	case Null:
		return append(dst, "null"...), nil
	case Bool:
		return strconv.AppendBool(dst, v.Bool), nil
	case Number:
		if v.NonFinite != "" {
			return nil, &Error{File: file, Line: v.Pos.Line, Col: v.Pos.Col,
				Msg: v.NonFinite + " is not allowed: JSON and policy documents hold only finite numbers"}
		}
		return append(dst, v.Num...), nil
	case String:
		return appendString(dst, v.Str), nil
	case Array:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = e.AppendJSON(dst, file); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case Object:
		dst = append(dst, '{')
		for i, m := range v.Members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, m.Key)
			dst = append(dst, ':')
			var err error
			if dst, err = m.Value.AppendJSON(dst, file); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("jsontree: value of unknown kind %d", v.Kind)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. s is valid UTF-8 (the parser
// replaces invalid bytes), so only quotes, backslashes and control
// characters need escaping.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

type parser struct {
	file      string
	src       []byte
	off       int
	line, col int // position of src[off]
	depth     int
	err       *Error
}

func (p *parser) pos() Pos { return Pos{p.line, p.col} }

func (p *parser) errorf(at Pos, format string, args ...any) *Error {
	e := &Error{File: p.file, Line: at.Line, Col: at.Col, Msg: fmt.Sprintf(format, args...)}
	if p.err == nil {
		p.err = e
	}
	return p.err
}

// peek returns the character at the current offset and its size; size 0
// means end of input. An invalid UTF-8 byte reads as utf8.RuneError, size 1.
func (p *parser) peek() (rune, int) {
	if p.off >= len(p.src) {
		return 0, 0
	}
	c := p.src[p.off]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(p.src[p.off:])
}

// peekAt returns the byte n bytes ahead, or 0 past the end.
func (p *parser) peekAt(n int) byte {
	if p.off+n >= len(p.src) {
		return 0
	}
	return p.src[p.off+n]
}

// advance consumes one character, keeping line and column. CR LF is one
// line break; CR, LF, U+2028 and U+2029 each end a line.
func (p *parser) advance() {
	r, n := p.peek()
	if n == 0 {
		return
	}
	p.off += n
	switch {
	case r == '\n' || r == '\u2028' || r == '\u2029':
		p.line, p.col = p.line+1, 1
	case r == '\r':
		if p.off < len(p.src) && p.src[p.off] == '\n' {
			p.col++ // the LF that follows ends the line
		} else {
			p.line, p.col = p.line+1, 1
		}
	default:
		p.col++
	}
}

func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

func isSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', '\u00a0', '\ufeff':
		return true
	}
	return isLineTerminator(r) || (r > 0x7f && unicode.Is(unicode.Zs, r))
}

// skipSpace skips white space and comments.
func (p *parser) skipSpace() {
	for {
		r, n := p.peek()
		switch {
		case n == 0:
			return
		case isSpace(r):
			p.advance()
		case r == '/' && p.peekAt(1) == '/':
			for {
				r, n := p.peek()
				if n == 0 || isLineTerminator(r) {
					break
				}
				p.advance()
			}
		case r == '/' && p.peekAt(1) == '*':
			start := p.pos()
			p.advance()
			p.advance()
			for {
				r, n := p.peek()
				if n == 0 {
					p.errorf(start, "unterminated /* comment")
					return
				}
				if r == '*' && p.peekAt(1) == '/' {
					p.advance()
					p.advance()
					break
				}
				p.advance()
			}
		case r == '/':
			p.errorf(p.pos(), "unexpected '/': comments start with // or /*")
			return
		default:
			return
		}
	}
}

// describeHere names the character at the current offset for an error.
func (p *parser) describeHere() string {
	r, n := p.peek()
	switch {
	case n == 0:
		return "end of input"
	case r == utf8.RuneError && n == 1:
		return fmt.Sprintf("byte 0x%02x (not UTF-8)", p.src[p.off])
	case r == '\'':
		return `"'"`
	case unicode.IsPrint(r):
		return "'" + string(r) + "'"
	}
	return fmt.Sprintf("character %U", r)
}

// value reads one value and notes the bytes it spans.
func (p *parser) value() *Value {
	start := p.off
	v := p.bare()
	if v != nil {
		v.Start, v.End = start, p.off
	}
	return v
}

func (p *parser) bare() *Value {
	at := p.pos()
	r, n := p.peek()
	if n == 0 {
		p.errorf(at, "unexpected end of input: expected a value")
		return nil
	}
	switch {
	case r == '{':
		return p.object()
	case r == '[':
		return p.array()
	case r == '"' || r == '\'':
		s, ok := p.str()
		if !ok {
			return nil
		}
		return &Value{Kind: String, Pos: at, Str: s}
	case r == '-' || r == '+' || r == '.' || (r >= '0' && r <= '9'):
		return p.number()
	case r == 'I' || r == 'N':
		return p.number()
	}
	if isIdentStart(r) {
		word := p.word()
		switch word {
		case "null":
			return &Value{Kind: Null, Pos: at}
		case "true", "false":
			return &Value{Kind: Bool, Pos: at, Bool: word == "true"}
		}
		p.errorf(at, "unexpected %q: strings must be quoted", word)
		return nil
	}
	p.errorf(at, "unexpected %s: expected a value", p.describeHere())
	return nil
}

// word consumes a run of identifier characters (for literals and error
// messages).
func (p *parser) word() string {
	start := p.off
	for {
		r, n := p.peek()
		if n == 0 || !isIdentPart(r) {
			break
		}
		p.advance()
	}
	return string(p.src[start:p.off])
}

func (p *parser) enter(at Pos) bool {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(at, "nesting is deeper than %d levels", maxDepth)
		return false
	}
	return true
}

func (p *parser) object() *Value {
	open := p.pos()
	if !p.enter(open) {
		return nil
	}
	defer func() { p.depth-- }()
	v := &Value{Kind: Object, Pos: open}
	p.advance() // '{'
	seen := map[string]Pos{}
	afterComma := false
	for {
		p.skipSpace()
		if p.err != nil {
			return nil
		}
		r, n := p.peek()
		if n == 0 {
			p.errorf(p.pos(), "unexpected end of input: the object opened at %d:%d is not closed", open.Line, open.Col)
			return nil
		}
		if r == '}' {
			p.advance()
			return v
		}
		keyPos, keyStart := p.pos(), p.off
		var key string
		switch {
		case r == '"' || r == '\'':
			s, ok := p.str()
			if !ok {
				return nil
			}
			key = s
		case isIdentStart(r) || r == '\\':
			s, ok := p.identifier()
			if !ok {
				return nil
			}
			key = s
		default:
			if afterComma {
				p.errorf(keyPos, "unexpected %s: expected a property name or '}' after ','", p.describeHere())
			} else {
				p.errorf(keyPos, "unexpected %s: expected a property name or '}'", p.describeHere())
			}
			return nil
		}
		if first, dup := seen[key]; dup {
			e := p.errorf(keyPos, "duplicate key %q (first written at %d:%d)", key, first.Line, first.Col)
			e.dup = true
			return nil
		}
		seen[key] = keyPos
		p.skipSpace()
		if p.err != nil {
			return nil
		}
		if r, n := p.peek(); n == 0 || r != ':' {
			p.errorf(p.pos(), "expected ':' after property name %q, found %s", key, p.describeHere())
			return nil
		}
		p.advance()
		p.skipSpace()
		if p.err != nil {
			return nil
		}
		val := p.value()
		if p.err != nil {
			return nil
		}
		v.Members = append(v.Members, Member{Key: key, KeyPos: keyPos, KeyStart: keyStart, Value: val})
		p.skipSpace()
		if p.err != nil {
			return nil
		}
		r, n = p.peek()
		switch {
		case n == 0:
			p.errorf(p.pos(), "unexpected end of input: the object opened at %d:%d is not closed", open.Line, open.Col)
			return nil
		case r == ',':
			p.advance()
			afterComma = true
		case r == '}':
			p.advance()
			return v
		default:
			p.errorf(p.pos(), "expected ',' or '}' after object member")
			return nil
		}
	}
}

func (p *parser) array() *Value {
	open := p.pos()
	if !p.enter(open) {
		return nil
	}
	defer func() { p.depth-- }()
	v := &Value{Kind: Array, Pos: open}
	p.advance() // '['
	for {
		p.skipSpace()
		if p.err != nil {
			return nil
		}
		r, n := p.peek()
		if n == 0 {
			p.errorf(p.pos(), "unexpected end of input: the list opened at %d:%d is not closed", open.Line, open.Col)
			return nil
		}
		if r == ']' {
			p.advance()
			return v
		}
		if r == ',' {
			p.errorf(p.pos(), "unexpected ',': expected a value or ']'")
			return nil
		}
		e := p.value()
		if p.err != nil {
			return nil
		}
		v.Elems = append(v.Elems, e)
		p.skipSpace()
		if p.err != nil {
			return nil
		}
		r, n = p.peek()
		switch {
		case n == 0:
			p.errorf(p.pos(), "unexpected end of input: the list opened at %d:%d is not closed", open.Line, open.Col)
			return nil
		case r == ',':
			p.advance()
		case r == ']':
			p.advance()
			return v
		default:
			p.errorf(p.pos(), "expected ',' or ']' after list element")
			return nil
		}
	}
}

func hexVal(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// hexAt reads n hex digits at offset p.off+skip without consuming them.
func (p *parser) hexAt(skip, n int) (rune, bool) {
	var r rune
	for i := 0; i < n; i++ {
		d, ok := hexVal(p.peekAt(skip + i))
		if !ok {
			return 0, false
		}
		r = r<<4 | d
	}
	return r, true
}

// unicodeEscape reads \uXXXX at the current offset (the backslash not yet
// consumed) and combines a surrogate pair the way encoding/json does: a
// surrogate that is not part of a valid pair becomes U+FFFD.
func (p *parser) unicodeEscape(at Pos) (rune, bool) {
	r, ok := p.hexAt(2, 4)
	if !ok {
		p.errorf(at, `\u must be followed by four hex digits`)
		return 0, false
	}
	for range 6 {
		p.advance()
	}
	if !utf16.IsSurrogate(r) {
		return r, true
	}
	if p.peekAt(0) == '\\' && p.peekAt(1) == 'u' {
		if r2, ok := p.hexAt(2, 4); ok {
			if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
				for range 6 {
					p.advance()
				}
				return d, true
			}
		}
	}
	return unicode.ReplacementChar, true
}

// str reads a single- or double-quoted string.
func (p *parser) str() (string, bool) {
	open := p.pos()
	q, _ := p.peek()
	p.advance()
	var b strings.Builder
	for {
		r, n := p.peek()
		switch {
		case n == 0:
			p.errorf(open, "unterminated string: end of input before the closing %c", q)
			return "", false
		case r == q:
			p.advance()
			return b.String(), true
		case r == '\n' || r == '\r':
			p.errorf(open, "unterminated string: line break before the closing %c (end the line with '\\' to continue a string)", q)
			return "", false
		case r == '\\':
			if !p.escape(&b) {
				return "", false
			}
		default:
			// An invalid UTF-8 byte reads as U+FFFD, as encoding/json does.
			b.WriteRune(r)
			p.advance()
		}
	}
}

// escape reads one escape sequence inside a string.
func (p *parser) escape(b *strings.Builder) bool {
	at := p.pos()
	c := p.peekAt(1)
	if p.off+1 >= len(p.src) {
		p.errorf(at, "unterminated string: end of input after '\\'")
		return false
	}
	switch {
	case strings.IndexByte("bfnrtv", c) >= 0:
		b.WriteByte("\b\f\n\r\t\v"[strings.IndexByte("bfnrtv", c)])
		p.advance()
		p.advance()
	case c == '0':
		if d := p.peekAt(2); d >= '0' && d <= '9' {
			p.errorf(at, `\0 may not be followed by a digit (octal escapes are not allowed)`)
			return false
		}
		b.WriteByte(0)
		p.advance()
		p.advance()
	case c >= '1' && c <= '9':
		p.errorf(at, `\%c is not a valid escape`, c)
		return false
	case c == 'x':
		r, ok := p.hexAt(2, 2)
		if !ok {
			p.errorf(at, `\x must be followed by two hex digits`)
			return false
		}
		b.WriteRune(r)
		for range 4 {
			p.advance()
		}
	case c == 'u':
		r, ok := p.unicodeEscape(at)
		if !ok {
			return false
		}
		b.WriteRune(r)
	default:
		p.advance() // the backslash
		r, _ := p.peek()
		p.advance()
		if isLineTerminator(r) {
			// A line continuation adds nothing; CR LF counts as one break.
			if r == '\r' && p.peekAt(0) == '\n' {
				p.advance()
			}
			return true
		}
		b.WriteRune(r) // a non-escape character stands for itself
	}
	return true
}

func isIdentStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '$' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return r != utf8.RuneError && unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl)
}

func isIdentPart(r rune) bool {
	if isIdentStart(r) {
		return true
	}
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return r == '\u200c' || r == '\u200d' || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)
}

// identifier reads an unquoted property name (ECMAScript 5.1
// IdentifierName, \u escapes included).
func (p *parser) identifier() (string, bool) {
	var b strings.Builder
	first := true
	for {
		at := p.pos()
		r, n := p.peek()
		if n == 0 {
			break
		}
		if r == '\\' {
			if p.peekAt(1) != 'u' {
				p.errorf(at, `only \u escapes may appear in a property name`)
				return "", false
			}
			u, ok := p.unicodeEscape(at)
			if !ok {
				return "", false
			}
			if (first && !isIdentStart(u)) || (!first && !isIdentPart(u)) {
				p.errorf(at, "escape %U is not allowed in an unquoted property name", u)
				return "", false
			}
			b.WriteRune(u)
		} else if (first && isIdentStart(r)) || (!first && isIdentPart(r)) {
			b.WriteRune(r)
			p.advance()
		} else {
			break
		}
		first = false
	}
	return b.String(), true
}

// number reads a JSON5 number and turns it into JSON text: Infinity and
// NaN (nonFinite), hexadecimal (hexNumber) or decimal (decimal), with an
// optional sign; a number directly followed by a letter, digit or dot is
// refused.
func (p *parser) number() *Value {
	at := p.pos()
	start := p.off
	neg := false
	if c := p.peekAt(0); c == '+' || c == '-' {
		neg = c == '-'
		p.advance()
	}
	v := &Value{Kind: Number, Pos: at}
	var ok bool
	switch c := p.peekAt(0); {
	case c == 'I' || c == 'N':
		return p.nonFinite(v, at, start, neg)
	case c == '0' && (p.peekAt(1) == 'x' || p.peekAt(1) == 'X'):
		v.Num, ok = p.hexNumber(at, neg)
	default:
		v.Num, ok = p.decimal(at, start, neg)
	}
	if !ok {
		return nil
	}
	if r, n := p.peek(); n > 0 && (isIdentStart(r) || r >= '0' && r <= '9' || r == '.') {
		p.errorf(p.pos(), "invalid number: unexpected %s after %q", p.describeHere(), string(p.src[start:p.off]))
		return nil
	}
	return v
}

// nonFinite reads Infinity or NaN into v.
func (p *parser) nonFinite(v *Value, at Pos, start int, neg bool) *Value {
	switch p.word() {
	case "Infinity":
		v.NonFinite = "Infinity"
		if neg {
			v.NonFinite = "-Infinity"
		}
	case "NaN":
		v.NonFinite = "NaN"
	default:
		p.errorf(at, "unexpected %q: strings must be quoted", string(p.src[start:p.off]))
		return nil
	}
	return v
}

// hexNumber reads 0x and its hex digits as a decimal integer's text.
func (p *parser) hexNumber(at Pos, neg bool) (string, bool) {
	p.advance()
	p.advance()
	ds := p.off
	for p.off < len(p.src) {
		if _, ok := hexVal(p.src[p.off]); !ok {
			break
		}
		p.advance()
	}
	if p.off == ds {
		p.errorf(at, "invalid number: 0x must be followed by hex digits")
		return "", false
	}
	n, _ := new(big.Int).SetString(string(p.src[ds:p.off]), 16)
	if neg {
		return "-" + n.String(), true
	}
	return n.String(), true
}

// decimal reads a decimal number (a JSON5 one may start or end with its
// point) as JSON text.
func (p *parser) decimal(at Pos, start int, neg bool) (string, bool) {
	var intPart, frac, exp []byte
	if p.peekAt(0) == '0' {
		intPart = []byte{'0'}
		p.advance()
		if d := p.peekAt(0); d >= '0' && d <= '9' {
			p.errorf(at, "invalid number: leading zeros are not allowed")
			return "", false
		}
	} else {
		intPart = p.digits()
	}
	hasDot := false
	if p.peekAt(0) == '.' {
		hasDot = true
		p.advance()
		frac = p.digits()
	}
	if len(intPart) == 0 && len(frac) == 0 {
		if hasDot {
			p.errorf(at, "invalid number: a decimal point needs a digit before or after it")
		} else {
			p.errorf(at, "unexpected %q: expected a value", string(p.src[start:p.off]))
		}
		return "", false
	}
	if e := p.peekAt(0); e == 'e' || e == 'E' {
		es := p.off
		p.advance()
		if s := p.peekAt(0); s == '+' || s == '-' {
			p.advance()
		}
		if len(p.digits()) == 0 {
			p.errorf(at, "invalid number: the exponent has no digits")
			return "", false
		}
		exp = p.src[es:p.off]
	}
	var b bytes.Buffer
	if neg {
		b.WriteByte('-')
	}
	if len(intPart) == 0 {
		b.WriteByte('0')
	}
	b.Write(intPart)
	if len(frac) > 0 {
		b.WriteByte('.')
		b.Write(frac)
	}
	b.Write(exp)
	return b.String(), true
}

func (p *parser) digits() []byte {
	start := p.off
	for p.off < len(p.src) && p.src[p.off] >= '0' && p.src[p.off] <= '9' {
		p.advance()
	}
	return p.src[start:p.off]
}
