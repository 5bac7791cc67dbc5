package events

import "encoding/json"

// Type names an event type. The strings reach disk; never rename one. A
// schema change adds a new version (V) and an upgrade, not a new spelling.
type Type string

// The event types of SPEC section 4, all at version 1.
const (
	PolicySet        Type = "policy.set"
	GrantAdded       Type = "grant.added"
	GrantRevoked     Type = "grant.revoked"
	SessionStarted   Type = "session.started"
	SessionSpawned   Type = "session.spawned"
	TurnStarted      Type = "turn.started"
	SessionYielded   Type = "session.yielded"
	SessionCompleted Type = "session.completed"
	SessionResumed   Type = "session.resumed"
	ToolChecked      Type = "tool.checked"
	EffectStarted    Type = "tool.effect_started"
	// The types scopes brought (docs/records.md, "Scopes"): the ledger's
	// own revocation layer, and a root session's end and reopening.
	DenyAdded       Type = "deny.added"
	DenyLifted      Type = "deny.lifted"
	SessionEnded    Type = "session.ended"
	SessionReopened Type = "session.reopened"
)

// Version is the only schema version of every event type.
const Version = 1

// Types lists every known event type in a stable order.
var Types = []Type{PolicySet, GrantAdded, GrantRevoked, SessionStarted, SessionSpawned,
	TurnStarted, SessionYielded, SessionCompleted, SessionResumed, ToolChecked, EffectStarted,
	DenyAdded, DenyLifted, SessionEnded, SessionReopened}

// IsPolicy reports whether events of type t go to a scope's policy subject
// and carry no session.
func (t Type) IsPolicy() bool {
	return t == PolicySet || t == GrantAdded || t == GrantRevoked || t == DenyAdded || t == DenyLifted
}

// Known reports whether t is an event type of SPEC section 4.
func (t Type) Known() bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// SessionKey is a session's key, the aggregate id of its events.
type SessionKey string

// DefaultScope is the name of the scope of every record that names none:
// a log written before scopes is all in it.
const DefaultScope = "default"

// ScopeName returns the scope a record's scope field names: "" is the
// default scope.
func ScopeName(scope string) string {
	if scope == "" {
		return DefaultScope
	}
	return scope
}

// ValidScope reports whether name is a well-formed scope name: 1 to 128 of
// [A-Za-z0-9_:-], so that it is one subject token.
func ValidScope(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !keyByte[name[i]] {
			return false
		}
	}
	return true
}

// NamedScope returns the scope a payload names, and whether it names one:
// a policy event's (policy.set, grants, revocations) and a root's
// (session.started); "" is the default scope. Another session event's
// scope is its session's: a child's its parent's.
func NamedScope(p any) (string, bool) {
	switch d := p.(type) {
	case *PolicySetData:
		return d.Scope, true
	case *GrantData:
		return d.Scope, true
	case *DenyData:
		return d.Scope, true
	case *StartedData:
		return d.Scope, true
	}
	return "", false
}

// Subject returns the stream subject a record of type t for session s is
// published on in the default scope (SPEC section 3).
func Subject(t Type, s SessionKey) string { return SubjectIn("", t, s) }

// SubjectIn returns the stream subject of a record of type t for session
// s bound to scope (a policy record: of scope). The default scope's
// subjects are those of a log from before scopes; another scope's carry
// its name, "ledger.scope.<scope>.policy", ".session.<key>" and
// ".decision.<key>", so that a deployment can map scopes onto streams.
func SubjectIn(scope string, t Type, s SessionKey) string {
	prefix := "ledger."
	if scope != "" && scope != DefaultScope {
		prefix = "ledger.scope." + scope + "."
	}
	switch {
	case t.IsPolicy():
		return prefix + "policy"
	case t == ToolChecked || t == EffectStarted:
		return prefix + "decision." + string(s)
	default:
		return prefix + "session." + string(s)
	}
}

// Event is what a caller sends: a record without time and decided.
type Event struct {
	ID      string          `json:"id,omitempty"`
	Type    Type            `json:"type"`
	V       int             `json:"v"`
	Session SessionKey      `json:"session,omitempty"`
	Actor   string          `json:"actor"`
	Data    json.RawMessage `json:"data"`
}

// Record is one message body on the stream: exactly eight fields (SPEC
// section 3), encoded canonically.
type Record struct {
	ID      string          `json:"id"`
	Type    Type            `json:"type"`
	V       int             `json:"v"`
	Time    string          `json:"time"`
	Session SessionKey      `json:"session"`
	Actor   string          `json:"actor"`
	Data    json.RawMessage `json:"data"`
	Decided json.RawMessage `json:"decided"`
}

