package claudecode

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// briefInputs are the inputs TestDecideBriefIsDecide decides: propInputs,
// bash lines of the split tests, and the shapes the hook records (where the
// call runs, parameters cut, escaped keys, duplicate keys, odd values).
func briefInputs(t *testing.T) []json.RawMessage {
	var in []json.RawMessage
	for _, x := range propInputs {
		in = append(in, marshal(t, x))
	}
	for _, tc := range shCases {
		in = append(in, marshal(t, tc.cmd), marshal(t, map[string]any{"command": tc.cmd, "description": "d",
			PathsKey: map[string]any{"project": "/work/p", "home": "/home/u"}}))
	}
	for _, cmd := range benchCommands {
		in = append(in, marshal(t, map[string]any{"command": cmd}))
	}
	for _, s := range []string{
		hookBashInput,
		`{"command":"cat ~/.aws/credentials > out.txt","ledger:paths":{"home":"/home/u","project":"/work/p"}}`,
		`{"command":"cat ../x","ledger:paths":{"project":"/work/p","dirs":["/opt/x"]}}`,
		`{"command":"cat ../x","ledger:paths":{"Project":"/work/p"}}`,
		`{"command":"cat ../x","ledger:paths":{"project":7}}`,
		`{"command":"cat ../x","ledger:paths":"x"}`,
		`{"file_path":"/work/p/src/a.go","ledger:paths":{"home":"/home/u","project":"/work/p"}}`,
		`{"file_path":"/home/u/.ssh/id","ledger:paths":{"home":"/home/u","project":"/work/p"}}`,
		`{"file_path":"../../etc/hosts","ledger:paths":{"project":"/work/p"}}`,
		`{"command":"npm test","ledger:cut":["description"]}`,
		`{"command":"npm test","ledger:cut":"x"}`,
		`{"comm\u0061nd":"rm -rf build"}`,
		`{"command":"ls","command":"rm -rf build"}`,
		`{"command":"rm\u0020-rf x","timeout":60}`,
		`{"command":["rm"]}`,
		`{"command":null}`,
		`{"command":""}`,
		`{"query":"x","text":"a"}`,
		`{"url":"https://docs.python.org/3/"}`,
		`{"subagent_type":"Explore"}`,
		` { "command" : "echo hi" } `,
		`{"command":"echo \ud800"}`,
		`{"command":"echo hi"`,
		`[1,2]`, `7`, `"`, ``,
	} {
		in = append(in, json.RawMessage(s))
	}
	return in
}

// TestDecideBriefIsDecide: DecideBrief's verdict (what the ledger records
// for a check and an effect) is Decide's without its trace, for every
// tool, in every mode, under random rules and grants, for roots and
// children.
func TestDecideBriefIsDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	inputs := briefInputs(t)
	tools := append(append([]string{}, propTools...), "mcp__github__other", "Nope", "Task", "EndConversation")
	rules := func(n int) []string {
		l := []string{}
		for i := 0; i < n; i++ {
			l = append(l, pick(r, propRules))
		}
		return l
	}
	for n := 0; n < 40; n++ {
		doc := fmt.Sprintf(`{"agents": {"a": {"description": "a", "tools": %s}},
			"permissions": {"allow": %s, "ask": %s, "deny": %s, "additionalDirectories": ["/opt/x", "../sib"]}}`,
			marshal(t, []string{pick(r, propTools), "Bash", "Read", pick(r, []string{"*", "Agent", "mcp__github"})}),
			marshal(t, rules(r.IntN(4))), marshal(t, rules(r.IntN(2))), marshal(t, rules(r.IntN(3))))
		w := newWorld(t, doc, propTools...)
		w.start(t, "lead", events.StartedData{Agent: "main", Mode: pick(r, propModes)})
		if r.IntN(2) == 0 {
			w.grant(t, pick(r, []string{"allow", "ask", "deny"}), pick(r, propRules))
		}
		keys := []string{"lead"}
		if _, err := w.trySpawn("lead:a", events.SpawnedData{Parent: "lead", Agent: "a"}); err == nil {
			keys = append(keys, "lead:a")
		}
		for _, key := range keys {
			s := w.sessions[events.SessionKey(key)]
			for _, tool := range tools {
				for _, in := range inputs {
					full, brief := w.d.Decide(w, s, tool, in), w.d.DecideBrief(w, s, tool, in)
					if full.Trace == nil || brief.Trace != nil {
						t.Fatalf("%s %s %s: trace %v, brief trace %v", key, tool, in, full.Trace != nil, brief.Trace != nil)
					}
					full.Trace = nil
					if !reflect.DeepEqual(full, brief) {
						t.Fatalf("%s %s %s under %s: Decide %+v %+v, DecideBrief %+v %+v", key, tool, in, doc,
							full, full.Reason.Record, brief, brief.Reason.Record)
					}
				}
			}
		}
	}
}
