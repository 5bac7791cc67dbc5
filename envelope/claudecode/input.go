package claudecode

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// member returns the raw value (no surrounding blanks) of the last
// top-level member named key of obj, a valid JSON object: what decoding obj
// into a map[string]json.RawMessage would keep under key, without decoding
// the rest. A key is compared unescaped, as the decoder reads it.
// TestNewCallIsMapDecode compares it with the decoder.
func member(obj []byte, key string) (json.RawMessage, bool) {
	var found json.RawMessage
	ok := false
	members(obj, func(k, v []byte) {
		if keyIs(k, key) {
			found, ok = v, true
		}
	})
	return found, ok
}

// members calls f with the key (a JSON string, quotes included, as
// written) and the raw value of each top-level member of obj, a valid
// JSON value, in order; it reports whether obj is an object.
func members(obj []byte, f func(k, v []byte)) bool {
	i := skipBlanks(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = skipBlanks(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipBlanks(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return true // '}': valid JSON leaves nothing else here
		}
		ks := i
		i = skipString(obj, i)
		k := obj[ks:i]
		i = skipBlanks(obj, i) + 1 // the ':'
		i = skipBlanks(obj, i)
		vs := i
		i = skipValue(obj, i)
		f(k, obj[vs:i])
	}
}

// keyIs reports whether the JSON string k (quotes included) reads as key.
func keyIs(k []byte, key string) bool {
	in := k[1 : len(k)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in) == key
	}
	var s string
	return json.Unmarshal(k, &s) == nil && s == key
}

// plainString returns the text of a JSON string value that holds no escape
// and only valid UTF-8 (where decoding would change nothing); false for any
// other value, which the decoder then reads.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') >= 0 || bytes.IndexByte(in, '"') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	for _, c := range in {
		if c < 0x20 {
			return "", false
		}
	}
	return string(in), true
}

func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
