package claudecode

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// benchWorld has a 60-tool catalogue, a document with rules and agents, a
// grant, a root and a sub-agent under it.
func benchWorld(b *testing.B) *fakeWorld {
	cat := append([]string{}, propTools...)
	cat = append(cat, "Artifact", "TaskStop", "TaskGet", "TaskList", "TaskUpdate", "CronCreate", "CronDelete", "CronList",
		"ToolSearch", "EnterWorktree", "ExitWorktree", "Workflow", "ScheduleWakeup", "TaskOutput", "WaitForMcpServers",
		"EnterPlanMode", "SyntheticOutput", "MultiEdit")
	for i := len(cat); i < 60; i++ {
		cat = append(cat, fmt.Sprintf("mcp__srv%d__tool%d", i%4, i))
	}
	w := newWorld(b, `{"agents": {"coder": {"description": "c", "tools": ["Read", "Edit", "Bash", "Grep", "Glob", "mcp__srv1", "Agent(x)", "TodoWrite"],
		"disallowedTools": ["mcp__srv1__tool41"]}},
		"permissions": {"allow": ["Bash(npm run test *)", "Bash(git diff *)", "Edit(src/**)", "mcp__srv2"],
		"ask": ["Bash(git push *)"], "deny": ["WebSearch", "Bash(rm -rf *)", "Read(./.env)", "mcp__srv3"]}}`, cat...)
	w.start(b, "lead", events.StartedData{Agent: "main"})
	w.grant(b, "deny", "Bash(curl *)")
	w.spawn(b, "lead:coder", events.SpawnedData{Parent: "lead", Agent: "coder"})
	if n := len(w.policy.Effective.(*Effective).cat); n != 60 {
		b.Fatalf("catalogue of %d tools", n)
	}
	return w
}

func BenchmarkTools(b *testing.B) {
	w := benchWorld(b)
	for _, key := range []string{"lead", "lead:coder"} {
		s := w.sessions[events.SessionKey(key)]
		b.Run(key, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = w.d.Tools(w, s)
			}
		})
	}
}

func BenchmarkDecide(b *testing.B) {
	w := benchWorld(b)
	s := w.sessions["lead:coder"]
	for _, c := range []struct {
		name, tool string
		input      string
	}{
		{"bash-compound", "Bash", `"timeout 30 npm run test -- --watch && git diff HEAD | grep x"`},
		{"bash-nested", "Bash", `"echo $(cat notes.txt) > out.txt"`},
		{"read-path", "Read", `{"file_path": "src/app/main.go"}`},
		{"edit-path", "Edit", `"src/app/main.go"`},
		{"pool-denied", "WebFetch", `"https://example.com"`},
	} {
		in := json.RawMessage(c.input)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = w.d.Decide(w, s, c.tool, in)
			}
		})
	}
}
