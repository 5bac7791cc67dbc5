package events

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
)

// Canonical returns the RFC 8785 (JCS) encoding of v: object keys sorted by
// UTF-16 code units, no insignificant white space, numbers in their shortest
// ECMAScript form, strings escaping only '"', '\' and control characters.
// It is the canonical form of json.Marshal(v); a Record is written directly.
func Canonical(v any) ([]byte, error) {
	switch r := v.(type) {
	case *Record:
		if r != nil {
			return r.Encode()
		}
	case Record:
		return r.Encode()
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return CanonicalJSON(raw)
}

// CanonicalJSON re-encodes JSON text canonically (RFC 8785). It accepts
// what encoding/json's Decoder accepts, as it did when it decoded with one:
// strings that are not UTF-8 or hold lone surrogate escapes (both read as
// U+FFFD), a key named twice (the last one wins), and, as Decoder.More
// allows, a closing bracket after the value.
//
// It stays hand-written, although github.com/gowebpki/jcs implements RFC
// 8785, because it is measurably faster on the append path: on the two
// events it sees most (BenchmarkCanonicalVsJCS, same inputs, same run, on
// a shared 2-core VM, medians of 3), a tool.checked takes 5.4µs and 1
// allocation here against 41µs and 121 allocations in jcs.Transform, a
// turn.started 1.4µs and 1 allocation against 9.5µs and 60. jcs is the
// test oracle instead, on the inputs both must treat alike
// (jcs_oracle_test.go).
func CanonicalJSON(raw []byte) ([]byte, error) {
	c := getCanonicalizer()
	defer putCanonicalizer(c)
	end, err := c.parse(raw, maxDecodeDepth)
	if err != nil {
		return nil, err
	}
	if i := skipSpace(raw, end); i < len(raw) && raw[i] != ']' && raw[i] != '}' {
		return nil, errTrailingData
	}
	return c.emit(make([]byte, 0, len(raw)), raw, 0)
}

var errTrailingData = errors.New("trailing data after the JSON value")

// Hash returns "sha256:" and the lowercase hex SHA-256 of v's canonical
// bytes. Callers pass the object without its own hash field.
func Hash(v any) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return HashBytes(b), nil
}

// HashBytes returns the content hash of already canonical bytes.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	var out [len("sha256:") + 2*sha256.Size]byte
	copy(out[:], "sha256:")
	hex.Encode(out[len("sha256:"):], sum[:])
	return string(out[:])
}

// WriteString writes s as a JCS string (RFC 8785 section 3.2.2.2).
func WriteString(buf *bytes.Buffer, s string) { writeString(buf, s) }

func writeString(buf *bytes.Buffer, s string) { buf.Write(appendQuoted(buf.AvailableBuffer(), s)) }

