package envelope

import (
	"encoding/json"

	"github.com/sessionledger/ledger/events"
)

// The policy sources of a session's turn context (SPEC section 5.3).
const (
	SourceCurrentRequest    = "current_request"
	SourcePersistedChild    = "persisted_child"
	SourceSettleBatch       = "settle_batch"
	SourceCompletionHandoff = "completion_handoff"
)

// The source reasons: the continuation check that failed, or the outside
// requester of an external turn.
const (
	ReasonHandoffNotCurrent = "handoff_not_current"
	ReasonBatchNotSettled   = "batch_not_settled"
	ReasonMissingEnvelope   = "missing_envelope"
	ReasonPolicyConflict    = "policy_conflict"
	ReasonExternalRequester = "external_requester"
)

// State is a session's lifecycle state (SPEC section 4).
type State string

// The lifecycle states.
const (
	Active    State = "active"
	Yielded   State = "yielded"
	Completed State = "completed"
	// Ended is a root its runtime ended (session.ended); session.reopened
	// makes it active again.
	Ended State = "ended"
)

// Grant is a grant in force, with the record that added it.
type Grant struct {
	Data     events.GrantData `json:"data"`
	Identity string           `json:"identity"`
	Record   RecordRef        `json:"record"`
}

// PolicyState is the policy in force at a position: the revision, its
// document and catalogue, the grants in force in the order they were added,
// and the dialect's compiled forms of the base and effective documents.
type PolicyState struct {
	Dialect   string          `json:"dialect"`
	Revision  RecordRef       `json:"revision"`
	Hash      string          `json:"hash"`
	Document  json.RawMessage `json:"document"`
	Catalogue []string        `json:"catalogue"`
	// CatalogueRecord is the policy.set that last carried a catalogue.
	CatalogueRecord RecordRef `json:"catalogue_record"`
	Grants          []Grant   `json:"grants"`
	// Release is the dialect release the revision decides with, as its
	// policy.set recorded it; empty for dialects without releases and for
	// records from before releases were recorded.
	Release string `json:"release,omitempty"`
	// Scope is the scope this is the policy of ("" for the default).
	Scope string `json:"scope,omitempty"`
	// Revocations are the ledger's revocations in force in the scope
	// (deny.added), in the order they were added; the revocation layer
	// reads them before the dialect decides.
	Revocations []Revocation `json:"revocations,omitempty"`

	// Compiled is the dialect's compiled form of Document; Effective is the
	// compiled document with every grant in force applied. Both are
	// immutable once made; dialects type-assert them to their own types.
	Compiled  any `json:"-"`
	Effective any `json:"-"`
}

// Facts are what a dialect fixes about a session when it starts or is
// spawned; they never change afterwards.
type Facts struct {
	Sandboxed  bool   `json:"sandboxed,omitempty"`
	Mode       string `json:"mode,omitempty"`
	Background bool   `json:"background,omitempty"`
	Role       string `json:"role,omitempty"`
}

// Context is a session's turn context: set by its latest turn.started,
// session.resumed or session.yielded (SPEC section 7).
type Context struct {
	Source       string `json:"policy_source"`
	SourceReason string `json:"source_reason,omitempty"`
	// Sender is the sender this context resolves with ("" for none).
	Sender   string `json:"sender,omitempty"`
	External bool   `json:"external,omitempty"`
	// Captured is the envelope a successful continuation runs under
	// (settle_batch, completion_handoff); nil otherwise.
	Captured *Envelope `json:"captured,omitempty"`
	// Continuation is the session.resumed in force, nil when none is.
	Continuation *RecordRef `json:"continuation,omitempty"`
	// SetBy is the record that set this context.
	SetBy RecordRef `json:"set_by"`
}

