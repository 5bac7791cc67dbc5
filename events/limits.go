package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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

func checkJSON(raw []byte) error {
	if len(raw) > MaxEventBytes {
		return Errorf(CodeInvalidEvent, "the event is %d bytes; the limit is %d", len(raw), MaxEventBytes)
	}
	if !utf8.Valid(raw) {
		return Errorf(CodeInvalidEvent, "the event is not valid UTF-8")
	}
	if loneSurrogate(raw) {
		return Errorf(CodeInvalidEvent, "the event has a lone UTF-16 surrogate escape (\\uD800-\\uDFFF not in a pair)")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // the next string token in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return Errorf(CodeInvalidEvent, "the event is not JSON: it ends inside an object or list")
			}
			return nil
		}
		if err != nil {
			return Errorf(CodeInvalidEvent, "the event is not JSON: %v", err)
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= MaxNesting {
					return Errorf(CodeInvalidEvent, "the event nests deeper than %d levels", MaxNesting)
				}
				if top != nil && top.object {
					top.expect = true
				}
				stack = append(stack, &frame{object: t == '{', keys: map[string]bool{}, expect: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expect = true
				}
			}
		case string:
			if top != nil && top.object && top.expect {
				if top.keys[t] {
					return Errorf(CodeInvalidEvent, "the key %q appears twice in one object", t)
				}
				top.keys[t] = true
				top.expect = false
				continue
			}
			if top != nil && top.object {
				top.expect = true
			}
		default:
			if top != nil && top.object {
				top.expect = true
			}
		}
	}
}
