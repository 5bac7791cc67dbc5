package ledgerpolicy

import "github.com/sessionledger/ledger/envelope"

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

// validMCPName reports an MCP tool name: mcp__<server>__<tool>, both parts
// non-empty, and a valid tool name as a whole.
func validMCPName(t string) bool {
	if !envelope.ValidToolName(t) || len(t) <= len(mcpPrefix) || t[:len(mcpPrefix)] != mcpPrefix {
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
