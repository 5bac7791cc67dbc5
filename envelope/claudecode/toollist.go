package claudecode

import (
	"strconv"
	"strings"
)

// entryKind says what an agent tools / disallowedTools entry matches
// (section 6.2). Tool lists are name-level: a specifier never narrows an
// entry (pinned decision P2).
type entryKind uint8

const (
	entExact   entryKind = iota // the tool of that name
	entAll                      // "*": every tool (in tools: a wildcard list)
	entMCPAll                   // "mcp__*": every MCP tool, in disallowedTools only
	entServer                   // mcp__<server> or mcp__<server>__*: every tool of the server
	entNothing                  // any other '*' pattern
)

// toolEntry is one compiled tools / disallowedTools entry.
type toolEntry struct {
	text   string // as written (trimmed)
	name   string // Task aliased to Agent
	kind   entryKind
	server string
	// types are the sub-agent types of an Agent(type, ...) entry; nil for a
	// plain Agent entry (any type).
	types []string
	// rule renders the entry as agent_disallowed:listed names it.
	rule string
	// bare: written without a specifier (Bash, not Bash(ls *)); only a
	// bare disallowedTools entry cancels a tools entry (zeroTools).
	bare bool
}

func compileEntry(text string) (toolEntry, error) {
	name, spec, err := splitRule(text)
	if err != nil {
		return toolEntry{}, err
	}
	if spec == "*" {
		spec = ""
	}
	e := toolEntry{text: strings.TrimSpace(text), name: normalizeTool(name), bare: spec == ""}
	e.rule = "disallowedTools: " + strconv.Quote(e.text)
	n := e.name
	switch {
	case n == "*":
		e.kind = entAll
	case n == "mcp__*":
		e.kind = entMCPAll
	case isMCP(n) && strings.HasSuffix(n[len(mcpPrefix):], "__*"):
		rest := n[len(mcpPrefix):]
		s := rest[:len(rest)-3]
		if strings.Contains(s, "*") || strings.Contains(s, "__") {
			e.kind = entNothing
		} else {
			e.kind, e.server = entServer, s
		}
	default:
		if s, ok := serverOnly(n); ok {
			e.kind, e.server = entServer, s
		} else if strings.Contains(n, "*") {
			e.kind = entNothing
		}
	}
	if e.kind == entExact && n == toolAgent && spec != "" {
		for t := range strings.SplitSeq(spec, ",") {
			if t = strings.TrimSpace(t); t != "" {
				e.types = append(e.types, t)
			}
		}
	}
	return e, nil
}

// match reports whether the entry matches tool t; disallowed says the entry
// sits in disallowedTools, where mcp__* matches every MCP tool.
func (e *toolEntry) match(t string, disallowed bool) bool {
	switch e.kind {
	case entExact:
		return e.name == t
	case entAll:
		return true
	case entMCPAll:
		return disallowed && isMCP(t)
	case entServer:
		s, _, ok := mcpServer(t)
		return ok && s == e.server
	}
	return false
}

// SplitToolList splits the comma-separated string form of a tools list
// on commas outside parentheses, trimming entries and dropping empty ones.
func SplitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '(':
				depth++
				continue
			case ')':
				if depth > 0 {
					depth--
				}
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if e := strings.TrimSpace(s[start:i]); e != "" {
			out = append(out, e)
		}
		start = i + 1
	}
	return out
}

// quoteList renders entries as a reason shows them: ["Read", "Grep"].
func quoteList(entries []toolEntry) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(entries[i].text))
	}
	b.WriteByte(']')
	return b.String()
}
