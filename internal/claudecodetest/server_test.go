package claudecodetest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestServerScripts drives the scripted server over HTTP as the CLI does:
// the conversation's script and turn pick the response, tool_use input
// streams as input_json_delta, and the request is recorded.
func TestServerScripts(t *testing.T) {
	srv := startServer(t, Scripts{
		"main": {{{Text: "hi"}, {Tool: "Bash", Input: map[string]any{"command": "ls"}}}},
		"sub":  {{{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}}, {{Text: "second"}}},
	}, nil)
	system := "x\nThe following deferred tools are now available via ToolSearch:\nWebFetch\nWebSearch\n\nAvailable agent types for the Agent tool:\n- Explore: reads\n- plain: a custom agent\n\nrest"
	tests := []struct {
		name       string
		body       map[string]any
		wantScript string
		wantTurn   int
		wantStop   string
		wantTools  []string // tool_use names in the response
		wantText   string
	}{
		{"main turn 0", map[string]any{"system": system, "messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "<system-reminder>r</system-reminder>"}, map[string]any{"type": "text", "text": "script:main"}}}}},
			"main", 0, "tool_use", []string{"Bash"}, "hi"},
		{"sub turn 1 after a result", map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": "script:sub"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "1\ta", "is_error": false}}}}},
			"sub", 1, "end_turn", nil, "second"},
		{"a fork names its own script after its parent's", map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": "script:main"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "x"}}},
			map[string]any{"role": "user", "content": "script:sub"}}},
			"sub", 0, "tool_use", []string{"Read"}, ""},
		{"past the script's end", map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": "script:main"},
			map[string]any{"role": "assistant", "content": "a"}, map[string]any{"role": "user", "content": "b"}}},
			"main", 1, "end_turn", nil, "done"},
		{"no script", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "title this"}}},
			"", 0, "end_turn", nil, "done"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(tc.body)
			resp, err := http.Post(srv.URL()+"/v1/messages?beta=true", "application/json", strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			stop, tools, text := readSSE(t, resp)
			if stop != tc.wantStop || strings.Join(tools, ",") != strings.Join(tc.wantTools, ",") || text != tc.wantText {
				t.Errorf("got stop %q tools %v text %q, want %q %v %q", stop, tools, text, tc.wantStop, tc.wantTools, tc.wantText)
			}
			got := srv.Requests()[i]
			if got.Script != tc.wantScript || got.Turn != tc.wantTurn {
				t.Errorf("recorded script %q turn %d, want %q %d", got.Script, got.Turn, tc.wantScript, tc.wantTurn)
			}
		})
	}
	first := srv.Requests()[0]
	if strings.Join(first.Deferred, ",") != "WebFetch,WebSearch" || strings.Join(first.AgentTypes, ",") != "Explore,plain" {
		t.Errorf("deferred %v, agent types %v", first.Deferred, first.AgentTypes)
	}
	if r := srv.Requests()[1].Results; len(r) != 1 || r[0].ToolUseID != "t1" || r[0].Content != "1\ta" {
		t.Errorf("results %+v", r)
	}
	if resp, err := http.Get(srv.URL() + "/v1/models"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || len(srv.Unexpected()) != 1 {
			t.Errorf("GET /v1/models: %d, unexpected %v", resp.StatusCode, srv.Unexpected())
		}
	}
}

// readSSE decodes a streamed message: its stop reason, tool_use names and
// text, checking that each tool_use's deltas join into its JSON input.
func readSSE(t *testing.T, resp *http.Response) (stop string, tools []string, text string) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	partial := map[int]string{}
	var events []string
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, ev)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type, Name string
			} `json:"content_block"`
			Delta struct {
				Type, Text, PartialJSON, StopReason string
			} `json:"delta"`
		}
		_ = json.Unmarshal([]byte(data), &ev)
		var raw map[string]map[string]any
		_ = json.Unmarshal([]byte(data), &raw)
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				tools = append(tools, ev.ContentBlock.Name)
			}
		case "content_block_delta":
			if pj, ok := raw["delta"]["partial_json"].(string); ok {
				partial[ev.Index] += pj
			}
			if tx, ok := raw["delta"]["text"].(string); ok {
				text += tx
			}
		case "content_block_stop":
			if js, ok := partial[ev.Index]; ok && !json.Valid([]byte(js)) {
				t.Errorf("block %d: the input deltas join into %q, not JSON", ev.Index, js)
			}
		case "message_delta":
			stop, _ = raw["delta"]["stop_reason"].(string)
		}
	}
	if len(events) < 2 || events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Errorf("events %v do not run message_start ... message_stop", events)
	}
	return stop, tools, text
}

