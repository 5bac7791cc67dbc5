// Package workload generates realistic streams of ledger events for tests
// and benchmarks: an openclaw policy, root sessions that take turns, spawn
// children, check tools, start effects, yield, complete and resume.
package workload

import (
	"encoding/json"
	"fmt"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

// Policy is the openclaw policy.set event every workload starts with.
func Policy() []byte {
	doc := map[string]any{
		"tools": map[string]any{"deny": []string{"gateway"}},
		"agents": map[string]any{
			"defaults": map[string]any{"subagents": map[string]any{"maxSpawnDepth": 3, "maxChildrenPerAgent": 10}},
			"list": []any{
				map[string]any{"id": "main", "subagents": map[string]any{"allowAgents": []string{"coder", "reviewer"}}},
				map[string]any{"id": "coder", "tools": map[string]any{"deny": []string{"browser"}}},
				map[string]any{"id": "reviewer", "tools": map[string]any{"deny": []string{"write", "edit", "exec"}}},
			},
		},
	}
	cat := []string{"read", "write", "edit", "apply_patch", "exec", "process", "web_search", "web_fetch",
		"browser", "sessions_spawn", "sessions_yield", "subagents", "session_status", "gateway", "message"}
	return event("policy.set", "", map[string]any{"dialect": "openclaw", "document": doc, "catalogue": cat})
}

func event(typ, session string, data any) []byte {
	m := map[string]any{"type": typ, "v": 1, "actor": "workload", "data": data}
	if session != "" {
		m["session"] = session
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// Session returns the events of one root session's life, keyed by n: start,
// a turn, two children that each take a turn, check a tool and complete,
// then a completion handoff and a second turn of the root. The settle-batch
// resume needs the yield's record id, which only the ledger knows, so roots
// resume by completion handoff.
func Session(n int) [][]byte {
	root := fmt.Sprintf("agent:main:w%d", n)
	coder := fmt.Sprintf("agent:coder:subagent:w%d-c", n)
	reviewer := fmt.Sprintf("agent:reviewer:subagent:w%d-r", n)
	return [][]byte{
		event("session.started", root, map[string]any{"agent": "main"}),
		event("turn.started", root, map[string]any{"turn": 1}),
		event("session.spawned", coder, map[string]any{"parent": root, "agent": "coder"}),
		event("session.spawned", reviewer, map[string]any{"parent": root, "agent": "reviewer"}),
		event("turn.started", coder, map[string]any{"turn": 1}),
		event("tool.checked", coder, map[string]any{"turn": 1, "tool": "exec", "call": "c1"}),
		event("tool.effect_started", coder, map[string]any{"turn": 1, "tool": "exec", "call": "c1"}),
		event("turn.started", reviewer, map[string]any{"turn": 1}),
		event("tool.checked", reviewer, map[string]any{"turn": 1, "tool": "read", "call": "r1"}),
		event("session.completed", reviewer, map[string]any{"status": "ok"}),
		event("session.completed", coder, map[string]any{"status": "ok"}),
		event("session.resumed", root, map[string]any{"handoff": "completion", "from": []string{coder}}),
		event("turn.started", root, map[string]any{"turn": 2}),
	}
}

// Sessions returns the policy followed by the events of sessions 0..n-1,
// one session after the other.
func Sessions(n int) [][]byte {
	out := [][]byte{Policy()}
	for i := 0; i < n; i++ {
		out = append(out, Session(i)...)
	}
	return out
}

// ClientEvent is a workload event as the Go client sends it: its type,
// session and data, without the actor ("workload"), which the ledger's API
// sets to the client's owner.
func ClientEvent(raw []byte) client.Event {
	var m struct {
		Type    events.Type       `json:"type"`
		Session events.SessionKey `json:"session"`
		Data    json.RawMessage   `json:"data"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		panic("workload: an event of its own does not decode: " + err.Error())
	}
	return client.Event{Type: m.Type, Session: m.Session, Data: m.Data}
}