// Encode returns the record's canonical JSON bytes, the same as
// Canonical(r).
func (r *Record) Encode() ([]byte, error) { return encodeRecord(r, false) }

// EncodeCanonicalData is Encode for a record whose Data is what
// CanonicalJSON returned: the same bytes, without canonicalizing Data a
// second time (the record of every appended event, issue 28).
func (r *Record) EncodeCanonicalData() ([]byte, error) { return encodeRecord(r, true) }

// DecodeRecord parses a record read back from the stream. It checks the
// record's own fields, not the event's semantics.
func DecodeRecord(b []byte) (*Record, error) {
	r, ok := decodeRecord(b)
	if !ok {
		r = new(Record)
		if err := strictUnmarshal(b, r); err != nil {
			return nil, Errorf(CodeInvalidEvent, "record does not decode: %v", err)
		}
	}
	if !ValidID(r.ID) {
		return nil, Errorf(CodeInvalidEvent, "record id %q is not a ULID", r.ID)
	}
	if !r.Type.Known() {
		return nil, Errorf(CodeUnknownType, "record type %q is not known", r.Type)
	}
	if r.V != Version {
		return nil, Errorf(CodeInvalidEvent, "record version %d is not supported", r.V)
	}
	return r, nil
}

// Event returns the caller-visible part of the record.
func (r *Record) Event() *Event {
	return &Event{ID: r.ID, Type: r.Type, V: r.V, Session: r.Session, Actor: r.Actor, Data: r.Data}
}

// Payloads. Optional booleans whose absence differs from false are pointers;
// nil lists mean the field was absent.

// PolicySetData is the data of policy.set.
type PolicySetData struct {
	Dialect   string          `json:"dialect"`
	Document  json.RawMessage `json:"document"`
	Catalogue []string        `json:"catalogue,omitempty"`
	// Scope is the scope whose policy this is ("" for the default).
	Scope string `json:"scope,omitempty"`
}

// GrantKind names what a grant edits (SPEC section 4).
type GrantKind string

// The grant kinds.
const (
	GrantDelegateTools GrantKind = "delegate_tools"
	GrantAllowAgent    GrantKind = "allow_agent"
	GrantAlsoAllow     GrantKind = "also_allow"
	GrantPermission    GrantKind = "permission"
)

// GrantData is the data of grant.added and grant.revoked.
type GrantData struct {
	Kind     GrantKind `json:"kind"`
	Agent    string    `json:"agent"`
	Target   string    `json:"target"`
	Tools    []string  `json:"tools,omitempty"`
	Behavior string    `json:"behavior,omitempty"`
	Rule     string    `json:"rule,omitempty"`
	// Scope is the scope whose policy the grant edits ("" for the default).
	Scope string `json:"scope,omitempty"`
}

// StartedData is the data of session.started.
type StartedData struct {
	Agent       string   `json:"agent"`
	Provider    string   `json:"provider,omitempty"`
	Model       string   `json:"model,omitempty"`
	Sandboxed   *bool    `json:"sandboxed,omitempty"`
	Channel     string   `json:"channel,omitempty"`
	Group       string   `json:"group,omitempty"`
	Sender      string   `json:"sender,omitempty"`
	Owner       bool     `json:"owner,omitempty"`
	Tools       []string `json:"tools,omitempty"`
	Mode        string   `json:"mode,omitempty"`
	Coordinator bool     `json:"coordinator,omitempty"`
	// Scope binds the root, and every session under it, to a scope's
	// policy for its whole life ("" for the default scope).
	Scope string `json:"scope,omitempty"`
	// Who and where (docs/records.md, "Identity"): each is what the
	// attach point could know, empty when it could not.
	Runtime        string `json:"runtime,omitempty"`
	RuntimeVersion string `json:"runtime_version,omitempty"`
	Project        string `json:"project,omitempty"`
	Repository     string `json:"repository,omitempty"`
	Branch         string `json:"branch,omitempty"`
	User           string `json:"user,omitempty"`
	Host           string `json:"host,omitempty"`
	// Conversation is the key OpenClaw knows the session's conversation by
	// (its session key, agent:<id>:<channel>:group:<id>[:topic:<t>]...);
	// the openclaw dialect reads the channel and the candidate group ids
	// from it as OpenClaw does, in place of Group (issue 25). It has the
	// shape of a session key (ValidKey).
	Conversation string `json:"conversation,omitempty"`
	// PluginTools is what the runtime reports of its plugins' tools when
	// the root starts: an object from plugin id to the names of the tools
	// that plugin owns, the shape of the openclaw document's pluginTools
	// (the session-ledger OpenClaw plugin reads it from the gateway's
	// plugin registry: each plugin's contracts.tools). The openclaw
	// dialect decides group:plugins and plugin ids for the root and every
	// sub-agent under it with it as well as with the document's
	// pluginTools, failing closed where they disagree. Absent in every
	// record from before it (they decide as they did).
	PluginTools json.RawMessage `json:"plugin_tools,omitempty"`
}

