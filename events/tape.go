package events

import (
	"io"
	"sync"
	"unicode/utf8"
)

// A tape is one JSON value parsed into a flat list of nodes in document
// order: each container is followed by its children, an object's as key,
// value, key, value. CanonicalJSON, Parse and DecodeRecord read values from
// it instead of decoding into maps and interface{} values, so they make no
// allocation per object, key or number; the fuzz tests in
// oracle_diff_test.go hold their answers equal to encoding/json-based
// implementations (oracle_test.go).
//
// # Caveats
//
// Nodes refer to the parsed bytes by offset, so a tape is only meaningful
// together with the slice it was parsed from. Tapes are pooled; one must
// not be used after it is put back.
type tape struct {
	nodes []node
	stack []int  // the open containers while parsing
	buf   []byte // scratch space for the tape's readers
	ends  []int  // more of it: where each of the strings decoded into buf ends
}

// A node is one value on a tape.
type node struct {
	kind  byte     // '{', '[', '"', '0' (any number), 't', 'f' or 'n'
	flags strFlags // of a string
	start int      // offset of the value's first byte
	end   int      // offset after its last byte
	next  int      // index of the node after the value and its children
	n     int      // how many elements an array has, members an object has
}

// maxDecodeDepth is how deep encoding/json lets values nest; the tape
// refuses anything deeper, as encoding/json does (FuzzCheckJSONDiff).
const maxDecodeDepth = 10000

// parse reads one JSON value from b as encoding/json's Decoder.Decode
// does: leading white space skipped, nesting at most maxDepth, the same
// errors (io.EOF when b holds nothing but white space). It returns the
// offset after the value; what follows is the caller's to judge.
func (t *tape) parse(b []byte, maxDepth int) (int, error) {
	t.nodes, t.stack, t.buf = t.nodes[:0], t.stack[:0], t.buf[:0]
	i := skipSpace(b, 0)
	if i == len(b) {
		return 0, io.EOF
	}
	for {
		// b[i] starts a value.
		if n := len(t.stack); n > 0 && t.nodes[t.stack[n-1]].kind == '[' {
			t.nodes[t.stack[n-1]].n++
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(t.stack) >= maxDepth {
				return 0, invalidChar(c, " exceeded max depth")
			}
			t.stack = append(t.stack, len(t.nodes))
			t.nodes = append(t.nodes, node{kind: c, start: i})
			if i = skipSpace(b, i+1); i == len(b) {
				return 0, io.ErrUnexpectedEOF
			}
			switch {
			case c == '{' && b[i] == '}', c == '[' && b[i] == ']':
				i = t.close(i)
			case c == '{':
				var err error
				if i, err = t.readKey(b, i); err != nil {
					return 0, err
				}
				continue
			default:
				continue
			}
		default:
			end, kind, flags, err := scanScalar(b, i)
			if err != nil {
				return 0, err
			}
			t.nodes = append(t.nodes, node{kind: kind, flags: flags, start: i, end: end, next: len(t.nodes) + 1})
			i = end
		}
		// A value ended at b[i]: close the containers it ends, until one
		// goes on with another value.
		for {
			if len(t.stack) == 0 {
				return i, nil
			}
			if i = skipSpace(b, i); i == len(b) {
				return 0, io.ErrUnexpectedEOF
			}
			c := b[i]
			if t.nodes[t.stack[len(t.stack)-1]].kind == '{' {
				if c == '}' {
					i = t.close(i)
					continue
				}
				if c != ',' {
					return 0, invalidChar(c, " after object key:value pair")
				}
				if i = skipSpace(b, i+1); i == len(b) {
					return 0, io.ErrUnexpectedEOF
				}
				var err error
				if i, err = t.readKey(b, i); err != nil {
					return 0, err
				}
				break
			}
			if c == ']' {
				i = t.close(i)
				continue
			}
			if c != ',' {
				return 0, invalidChar(c, " after array element")
			}
			if i = skipSpace(b, i+1); i == len(b) {
				return 0, io.ErrUnexpectedEOF
			}
			break
		}
	}
}

// readKey reads an object member's key at b[i] and the colon after it, and
// returns the offset where the value starts.
func (t *tape) readKey(b []byte, i int) (int, error) {
	if b[i] != '"' {
		return 0, invalidChar(b[i], " looking for beginning of object key string")
	}
	end, flags, err := scanString(b, i)
	if err != nil {
		return 0, err
	}
	t.nodes[t.stack[len(t.stack)-1]].n++
	t.nodes = append(t.nodes, node{kind: '"', flags: flags, start: i, end: end, next: len(t.nodes) + 1})
	if i = skipSpace(b, end); i == len(b) {
		return 0, io.ErrUnexpectedEOF
	}
	if b[i] != ':' {
		return 0, invalidChar(b[i], " after object key")
	}
	if i = skipSpace(b, i+1); i == len(b) {
		return 0, io.ErrUnexpectedEOF
	}
	return i, nil
}

// close ends the innermost open container at its closing bracket b[i].
func (t *tape) close(i int) int {
	top := &t.nodes[t.stack[len(t.stack)-1]]
	top.end, top.next = i+1, len(t.nodes)
	t.stack = t.stack[:len(t.stack)-1]
	return i + 1
}

// raw returns the bytes of node k.
func (t *tape) raw(b []byte, k int) []byte { return b[t.nodes[k].start:t.nodes[k].end] }

// plain reports whether string node k reads as its raw bytes: no escapes,
// and valid UTF-8.
func (t *tape) plain(b []byte, k int) bool {
	switch t.nodes[k].flags {
	case 0:
		return true
	case strNonASCII:
		return utf8.Valid(t.raw(b, k))
	}
	return false
}

// appendString appends what string node k decodes to.
func (t *tape) appendString(dst, b []byte, k int) []byte {
	if t.plain(b, k) {
		n := t.nodes[k]
		return append(dst, b[n.start+1:n.end-1]...)
	}
	return appendUnquoted(dst, t.raw(b, k))
}

// A member is a member of an object on a tape: the index of its key's node
// (the value's node follows it) and where its decoded key is: in the parsed
// bytes, or in the tape's buf if it had to be decoded. Offsets, not a
// slice, so that sorting members moves no pointers.
type member struct {
	k          int
	start, end int
	decoded    bool
}

// members appends the members of object node obj to dst, decoding the
// keys that have escapes into t.buf.
func (t *tape) members(dst []member, b []byte, obj int) []member {
	for k := obj + 1; k < t.nodes[obj].next; k = t.nodes[k+1].next {
		n := t.nodes[k]
		if t.plain(b, k) {
			dst = append(dst, member{k: k, start: n.start + 1, end: n.end - 1})
			continue
		}
		start := len(t.buf)
		t.buf = appendUnquoted(t.buf, b[n.start:n.end])
		dst = append(dst, member{k: k, start: start, end: len(t.buf), decoded: true})
	}
	return dst
}

// key returns m's decoded key; b is what t was parsed from.
func (t *tape) key(b []byte, m member) []byte {
	if m.decoded {
		return t.buf[m.start:m.end]
	}
	return b[m.start:m.end]
}

// tapes pools tapes: a record or event parses without allocating.
var tapes = sync.Pool{New: func() any { return new(tape) }}

func getTape() *tape { return tapes.Get().(*tape) }

// putTape returns t to the pool unless a huge value made it huge.
func putTape(t *tape) {
	if cap(t.nodes) <= 1<<16 && cap(t.buf) <= 1<<16 && cap(t.ends) <= 1<<16 {
		tapes.Put(t)
	}
}
