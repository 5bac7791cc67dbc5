package openclaw_test

import (
	"fmt"

	"github.com/sessionledger/ledger/internal/importer/openclaw"
)

func ExampleImport() {
	r, err := openclaw.Import("openclaw.json", []byte(`{
  gateway: { port: 18789 },
  agents: { entries: { coder: { tools: { deny: ['browser'] } } } },
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(r.Document))
	for _, w := range r.Warnings {
		fmt.Println(w)
	}
	// Output:
	// {"release":"2026.9.6","agents":{"list":[{"id":"coder","tools":{"deny":["browser"]}}]}}
	// openclaw.json:2:3: warning: dropped gateway: not part of the openclaw policy document
	// openclaw.json:3:13: warning: converted agents.entries to agents.list (1 agent: coder)
}
