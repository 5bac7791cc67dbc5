// Package client is the Go client orchestrators and auditors use to talk to
// the ledger over NATS: typed events, Append, Check and CheckAndRecord,
// Why, Tools, Session, Tree, Watch and Changes (its iterator), WhyCall
// and Denials, with read-your-writes consistency tokens and retries that
// can never write an event twice (an event's id is fixed before the first
// attempt, and the ledger answers a re-sent id with its first outcome).
//
//	acme := client.New(nc, client.Options{Owner: "acme"})
//	chk, err := acme.Check(ctx, key, "exec")                    // decides, appends nothing
//	rec, err := acme.CheckAndRecord(ctx, key, "exec", "call-1") // decides and appends a tool.checked
//	for ch, err := range acme.Changes(ctx, client.WatchOptions{Root: key}) {
//		// every change of the tree's tool sets, in order; break to stop
//	}
//
// Package [github.com/sessionledger/ledger/client/clienttest] runs a
// ledger in process for tests, as net/http/httptest runs a server; the
// package's Example runs on it.
//
// # Errors
//
// What the client cannot send fails the call before anything is sent:
// options that do not validate (Options.Validate: an Owner that is no
// subject token, for one) fail every call of the client New made with
// them, and a query option that cannot be applied (WithInput of a value
// that does not encode as JSON) fails the call it was given to.
//
// Errors the ledger returns are *events.Error with the stable codes of SPEC
// section 8. The client rebuilds each from the answer's headers, and
// errors.Is matches it by its code, through any wrapping
// (TestErrorsMatchAcrossTheWire):
//
//	_, err := c.Append(ctx, client.Turn(key, events.TurnData{Turn: 5}))
//	switch {
//	case errors.Is(err, events.ErrConflict()):
//		// lost every race the client retried: append again
//	case errors.Is(err, &events.Error{Code: events.CodeBadTurn}):
//		// the ledger refused the event; events.CodeOf(err) is its code
//	}
//
// The requests and answers are those of package wire, which the ledger's
// service uses too; the answer types here are aliases of its types.
//
// # Concurrency
//
// A Client is safe for concurrent use by any number of goroutines: every
// method may be called at once with any other (TestClientConcurrentUse,
// TestConcurrentAppendsShareRequests). Its consistency token only grows,
// whatever order concurrent appends are answered in. Session appends made
// at the same moment share requests (Options.Coalesce); each is still
// answered as if sent alone. The Client holds no goroutine of its own between calls (a
// coalesced append may leave one sending what waits, which ends when
// nothing does), so it needs no Close: closing its connection ends it, and
// a call then fails.
package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/oklog/ulid/v2"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// InboxPrefix is the reply-subject prefix the NATS roles of 'ledger serve
// --gen-auth' let user receive on: every user but the service may
// subscribe to InboxPrefix(user)+".>" only, so that no one receives
// another's answers. Connect as that user with it:
//
//	nc, err := nats.Connect(url, nats.UserInfo(user, password),
//		nats.CustomInboxPrefix(client.InboxPrefix(user)))
//
// Requests made on a connection with the default prefix (_INBOX) get no
// answer under those roles: the server refuses the reply subscription. It
// is wire.InboxPrefix.
func InboxPrefix(user string) string { return wire.InboxPrefix(user) }

// Options configure a Client. The zero value of every field means its
// default.
type Options struct {
	// Owner is the orchestrator this client appends and queries as: the
	// last token of its API subjects, which the NATS server authorises,
	// so 1 to 64 of the characters A-Z, a-z, 0-9, '_' and '-'
	// (wire.ValidOwner). Empty, or "all" (wire.ScopeAll), means the
	// auditor scope: queries on every session, no session appends.
	Owner string
	// Prefix is the API subject prefix; default wire.Prefix.
	Prefix string
	// Timeout bounds each request attempt; default 5s.
	Timeout time.Duration
	// Retries is how often a request is re-sent after a timeout or a
	// conflict; default 3.
	Retries int
	// Actor names who appends policy and grant events (session events
	// carry Owner); default "operator". They are sent on
	// ledger.v1.policy.<Actor>, which the roles of 'ledger serve
	// --gen-auth' grant the operator of that name only: an operator's
	// client sets Actor to its user name. (An actor that cannot be a
	// subject token goes to ledger.v1.policy, which those roles grant no
	// one.)
	Actor string
	// Coalesce is how many session appends, made at the same moment by
	// this client's goroutines, one request may carry: they share one
	// round trip and are answered one by one, each as if sent alone.
	// Default 256; 1 sends every append on its own. A lone append is
	// always sent on its own, without waiting for company.
	Coalesce int
}

