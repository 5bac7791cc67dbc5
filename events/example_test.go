package events_test

import (
	"fmt"

	"github.com/sessionledger/ledger/events"
)

func ExampleParse() {
	ev, err := events.Parse([]byte(`{"type":"turn.started","v":1,"actor":"orchestrator","session":"agent:main:main","data":{"turn":1}}`))
	fmt.Println(ev.Type, ev.Session, err)

	_, err = events.Parse([]byte(`{"type":"turn.started","v":1,"actor":"orchestrator","session":"agent:main:main","data":{"turn":0}}`))
	fmt.Println(events.CodeOf(err))
	// Output:
	// turn.started agent:main:main <nil>
	// invalid_event
}

func ExampleCanonicalJSON() {
	b, _ := events.CanonicalJSON([]byte(`{ "b": [1, 2.50], "a": "<é>" }`))
	fmt.Println(string(b))
	fmt.Println(events.HashBytes(b)[:23])
	// Output:
	// {"a":"<é>","b":[1,2.5]}
	// sha256:97c07571c2c5fd49
}
