package ledgerpolicy

// codex0169 is Codex CLI 0.169.0's tools as its PreToolUse hook names them
// (docs/codex-cli-hooks.md, "Tool names in PreToolUse/PostToolUse" and
// "Built-in tool catalogue (0.169.0)"): exec_command reaches the hook as
// Bash with its cmd as command; apply_patch's raw patch as command; a
// namespaced tool as namespace and name run together
// (multi_agent_v1wait_agent), except spawn_agent, which keeps its name.
var codex0169 = &runtimeTable{
	id:    "codex@0.169.0",
	spawn: "spawn_agent",
	tools: []toolSpec{
		{name: "Bash", kind: kindCommand, field: "command"},
		{name: "apply_patch", kind: kindPatch, field: "command"},
		{name: "view_image", kind: kindPath, field: "path"},
		{name: "write_stdin"},
		{name: "request_user_input"},
		{name: "get_goal"},
		{name: "create_goal"},
		{name: "update_goal"},
		{name: "tool_search"},
		{name: "web_search"},
		{name: "spawn_agent"},
		{name: "multi_agent_v1send_input"},
		{name: "multi_agent_v1resume_agent"},
		{name: "multi_agent_v1wait_agent"},
		{name: "multi_agent_v1close_agent"},
	},
}
