package wire

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Query is the request of every query endpoint (Queries).
type Query struct {
	Session events.SessionKey `json:"session,omitempty"`
	Tool    string            `json:"tool,omitempty"`
	Input   json.RawMessage   `json:"input,omitempty"`
	// Position: at most one of Seq, Turn and Time; none is the head. Time
	// is RFC 3339.
	Seq  uint64 `json:"seq,omitempty"`
	Turn int    `json:"turn,omitempty"`
	Time string `json:"time,omitempty"`
	// MinSeq asks the replica to answer only once it has applied this
	// sequence (read-your-writes), waiting at most a bounded time.
	MinSeq uint64 `json:"min_seq,omitempty"`
	// Record (check only) appends a tool.checked for the session's current
	// turn with Call, so a later effect can be prepared by it.
	Record bool   `json:"record,omitempty"`
	Call   string `json:"call,omitempty"`
}

// ToolsResult answers tools: a session's effective tool set at a position.
type ToolsResult struct {
	Session events.SessionKey `json:"session"`
	Seq     uint64            `json:"seq"`
	Tools   envelope.ToolSet  `json:"tools"`
}

// CheckResult answers check: one decision.
type CheckResult struct {
	Session  events.SessionKey `json:"session"`
	Seq      uint64            `json:"seq"`
	Tool     string            `json:"tool"`
	Decision envelope.Decision `json:"decision"`
	Reason   envelope.Reason   `json:"reason"`
	// Recorded is the sequence of the tool.checked record, with record.
	Recorded uint64 `json:"recorded,omitempty"`
}

// WhyResult answers why: a decision at a position with every layer in
// order, the policy in force, the session's context and its envelope.
type WhyResult struct {
	Seq      uint64                `json:"seq"`
	Verdict  envelope.Verdict      `json:"verdict"`
	Policy   *envelope.PolicyState `json:"policy"`
	Context  envelope.Context      `json:"context"`
	Envelope *envelope.Envelope    `json:"envelope"`
}

// SessionView answers session: a session's envelope, state, context,
// every turn with its stored tool set, and its children.
type SessionView struct {
	Key      events.SessionKey   `json:"key"`
	Agent    string              `json:"agent"`
	State    envelope.State      `json:"state"`
	Depth    int                 `json:"depth"`
	Parent   events.SessionKey   `json:"parent,omitempty"`
	Envelope *envelope.Envelope  `json:"envelope"`
	Context  envelope.Context    `json:"context"`
	Turns    []TurnView          `json:"turns"`
	Children []events.SessionKey `json:"children"`
}

// TurnView is one turn of a SessionView and the tool set resolved at its
// start.
type TurnView struct {
	Turn    int              `json:"turn"`
	Seq     uint64           `json:"seq"`
	ToolSet envelope.ToolSet `json:"tool_set"`
}

// TreeNode is one session of a spawn tree; tree answers a JSON array of
// root nodes.
type TreeNode struct {
	Key      events.SessionKey `json:"key"`
	Agent    string            `json:"agent"`
	State    envelope.State    `json:"state"`
	Depth    int               `json:"depth"`
	Turns    int               `json:"turns"`
	Source   string            `json:"policy_source"`
	Children []*TreeNode       `json:"children"`
}

// Keys lists every session of a tree, root first.
func (n *TreeNode) Keys() []events.SessionKey {
	keys := []events.SessionKey{n.Key}
	for _, ch := range n.Children {
		keys = append(keys, ch.Keys()...)
	}
	return keys
}
