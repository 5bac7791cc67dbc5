package agentcli

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
)

func TestExploreCodex(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip("EXPLORE")
	}
	res := agentclitest.RunCodex(t.Context(), t, agentclitest.Case{
		Name:  "explore",
		Files: map[string]string{"notes.txt": "hello notes\n"},
		Scripts: agentclitest.Scripts{"main": {
			{agentclitest.Call("call_echo", "exec_command", map[string]any{"cmd": "echo hi > made.txt; cat notes.txt"})},
		}},
	})
	t.Logf("exit %d elapsed %v\nstdout %s\nstderr %s\nunexpected %v", res.ExitCode, res.Elapsed, res.Stdout, res.Stderr, res.Unexpected)
	for _, q := range res.Requests {
		t.Logf("req script %q turn %d tools %v outputs %+v", q.Script, q.Turn, q.Tools, q.Outputs)
	}
	for _, h := range res.Hooks {
		b, _ := json.Marshal(h.Payload)
		t.Logf("hook %s", b)
	}
}

func TestExploreGemini(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip("EXPLORE")
	}
	res := agentclitest.RunGemini(t.Context(), t, agentclitest.Case{
		Name:  "explore",
		Model: os.Getenv("MODEL"),
		Files: map[string]string{"notes.txt": "hello notes\n"},
		Scripts: agentclitest.Scripts{"main": {
			{agentclitest.Call("call_echo", "run_shell_command", map[string]any{"command": "echo hi > made.txt"}),
				agentclitest.Call("call_read", "read_file", map[string]any{"file_path": "notes.txt"})},
		}},
	})
	t.Logf("exit %d elapsed %v\nstdout %s\nstderr %s\nunexpected %v", res.ExitCode, res.Elapsed, res.Stdout, res.Stderr, res.Unexpected)
	for _, q := range res.Requests {
		t.Logf("req %s script %q turn %d tools %v outputs %+v", q.Path, q.Script, q.Turn, q.Tools, q.Outputs)
	}
	for _, h := range res.Hooks {
		b, _ := json.Marshal(h.Payload)
		t.Logf("hook %s", b)
	}
}
