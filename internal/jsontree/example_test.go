package jsontree_test

import (
	"fmt"

	"github.com/sessionledger/ledger/internal/jsontree"
)

func ExampleJSON5ToJSON() {
	out, err := jsontree.JSON5ToJSON("openclaw.json", []byte(`{
  // comments, unquoted keys, single quotes, hex and trailing commas
  tools: { deny: ['exec', 'cron',], },
  port: 0x4965,
}`))
	fmt.Println(string(out), err)
	// Output: {"tools":{"deny":["exec","cron"]},"port":18789} <nil>
}

func ExampleJSON5ToJSON_error() {
	_, err := jsontree.JSON5ToJSON("openclaw.json", []byte("{\n  tools: {}\n  agents: {}\n}"))
	fmt.Println(err)
	// Output: openclaw.json:3:3: expected ',' or '}' after object member
}
