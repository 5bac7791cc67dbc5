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
