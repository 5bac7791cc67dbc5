package mcpgw

import "strings"

// The dialects whose MCP naming the gateway knows.
const (
	DialectClaudeCode = "claude-code"
	DialectOpenClaw   = "openclaw"
)

// Exposed is the name the gateway gives upstream server's tool to its MCP
// clients: "<server>__<tool>". Server names hold no "__" and do not end
// in "_" (ParseConfig), so SplitExposed finds the server again
// (TestNames).
func Exposed(server, tool string) string { return server + "__" + tool }

// SplitExposed is the inverse of Exposed: the server is the text before
// the first "__", the tool the rest (not empty).
func SplitExposed(name string) (server, tool string, ok bool) {
	server, tool, ok = strings.Cut(name, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// LedgerName is the name the ledger knows an upstream tool by in a
// dialect: claude-code "mcp__<server>__<tool>" (docs/dialects/claude-code.md
// section 2), openclaw the normalized "<server>__<tool>" (openclaw.md 2.1,
// 2.2: trimmed and lower-cased; its aliases are whole names without "__",
// so none applies). Any other dialect is "" (not known: the gateway
// refuses to map it rather than guess).
func LedgerName(dialect, server, tool string) string {
	switch dialect {
	case DialectClaudeCode:
		return "mcp__" + server + "__" + tool
	case DialectOpenClaw:
		return strings.ToLower(strings.TrimSpace(Exposed(server, tool)))
	}
	return ""
}

// exposed is Exposed, or the bare tool name with Config.Expose "bare".
func (g *Gateway) exposed(server, tool string) string {
	if g.cfg.Expose == ExposeBare {
		return tool
	}
	return Exposed(server, tool)
}

// split is SplitExposed, or the one server and name itself with Config.Expose
// "bare" (TestBareNames).
func (g *Gateway) split(name string) (server, tool string, ok bool) {
	if g.cfg.Expose == ExposeBare {
		return g.order[0], name, name != ""
	}
	return SplitExposed(name)
}

// form says what the exposed names look like, for an error.
func (g *Gateway) form() string {
	if g.cfg.Expose == ExposeBare {
		return "the tool names"
	}
	return "<server>__<tool>"
}