// SpawnedData is the data of session.spawned.
type SpawnedData struct {
	Parent     SessionKey `json:"parent"`
	Agent      string     `json:"agent"`
	Label      string     `json:"label,omitempty"`
	Sandboxed  *bool      `json:"sandboxed,omitempty"`
	Background *bool      `json:"background,omitempty"`
	Fork       bool       `json:"fork,omitempty"`
	Teammate   bool       `json:"teammate,omitempty"`
	Hidden     bool       `json:"hidden,omitempty"`
	Tools      []string   `json:"tools,omitempty"`
}

// TurnData is the data of turn.started.
type TurnData struct {
	Turn     int    `json:"turn"`
	Sender   string `json:"sender,omitempty"`
	External bool   `json:"external,omitempty"`
	// Mode is the permission mode the runtime reported for this turn
	// (claude-code: Claude Code's permission_mode, which Shift-Tab or
	// --permission-mode change mid-session); it stays in force until a
	// later turn names another. A dialect without modes refuses it.
	Mode string `json:"mode,omitempty"`
}

// IsExternal reports whether an outside requester drives the turn: a
// non-empty sender or external: true (SPEC section 5.3).
func (d *TurnData) IsExternal() bool { return d.External || d.Sender != "" }

// YieldedData is the data of session.yielded.
type YieldedData struct {
	Children []SessionKey `json:"children"`
}

// CompletedData is the data of session.completed.
type CompletedData struct {
	Status string `json:"status"`
}

// The handoffs of session.resumed.
const (
	HandoffSettleBatch = "settle_batch"
	HandoffCompletion  = "completion"
)

// ResumedData is the data of session.resumed.
type ResumedData struct {
	Handoff string       `json:"handoff"`
	Batch   *string      `json:"batch,omitempty"`
	From    []SessionKey `json:"from"`
}

