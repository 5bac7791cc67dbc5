package events

import (
	"bytes"
	"sync"
	"unicode/utf8"
)

// Limits the ledger enforces on what callers send (README, "Limits"). They
// keep one hostile event from costing more than a normal one.
const (
	// MaxEventBytes bounds an event as sent, policy documents included.
	MaxEventBytes = 512 << 10
	// MaxRecordBytes bounds a record as stored, with what the ledger
	// decided (the stream refuses larger messages).
	MaxRecordBytes = 1 << 20
	// MaxNesting bounds how deep JSON objects and arrays nest.
	MaxNesting = 32
	// MaxListLen bounds tools, children, from and catalogue lists.
	MaxListLen = 10000
)

// CheckJSON refuses what encoding/json would quietly accept or rewrite:
// invalid UTF-8 and lone surrogate escapes (both become U+FFFD), an object
// naming a key twice (the last one wins), and nesting deeper than
// MaxNesting.
func CheckJSON(raw []byte) error { return checkJSON(raw) }

// loneSurrogate reports a \uD800-\uDFFF escape that is not half of a pair.
// It reads any bytes, JSON or not, which is why checkJSON asks it before
// reporting another error: a lone surrogate is the answer whatever else is
// wrong (FuzzCheckJSONDiff holds the order to the oracle's).
func loneSurrogate(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !in {
			in = c == '"'
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 < len(raw) && raw[i+1] == 'u' && i+5 < len(raw) {
				v, ok := hex4(raw[i+2 : i+6])
				if ok && v >= 0xD800 && v <= 0xDBFF {
					// A high surrogate needs a low one right after it.
					if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
						if w, ok := hex4(raw[i+8 : i+12]); ok && w >= 0xDC00 && w <= 0xDFFF {
							i += 11
							continue
						}
					}
					return true
				}
				if ok && v >= 0xDC00 && v <= 0xDFFF {
					return true
				}
				i += 5
				continue
			}
			i++ // skip the escaped character
		}
	}
	return false
}

