package events

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendJSONString appends s quoted as encoding/json quotes it: printable
// ASCII as it is, but for the quote and the backslash, which get one
// before them; a string with the HTML characters, a control character or
// anything not ASCII is left to encoding/json. It is on the append path
// (issue 28, point 5: CPU per event): the bytes are encoding/json's,
// which records hold and clients read (FuzzAppendJSONString).
func AppendJSONString(b []byte, s string) []byte {
	start := len(b)
	b = append(b, '"')
	plain := 0 // s[plain:i] is still to append
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(append(b, s[plain:i]...), '\\', c)
			plain = i + 1
		case c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&':
			q, _ := json.Marshal(s)
			return append(b[:start], q...)
		}
	}
	return append(append(b, s[plain:]...), '"')
}

// AppendCompactJSON appends raw, which must be valid JSON (json.Valid),
// as encoding/json marshals it as a json.RawMessage: without the
// whitespace between tokens, and with <, >, & and U+2028, U+2029 escaped
// (\u003c, \u2028). A check's input goes into its record so
// (FuzzAppendCompactJSON compares it with json.Marshal).
func AppendCompactJSON(b, raw []byte) []byte {
	in := false // in a string
	plain := 0  // raw[plain:i] is still to append
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case in && c == '\\':
			i++ // the escaped character stays as it is
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			b = append(b, raw[plain:i]...)
			plain = i + 1
		case c == '<' || c == '>' || c == '&':
			b = append(append(b, raw[plain:i]...), '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			plain = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			b = append(append(b, raw[plain:i]...), '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			plain = i + 1
		}
	}
	return append(b, raw[plain:]...)
}

// ReadPlainString reads the JSON string whose opening quote is b[i] when
// it is a string AppendJSONString writes and json.Unmarshal reads back as
// written but for its escapes: printable characters and valid UTF-8, with
// only a quote and a backslash escaped. It appends the unquoted text to
// text and returns it and the index after the closing quote; ok is false
// for any other string, which json.Unmarshal would rewrite or unescape
// otherwise (FuzzReadPlainString). The hand-written readers of the API's
// and the client's bodies share it.
func ReadPlainString(b []byte, i int, text []byte) (out []byte, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return text, i, false
	}
	start := len(text)
	i++
	plain, ascii := i, true // b[plain:i] is still to append
	for ; i < len(b) && b[i] != '"'; i++ {
		switch c := b[i]; {
		case c == '\\' && i+1 < len(b) && (b[i+1] == '"' || b[i+1] == '\\'):
			text = append(text, b[plain:i]...)
			i++
			plain = i
		case c < 0x20 || c == '\\':
			return text, i, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	text = append(text, b[plain:i]...)
	if i >= len(b) || !ascii && !utf8.Valid(text[start:]) {
		return text, i, false
	}
	return text, i + 1, true
}

// ReadJSONUint reads the unsigned integer at b[i] as encoding/json writes
// one (no sign, no leading zero, no fraction or exponent) when it is at
// most limit, and returns it and the index after it.
func ReadJSONUint(b []byte, i int, limit uint64) (n uint64, end int, ok bool) {
	start := i
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		d := uint64(b[i] - '0')
		if n > (limit-d)/10 {
			return 0, i, false
		}
		n = n*10 + d
	}
	return n, i, i > start && (b[start] != '0' || i-start == 1)
}