// CheckedData is the data of tool.checked.
type CheckedData struct {
	Turn  int             `json:"turn"`
	Tool  string          `json:"tool"`
	Call  string          `json:"call,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// Unreadable, when set, records that an attach point (the Claude Code
	// hook) denied this call unchecked because it could not read its
	// payload, and why: the ledger decides it deny, unreadable:payload,
	// whatever the policy says (TestUnreadableCheckRecorded).
	Unreadable string `json:"unreadable,omitempty"`
	// Effect, when set, makes the check the start of the call's effect as
	// well: the attach point checks at the moment the tool would run (a
	// PreToolUse hook, OpenClaw's before_tool_call, a gateway's forward),
	// and the one record both decides the call and, when it does not
	// deny, starts it, so that no tool.effect_started follows. It needs
	// Call (docs/records.md, "One record per enforced call";
	// TestCheckAndStart).
	Effect bool `json:"effect,omitempty"`
}

// EffectData is the data of tool.effect_started.
type EffectData struct {
	Turn       int    `json:"turn"`
	Tool       string `json:"tool"`
	Call       string `json:"call"`
	PreparedAt uint64 `json:"prepared_at,omitempty"`
}

// DenyData is the data of deny.added and deny.lifted: a revocation of the
// ledger's own layer, above the dialects. Rule is a tool name or a rule
// pattern (Bash, Bash(git push *), exec, mcp__fs__write_file). The target
// is at most one of Session (with Subtree, its sub-agents too), Agent (an
// agent type), User or Project (the identity a root started with); none
// means every session of the scope.
type DenyData struct {
	Scope   string     `json:"scope,omitempty"`
	Rule    string     `json:"rule"`
	Session SessionKey `json:"session,omitempty"`
	Subtree bool       `json:"subtree,omitempty"`
	Agent   string     `json:"agent,omitempty"`
	User    string     `json:"user,omitempty"`
	Project string     `json:"project,omitempty"`
	// Note is the operator's words, shown with every denial it causes.
	Note string `json:"note,omitempty"`
}

// Target names what a denial targets, for messages and identities.
func (d *DenyData) Target() string {
	switch {
	case d.Session != "" && d.Subtree:
		return "session " + string(d.Session) + " and its sub-agents"
	case d.Session != "":
		return "session " + string(d.Session)
	case d.Agent != "":
		return "agent " + d.Agent
	case d.User != "":
		return "user " + d.User
	case d.Project != "":
		return "project " + d.Project
	}
	return "every session"
}

// EndedData is the data of session.ended: a root session ended by its
// runtime (Claude Code's SessionEnd). Reason is the runtime's, if any.
type EndedData struct {
	Reason string `json:"reason,omitempty"`
}

// ReopenedData is the data of session.reopened: an ended root resumed by
// its runtime (claude --resume), under its recorded scope and envelope.
type ReopenedData struct {
	Reason string `json:"reason,omitempty"`
}

// HashHeader is the message header that carries a record's content hash on
// the stream, so that a record altered in the store is found at its own
// sequence.
const HashHeader = "Ledger-Hash"

// Message is a record as it goes on the stream: its subject, its id (the
// de-duplication id) and its canonical bytes; and their content hash
// (HashBytes) when the sender has it ("" to have it computed), so a
// record is hashed once for its publish and its fold.
type Message struct {
	Subject string
	ID      string
	Data    []byte
	Hash    string
}

// decodeRecord decodes what json.Unmarshal would decode the same way with
// certainty, which is every record Encode writes: one object whose keys are
// each one of the record's JSON names, spelt exactly and once; the string
// fields strings or null, v a short integer or null. For anything else
// (keys matched regardless of case, unknown keys, type errors, trailing
// data, syntax errors) it reports false and DecodeRecord asks encoding/json,
// whose answers and messages stay the reference.
func decodeRecord(b []byte) (*Record, bool) {
	t := getTape()
	defer putTape(t)
	end, err := t.parse(b, maxDecodeDepth)
	if err != nil || skipSpace(b, end) != len(b) || t.nodes[0].kind != '{' {
		return nil, false
	}
	var vals [numRecordFields]int // the value node of each field, 0 if absent
	for k := 1; k < t.nodes[0].next; k = t.nodes[k+1].next {
		f := -1
		if t.nodes[k].flags == 0 {
			f = recordField(b[t.nodes[k].start+1 : t.nodes[k].end-1])
		}
		if f < 0 || vals[f] != 0 {
			return nil, false
		}
		vals[f] = k + 1
	}
	// The string fields share one allocation.
	text := t.buf[:0]
	var ends [fieldData]int
	for f := range ends {
		switch k := vals[f]; {
		case k == 0 || t.nodes[k].kind == 'n': // absent, or null: json.Unmarshal leaves ""
		case t.nodes[k].kind == '"':
			text = t.appendString(text, b, k)
		default:
			return nil, false
		}
		ends[f] = len(text)
	}
	t.buf = text
	all := string(text)
	str := func(f int) string {
		if f == 0 {
			return all[:ends[0]]
		}
		return all[ends[f-1]:ends[f]]
	}
	r := &Record{ID: str(fieldID), Type: Type(str(fieldType)), Time: str(fieldTime),
		Session: SessionKey(str(fieldSession)), Actor: str(fieldActor)}
	if k := vals[fieldV]; k != 0 && t.nodes[k].kind != 'n' {
		v, ok := shortInt(t.raw(b, k))
		if !ok {
			return nil, false
		}
		r.V = v
	}
	data, decided := vals[fieldData], vals[fieldDecided]
	var n, m int
	if data != 0 {
		n = t.nodes[data].end - t.nodes[data].start
	}
	if decided != 0 {
		m = t.nodes[decided].end - t.nodes[decided].start
	}
	if n+m > 0 {
		raw := make([]byte, 0, n+m)
		// Full slice expressions keep an append to Data from running into
		// Decided.
		if data != 0 {
			raw = append(raw, t.raw(b, data)...)
			r.Data = raw[:n:n]
		}
		if decided != 0 {
			raw = append(raw, t.raw(b, decided)...)
			r.Decided = raw[n : n+m : n+m]
		}
	}
	return r, true
}

// The fields of a record in decodeRecord's order: the strings first.
const (
	fieldID = iota
	fieldType
	fieldTime
	fieldSession
	fieldActor
	fieldData
	fieldDecided
	fieldV
	numRecordFields
)

func recordField(key []byte) int {
	switch string(key) {
	case "id":
		return fieldID
	case "type":
		return fieldType
	case "time":
		return fieldTime
	case "session":
		return fieldSession
	case "actor":
		return fieldActor
	case "data":
		return fieldData
	case "decided":
		return fieldDecided
	case "v":
		return fieldV
	}
	return -1
}

// shortInt parses an integer literal of at most 9 digits, which fits an int
// on every platform; json.Unmarshal reads it the same.
func shortInt(lit []byte) (int, bool) {
	digits := lit
	if len(lit) > 0 && lit[0] == '-' {
		digits = lit[1:]
	}
	if len(digits) == 0 || len(digits) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range digits {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) < len(lit) {
		n = -n
	}
	return n, true
}
