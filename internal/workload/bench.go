package workload

import (
	"encoding/json"
	"fmt"
)

// BenchDoc is an openclaw policy with every layer populated: profile,
// provider profile, global, provider, agent, agent provider, group, sender,
// sandbox, sub-agent, and (through the spawns of BenchEvents) an inherited
// envelope with a ceiling.
const BenchDoc = `{
  "tools": {
    "profile": "coding", "alsoAllow": ["browser", "bundle-mcp", "canvas"],
    "allow": [], "deny": ["nodes", "srv3__*"],
    "byProvider": {"anthropic/claude": {"profile": "coding", "alsoAllow": ["group:plugins", "browser"], "deny": ["x_search"]}},
    "sandbox": {"tools": {"allow": ["group:fs", "group:runtime", "group:sessions", "group:web", "group:memory", "view_image",
                                    "bundle-mcp", "skills_read", "dispatch_action"], "deny": ["canvas"]}},
    "subagents": {"tools": {"deny": ["memory_get"]}},
    "toolsBySender": {"*": {"deny": ["group:automation"]}, "id:alice": {"deny": ["web_search"]}}
  },
  "agents": {
    "defaults": {"subagents": {"maxSpawnDepth": 3}, "sandbox": {"mode": "all"}},
    "list": [{"id": "main", "tools": {"deny": ["process"], "byProvider": {"anthropic": {"allow": ["*"], "deny": ["code_execution"]}}},
              "subagents": {"allowAgents": ["main"]}}]
  },
  "channels": {"slack": {"groups": {"eng": {"tools": {"deny": ["message"]},
                                             "toolsBySender": {"id:alice": {"allow": ["*"], "deny": ["edit"]}}}}}}
}`

// BenchCatalogue is 60 tools: built-ins of every group and MCP tools.
func BenchCatalogue() []string {
	cat := []string{"read", "write", "edit", "apply_patch", "exec", "process", "code_execution",
		"web_search", "x_search", "web_fetch", "sessions", "sessions_list", "sessions_history",
		"sessions_search", "conversations_list", "conversations_send", "sessions_send", "sessions_spawn",
		"sessions_yield", "subagents", "session_status", "memory_search", "memory_get", "browser", "canvas",
		"automations", "gateway", "message", "nodes", "agents_list", "get_goal", "progress_card", "ask_user",
		"view_image", "image_generate", "tts", "skills_read", "dispatch_action", "switch_model", "image"}
	for i := len(cat); i < 60; i++ {
		cat = append(cat, fmt.Sprintf("srv%d__tool_%d", i%4, i))
	}
	return cat
}

// BenchSession is the depth-2 sub-agent BenchEvents creates.
const BenchSession = "agent:main:subagent:b"

// BenchEvents sets BenchDoc and makes a depth-2 sub-agent whose every turn
// meets every layer.
func BenchEvents() [][]byte {
	cat, _ := json.Marshal(BenchCatalogue())
	return [][]byte{
		[]byte(`{"type":"policy.set","v":1,"actor":"b","data":{"dialect":"openclaw","document":` + BenchDoc + `,"catalogue":` + string(cat) + `}}`),
		event("session.started", "agent:main:main", map[string]any{"agent": "main", "provider": "Anthropic", "model": "Claude",
			"channel": "slack", "group": "eng", "sandboxed": true, "tools": []string{"mail__send"}}),
		event("turn.started", "agent:main:main", map[string]any{"turn": 1, "sender": "alice"}),
		event("session.spawned", "agent:main:subagent:a", map[string]any{"parent": "agent:main:main", "agent": "main", "tools": []string{"gh__issue"}}),
		event("turn.started", "agent:main:subagent:a", map[string]any{"turn": 1}),
		event("session.spawned", BenchSession, map[string]any{"parent": "agent:main:subagent:a", "agent": "main"}),
		event("turn.started", BenchSession, map[string]any{"turn": 1, "sender": "alice"}),
	}
}
