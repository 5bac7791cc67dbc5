package ledgerpolicy

// DialectName is the name written in policy.set.
const DialectName = "ledger"

// The reason codes (docs/reason-codes.md, "ledger").
const (
	codeCatalogueUnknown = "catalogue:unknown"
	codeCeiling          = "inherited:parent_pool"
	codePermissionDeny   = "permissions:deny"
	codePermissionAsk    = "permissions:ask"
	codePermissionAllow  = "permissions:allow"
	codeDefaultDeny      = "default:deny"
	codeDefaultAsk       = "default:ask"
	codeDefaultAllow     = "default:allow"
	codeAgentDeny        = "agent:deny"
	codeAgentAsk         = "agent:ask"
	codeAgentNotAllowed  = "agent:not_allowed"
)

// The trace's layer names, in the order Decide visits them.
const (
	layerCatalogue = "catalogue"
	layerCeiling   = "inherited"
	layerGlobal    = "permissions"
	layerAgent     = "agents." // + the agent type
)

// agentMain is the root agent's type.
const agentMain = "main"

const mcpPrefix = "mcp__"

// validToolName reports whether t matches ^[A-Za-z0-9_-]{1,64}$.
func validToolName(t string) bool {
	if len(t) == 0 || len(t) > 64 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validAgentName reports whether a matches ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$
// (the claude-code dialect's agent names).
func validAgentName(a string) bool {
	if len(a) == 0 || len(a) > 64 {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if i == 0 && !alnum {
			return false
		}
		if !alnum && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// validMCPName reports an MCP tool name: mcp__<server>__<tool>, both parts
// non-empty, and a valid tool name as a whole.
func validMCPName(t string) bool {
	if !validToolName(t) || len(t) <= len(mcpPrefix) || t[:len(mcpPrefix)] != mcpPrefix {
		return false
	}
	rest := t[len(mcpPrefix):]
	for i := 1; i+2 < len(rest); i++ {
		if rest[i] == '_' && rest[i+1] == '_' {
			return true
		}
	}
	return false
}
