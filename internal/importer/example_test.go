package importer_test

import (
	"fmt"

	"github.com/sessionledger/ledger/internal/importer"
)

func ExampleJSON5ToJSON() {
	out, err := importer.JSON5ToJSON("openclaw.json", []byte(`{
  // comments, unquoted keys, single quotes, hex and trailing commas
  tools: { deny: ['exec', 'cron',], },
  port: 0x4965,
}`))
	fmt.Println(string(out), err)
	// Output: {"tools":{"deny":["exec","cron"]},"port":18789} <nil>
}

func ExampleOpenClaw() {
	r, err := importer.OpenClaw("openclaw.json", []byte(`{
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

func ExampleJSON5ToJSON_error() {
	_, err := importer.JSON5ToJSON("openclaw.json", []byte("{\n  tools: {}\n  agents: {}\n}"))
	fmt.Println(err)
	// Output: openclaw.json:3:3: expected ',' or '}' after object member
}
