package claudecodetest

import (
	"encoding/json"
	"time"
	"testing"
)

func TestProbe(t *testing.T) {
	res := Run(t.Context(), t, Case{Name: "probe", Scripts: Scripts{
		"main": {{{Tool: "Bash", Input: map[string]any{"command": "ls", "description": "x"}}, {Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}},
			{{Tool: "Agent", Input: map[string]any{"description": "d", "prompt": "script:sub1", "subagent_type": "Explore", "run_in_background": false}}}},
		"sub1": {{{Tool: "Bash", Input: map[string]any{"command": "cat a.txt", "description": "x"}}}},
	}, Files: map[string]string{"a.txt": "hello\n"}, Timeout: 20 * time.Second})
	for _, q := range res.Requests {
		t.Logf("req script=%q turn=%d model=%s tools=%v deferred=%v agents=%v results=%+v", q.Script, q.Turn, q.Model, q.Tools, q.Deferred, q.AgentTypes, q.Results)
	}
	for _, c := range res.Calls {
		b, _ := json.Marshal(c)
		t.Logf("call %s", b)
	}
	t.Logf("denials %+v unexpected %v", res.PermissionDenials, res.Unexpected)
	t.Logf("stderr %s", res.Stderr)
}
