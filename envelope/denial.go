package envelope

import (
	"fmt"
	"strings"

	"github.com/sessionledger/ledger/events"
)

// DenialText is what a denial tells the model (and the person reading the
// transcript), wherever the ledger enforces it (Claude Code's hooks, the MCP
// gateway): the tool, the session, the reason code, the details given (in
// front), the rule and the record that introduced it, and the command that
// explains it all (why).
func DenialText(key events.SessionKey, tool string, r Reason, why string, details ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The session policy ledger denied %s for session %s: %s", tool, key, r.Code)
	detail := append([]string(nil), details...)
	if r.Rule != "" {
		detail = append(detail, "rule "+r.Rule)
	}
	if r.Record != nil {
		detail = append(detail, fmt.Sprintf("from %s at sequence %d", r.Record.Type, r.Record.Seq))
	}
	if len(detail) > 0 {
		b.WriteString(" (" + strings.Join(detail, ", ") + ")")
	}
	b.WriteString(". Explain it with: " + why)
	return b.String()
}
