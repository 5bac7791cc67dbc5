package ledgerpolicy

// qwen0244 is Qwen Code 0.24.4's tools as its PreToolUse hook names them:
// the bundle's ToolNames and each tool's parameter schema
// (docs/qwen-code-hooks.md, "The ledger's adapter"). The hook sees the
// model's own names and arguments; run_shell_command, read_file and agent
// were driven (tests/agentcli/testdata/qwen-code/payloads), the rest read
// from the bundle. glob and grep_search read their optional path, which
// defaults to the project root as the CLI's does (params.path || ".");
// run_shell_command's directory argument is not read (its rules match the
// command line alone). agent is the spawn tool (its sub-agents' calls carry
// agent_id; TestQwenPayloads).
var qwen0244 = &runtimeTable{
	id:    "qwen@0.24.4",
	spawn: "agent",
	tools: []toolSpec{
		{name: "run_shell_command", kind: kindCommand, field: "command"},
		{name: "read_file", kind: kindPath, field: "file_path"},
		{name: "write_file", kind: kindPath, field: "file_path"},
		{name: "edit", kind: kindPath, field: "file_path"},
		{name: "notebook_edit", kind: kindPath, field: "notebook_path"},
		{name: "zoom_image", kind: kindPath, field: "file_path"},
		{name: "list_directory", kind: kindPath, field: "path"},
		{name: "glob", kind: kindPath, field: "path", dflt: "."},
		{name: "grep_search", kind: kindPath, field: "path", dflt: "."},
		{name: "web_fetch", kind: kindURL, field: "url", oneURL: true},
		{name: "web_search"},
		{name: "agent"},
		{name: "list_agents"},
		{name: "send_message"},
		{name: "task_stop"},
		{name: "todo_write"},
		{name: "save_memory"},
		{name: "skill"},
		{name: "enter_plan_mode"},
		{name: "exit_plan_mode"},
		{name: "ask_user_question"},
		{name: "tool_search"},
		{name: "lsp"},
		{name: "cron_create"},
		{name: "cron_list"},
		{name: "cron_delete"},
	},
}
