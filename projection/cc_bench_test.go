package projection_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// BenchmarkPrepareClaudeCode decides a Claude Code hook's tool.checked at
// the head of the log (Prepare, the claude-code dialect without a trace),
// parse included: a Bash call a project's rule allows, with where it runs,
// and an MCP tool a server rule allows.
func BenchmarkPrepareClaudeCode(b *testing.B) {
	cc := claudecode.New()
	h := &harness{t: b, st: projection.New(projection.Dialects{cc.Name(): cc})}
	h.mustAppend(pol("policy.set", `{"dialect":"claude-code","scope":"cc:a","document":{"permissions":{"allow":["Bash(echo *)","mcp__server"],"deny":["Bash(rm *)"]}},"catalogue":["Read","Edit","Write","Bash","Grep","Glob","WebFetch","Agent","TodoWrite","mcp__server__tool"]}`))
	h.mustAppend(ev("session.started", "c1", `{"agent":"main","scope":"cc:a","user":"alice","project":"/work/p","runtime":"claude-code"}`))
	h.mustAppend(ev("turn.started", "c1", `{"turn":1}`))
	for _, c := range []struct{ name, tool, input string }{
		{"bash-simple", "Bash", `{"command":"echo hi","description":"Say hi","ledger:paths":{"home":"/home/u","project":"/work/p"}}`},
		{"mcp-allowed", "mcp__server__tool", `{"query":"x"}`},
	} {
		raw := fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"hook","session":"c1","data":{"turn":1,"tool":%q,"call":"k1","input":%s}}`, c.tool, c.input)
		prepare := func() projection.Prepared {
			e, err := events.Parse(raw)
			if err != nil {
				b.Fatal(err)
			}
			e.ID = "01K00000000000000000000001"
			return h.st.Prepare(e, "2026-01-01T00:00:00.000Z")
		}
		if p := prepare(); p.Err != nil || p.Record == nil || !strings.Contains(string(p.Record.Decided), `"decision":"allow"`) {
			b.Fatalf("%s: %v %+v", c.name, p.Err, p.Record)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = prepare()
			}
		})
	}
}
