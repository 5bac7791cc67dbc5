package report

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
)

// inputKeys are the fields of a call's input that say what it does, by
// the tool's main parameter: Bash's (and exec's) command, a file tool's
// path, a fetch's url, a search's pattern or query, a sub-agent's
// description. The first one present is shown.
var inputKeys = []string{"command", "file_path", "notebook_path", "path", "url", "pattern", "query", "description", "prompt"}

// maxInput bounds, in runes, the input a call row shows; the why trace
// has all of it.
const maxInput = 120

// inputText is what a call row shows of its input: the main parameter's
// string, else the input as compact JSON, shortened to maxInput runes,
// with control and bidirectional formatting characters written as escapes
// so that a line break or a reordering cannot disguise it. The page's
// template escapes it for HTML.
func inputText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return shortInput(s)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		for _, k := range inputKeys {
			if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
				return shortInput(s)
			}
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return shortInput(b.String())
	}
	return shortInput(string(raw))
}

func shortInput(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxInput {
			b.WriteString("…")
			break
		}
		n++
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
