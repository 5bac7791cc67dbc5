package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// ParseStrict reads one strict JSON value (RFC 8259) from src, after an
// optional byte order mark, with positions and spans: Start, End and
// KeyStart are offsets into src as given, the mark included. Errors are
// *Error naming file, line and column, their Msg starting "not JSON: ".
//
// With repeated nil, every member is kept as written, a repeated key
// included (an editor needs them all). Otherwise a repeated key is resolved
// as JavaScript's JSON.parse resolves it, the last value winning at the
// place of the first key, and repeated is called as each repeat is read
// (after the repeats inside its value), with where the key was first
// written; repeats read before a syntax error have been reported.
//
// It is built on encoding/json's Decoder, so it accepts exactly what
// json.Valid accepts after the mark (FuzzClaudeCodeSettings in
// internal/importer/claudecode) and reads strings and numbers as encoding/json does;
// only the positions are its own. It is not ParseJSON5 because Claude Code
// reads settings with JavaScript's JSON.parse: a comment or a trailing comma
// makes it ignore the whole file, which the importer must report rather
// than read past, and a repeated key is not an error there (the last wins).
//
// A value nested deeper than MaxStrictDepth is refused with a *DepthError,
// not an *Error: the reader recurses, and a file of millions of '[' would
// overflow the stack and kill the process (a hook, or serve --hooks) that
// reads it (TestParseStrictDepth). It is not a file Claude Code would
// ignore (JSON.parse reads deep nesting), so callers refuse the whole read
// rather than skip the file and its rules.
func ParseStrict(file string, src []byte, repeated func(m Member, first Pos)) (*Value, error) {
	base := 0
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		base = len("\ufeff")
	}
	body := src[base:]
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	lines := newLineIndex(body)
	at := func(off int64) Pos { return lines.pos(int(min(max(off, 0), int64(len(body))))) }
	// next is the offset of the next token: InputOffset is the end of the
	// previous one, before the separators the Decoder skips.
	next := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(body)) && strings.IndexByte(" \t\r\n,:", body[off]) >= 0 {
			off++
		}
		return off
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p := at(se.Offset) // the offending byte
			return &Error{File: file, Line: p.Line, Col: p.Col, Msg: "not JSON: " + se.Error()}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			p := at(int64(len(body)))
			return &Error{File: file, Line: p.Line, Col: p.Col, Msg: "not JSON: unexpected end of input"}
		}
		return &Error{File: file, Msg: "not JSON: " + err.Error()}
	}
	depth := 0
	var value func() (*Value, error)
	value = func() (*Value, error) {
		start := next()
		pos := at(start)
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		v := &Value{Pos: pos, Start: base + int(start)}
		switch t := tok.(type) {
		case json.Delim:
			if depth++; depth > MaxStrictDepth {
				return nil, &DepthError{File: file, Pos: pos}
			}
			defer func() { depth-- }()
			if t == '{' {
				v.Kind = Object
				var seen map[string]int
				for dec.More() {
					kstart := next()
					kpos := at(kstart)
					kt, err := dec.Token()
					if err != nil {
						return nil, fail(err)
					}
					key, _ := kt.(string)
					val, err := value()
					if err != nil {
						return nil, err
					}
					m := Member{Key: key, KeyPos: kpos, KeyStart: base + int(kstart), Value: val}
					if repeated != nil {
						if i, dup := seen[key]; dup {
							repeated(m, v.Members[i].KeyPos)
							v.Members[i].Value = val
							continue
						}
						if seen == nil {
							seen = map[string]int{}
						}
						seen[key] = len(v.Members)
					}
					v.Members = append(v.Members, m)
				}
			} else {
				v.Kind = Array
				for dec.More() {
					e, err := value()
					if err != nil {
						return nil, err
					}
					v.Elems = append(v.Elems, e)
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
		case string:
			v.Kind, v.Str = String, t
		case json.Number:
			v.Kind, v.Num = Number, t.String()
		case bool:
			v.Kind, v.Bool = Bool, t
		default:
			v.Kind = Null
		}
		v.End = base + int(dec.InputOffset())
		return v, nil
	}
	v, err := value()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		p := at(next())
		if err != nil {
			return nil, fail(err)
		}
		return nil, &Error{File: file, Line: p.Line, Col: p.Col, Msg: "not JSON: more after the top-level value"}
	}
	return v, nil
}

// lineIndex turns byte offsets into lines and columns (columns count
// characters, an invalid byte as one).
//
// A column is counted from the place asked before it when that is on the
// same line and not after it, as a parser asks (in increasing order), so
// that all the positions of a file cost O(n) together. Counting from the
// start of the line each time made a file written on one line quadratic.
type lineIndex struct {
	src    []byte
	starts []int // where each line starts
	// the last place asked, when it starts a character
	off, line, col int
}

func newLineIndex(src []byte) *lineIndex {
	x := &lineIndex{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			x.starts = append(x.starts, i+1)
		}
	}
	return x
}

// pos places offset o, 0 <= o <= len(src).
func (x *lineIndex) pos(o int) Pos {
	line := sort.SearchInts(x.starts, o+1) // the first start after o
	from, col := x.starts[line-1], 1
	if line == x.line && o >= x.off {
		from, col = x.off, x.col
	}
	col += utf8.RuneCount(x.src[from:o])
	// Counting on from o adds up only when o starts a character: a valid
	// sequence never spans it then.
	if o == len(x.src) || utf8.RuneStart(x.src[o]) {
		x.off, x.line, x.col = o, line, col
	}
	return Pos{Line: line, Col: col}
}

// MaxStrictDepth is the deepest nesting ParseStrict reads: encoding/json's
// own limit (json.Valid refuses deeper input).
const MaxStrictDepth = 10000

// DepthError is ParseStrict's refusal of a value nested past
// MaxStrictDepth.
type DepthError struct {
	File string
	Pos  Pos
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("%s:%d:%d: nested more than %d levels deep: the ledger does not read such a file (Claude Code does), so it refuses the import rather than drop the file's rules", e.File, e.Pos.Line, e.Pos.Col, MaxStrictDepth)
}
