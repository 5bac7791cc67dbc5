package api

import (
	"encoding/json"
)

// splitBatch returns the elements of a batch append's body, a JSON array,
// as json.Unmarshal into a []json.RawMessage returns them: each element's
// bytes without the white space around it. It slices
// data instead of copying it (the events parsed from them keep no more of
// the request than its bytes). Anything but valid JSON is decoded by
// encoding/json, for its error. The two agree on every input
// (TestSplitBatch, FuzzSplitBatch).
func splitBatch(data []byte) ([][]byte, error) {
	i := skipSpace(data)
	if !json.Valid(data) || i == len(data) || data[i] != '[' {
		var raws []json.RawMessage
		err := json.Unmarshal(data, &raws)
		out := make([][]byte, len(raws))
		for k, r := range raws {
			out[k] = r
		}
		if raws == nil {
			out = nil
		}
		return out, err
	}
	// data is valid JSON: an element ends at a comma or at the closing
	// bracket outside any string or nested value.
	out := make([][]byte, 0, 64)
	i += 1 + skipSpace(data[i+1:])
	if data[i] == ']' {
		return out, nil
	}
	depth, start := 0, i
	for ; ; i++ {
		switch data[i] {
		case '"':
			for i++; data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth > 0 {
				depth--
				continue
			}
			return append(out, trimSpace(data[start:i])), nil
		case ',':
			if depth == 0 {
				out = append(out, trimSpace(data[start:i]))
				start = i + 1
			}
		}
	}
}

func trimSpace(b []byte) []byte {
	b = b[skipSpace(b):]
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// isSpace is JSON's white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
