package wire

import (
	"encoding/json"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// EndpointDenials is the endpoint of the denials query (DenialsQuery).
const EndpointDenials = "denials"

// CodeUnknownCall answers a why about a call the log does not hold (or
// the caller may not see): no record carries the call id, or the
// sequence is not a call's tool.checked or tool.effect_started.
const CodeUnknownCall events.Code = "unknown_call"

// CallRecord is one record of a tool call: a tool.checked (a check, or the
// refusal of an effect, whose reason is effect:authorization_changed) or a
// tool.effect_started, with the decision the ledger recorded in it.
type CallRecord struct {
	Seq     uint64            `json:"seq"`
	ID      string            `json:"id"`
	Type    events.Type       `json:"type"`
	Time    string            `json:"time"`
	Actor   string            `json:"actor"`
	Session events.SessionKey `json:"session"`
	// Scope is the scope whose policy decided.
	Scope    string            `json:"scope"`
	Turn     int               `json:"turn"`
	Tool     string            `json:"tool"`
	Call     string            `json:"call,omitempty"`
	Input    json.RawMessage   `json:"input,omitempty"`
	Decision envelope.Decision `json:"decision"`
	Reason   envelope.Reason   `json:"reason"`
	// PreparedAt is, for an effect or a refused one, the sequence of the
	// check that prepared it.
	PreparedAt uint64 `json:"prepared_at,omitempty"`
	// Effect is set on a tool.checked that also started the call's
	// effect (effect: true): checked at the moment the call ran, and
	// started with the same record unless it denied.
	Effect bool `json:"effect,omitempty"`
	// Unreadable is, on a check an attach point recorded for a call whose
	// payload it could not read, what could not be read: the call was
	// denied unread (reason unreadable:payload), never decided by the
	// policy.
	Unreadable string `json:"unreadable,omitempty"`
}

// Cause is the record that made a tool's decision for a session what it
// was at a call: the latest record before the call's (a policy.set, a
// grant, a revocation, deny.added or deny.lifted, a turn, a resume, or the
// session's own start) after which the decision was no longer what it
// had been. Before is the decision just before the cause ("" when the
// cause is the session's start or spawn, before which it had none).
type Cause struct {
	Seq    uint64            `json:"seq"`
	ID     string            `json:"id"`
	Type   events.Type       `json:"type"`
	Time   string            `json:"time"`
	Actor  string            `json:"actor"`
	Before envelope.Decision `json:"before,omitempty"`
	After  envelope.Decision `json:"after"`
	// Text says what the record did, in its own words: "deny Bash for
	// session s1 (incident 42)", "grant.revoked ...", "turn 4".
	Text string `json:"text"`
}

// CallAnswer is what a why about a call adds to the decision: the record
// asked about, every record of the call, and the cause.
type CallAnswer struct {
	// Record is the record whose decision is answered: the one asked for
	// with check_seq, or else the call's last.
	Record CallRecord `json:"record"`
	// Records are the call's records in the session, in order.
	Records []CallRecord `json:"records"`
	Cause   *Cause       `json:"cause,omitempty"`
}

// TurnCalls is what a why at a turn adds: the records the turn covers
// (from its turn.started to the record before the session's next one, or
// the head) and the calls checked in it, in order.
type TurnCalls struct {
	Turn  int          `json:"turn"`
	From  uint64       `json:"from"`
	To    uint64       `json:"to"`
	Calls []CallRecord `json:"calls"`
}

// DenialsQuery is the request of the denials endpoint: the denied and
// asked calls (CallRecord) of every session the caller may see, from
// sequence From, filtered. Each set field must hold: the root's scope and
// identity (Filter), the session, the tool, the reason code, and the
// record's time (Since and Until, RFC 3339, both inclusive).
type DenialsQuery struct {
	Filter
	Session events.SessionKey `json:"session,omitempty"`
	Tool    string            `json:"tool,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	Since   string            `json:"since,omitempty"`
	Until   string            `json:"until,omitempty"`
	// From is the first sequence to read (0: 1). Ask again from the
	// answer's Next for what follows.
	From uint64 `json:"from,omitempty"`
	// Wait, when nothing is past From, waits for a record (a bounded
	// time) before answering.
	Wait   bool   `json:"wait,omitempty"`
	MinSeq uint64 `json:"min_seq,omitempty"`
}

// Denial is one denied or asked call, with the identity of its session's
// root.
type Denial struct {
	CallRecord
	Identity *Identity `json:"identity,omitempty"`
}

// DenialsResult answers denials: at most a page of denials read from
// the query's From on, and Next, where the next page starts (the head + 1
// when the answer reached it).
type DenialsResult struct {
	Denials []Denial `json:"denials"`
	Next    uint64   `json:"next"`
}
