package api

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// readQuery reads a query in the form encoding/json writes a wire.Query
// in (the client's): one object and nothing around it, without
// whitespace, each key one of Query's JSON names spelt exactly and named
// once, each value of its field's type: a string escaping only a quote
// and a backslash, an unsigned integer written plainly, true or false,
// and for input any JSON value but null. It reports false for anything
// else, which unmarshalQuery reads as before; where both read a query
// they read the same one (TestReadQuery, FuzzReadQuery). It is on the
// path of every enforced call (issue 28): its strings share one
// allocation, and the input is the only other.
func readQuery(data []byte) (wire.Query, bool) {
	var q wire.Query
	var text [256]byte
	r := queryReader{b: data, text: text[:0]}
	var strs [numQueryStrings]span
	seen := uint32(0)
	if !r.next('{') {
		return q, false
	}
	for first := true; !r.next('}'); first = false {
		if !first && !r.next(',') {
			return q, false
		}
		key, ok := r.key()
		if !ok || !r.next(':') {
			return q, false
		}
		f := queryField(key)
		if f < 0 || seen&(1<<f) != 0 {
			return q, false
		}
		seen |= 1 << f
		switch {
		case f < numQueryStrings:
			strs[f], ok = r.str()
		case f == fieldSeq:
			q.Seq, ok = r.uint(math.MaxUint64)
		case f == fieldMinSeq:
			q.MinSeq, ok = r.uint(math.MaxUint64)
		case f == fieldCheckSeq:
			q.CheckSeq, ok = r.uint(math.MaxUint64)
		case f == fieldTurn:
			var n uint64
			n, ok = r.uint(math.MaxInt32)
			q.Turn = int(n)
		case f == fieldWithinMS:
			var n uint64
			n, ok = r.uint(math.MaxInt64)
			q.WithinMS = int64(n)
		case f == fieldRecord:
			q.Record, ok = r.bool()
		case f == fieldEffect:
			q.Effect, ok = r.bool()
		case f == fieldBrief:
			q.Brief, ok = r.bool()
		case f == fieldInput:
			q.Input, ok = r.value()
		}
		if !ok {
			return q, false
		}
	}
	if r.i != len(data) {
		return q, false
	}
	all := string(r.text)
	str := func(f int) string { return all[strs[f].i:strs[f].j] }
	q.Session, q.Tool, q.Time, q.Call = events.SessionKey(str(fieldSession)), str(fieldTool), str(fieldTime), str(fieldCall)
	q.Root, q.Scope, q.User = events.SessionKey(str(fieldRoot)), str(fieldScope), str(fieldUser)
	q.Project, q.Runtime, q.ID = str(fieldProject), str(fieldRuntime), str(fieldID)
	return q, true
}

// The fields of a query in readQuery's order: the strings first.
const (
	fieldSession = iota
	fieldTool
	fieldTime
	fieldCall
	fieldRoot
	fieldScope
	fieldUser
	fieldProject
	fieldRuntime
	fieldID
	numQueryStrings
	fieldSeq = iota - 1
	fieldMinSeq
	fieldCheckSeq
	fieldTurn
	fieldWithinMS
	fieldRecord
	fieldEffect
	fieldBrief
	fieldInput
)

// queryField is the field a key names, -1 for none (TestReadQuery checks
// that the names are Query's).
func queryField(key []byte) int {
	switch string(key) {
	case "session":
		return fieldSession
	case "tool":
		return fieldTool
	case "time":
		return fieldTime
	case "call":
		return fieldCall
	case "root":
		return fieldRoot
	case "scope":
		return fieldScope
	case "user":
		return fieldUser
	case "project":
		return fieldProject
	case "runtime":
		return fieldRuntime
	case "id":
		return fieldID
	case "seq":
		return fieldSeq
	case "min_seq":
		return fieldMinSeq
	case "check_seq":
		return fieldCheckSeq
	case "turn":
		return fieldTurn
	case "within_ms":
		return fieldWithinMS
	case "record":
		return fieldRecord
	case "effect":
		return fieldEffect
	case "brief":
		return fieldBrief
	case "input":
		return fieldInput
	}
	return -1
}

// span is where a string is in a queryReader's text.
type span struct{ i, j int }

// queryReader reads JSON of a known form; the strings it reads, unquoted,
// are appended to text.
type queryReader struct {
	b    []byte
	i    int
	text []byte
}

// next reports whether c comes next, and if so reads it.
func (r *queryReader) next(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// key reads a key of ASCII letters and underscores.
func (r *queryReader) key() ([]byte, bool) {
	if !r.next('"') {
		return nil, false
	}
	start := r.i
	for r.i < len(r.b) && ('a' <= r.b[r.i] && r.b[r.i] <= 'z' || r.b[r.i] == '_') {
		r.i++
	}
	key := r.b[start:r.i]
	return key, r.next('"')
}

// str reads a string events.ReadPlainString reads (what json.Unmarshal
// would read back as written but for its escapes) and appends it to text.
func (r *queryReader) str() (span, bool) {
	s := span{i: len(r.text)}
	var ok bool
	r.text, r.i, ok = events.ReadPlainString(r.b, r.i, r.text)
	s.j = len(r.text)
	return s, ok
}

// uint reads an unsigned integer as JSON writes it (no sign, no leading
// zero, no fraction or exponent) of at most limit.
func (r *queryReader) uint(limit uint64) (uint64, bool) {
	n, end, ok := events.ReadJSONUint(r.b, r.i, limit)
	r.i = end
	return n, ok
}

func (r *queryReader) bool() (bool, bool) {
	switch {
	case bytes.HasPrefix(r.b[r.i:], []byte("true")):
		r.i += 4
		return true, true
	case bytes.HasPrefix(r.b[r.i:], []byte("false")):
		r.i += 5
		return false, true
	}
	return false, false
}

// value reads one JSON value but null, up to the query's next comma or
// closing brace, and returns a copy of its bytes as they are (as
// json.RawMessage decodes it).
func (r *queryReader) value() (json.RawMessage, bool) {
	start, depth := r.i, 0
scan:
	for ; r.i < len(r.b); r.i++ {
		switch r.b[r.i] {
		case '"':
			for r.i++; r.i < len(r.b) && r.b[r.i] != '"'; r.i++ {
				if r.b[r.i] == '\\' {
					r.i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				break scan
			}
			depth--
		case ',':
			if depth == 0 {
				break scan
			}
		}
	}
	r.i = min(r.i, len(r.b))
	v := r.b[start:r.i]
	if len(v) == 0 || v[0] == 'n' || isJSONSpace(v[0]) || isJSONSpace(v[len(v)-1]) || !json.Valid(v) {
		return nil, false
	}
	return bytes.Clone(v), true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
