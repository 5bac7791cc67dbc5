package wire

import (
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// WatchQuery is a watch request: exactly one of Session, Root and All. The
// watch is a long poll: ask again from the answer's Next.
type WatchQuery struct {
	Session events.SessionKey `json:"session,omitempty"`
	// Root watches the spawn tree under a root: the root and every session
	// spawned under it, including those spawned after the watch started.
	Root events.SessionKey `json:"root,omitempty"`
	// All watches every session of the scope: an orchestrator's own, or,
	// on .all, every one.
	All bool `json:"all,omitempty"`
	// From is the first sequence to read (0 means 1).
	From uint64 `json:"from,omitempty"`
	// Wait, when no change is found, waits for one (up to the service's
	// bound) before answering.
	Wait bool `json:"wait,omitempty"`
}

// Change is a change of a session's effective tool set: the tool set
// resolved at the start of a turn (SPEC section 5.2: a session's tools are
// fixed at each turn start, and policy changes, grants and revocations take
// effect there).
type Change struct {
	Seq         uint64            `json:"seq"`
	Session     events.SessionKey `json:"session"`
	Turn        int               `json:"turn"`
	ToolSetHash string            `json:"tool_set_hash"`
	Tools       envelope.ToolSet  `json:"tools"`
	// PolicySource and SourceReason say which policy the turn ran under.
	PolicySource string `json:"policy_source"`
	SourceReason string `json:"source_reason,omitempty"`
}

// WatchResult answers a watch request.
type WatchResult struct {
	// Changes are in stream order; never null.
	Changes []Change `json:"changes"`
	// Next is the first sequence not read yet: ask from it next.
	Next uint64 `json:"next"`
}