// Validate reports every problem with the options at once: an Owner that
// cannot name an orchestrator, a negative Timeout or Retries.
func (o Options) Validate() error {
	var errs []error
	if o.Owner != "" && o.Owner != wire.ScopeAll && !wire.ValidOwner(o.Owner) {
		errs = append(errs, fmt.Errorf("client: Options.Owner %q is not a valid owner: an owner is the orchestrator's name, "+
			"the last token of its API subjects: 1 to 64 of A-Z, a-z, 0-9, '_' and '-' (or empty, or %q, for the auditor scope)", o.Owner, wire.ScopeAll))
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("client: Options.Timeout %v is negative: 0 means the default, 5s", o.Timeout))
	}
	if o.Retries < 0 {
		errs = append(errs, fmt.Errorf("client: Options.Retries %d is negative: 0 means the default, 3", o.Retries))
	}
	return errors.Join(errs...)
}

// Client talks to the ledger service. It is safe for concurrent use (see
// the package doc).
type Client struct {
	nc   Requester
	opts Options
	mu   sync.Mutex
	// token is the highest sequence this client appended: queries ask the
	// answering replica to have applied it (read-your-writes).
	token uint64
	ids   *ulid.MonotonicEntropy
	// entropy is where newID reads an id's entropy (under mu).
	entropy [10]byte
	// appends are the session appends waiting to be sent (coalesce.go).
	appends coalescer
	// overlap is what the ledger's last append answer said: its rounds
	// overlap (see inFlight).
	overlap atomic.Bool
	// invalid is what opts.Validate reported: every call fails with it.
	invalid error
	// appendSubject is where session events go (opts do not change).
	appendSubject string
}

// New returns a client on an open NATS connection. It does not fail:
// when opts do not validate (Options.Validate), every call of the client
// fails with what Validate reports, and sends nothing. Call opts.Validate
// first to refuse them at start.
func New(nc *nats.Conn, opts Options) *Client { return NewOn(nc, opts) }

// Requester carries a client's requests to the ledger's API and brings
// back the answer as the NATS message a requester receives: a
// *nats.Conn, or, in the ledger's own process, its API server
// (api.Server.RequestWithContext), which answers without the NATS server.
// A request that no one answers is nats.ErrNoResponders, one that takes
// longer than ctx allows is ctx's error, and the client retries both.
type Requester interface {
	RequestWithContext(ctx context.Context, subject string, data []byte) (*nats.Msg, error)
}

// NewOn is New over any Requester.
func NewOn(nc Requester, opts Options) *Client {
	invalid := opts.Validate()
	if opts.Prefix == "" {
		opts.Prefix = wire.Prefix
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.Retries == 0 {
		opts.Retries = 3
	}
	if opts.Actor == "" {
		opts.Actor = "operator"
	}
	if opts.Coalesce <= 0 {
		opts.Coalesce = 256
	}
	return &Client{nc: nc, opts: opts, ids: ulid.Monotonic(rand.Reader, 0), invalid: invalid,
		appendSubject: wire.SubjectUnder(opts.Prefix, wire.EndpointAppend, opts.Owner)}
}

// newID is ulid.MustNew(ms, c.ids).String() (TestNewIDIsMustNew), the
// entropy read into c.entropy so that the ULID stays on the stack
// (MonotonicRead hands its buffer to an io.Reader). The caller holds mu.
func (c *Client) newID(ms uint64) string {
	var id ulid.ULID
	if err := id.SetTime(ms); err != nil {
		panic(err)
	}
	if err := c.ids.MonotonicRead(ms, c.entropy[:]); err != nil {
		panic(err)
	}
	copy(id[6:], c.entropy[:])
	return id.String()
}

func (c *Client) scope() string {
	if c.opts.Owner == "" {
		return wire.ScopeAll
	}
	return c.opts.Owner
}

// Token is the client's consistency token: the highest sequence it
// appended. Pass it to another client with WithMinSeq to read its writes.
func (c *Client) Token() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.token
}

