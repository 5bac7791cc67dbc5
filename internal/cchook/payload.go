package cchook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sessionledger/ledger/events"
)

// The hook events the mapping reads, as Claude Code names them in
// hook_event_name.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolBatch    = "PostToolBatch"
	SubagentStart    = "SubagentStart"
	SubagentStop     = "SubagentStop"
	SessionEnd       = "SessionEnd"
)

// Payload is one hook payload: the fields the mapping reads. Claude Code
// sends more (effort, tool_response, last_assistant_message, ...); they are
// ignored.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`
	PromptID       string `json:"prompt_id"`
	// AgentID and AgentType are set on the events of a sub-agent (and on
	// SubagentStart/SubagentStop); SessionID is then still the main
	// session's.
	AgentID   string `json:"agent_id"`
	AgentType string `json:"agent_type"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source    string          `json:"source"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
	// ToolCalls are PostToolBatch's calls.
	ToolCalls []BatchCall `json:"tool_calls"`
	// Reason is SessionEnd's (clear, logout, prompt_input_exit, other, ...).
	Reason string `json:"reason"`
	// Model is the model, for a payload that names it (2.1.328's do not).
	Model string `json:"model"`
}

// BatchCall is one call of a PostToolBatch.
type BatchCall struct {
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
}

// maxPayload bounds a payload (Write and Edit inputs carry whole files).
const maxPayload = 16 << 20

// Parse reads one payload. It needs session_id and hook_event_name, and
// for PreToolUse tool_name and tool_use_id.
func Parse(raw []byte) (*Payload, error) {
	if len(raw) > maxPayload {
		return nil, fmt.Errorf("the hook payload is %d bytes; the limit is %d", len(raw), maxPayload)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("no hook payload on standard input: Claude Code sends one JSON object per hook run")
	}
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("the hook payload is not a JSON object of Claude Code's hook fields: %v", err)
	}
	var missing []string
	if p.SessionID == "" {
		missing = append(missing, "session_id")
	}
	if p.Event == "" {
		missing = append(missing, "hook_event_name")
	}
	if p.Event == PreToolUse {
		if p.ToolName == "" {
			missing = append(missing, "tool_name")
		}
		if p.ToolUseID == "" {
			missing = append(missing, "tool_use_id")
		}
	}
	if (p.Event == SubagentStart || p.Event == SubagentStop) && p.AgentID == "" {
		missing = append(missing, "agent_id")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the hook payload has no %v", missing)
	}
	return &p, nil
}

// Root is the key of the payload's main session.
func (p *Payload) Root() events.SessionKey { return events.SessionKey(p.SessionID) }

// Key is the key of the session the payload is about: the sub-agent's when
// it names one, else the main session's. A key the ledger would refuse is
// an error (bad_session_key), never rewritten.
func (p *Payload) Key() (events.SessionKey, error) {
	if !events.ValidKey(p.Root()) {
		return "", events.Errorf(events.CodeBadSessionKey, "session_id %q is not a ledger session key ([A-Za-z0-9_:-]{1,200})", p.SessionID)
	}
	if p.AgentID == "" {
		return p.Root(), nil
	}
	return ChildKey(p.Root(), p.AgentID)
}

// Sub reports whether the payload is a sub-agent's.
func (p *Payload) Sub() bool { return p.AgentID != "" }

// ChildKey is the key of sub-agent agentID of the main session root.
func ChildKey(root events.SessionKey, agentID string) (events.SessionKey, error) {
	k := root + ":" + events.SessionKey(agentID)
	if agentID == "" || !events.ValidKey(k) || !validAgentID(agentID) {
		return "", events.Errorf(events.CodeBadSessionKey, "sub-agent %q of session %q makes no ledger session key ([A-Za-z0-9_:-]{1,200})", agentID, root)
	}
	return k, nil
}

// validAgentID keeps agent ids to what Claude Code writes (hex), so that one
// never names another file than its own metadata.
func validAgentID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return id != ""
}
