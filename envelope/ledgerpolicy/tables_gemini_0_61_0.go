package ledgerpolicy

// gemini0610 is Gemini CLI 0.61.0's tools as its BeforeTool hook names
// them (docs/gemini-cli-hooks.md, "Built-in tool catalogue (0.61.0)"),
// with complete_task, which its sub-agents are offered. glob and
// grep_search read their optional dir_path, which defaults to the project
// root as the CLI's does; run_shell_command's dir_path is not read (its
// rules match the command line alone, as Claude Code's Bash rules do).
var gemini0610 = &runtimeTable{
	id:    "gemini@0.61.0",
	spawn: "invoke_agent",
	tools: []toolSpec{
		{name: "run_shell_command", kind: kindCommand, field: "command"},
		{name: "read_file", kind: kindPath, field: "file_path"},
		{name: "write_file", kind: kindPath, field: "file_path"},
		{name: "replace", kind: kindPath, field: "file_path"},
		{name: "list_directory", kind: kindPath, field: "dir_path"},
		{name: "glob", kind: kindPath, field: "dir_path", dflt: "."},
		{name: "grep_search", kind: kindPath, field: "dir_path", dflt: "."},
		{name: "web_fetch", kind: kindURL, field: "prompt"},
		{name: "google_web_search"},
		{name: "invoke_agent"},
		{name: "complete_task"},
		{name: "write_todos"},
		{name: "update_topic"},
		{name: "enter_plan_mode"},
		{name: "activate_skill"},
		{name: "list_background_processes"},
		{name: "read_background_output"},
	},
}
