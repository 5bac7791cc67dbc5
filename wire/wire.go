// Package wire is the ledger API's wire contract: the subjects it is served
// on, the JSON of every request and answer, and how an error answer is
// told apart. The service (internal/api) decodes and encodes these types
// and the Go client (package client) encodes and decodes the same ones, so
// the two cannot drift apart; any other client in any language speaks this
// JSON.
//
// # Version
//
// This is version 1 of the protocol: subjects under Prefix ("ledger.v1"),
// a NATS micro service named ServiceName at ServiceVersion. Within a
// version, fields are only ever added, never renamed or removed, and a
// field's meaning does not change; TestWireFieldNames holds the JSON names
// of every type, so a rename fails it. The records the ledger stores are
// versioned apart, by events.Version.
//
// # Subjects
//
// A subject is Prefix, an endpoint and a scope, the last token: the owner
// (orchestrator) whose sessions a request is about, an operator for
// policy appends, or ScopeAll for queries on every session. The NATS
// server, not the ledger, decides who may publish on which (the roles of
// 'ledger serve --gen-auth'):
//
//	ledger.v1.append.<owner>    session events of orchestrator <owner> (one event, or an array)
//	ledger.v1.policy.<operator> policy.set, grant.added, grant.revoked of operator <operator>
//	ledger.v1.policy            the same, the actor as the event names it (no roles)
//	ledger.v1.<query>.<owner>   tools, check, why, session, tree on <owner>'s sessions (Query)
//	ledger.v1.<query>.all       the same on every session (auditors, operators)
//	ledger.v1.watch.<owner>     the changes of <owner>'s sessions' tool sets (WatchQuery)
//	ledger.v1.watch.all         the same of every session
//
// # Answers
//
// A request is answered with the JSON of its answer type, or with an
// error: the headers ErrorCodeHeader (a stable code of SPEC section 8, or
// CodeInternal) and ErrorHeader (the message) set and the body an
// ErrorBody. A batch append (a JSON array of events) is answered with an
// array of AppendOutcome, one per event, each with its own error.
//
// Nothing in this package does I/O; it imports only events and envelope.
package wire

import (
	"regexp"

	"github.com/sessionledger/ledger/events"
)

// Names of the service.
const (
	// Prefix is the first two tokens of every API subject.
	Prefix = "ledger.v1"
	// ServiceName and ServiceVersion are the micro service's name and
	// version, as $SRV.INFO answers them.
	ServiceName    = "ledger"
	ServiceVersion = "1.0.0"
	// ScopeAll is the scope of queries and watches on every session; no
	// orchestrator may be named so.
	ScopeAll = "all"
)

// Endpoints: the token after Prefix.
const (
	EndpointAppend  = "append"
	EndpointPolicy  = "policy"
	EndpointTools   = "tools"
	EndpointCheck   = "check"
	EndpointWhy     = "why"
	EndpointSession = "session"
	EndpointTree    = "tree"
	EndpointWatch   = "watch"
)

// Queries lists the query endpoints, which take a Query.
var Queries = []string{EndpointTools, EndpointCheck, EndpointWhy, EndpointSession, EndpointTree}

// Subject is the subject of endpoint for scope under Prefix; an empty
// scope leaves the last token out (the bare policy subject).
func Subject(endpoint, scope string) string { return SubjectUnder(Prefix, endpoint, scope) }

// SubjectUnder is Subject under another prefix (client.Options.Prefix).
func SubjectUnder(prefix, endpoint, scope string) string {
	if scope == "" {
		return prefix + "." + endpoint
	}
	return prefix + "." + endpoint + "." + scope
}

// tokenPattern is what a scope may look like: one subject token.
var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidToken reports whether s can be the last token of a subject (and a
// user name of the generated roles): [A-Za-z0-9_-]{1,64}.
func ValidToken(s string) bool { return tokenPattern.MatchString(s) }

// ValidOwner reports whether s can name an orchestrator or an operator: a
// valid token that is not ScopeAll.
func ValidOwner(s string) bool { return ValidToken(s) && s != ScopeAll }

// InboxPrefix is the reply-subject prefix the NATS roles of 'ledger serve
// --gen-auth' let user receive on: every user but the service may
// subscribe to InboxPrefix(user)+".>" only, so that no one receives
// another's answers. Connect as that user with
// nats.CustomInboxPrefix(InboxPrefix(user)).
func InboxPrefix(user string) string { return "_INBOX_" + user }

// The headers of an error answer (the NATS micro service's:
// api.TestWireHeadersAreMicros holds them equal).
const (
	ErrorHeader     = "Nats-Service-Error"
	ErrorCodeHeader = "Nats-Service-Error-Code"
)

// RoundsHeader is on the answers to appends of a ledger whose rounds
// overlap (RoundsOverlap): it decides a round while the one before is
// being acknowledged, so a client may keep a second append request out
// (client.Client does). A ledger that appends each round whole, as one
// atomic batch, sends no such header: there a second request would split
// the next round in two.
const (
	RoundsHeader  = "Ledger-Rounds"
	RoundsOverlap = "overlap"
)

// CodeInternal is the code of a failure that is not the caller's.
const CodeInternal events.Code = "internal"

// ErrorBody is the body of an error answer; its code is also in the
// ErrorCodeHeader header and its message in ErrorHeader.
type ErrorBody struct {
	Code    events.Code `json:"code"`
	Message string      `json:"message"`
	// Seq is the sequence of the record that decided the refusal, if any
	// (a rejected append is recorded too).
	Seq uint64 `json:"seq,omitempty"`
}