func (c *Client) observe(seq uint64) {
	c.mu.Lock()
	c.token = max(c.token, seq)
	c.mu.Unlock()
}

// Event is an event to append. Data is the event's typed payload (for
// example events.TurnData).
type Event struct {
	ID      string            `json:"id,omitempty"`
	Type    events.Type       `json:"type"`
	Session events.SessionKey `json:"session,omitempty"`
	Actor   string            `json:"actor,omitempty"`
	Data    any               `json:"data"`
}

// Typed constructors for the events of SPEC section 4.

// Start makes a session.started event.
func Start(key events.SessionKey, d events.StartedData) Event {
	return Event{Type: events.SessionStarted, Session: key, Data: d}
}

// Spawn makes a session.spawned event.
func Spawn(child events.SessionKey, d events.SpawnedData) Event {
	return Event{Type: events.SessionSpawned, Session: child, Data: d}
}

// Turn makes a turn.started event.
func Turn(key events.SessionKey, d events.TurnData) Event {
	return Event{Type: events.TurnStarted, Session: key, Data: d}
}

// Yield makes a session.yielded event.
func Yield(key events.SessionKey, children ...events.SessionKey) Event {
	return Event{Type: events.SessionYielded, Session: key, Data: events.YieldedData{Children: children}}
}

// Complete makes a session.completed event.
func Complete(key events.SessionKey, status string) Event {
	return Event{Type: events.SessionCompleted, Session: key, Data: events.CompletedData{Status: status}}
}

// Resume makes a session.resumed event.
func Resume(key events.SessionKey, d events.ResumedData) Event {
	return Event{Type: events.SessionResumed, Session: key, Data: d}
}

// Checked makes a tool.checked event.
func Checked(key events.SessionKey, d events.CheckedData) Event {
	return Event{Type: events.ToolChecked, Session: key, Data: d}
}

// EffectStarted makes a tool.effect_started event.
func EffectStarted(key events.SessionKey, d events.EffectData) Event {
	return Event{Type: events.EffectStarted, Session: key, Data: d}
}

// SetPolicy makes a policy.set event.
func SetPolicy(d events.PolicySetData) Event { return Event{Type: events.PolicySet, Data: d} }

// AddGrant makes a grant.added event; RevokeGrant a grant.revoked one.
func AddGrant(d events.GrantData) Event    { return Event{Type: events.GrantAdded, Data: d} }
func RevokeGrant(d events.GrantData) Event { return Event{Type: events.GrantRevoked, Data: d} }

// Deny makes a deny.added event (the ledger's revocation layer); LiftDeny
// the deny.lifted that lifts it (the same data).
func Deny(d events.DenyData) Event     { return Event{Type: events.DenyAdded, Data: d} }
func LiftDeny(d events.DenyData) Event { return Event{Type: events.DenyLifted, Data: d} }

// End makes a session.ended event: a root ended by its runtime.
func End(key events.SessionKey, reason string) Event {
	return Event{Type: events.SessionEnded, Session: key, Data: events.EndedData{Reason: reason}}
}

// Reopen makes a session.reopened event: an ended root resumed.
func Reopen(key events.SessionKey, reason string) Event {
	return Event{Type: events.SessionReopened, Session: key, Data: events.ReopenedData{Reason: reason}}
}

// AppendResult is the answer to an append.
type AppendResult = wire.AppendResult

// Append appends an event: session events as this client's orchestrator,
// policy and grant events on the operators' subject. The event's id is
// made once (when empty) and reused on every retry, so a retry after a
// timeout never writes twice.
func (c *Client) Append(ctx context.Context, ev Event) (AppendResult, error) {
	if c.invalid != nil {
		return AppendResult{}, c.invalid
	}
	if ev.ID == "" {
		c.mu.Lock()
		ev.ID = c.newID(ulid.Now())
		c.mu.Unlock()
	}
	var subject string
	if ev.Type.IsPolicy() {
		if ev.Actor == "" {
			ev.Actor = c.opts.Actor
		}
		// The operator's own subject, so that under the roles of
		// 'ledger serve --gen-auth' the server vouches for the actor.
		operator := ""
		if wire.ValidOwner(ev.Actor) {
			operator = ev.Actor
		}
		subject = wire.SubjectUnder(c.opts.Prefix, wire.EndpointPolicy, operator)
	}
	if !ev.Type.IsPolicy() {
		if c.opts.Owner == "" {
			return AppendResult{}, errors.New("client: session events need an Owner (the orchestrator name)")
		}
		subject = c.appendSubject
		if ev.Actor == "" {
			// The subject names the orchestrator; naming it in the event
			// too saves the ledger filling it in.
			ev.Actor = c.opts.Owner
		}
	}
	body, err := marshalEvent(ev)
	if err != nil {
		return AppendResult{}, err
	}
	var res AppendResult
	if ev.Type.IsPolicy() || c.opts.Coalesce == 1 {
		var r AppendResult // escapes to the heap in this branch only
		err = c.request(ctx, subject, body, &r)
		res = r
	} else {
		res, err = c.appendCoalesced(ctx, subject, body)
	}
	if err == nil || res.Seq > 0 {
		c.observe(res.Seq)
	}
	if err == nil && res.ID == "" || res.ID == ev.ID {
		// The event's own string: a batch's answer read by hand holds its
		// ids in one string (readOutcomes), which a caller keeping this id
		// would keep whole.
		res.ID = ev.ID
	}
	return res, err
}