// canonicalNumber renders a number as ECMAScript's Number.prototype.toString
// does, which is what RFC 8785 requires.
func canonicalNumber(n json.Number) (string, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return "", fmt.Errorf("canonical: number %s: %v", n, err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("canonical: number %s is not finite", n)
	}
	if f == 0 {
		return "0", nil
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	// Exponent form: shortest digits, "e+NN" / "e-NN" without padding.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut([]byte(s), []byte("e"))
	e, _ := strconv.Atoi(string(exp))
	sign := "+"
	if e < 0 {
		sign = "-"
		e = -e
	}
	return string(mant) + "e" + sign + strconv.Itoa(e), nil
}

// A canonicalizer writes the values of its tape in canonical form. It is
// pooled with its scratch space, so that canonicalizing allocates nothing
// but the result.
type canonicalizer struct {
	tape
	ms  []member // members of the objects being written, innermost last
	str []byte   // a string value being decoded
}

var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

func getCanonicalizer() *canonicalizer { return canonicalizers.Get().(*canonicalizer) }

// putCanonicalizer returns c to the pool unless a huge value made it huge.
func putCanonicalizer(c *canonicalizer) {
	c.ms = c.ms[:0]
	if cap(c.nodes) <= 1<<16 && cap(c.buf) <= 1<<16 && cap(c.ms) <= 1<<16 && cap(c.str) <= 1<<16 {
		canonicalizers.Put(c)
	}
}

// emit appends node k of the tape parsed from b, canonically.
func (c *canonicalizer) emit(dst, b []byte, k int) ([]byte, error) {
	switch n := c.nodes[k]; n.kind {
	case '{':
		return c.emitObject(dst, b, k)
	case '[':
		dst = append(dst, '[')
		for e := k + 1; e < n.next; e = c.nodes[e].next {
			if e > k+1 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = c.emit(dst, b, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case '"':
		return c.emitString(dst, b, k), nil
	case '0':
		return appendNumber(dst, b[n.start:n.end])
	default: // true, false, null
		return append(dst, b[n.start:n.end]...), nil
	}
}

// emitObject appends object node obj with its members sorted by key. A
// key named twice keeps its last value, as decoding into a map did; the
// values it drops are never written, so a number out of range among them
// is no error.
func (c *canonicalizer) emitObject(dst, b []byte, obj int) ([]byte, error) {
	base, bufBase := len(c.ms), len(c.buf)
	c.ms = c.members(c.ms, b, obj)
	// Nested objects only append past this object's members and keys, and
	// truncate back when they are done; ms stays valid meanwhile.
	ms := c.ms[base:]
	slices.SortStableFunc(ms, func(x, y member) int { return compareUTF16(c.key(b, x), c.key(b, y)) })
	dst = append(dst, '{')
	first := true
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(c.key(b, m), c.key(b, ms[i+1])) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(c.emitString(dst, b, m.k), ':')
		var err error
		if dst, err = c.emit(dst, b, m.k+1); err != nil {
			return nil, err
		}
	}
	c.ms, c.buf = c.ms[:base], c.buf[:bufBase]
	return append(dst, '}'), nil
}

// emitString appends string node k canonically. A plain string (no
// escapes, valid UTF-8) already is: JSON forbids raw control characters.
func (c *canonicalizer) emitString(dst, b []byte, k int) []byte {
	if c.plain(b, k) {
		return append(dst, c.raw(b, k)...)
	}
	c.str = appendUnquoted(c.str[:0], c.raw(b, k))
	return appendQuoted(dst, c.str)
}

// compareUTF16 orders UTF-8 strings by their UTF-16 code units, as RFC 8785
// sorts keys. That is byte order, except that a supplementary character
// (4 bytes in UTF-8, a surrogate pair in UTF-16) sorts before U+E000-U+FFFF
// (3 bytes led by 0xEE or 0xEF). Where two valid strings first differ, both
// are at the start of a character or both inside characters with the same
// first byte, so comparing the first bytes that differ is enough.
func compareUTF16(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return cmp.Compare(len(a), len(b))
	}
	x, y := a[i], b[i]
	switch {
	case x >= 0xF0 && (y == 0xEE || y == 0xEF):
		return -1
	case y >= 0xF0 && (x == 0xEE || x == 0xEF):
		return 1
	}
	return cmp.Compare(x, y)
}

// appendNumber appends a JSON number canonically.
func appendNumber(dst, lit []byte) ([]byte, error) {
	if isShortInt(lit) {
		if string(lit) == "-0" {
			return append(dst, '0'), nil
		}
		return append(dst, lit...), nil
	}
	s, err := canonicalNumber(json.Number(lit))
	if err != nil {
		return nil, err
	}
	return append(dst, s...), nil
}

// isShortInt reports an integer of at most 15 digits: a double holds it
// exactly and ECMAScript prints it as JSON writes it (but for -0).
func isShortInt(lit []byte) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// appendInt appends an int as canonicalNumber renders it.
func appendInt(dst []byte, v int) []byte {
	if -1e15 < v && v < 1e15 {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	s, _ := canonicalNumber(json.Number(strconv.Itoa(v))) // an int is always finite
	return append(dst, s...)
}

// encodeRecord writes r as Canonical did through json.Marshal: the struct's
// JSON names in sorted order, each string as json.Marshal then decoding
// left it (bytes that are not UTF-8 become U+FFFD), data and decided
// canonicalized.
// With canonicalData, r.Data is CanonicalJSON's output and is written as
// it is: canonical form is a fixed point (FuzzCanonical), and data shorter
// than two bytes a level of maxDecodeDepth cannot nest too deep for
// appendRaw, which otherwise refuses it (FuzzEncodeCanonicalData).
func encodeRecord(r *Record, canonicalData bool) ([]byte, error) {
	c := getCanonicalizer()
	defer putCanonicalizer(c)
	dst := make([]byte, 0, 96+len(r.Actor)+len(r.Data)+len(r.Decided)+len(r.ID)+len(r.Session)+len(r.Time)+len(r.Type))
	dst = appendQuotedString(append(dst, `{"actor":`...), r.Actor)
	var err error
	if canonicalData && len(r.Data) < 2*(maxDecodeDepth-1) {
		dst = append(append(dst, `,"data":`...), r.Data...)
	} else if dst, err = c.appendRaw(append(dst, `,"data":`...), r.Data); err != nil {
		return nil, fmt.Errorf("record data: %w", err)
	}
	if dst, err = c.appendRaw(append(dst, `,"decided":`...), r.Decided); err != nil {
		return nil, fmt.Errorf("record decided: %w", err)
	}
	dst = appendQuotedString(append(dst, `,"id":`...), r.ID)
	dst = appendQuotedString(append(dst, `,"session":`...), string(r.Session))
	dst = appendQuotedString(append(dst, `,"time":`...), r.Time)
	dst = appendQuotedString(append(dst, `,"type":`...), string(r.Type))
	dst = appendInt(append(dst, `,"v":`...), r.V)
	return append(dst, '}'), nil
}

// appendRaw appends a record's json.RawMessage field canonically. As with
// json.Marshal, nil is null and anything but one JSON value with white
// space around it is an error; inside the record it nests one level deeper.
func (c *canonicalizer) appendRaw(dst []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	end, err := c.parse(raw, maxDecodeDepth-1)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	if skipSpace(raw, end) != len(raw) {
		return nil, errTrailingData
	}
	return c.emit(dst, raw, 0)
}
