package events

import "encoding/json"

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
