package openclaw

// groups is the complete group table of section 2.4, members in order.
// group:plugins is not here: it matches every MCP tool (rule 2 of 2.3).
var groups = map[string][]string{
	"group:runtime": {"exec", "process", "code_execution"},
	"group:fs":      {"read", "write", "edit", "apply_patch"},
	"group:sessions": {"sessions", "sessions_list", "sessions_history", "sessions_search",
		"conversations_list", "conversations_send", "conversations_turn", "sessions_send",
		"sessions_spawn", "sessions_yield", "subagents", "session_status", "suggest_task", "dismiss_task"},
	"group:memory":     {"memory_search", "memory_get"},
	"group:web":        {"web_search", "x_search", "web_fetch"},
	"group:ui":         {"browser", "screen", "dashboard", "terminal", "portal", "canvas", "show_widget"},
	"group:automation": {"heartbeat_respond", "automations", "gateway"},
	"group:messaging":  {"message"},
	"group:nodes":      {"nodes", "computer"},
	"group:agents": {"agents_list", "get_goal", "create_goal", "update_goal", "progress_card",
		"ask_user", "skill_workshop"},
	"group:media": {"view_image", "image_generate", "music_generate", "video_generate", "tts"},
	"group:openclaw": {"code_execution", "sessions", "sessions_list", "sessions_history",
		"sessions_search", "conversations_list", "conversations_send", "conversations_turn",
		"sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status",
		"suggest_task", "dismiss_task", "memory_search", "memory_get", "web_search", "x_search",
		"web_fetch", "browser", "screen", "dashboard", "terminal", "portal", "show_widget",
		"heartbeat_respond", "automations", "gateway", "message", "nodes", "computer",
		"agents_list", "get_goal", "create_goal", "update_goal", "progress_card", "ask_user",
		"skill_workshop", "view_image", "image_generate", "music_generate", "video_generate", "tts"},
}

// groupSets holds each group's members as a set, for matching.
var groupSets = func() map[string]map[string]bool {
	m := make(map[string]map[string]bool, len(groups))
	for g, members := range groups {
		s := make(map[string]bool, len(members))
		for _, t := range members {
			s[t] = true
		}
		m[g] = s
	}
	return m
}()

// profiles is the complete profile table of section 2.7. full and unknown
// ids mean no profile step.
var profiles = map[string][]string{
	"minimal": {"session_status"},
	"coding": {"read", "write", "edit", "apply_patch", "exec", "process", "code_execution",
		"web_search", "x_search", "web_fetch", "sessions", "sessions_list", "sessions_history",
		"sessions_search", "conversations_list", "conversations_send", "conversations_turn",
		"sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status",
		"suggest_task", "dismiss_task", "memory_search", "memory_get", "automations", "get_goal",
		"create_goal", "update_goal", "progress_card", "ask_user", "skill_workshop", "view_image",
		"image_generate", "music_generate", "video_generate", "bundle-mcp"},
	"messaging": {"message", "sessions", "sessions_list", "sessions_history", "sessions_search",
		"conversations_list", "conversations_send", "conversations_turn", "sessions_send",
		"sessions_spawn", "sessions_yield", "subagents", "session_status", "ask_user", "bundle-mcp"},
}

// profileIDs lists the profiles that make a profile step, in a fixed order.
var profileIDs = []string{"coding", "messaging", "minimal"}

// The sub-agent layer's fixed deny groups (section 7.1).
var (
	hardDeny = []string{"gateway", "agents_list", "session_status", "progress_card", "automations",
		"message", "sessions_send", "conversations_*"}
	depthCapDeny = []string{"subagents", "sessions_list", "sessions_history", "sessions_search", "sessions_spawn"}
)

// The sandbox defaults (section 6.2).
var (
	sandboxDefaultAllow = []string{"exec", "process", "read", "write", "edit", "apply_patch", "view_image",
		"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield",
		"subagents", "session_status"}
	sandboxDefaultDeny = []string{"browser", "canvas", "nodes", "automations", "gateway"}
)