// request sends one request with retries after timeouts and conflicts and
// decodes the response into out.
func (c *Client) request(ctx context.Context, subject string, body []byte, out any) error {
	return c.requestHdr(ctx, subject, body, out, nil)
}

// requestHdr is request, handing the headers of a successful answer to
// onHeader when it is not nil.
func (c *Client) requestHdr(ctx context.Context, subject string, body []byte, out any, onHeader func(nats.Header)) error {
	return c.requestEach(ctx, subject, func(time.Duration) ([]byte, error) { return body, nil }, out, onHeader)
}

// requestEach is requestHdr with the body made for each attempt by mk,
// given how long that attempt waits for its answer (the client's Timeout,
// or less when ctx ends sooner).
func (c *Client) requestEach(ctx context.Context, subject string, mk func(wait time.Duration) ([]byte, error), out any, onHeader func(nats.Header)) error {
	if c.invalid != nil {
		// Every request passes here: options that do not validate send
		// nothing.
		return c.invalid
	}
	var lastErr error
	for attempt := 0; attempt <= c.opts.Retries; attempt++ {
		wait := c.opts.Timeout
		if d, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(d))
		}
		body, err := mk(wait)
		if err != nil {
			return err
		}
		actx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
		msg, err := c.nc.RequestWithContext(actx, subject, body)
		cancel()
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) {
				backoff(ctx, attempt)
				continue
			}
			return fmt.Errorf("client: %s: %w", subject, err)
		}
		if code := msg.Header.Get(wire.ErrorCodeHeader); code != "" {
			e := &events.Error{Code: events.Code(code), Msg: msg.Header.Get(wire.ErrorHeader)}
			var body wire.ErrorBody
			_ = json.Unmarshal(msg.Data, &body)
			if out != nil && body.Seq > 0 {
				_ = json.Unmarshal(msg.Data, out)
			}
			if (e.Code == events.CodeConflict || e.Code == events.CodeNotCaughtUp) && attempt < c.opts.Retries {
				lastErr = e
				backoff(ctx, attempt)
				continue
			}
			return e
		}
		if onHeader != nil {
			onHeader(msg.Header)
		}
		if out == nil {
			return nil
		}
		if err := decodeAnswer(msg.Data, out); err != nil {
			return fmt.Errorf("client: %s: response does not decode: %w", subject, err)
		}
		return nil
	}
	return fmt.Errorf("client: %s: no answer after %d attempts: %w", subject, c.opts.Retries+1, lastErr)
}

