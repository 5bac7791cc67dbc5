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
	// Effect (with Record and Call) makes the recorded check the start of
	// the call's effect too (tool.checked with effect: true): one durable
	// record for a call checked at the moment it runs, instead of a check
	// and then a tool.effect_started (docs/records.md).
	Effect bool `json:"effect,omitempty"`
	// WithinMS (a recorded check) is how long, in milliseconds from its
	// arrival, the caller waits for the answer: a check the ledger has not
	// decided by then is refused with deadline_passed and records nothing,
	// so a caller that gives up at its deadline (a hook answering deny)
	// leaves no record of a call that did not run. 0: no bound.
	WithinMS int64 `json:"within_ms,omitempty"`
	// ID (a recorded check) is the tool.checked's event id, a ULID: a
	// re-send of a check with the id of one that landed (a retry after a
	// lost answer) records nothing and is answered with the check it
	// landed as. None: the ledger gives the record an id of its own, and
	// a re-send records the call again. client.Client sends one, the same
	// on each retry of a call's check.
	ID string `json:"id,omitempty"`
	// CheckSeq (why only) asks about the call whose tool.checked or
	// tool.effect_started is at this sequence; Call, without Record, about
	// the call with this id (the last of its records). Either answers the
	// decision recorded there, with the Call and Cause of WhyResult.
	CheckSeq uint64 `json:"check_seq,omitempty"`
	// Root (a why about a call id) narrows it to the sessions of root's
	// spawn tree, whose records are looked for from the root's start on
	// instead of from the log's first record.
	Root events.SessionKey `json:"root,omitempty"`
	// Brief (a why about a call) answers the call's records and the
	// decision recorded at the one asked about (WhyResult.Call, Seq and
	// Scope) without deciding it again: no verdict, trace, cause or state,
	// so the log before the call is not folded (what a hook placing a
	// sub-agent by its spawning call needs, at any log size).
	Brief bool `json:"brief,omitempty"`
	// The tree query's filters: only the trees whose root is bound to
	// Scope and started with this user, project and runtime (each when
	// set); the policy query's scope (none: the default).
	Filter
}

// Filter selects spawn trees by their root's scope and identity; the
// zero Filter selects every tree.
type Filter struct {
	Scope   string `json:"scope,omitempty"`
	User    string `json:"user,omitempty"`
	Project string `json:"project,omitempty"`
	Runtime string `json:"runtime,omitempty"`
}

// Empty reports whether the filter selects everything.
func (f Filter) Empty() bool { return f == Filter{} }

// Match reports whether a root bound to scope, started with d, passes.
func (f Filter) Match(scope string, d *events.StartedData) bool {
	if f.Scope != "" && events.ScopeName(f.Scope) != events.ScopeName(scope) {
		return false
	}
	if f.User == "" && f.Project == "" && f.Runtime == "" {
		return true
	}
	if d == nil {
		return false
	}
	return (f.User == "" || d.User == f.User) && (f.Project == "" || d.Project == f.Project) &&
		(f.Runtime == "" || d.Runtime == f.Runtime)
}

// Identity is who and where a root session ran, as its session.started
// recorded it; its sub-agents share it. Every field is what the attach
// point could know, empty when it could not.
type Identity struct {
	Runtime        string `json:"runtime,omitempty"`
	RuntimeVersion string `json:"runtime_version,omitempty"`
	Project        string `json:"project,omitempty"`
	Repository     string `json:"repository,omitempty"`
	Branch         string `json:"branch,omitempty"`
	User           string `json:"user,omitempty"`
	Host           string `json:"host,omitempty"`
	Model          string `json:"model,omitempty"`
}

// IdentityOf is the identity a session.started recorded, nil when it
// recorded none.
func IdentityOf(d *events.StartedData) *Identity {
	if d == nil {
		return nil
	}
	id := Identity{Runtime: d.Runtime, RuntimeVersion: d.RuntimeVersion, Project: d.Project, Repository: d.Repository,
		Branch: d.Branch, User: d.User, Host: d.Host, Model: d.Model}
	if id == (Identity{}) {
		return nil
	}
	return &id
}

// ToolsResult answers tools: a session's effective tool set at a position.
type ToolsResult struct {
	Session events.SessionKey `json:"session"`
	Scope   string            `json:"scope"`
	Seq     uint64            `json:"seq"`
	Tools   envelope.ToolSet  `json:"tools"`
	// NotActive is as in WhyResult.
	NotActive *ErrorBody `json:"not_active,omitempty"`
}

// CheckResult answers check: one decision.
type CheckResult struct {
	Session  events.SessionKey `json:"session"`
	Scope    string            `json:"scope"`
	Seq      uint64            `json:"seq"`
	Tool     string            `json:"tool"`
	Decision envelope.Decision `json:"decision"`
	Reason   envelope.Reason   `json:"reason"`
	// Recorded is the sequence of the tool.checked record, with record.
	Recorded uint64 `json:"recorded,omitempty"`
	// NotActive is as in WhyResult.
	NotActive *ErrorBody `json:"not_active,omitempty"`
}

// WhyResult answers why: a decision at a position with every layer in
// order, the policy in force, the session's context and its envelope.
type WhyResult struct {
	Seq uint64 `json:"seq"`
	// Scope is the scope the session is bound to, whose policy decided.
	Scope    string                `json:"scope"`
	Verdict  envelope.Verdict      `json:"verdict"`
	Policy   *envelope.PolicyState `json:"policy"`
	Context  envelope.Context      `json:"context"`
	Envelope *envelope.Envelope    `json:"envelope"`
	// Call is set by a why about a call (Query.Call or Query.CheckSeq):
	// the record answered, the call's records and the cause. Seq is then
	// the sequence the record was decided on (its own less one), and
	// Verdict the decision there, with its trace.
	Call *CallAnswer `json:"call,omitempty"`
	// Turn is set by a why at a turn: the records the turn covers and the
	// calls checked in it.
	Turn *TurnCalls `json:"turn,omitempty"`
	// NotActive is set when the session takes no recorded check at Seq
	// (it has ended, its root has, or it is yielded or completed): the
	// refusal (session_not_active) a recorded check of the call would get
	// instead of Verdict, which is the policy's decision all the same. Not
	// set by a why at a turn (its start, where the session was active).
	NotActive *ErrorBody `json:"not_active,omitempty"`
}

// SessionView answers session: a session's envelope, state, context,
// every turn with its stored tool set, and its children.
type SessionView struct {
	Key      events.SessionKey   `json:"key"`
	Scope    string              `json:"scope"`
	Identity *Identity           `json:"identity,omitempty"`
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
	Key   events.SessionKey `json:"key"`
	Scope string            `json:"scope"`
	// Identity is the root's (a sub-agent's is its root's).
	Identity *Identity `json:"identity,omitempty"`
	// Started is the sequence of the session's start or spawn record:
	// roots are listed, and children kept, in this order.
	Started  uint64         `json:"started"`
	Agent    string         `json:"agent"`
	State    envelope.State `json:"state"`
	Depth    int            `json:"depth"`
	Turns    int            `json:"turns"`
	Source   string         `json:"policy_source"`
	Children []*TreeNode    `json:"children"`
}

// Keys lists every session of a tree, root first.
func (n *TreeNode) Keys() []events.SessionKey {
	keys := []events.SessionKey{n.Key}
	for _, ch := range n.Children {
		keys = append(keys, ch.Keys()...)
	}
	return keys
}
