package scenario_test

import (
	"context"
	"fmt"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/scenario"
)

// A scenario is a policy, appended events and expectations; Run reports
// every expectation that does not hold.
func ExampleRunner_Run() {
	f, _ := scenario.Parse([]byte(`{
	  "name": "sub-agents never get gateway",
	  "dialect": "openclaw",
	  "tools": ["read", "exec", "gateway"],
	  "policy": {"tools": {"alsoAllow": ["gateway"]}},
	  "steps": [
	    {"append": {"type": "session.started", "session": "agent:main:main", "data": {"agent": "main"}}},
	    {"append": {"type": "session.spawned", "session": "agent:main:subagent:a", "data": {"parent": "agent:main:main", "agent": "main"}}},
	    {"append": {"type": "turn.started", "session": "agent:main:subagent:a", "data": {"turn": 1}}},
	    {"expect": {"session": "agent:main:subagent:a", "allowed": ["read", "exec"], "denied": {"gateway": "subagent:hard_deny"}}},
	    {"expect": {"session": "agent:main:subagent:a", "tool": "gateway", "decision": "allow"}}
	  ]
	}`))
	r, err := scenario.InMemory(projection.Dialects{openclaw.Name: openclaw.New()})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := r.Run(context.Background(), f)
	fmt.Printf("%d passed, %d failed\n", rep.Passed, rep.Failed)
	for _, fl := range rep.Failures {
		fmt.Printf("step %d: %s\n", fl.Step, fl.Msg)
	}
	// Output:
	// 4 passed, 1 failed
	// step 5: agent:main:subagent:a: expected gateway allow, got deny (subagent:hard_deny)
}