func hex4(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// checkJSON checks raw in one pass, as the encoding/json Decoder.Token
// loop it replaces did, with the same answers and messages: a stream of
// JSON values (Token reads more than one), each token where Token allows
// it. The size and UTF-8 checks and lone surrogates come first, whatever
// else is wrong, as in the oracle, where they are separate passes before
// the token loop (FuzzCheckJSONDiff).
func checkJSON(raw []byte) error {
	if len(raw) > MaxEventBytes {
		return Errorf(CodeInvalidEvent, "the event is %d bytes; the limit is %d", len(raw), MaxEventBytes)
	}
	if !utf8.Valid(raw) {
		return Errorf(CodeInvalidEvent, "the event is not valid UTF-8")
	}
	c := checkers.Get().(*checker)
	defer c.release()
	err := c.check(raw)
	if err != nil && (err == errLoneSurrogate || loneSurrogate(raw)) {
		return Errorf(CodeInvalidEvent, "the event has a lone UTF-16 surrogate escape (\\uD800-\\uDFFF not in a pair)")
	}
	return err
}

// errLoneSurrogate is what check returns for a string with a lone
// surrogate escape; checkJSON words it.
var errLoneSurrogate = &Error{Code: CodeInvalidEvent, Msg: "lone surrogate"}

// tokState is where a checker is in the token stream, tracked as
// encoding/json's Decoder.Token tracks it, since its errors depend on it.
type tokState uint8

const (
	tokTopValue tokState = iota
	tokArrayStart
	tokArrayValue
	tokArrayComma
	tokObjectStart
	tokObjectKey
	tokObjectColon
	tokObjectValue
	tokObjectComma
)

func (s tokState) valueAllowed() bool {
	return s == tokTopValue || s == tokArrayStart || s == tokArrayValue || s == tokObjectValue
}

// valueEnd is the state after a value read in state s.
func (s tokState) valueEnd() tokState {
	switch s {
	case tokArrayStart, tokArrayValue:
		return tokArrayComma
	case tokObjectValue:
		return tokObjectComma
	}
	return s
}

// unexpected is Decoder.Token's error for the character c in state s.
func (s tokState) unexpected(c byte) error {
	context := "" // tokObjectStart: Token says no more
	switch s {
	case tokTopValue, tokArrayStart, tokArrayValue, tokObjectValue:
		context = " looking for beginning of value"
	case tokArrayComma:
		context = " after array element"
	case tokObjectKey:
		context = " looking for beginning of object key string"
	case tokObjectColon:
		context = " after object key"
	case tokObjectComma:
		context = " after object key:value pair"
	}
	return notJSON(invalidChar(c, context))
}

func notJSON(err error) error {
	return Errorf(CodeInvalidEvent, "the event is not JSON: %v", err)
}

// A checker holds what check needs between tokens. It is pooled: checking
// an event allocates nothing unless an object has many keys.
type checker struct {
	frames []frame  // the open objects and lists
	keys   [][]byte // the keys of the open objects, innermost last
	arena  []byte   // the keys that had to be decoded (escapes)
}

type frame struct {
	prev  tokState            // the state to go back to at the close
	keys  int                 // where this object's keys start in keys
	arena int                 // and its decoded keys in arena
	seen  map[string]struct{} // this object's keys once they are many
}

// manyKeys is how many keys an object has before check looks up repeats
// in a map rather than comparing with each one.
const manyKeys = 16

var checkers = sync.Pool{New: func() any { return new(checker) }}

// release returns c to the pool without references to the bytes it read.
func (c *checker) release() {
	clear(c.keys[:cap(c.keys)])
	clear(c.frames[:cap(c.frames)])
	c.frames, c.keys, c.arena = c.frames[:0], c.keys[:0], c.arena[:0]
	if cap(c.arena) <= MaxEventBytes && cap(c.keys) <= 1<<16 {
		checkers.Put(c)
	}
}

func (c *checker) check(raw []byte) error {
	state := tokTopValue
	for i := 0; ; {
		if i = skipSpace(raw, i); i == len(raw) {
			if len(c.frames) > 0 {
				return Errorf(CodeInvalidEvent, "the event is not JSON: it ends inside an object or list")
			}
			return nil
		}
		switch ch := raw[i]; ch {
		case '[', '{':
			if !state.valueAllowed() {
				return state.unexpected(ch)
			}
			if len(c.frames) >= MaxNesting {
				return Errorf(CodeInvalidEvent, "the event nests deeper than %d levels", MaxNesting)
			}
			c.frames = append(c.frames, frame{prev: state, keys: len(c.keys), arena: len(c.arena)})
			state = tokArrayStart
			if ch == '{' {
				state = tokObjectStart
			}
			i++
		case ']':
			if state != tokArrayStart && state != tokArrayComma {
				return state.unexpected(ch)
			}
			state = c.pop().valueEnd()
			i++
		case '}':
			if state != tokObjectStart && state != tokObjectComma {
				return state.unexpected(ch)
			}
			state = c.pop().valueEnd()
			i++
		case ':':
			if state != tokObjectColon {
				return state.unexpected(ch)
			}
			state = tokObjectValue
			i++
		case ',':
			switch state {
			case tokArrayComma:
				state = tokArrayValue
			case tokObjectComma:
				state = tokObjectKey
			default:
				return state.unexpected(ch)
			}
			i++
		default:
			isKey := ch == '"' && (state == tokObjectStart || state == tokObjectKey)
			if !isKey && !state.valueAllowed() {
				return state.unexpected(ch)
			}
			end, _, flags, err := scanScalar(raw, i)
			if err != nil {
				return notJSON(err)
			}
			if flags&strLoneSurrogate != 0 {
				return errLoneSurrogate
			}
			if isKey {
				if err := c.addKey(raw[i:end], flags); err != nil {
					return err
				}
				state = tokObjectColon
			} else {
				state = state.valueEnd()
			}
			i = end
		}
	}
}

// pop closes the innermost object or list and returns the state it was
// opened in.
func (c *checker) pop() tokState {
	f := c.frames[len(c.frames)-1]
	c.frames = c.frames[:len(c.frames)-1]
	c.keys, c.arena = c.keys[:f.keys], c.arena[:f.arena]
	return f.prev
}

// addKey records the key (a scanned JSON string) of the innermost object,
// refusing one it already has. Keys compare decoded, as Token returns them.
func (c *checker) addKey(quoted []byte, flags strFlags) error {
	key := quoted[1 : len(quoted)-1] // checkJSON has checked that it is UTF-8
	if flags&strEscaped != 0 {
		start := len(c.arena)
		c.arena = appendUnquoted(c.arena, quoted)
		key = c.arena[start:]
	}
	f := &c.frames[len(c.frames)-1]
	if f.seen == nil {
		for _, k := range c.keys[f.keys:] {
			if bytes.Equal(k, key) {
				return repeatedKey(key)
			}
		}
		c.keys = append(c.keys, key)
		if len(c.keys)-f.keys > manyKeys {
			f.seen = make(map[string]struct{}, 2*manyKeys)
			for _, k := range c.keys[f.keys:] {
				f.seen[string(k)] = struct{}{}
			}
		}
		return nil
	}
	if _, ok := f.seen[string(key)]; ok {
		return repeatedKey(key)
	}
	f.seen[string(key)] = struct{}{}
	return nil
}

func repeatedKey(key []byte) error {
	return Errorf(CodeInvalidEvent, "the key %q appears twice in one object", key)
}