func backoff(ctx context.Context, attempt int) {
	t := time.NewTimer(time.Duration(25<<attempt) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// QueryOpt sets a query's position, consistency or input. An option that
// cannot be applied (WithInput of a value that does not encode as JSON)
// returns an error, and the call it was given to returns it, joined with
// every other option's, without sending anything.
type QueryOpt func(*wire.Query) error

// AtSeq asks about the state at a stream sequence.
func AtSeq(seq uint64) QueryOpt { return func(q *wire.Query) error { q.Seq = seq; return nil } }

// AtTurn asks about the start of one of the session's turns.
func AtTurn(turn int) QueryOpt { return func(q *wire.Query) error { q.Turn = turn; return nil } }

// AtTime asks about the last record at or before t.
func AtTime(t time.Time) QueryOpt {
	return func(q *wire.Query) error { q.Time = events.FormatTime(t); return nil }
}

// WithMinSeq asks the answering replica to have applied seq first (another
// client's Token, for example). By default a query uses this client's own
// token.
func WithMinSeq(seq uint64) QueryOpt {
	return func(q *wire.Query) error { q.MinSeq = max(q.MinSeq, seq); return nil }
}

// WithInput gives a call's input (claude-code: a string or an object). An
// input that does not encode as JSON fails the call it is given to.
func WithInput(input any) QueryOpt {
	return func(q *wire.Query) error {
		if raw, ok := input.(json.RawMessage); ok && len(raw) > 0 && json.Valid(raw) {
			// What json.Marshal writes of it, without reflection: a hook
			// hands its call's input on as it read it (TestWithInputBytes).
			q.Input = events.AppendCompactJSON(nil, raw)
			return nil
		}
		b, err := json.Marshal(input)
		if err != nil {
			return fmt.Errorf("client: WithInput: the input does not encode as JSON: %w", err)
		}
		q.Input = b
		return nil
	}
}

// query is q with this client's token as its MinSeq and opts applied; the
// options' errors, joined (the client's own, when its Options do not
// validate, before any).
func (c *Client) query(q wire.Query, opts []QueryOpt) (wire.Query, error) {
	if c.invalid != nil {
		return q, c.invalid
	}
	q.MinSeq = c.Token()
	var errs []error
	for _, o := range opts {
		if err := o(&q); err != nil {
			errs = append(errs, err)
		}
	}
	return q, errors.Join(errs...)
}

func (c *Client) ask(ctx context.Context, endpoint string, q wire.Query, opts []QueryOpt, out any) error {
	q, err := c.query(q, opts)
	if err != nil {
		return err
	}
	return c.sendQuery(ctx, endpoint, q, out)
}

// sendQuery sends a query whose options are applied.
func (c *Client) sendQuery(ctx context.Context, endpoint string, q wire.Query, out any) error {
	body, err := marshalQuery(q)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.SubjectUnder(c.opts.Prefix, endpoint, c.scope()), body, out)
}

// sendRecordedCheck sends a recorded check, each attempt bounded for the
// ledger by how long it waits (within_ms): a check the ledger decides
// later than that is refused (deadline_passed) and records nothing, so an
// attempt given up on never leaves a record (TestRecordedCheckWithin).
//
// The check goes with an event id of its own, the same on every retry, so
// that a retry after a lost answer records nothing and is answered with
// the check that landed (wire.Query.ID; TestRecordedCheckRetryKeepsItsID).
// A ledger from before such ids refuses the field: the check is sent again
// without it, and a retry there records the call again.
func (c *Client) sendRecordedCheck(ctx context.Context, q wire.Query, out any) error {
	subject := wire.SubjectUnder(c.opts.Prefix, wire.EndpointCheck, c.scope())
	if q.ID == "" {
		c.mu.Lock()
		q.ID = c.newID(ulid.Now())
		c.mu.Unlock()
	}
	send := func(q wire.Query) error {
		return c.requestEach(ctx, subject, func(wait time.Duration) ([]byte, error) {
			q.WithinMS = max(wait.Milliseconds(), 1)
			return marshalQuery(q)
		}, out, nil)
	}
	err := send(q)
	if events.CodeOf(err) == events.CodeInvalidEvent && strings.Contains(err.Error(), `unknown field "id"`) {
		q.ID = ""
		err = send(q)
	}
	return err
}

// The answers of the queries (package wire).
type (
	// ToolsResult is a session's effective tool set at a position.
	ToolsResult = wire.ToolsResult
	// CheckResult is one decision.
	CheckResult = wire.CheckResult
	// WhyResult is a decision with every layer in order, the policy in
	// force, the session's context and envelope.
	WhyResult = wire.WhyResult
	// SessionView is a session with its envelope, context, turns and
	// children.
	SessionView = wire.SessionView
	// TurnView is one turn and the tool set resolved at its start.
	TurnView = wire.TurnView
	// TreeNode is one session of a spawn tree; its Keys lists the tree's
	// sessions, root first.
	TreeNode = wire.TreeNode
	// Filter selects spawn trees by their root's scope and identity.
	Filter = wire.Filter
	// Identity is who and where a root session ran.
	Identity = wire.Identity
)

// Filtered selects the trees a tree query answers (auditors' every-root
// query): only those whose root the filter matches.
func Filtered(f Filter) QueryOpt { return func(q *wire.Query) error { q.Filter = f; return nil } }

// Tools returns the session's effective tool set.
func (c *Client) Tools(ctx context.Context, session events.SessionKey, opts ...QueryOpt) (ToolsResult, error) {
	var r ToolsResult
	err := c.ask(ctx, wire.EndpointTools, wire.Query{Session: session}, opts, &r)
	return r, err
}

// Check decides one call: allow, deny or ask, with the reason. It
// appends nothing (CheckAndRecord does).
func (c *Client) Check(ctx context.Context, session events.SessionKey, tool string, opts ...QueryOpt) (CheckResult, error) {
	q, err := c.query(wire.Query{Session: session, Tool: tool}, opts)
	if err != nil {
		return CheckResult{}, err
	}
	if q.Record || q.Effect {
		return CheckResult{}, errors.New("client: Check appends nothing, and an option asked it to record the call: use CheckAndRecord or CheckAndStart")
	}
	var r CheckResult
	err = c.sendQuery(ctx, wire.EndpointCheck, q, &r)
	return r, err
}

// CheckAndRecord decides one call as Check does and appends its
// tool.checked, with the call id, for the session's current turn, so
// that a later effect of the call (EffectStarted with the same Call) is
// prepared by it; the answer's Recorded is the record's sequence, which
// the client's token then includes. A recorded check is an append: it
// needs this client's Owner to own the session.
func (c *Client) CheckAndRecord(ctx context.Context, session events.SessionKey, tool, call string, opts ...QueryOpt) (CheckResult, error) {
	q, err := c.query(wire.Query{Session: session, Tool: tool}, opts)
	if err != nil {
		return CheckResult{}, err
	}
	q.Record, q.Call = true, call
	var r CheckResult
	err = c.sendRecordedCheck(ctx, q, &r)
	if err == nil && r.Recorded > 0 {
		c.observe(r.Recorded)
	}
	return r, err
}

// CheckAndStart decides one call at the moment it is to run and records,
// in one durable record, both its check and the start of its effect (a
// tool.checked with effect: true), for the session's current turn, decided
// at the head with the grants and revocations in force: the form for an
// attach point that checks a call just before running it (a pre-tool
// hook, a gateway's forward). When the answer's Decision is not deny the
// effect has started with the record; no EffectStarted follows. A caller
// that checks early and acts later uses CheckAndRecord, then EffectStarted
// (which the ledger decides again at execution). Like CheckAndRecord it
// needs this client's Owner to own the session.
func (c *Client) CheckAndStart(ctx context.Context, session events.SessionKey, tool, call string, opts ...QueryOpt) (CheckResult, error) {
	if call == "" {
		return CheckResult{}, events.Errorf(events.CodeInvalidEvent, "a check that starts a call's effect needs the call's id")
	}
	q, err := c.query(wire.Query{Session: session, Tool: tool}, opts)
	if err != nil {
		return CheckResult{}, err
	}
	q.Record, q.Call, q.Effect = true, call, true
	var r CheckResult
	err = c.sendRecordedCheck(ctx, q, &r)
	if err == nil && r.Recorded > 0 {
		c.observe(r.Recorded)
	}
	return r, err
}

// Why explains one decision.
func (c *Client) Why(ctx context.Context, session events.SessionKey, tool string, opts ...QueryOpt) (WhyResult, error) {
	var r WhyResult
	err := c.ask(ctx, wire.EndpointWhy, wire.Query{Session: session, Tool: tool}, opts, &r)
	return r, err
}

// Session returns a session's view.
func (c *Client) Session(ctx context.Context, session events.SessionKey, opts ...QueryOpt) (SessionView, error) {
	var r SessionView
	err := c.ask(ctx, wire.EndpointSession, wire.Query{Session: session}, opts, &r)
	return r, err
}

// Tree returns the spawn tree under root, or with root "" every root's
// tree the client may see (the auditor scope's: every one; an
// orchestrator's: its own), in the order they started.
func (c *Client) Tree(ctx context.Context, root events.SessionKey, opts ...QueryOpt) ([]*TreeNode, error) {
	var r []*TreeNode
	err := c.ask(ctx, wire.EndpointTree, wire.Query{Session: root}, opts, &r)
	return r, err
}
