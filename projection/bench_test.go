package projection_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// benchDoc populates every openclaw layer: profile, provider profile,
// global, provider, agent, agent provider, group, sender, sandbox, sub-agent
// and an inherited envelope with a ceiling.
const benchDoc = `{
  "tools": {
    "profile": "coding", "alsoAllow": ["browser", "bundle-mcp", "canvas"],
    "allow": [], "deny": ["nodes", "srv3__*"],
    "byProvider": {"anthropic/claude": {"profile": "coding", "alsoAllow": ["group:plugins", "browser"], "deny": ["x_search"]}},
    "sandbox": {"tools": {"allow": ["group:fs", "group:runtime", "group:sessions", "group:web", "group:memory", "view_image"],
                          "alsoAllow": ["bundle-mcp", "skills_read", "dispatch_action"], "deny": ["canvas"]}},
    "subagents": {"tools": {"deny": ["memory_get"]}},
    "toolsBySender": {"*": {"deny": ["group:automation"]}, "id:alice": {"deny": ["web_search"]}}
  },
  "agents": {
    "defaults": {"subagents": {"maxSpawnDepth": 3}},
    "list": [{"id": "main", "tools": {"deny": ["process"], "byProvider": {"anthropic": {"allow": ["*"], "deny": ["code_execution"]}}},
              "subagents": {"allowAgents": ["main"]}}]
  },
  "channels": {"slack": {"groups": {"eng": {"tools": {"deny": ["message"]},
                                             "toolsBySender": {"id:alice": {"allow": ["*"], "deny": ["edit"]}}}}}}
}`

// benchCatalogue is 60 tools: built-ins of every group and MCP tools.
func benchCatalogue() []string {
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

// benchState folds a depth-2 sub-agent through the real append path.
func benchState(b *testing.B) (*projection.State, events.SessionKey) {
	b.Helper()
	oc, cc := openclaw.New(), claudecode.New()
	h := &harness{t: b, st: projection.New(projection.Dialects{oc.Name(): oc, cc.Name(): cc})}
	cat, _ := json.Marshal(benchCatalogue())
	h.mustAppend(`{"type":"policy.set","v":1,"actor":"b","data":{"dialect":"openclaw","document":` + benchDoc + `,"catalogue":` + string(cat) + `}}`)
	h.mustAppend(ev("session.started", "agent:main:main", `{"agent":"main","provider":"Anthropic","model":"Claude","channel":"slack","group":"eng","sandboxed":true,"tools":["mail__send"]}`))
	h.mustAppend(ev("turn.started", "agent:main:main", `{"turn":1,"sender":"alice"}`))
	h.mustAppend(ev("session.spawned", "agent:main:subagent:a", `{"parent":"agent:main:main","agent":"main","tools":["gh__issue"]}`))
	h.mustAppend(ev("turn.started", "agent:main:subagent:a", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "agent:main:subagent:b", `{"parent":"agent:main:subagent:a","agent":"main"}`))
	h.mustAppend(ev("turn.started", "agent:main:subagent:b", `{"turn":1,"sender":"alice"}`))
	return h.st, "agent:main:subagent:b"
}

// BenchmarkCheck is a single-tool check on a warm session (issue target:
// at most 1 µs and 0 allocations).
func BenchmarkCheck(b *testing.B) {
	st, key := benchState(b)
	if _, err := st.Check(key, "read", nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Check(key, "read", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolSet resolves the full tool set with reasons from scratch
// (target: at most 20 µs).
func BenchmarkToolSet(b *testing.B) {
	st, key := benchState(b)
	sess := st.Session(key)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = st.Dialect().Tools(st, sess)
	}
}

// BenchmarkWhy decides one tool with its full trace.
func BenchmarkWhy(b *testing.B) {
	st, key := benchState(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Why(key, "browser", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCheckAllocationFree(t *testing.T) {
	st, key := benchState(&testing.B{})
	_, _ = st.Check(key, "read", nil)
	if n := testing.AllocsPerRun(100, func() { _, _ = st.Check(key, "read", nil) }); n != 0 {
		t.Fatalf("a warm check allocates %v times", n)
	}
	for _, tool := range append(benchCatalogue(), "mail__send", "gh__issue", "NOT_A_TOOL", " Bash ") {
		v, _ := st.Check(key, tool, nil)
		w, _ := st.Why(key, tool, nil)
		if v.Decision != w.Decision || v.Reason.Code != w.Reason.Code {
			t.Errorf("%s: fast check %s %s disagrees with why %s %s", tool, v.Decision, v.Reason.Code, w.Decision, w.Reason.Code)
		}
	}
}
