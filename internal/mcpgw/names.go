package mcpgw

import (
	"strings"

	"github.com/sessionledger/ledger/envelope/openclaw"
)

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
// section 2), openclaw "<server>__<tool>" normalized as the scope's release
// normalizes names (openclaw.md 2.1, 2.2: the packaged releases trim and
// lower-case as JavaScript does, so "VİEW" is not "view"; the legacy release
// as Go does; its aliases are whole names without "__", so none applies),
// release as envelope.PolicyState.Release names it. Any other dialect, or
// an openclaw release this build does not know, is "" (not known: the
// gateway refuses to map it rather than guess; TestNamesUnderRelease).
func LedgerName(dialect, release, server, tool string) string {
	switch dialect {
	case DialectClaudeCode:
		return "mcp__" + server + "__" + tool
	case DialectOpenClaw:
		n, ok := openclaw.NormalizeIn(release, Exposed(server, tool))
		if !ok {
			return ""
		}
		return n
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