// Session is the view of one session a dialect reads.
type Session struct {
	Key events.SessionKey `json:"key"`
	// Scope is the scope the session is bound to ("" for the default): a
	// root's from its start, a child's its parent's.
	Scope  string            `json:"scope,omitempty"`
	Agent  string            `json:"agent"`
	Parent events.SessionKey `json:"parent,omitempty"`
	Depth  int               `json:"depth"`
	State  State             `json:"state"`
	// Start is set for roots, Spawn for children.
	Start  *events.StartedData `json:"start,omitempty"`
	Spawn  *events.SpawnedData `json:"spawn,omitempty"`
	Origin RecordRef           `json:"origin"`
	// Actor is who appended the start or spawn: the API binds a session to
	// the orchestrator that created it.
	Actor string `json:"actor,omitempty"`
	Facts Facts  `json:"facts"`
	// Envelope is a child's envelope, captured at spawn; nil for roots.
	Envelope *Envelope `json:"envelope,omitempty"`
	// Tools are the session's catalogue additions as written: its
	// ancestors' first, root down, then its own.
	Tools []string `json:"tools,omitempty"`
	Turn  int      `json:"turn"`
	// Mode is the mode the runtime reported at the latest turn that named
	// one (turn.started's mode), in force over Facts.Mode; "" when no turn
	// named one.
	Mode     string              `json:"mode,omitempty"`
	Context  Context             `json:"context"`
	Children []events.SessionKey `json:"children,omitempty"`
	// ActiveChildren counts children spawned by this session that have not
	// completed.
	ActiveChildren int `json:"active_children"`
}

// Root reports whether the session was started rather than spawned.
func (s *Session) Root() bool { return s.Spawn == nil }

// Applied returns the envelope the session's current context applies: the
// captured envelope of a continuation in force, else its own (nil for a
// root).
func (s *Session) Applied() *Envelope {
	if s.Context.Captured != nil {
		return s.Context.Captured
	}
	return s.Envelope
}

// World is the state folded up to the position being decided, as a dialect
// reads it.
type World interface {
	// Policy is the policy in force; nil before the first policy.set.
	Policy() *PolicyState
	// Session returns a session by key, nil when it does not exist.
	Session(key events.SessionKey) *Session
	// Position is the sequence of the last record folded.
	Position() uint64
}

// Dialect is one family of policy semantics. Implementations are pure and
// safe for concurrent use.
type Dialect interface {
	// Name is the dialect's name as written in policy.set.
	Name() string
	// Normalize returns a tool name's canonical form (aliases, case).
	Normalize(tool string) string
	// Compile validates a policy document and catalogue and compiles them.
	// Errors are *events.Error with code invalid_policy.
	Compile(doc json.RawMessage, catalogue []string) (any, error)
	// CheckEvent runs the dialect's shape checks on an event that passed
	// the generic ones (invalid_event for values, then bad_session_key for
	// key forms). payload is the event's decoded data.
	CheckEvent(ev *events.Event, payload any) error
	// GrantIdentity is the identity two grants share when they are the same
	// grant (adding a current one changes nothing; revoking needs one).
	GrantIdentity(g *events.GrantData) string
	// Effective applies the grants in force to the compiled base document.
	Effective(p *PolicyState) (any, error)
	// Start admits a root session and returns what it fixes.
	Start(w World, key events.SessionKey, d *events.StartedData) (Facts, error)
	// Spawn runs the dialect's admission checks for a child (after the
	// generic duplicate_session, unknown_parent and session_not_active) and
	// captures its envelope. The caller seals the envelope.
	Spawn(w World, key events.SessionKey, d *events.SpawnedData) (*Envelope, Facts, error)
	// Decide decides one call of tool by session s (input may be nil) with
	// its reason and the full trace.
	Decide(w World, s *Session, tool string, input json.RawMessage) Verdict
	// Tools resolves the session's tool set over its catalogue.
	Tools(w World, s *Session) ToolSet
	// SamePolicy reports whether two envelopes carry the same captured
	// requester policy (SPEC section 5.3).
	SamePolicy(a, b *Envelope) bool
	// DefaultChildSource is the policy source of a child's ordinary turn
	// outside any continuation.
	DefaultChildSource() string
}