// TestCLIOutcome reads each kind of evidence as the package comment says.
func TestCLIOutcome(t *testing.T) {
	res := func(s string) *ToolResult { return &ToolResult{Content: s, IsError: true} }
	tests := []struct {
		name string
		call Call
		want string
		ok   bool
	}{
		{"ran", Call{PreToolUse: true, PostToolUse: true, Result: &ToolResult{Content: "a.txt"}}, outAllow, true},
		{"ran and failed", Call{PreToolUse: true, PostToolUse: true, Result: res("Exit code 2")}, outAllow, true},
		{"asked", Call{PreToolUse: true, Denied: true, PermissionRequest: true, Result: res("Claude requested permissions to use Bash, but you haven't granted it yet.")}, outAsk, true},
		{"denied by a rule", Call{PreToolUse: true, Denied: true, Result: res("Permission to use Bash with command rm x has been denied.")}, outDeny, true},
		{"denied by a Read path rule", Call{Denied: true, Result: res("<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>")}, outDeny, true},
		{"not in the pool", Call{Result: res("<tool_use_error>Error: No such tool available: Grep.</tool_use_error>")}, outAbsent, true},
		{"an ask text without its PermissionRequest", Call{PreToolUse: true, Denied: true, Result: res("Claude requested permissions to write to /x, but you haven't granted it yet.")}, "", false},
		{"no evidence", Call{}, "", false},
	}
	for _, tc := range tests {
		got, ok := cliOutcome(tc.call)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSameInput(t *testing.T) {
	tests := []struct {
		hook any
		sent map[string]any
		want bool
	}{
		{map[string]any{"file_path": "/p/a.txt"}, map[string]any{"file_path": "a.txt"}, true},
		{map[string]any{"file_path": "/p/sub/a.txt"}, map[string]any{"file_path": "a.txt"}, false},
		{map[string]any{"file_path": "/outside/o.txt"}, map[string]any{"file_path": "../outside/o.txt"}, true},
		{map[string]any{"command": "ls", "description": "d", "timeout": 5.0}, map[string]any{"command": "ls", "description": "d"}, true},
		{map[string]any{"command": "ls -a"}, map[string]any{"command": "ls"}, false},
		{map[string]any{}, map[string]any{"command": "ls"}, false},
	}
	for _, tc := range tests {
		if got := sameInput(tc.hook, tc.sent, "/p"); got != tc.want {
			t.Errorf("sameInput(%v, %v) = %v, want %v", tc.hook, tc.sent, got, tc.want)
		}
	}
}

// TestFailClosed: only a dialect stricter than the CLI may be listed as
// deliberate.
func TestFailClosed(t *testing.T) {
	tests := []struct {
		c    compared
		want bool
	}{
		{compared{CLI: outAllow, Dialect: "ask (default:prompt)"}, true},
		{compared{CLI: outAsk, Dialect: "deny (permission:deny)"}, true},
		{compared{CLI: outAllow, Dialect: "absent (catalogue:unknown)"}, true},
		{compared{CLI: outDeny, Dialect: "allow (mode:bypassPermissions)"}, false},
		{compared{CLI: outDeny, Dialect: "absent (permission:deny)"}, false},
		{compared{CLI: outAsk, Dialect: "session refused (agent_not_configured)"}, false},
		{compared{kind: kindPool, Evidence: poolDiff([]string{"Bash", "Grep"}, []string{"Bash"})}, true},
		{compared{kind: kindPool, Evidence: poolDiff([]string{"Bash"}, []string{"Bash", "Grep"})}, false},
		{compared{kind: kindSpawn, CLI: "spawned", Dialect: "refused: depth_limit"}, true},
		{compared{kind: kindSpawn, CLI: "refused", Dialect: "spawned"}, false},
	}
	for _, tc := range tests {
		if got := tc.c.failClosed(); got != tc.want {
			t.Errorf("%+v: failClosed %v, want %v", tc.c, got, tc.want)
		}
	}
}

// TestJoinCallsPairsRefusedFirst: a PermissionRequest is paired with a
// call the CLI refused before one that ran with less of its input (Bash
// echo hi beside echo hi with a timeout an ask rule names: gen-params
// seed 5101 left the asked call without its request).
func TestJoinCallsPairsRefusedFirst(t *testing.T) {
	bash := func(id string, in map[string]any) Issued {
		return Issued{Script: "main", Block: Block{ID: id, Tool: "Bash", Input: in}}
	}
	issued := []Issued{bash("ran", map[string]any{"command": "echo hi"}),
		bash("asked", map[string]any{"command": "echo hi", "timeout": 50000})}
	res := &Result{Dir: "/p", PermissionDenials: []Denial{{ToolUseID: "asked"}}}
	for _, id := range []string{"ran", "asked"} {
		res.Hooks = append(res.Hooks, map[string]any{"hook_event_name": "PreToolUse", "tool_use_id": id})
	}
	res.Hooks = append(res.Hooks, map[string]any{"hook_event_name": "PostToolUse", "tool_use_id": "ran"},
		map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash",
			"tool_input": map[string]any{"command": "echo hi", "timeout": 50000.0}})
	calls := joinCalls(issued, res)
	if calls[0].PermissionRequest || !calls[1].PermissionRequest {
		t.Errorf("PermissionRequest paired with ran %v, asked %v; want the asked call's", calls[0].PermissionRequest, calls[1].PermissionRequest)
	}
}
