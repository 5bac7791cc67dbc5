// Package api serves the ledger to orchestrators and auditors as a NATS
// micro service named "ledger", version 1: JSON requests and responses on
// subjects under ledger.v1, errors with the stable codes of SPEC section 8
// in the service error headers, read-your-writes through min_seq, and
// requests spread over every replica by the micro queue group. The
// subjects, requests and answers are package wire's, which the client
// uses too (TestServedAnswersAreWire).
//
// Subjects name the caller's scope so that the NATS server, not the ledger,
// decides who may do what (see Permissions):
//
//	ledger.v1.append.<owner>    session events of orchestrator <owner>
//	ledger.v1.policy.<operator> policy.set, grant.added, grant.revoked of operator <operator>
//	ledger.v1.policy            the same, the actor as the event names it (no roles)
//	ledger.v1.<query>.<owner>   tools, check, why, session, tree on <owner>'s sessions
//	ledger.v1.<query>.all       the same on every session (auditors, operators)
//	ledger.v1.watch.<owner>     the changes of <owner>'s sessions' tool sets (watch.go)
//	ledger.v1.watch.all         the same of every session
//
// A session belongs to the orchestrator that started or spawned it: the
// record's actor is the owner token of the subject it came in on. A policy
// record's actor is likewise the operator token of its subject; the
// generated roles grant each operator its own token only, and no one the
// bare ledger.v1.policy (TestRolesEnforcedByTheServer).
//
// A front end in the ledger's own process (`serve --hooks`, the console)
// makes its requests through Server.RequestWithContext instead: the same
// lanes and handlers, without the two hops through the NATS server (see
// local.go). Such requests are counted by the Observer, not by micro's
// statistics.
//
// # Concurrency
//
// No request is handled on a subscription's delivery goroutine: it is put
// in the lane of its endpoint and owner (the subject's last token) and
// Config.Workers workers take requests from the lanes in turn, one at a
// time from each lane that holds some. So:
//
//   - one owner's requests on one endpoint are handled in the order they
//     arrived (appends reach the round batcher in that order); requests on
//     different endpoints or of different owners have no order between
//     them;
//   - a flood on one lane delays a request on another by at most one
//     request per worker, and never makes the subscription drop it: a lane
//     holds at most Config.MaxQueued requests (and 64 MiB), and a request
//     beyond that is answered at once with not_caught_up, the code clients
//     retry after a backoff;
//   - a query whose min_seq the replica has not applied waits on a
//     goroutine of its own, holding no worker, until the projection
//     reaches it or Config.MaxWait passes; an owner has at most
//     Config.MaxWaiting such queries waiting, and another is answered
//     not_caught_up at once;
//   - a watch or a denials feed with wait that finds nothing waits the
//     same way, all of one owner's on one goroutine, which scans them
//     again when the replica applies past them; an owner has at most
//     Config.MaxPolls waiting, and another is answered at once with
//     nothing, after which the client pauses;
//   - every answer is sent after micro's handler returned, with the error
//     headers set by hand (micro.Request.Error there would race with
//     micro's statistics, which so count no errors);
//   - the logger writes at most one line per cause (level and message) a
//     second, and the next says how many were suppressed; drops on the
//     service's subscriptions are logged through it rather than by the
//     connection's error handler, which Start wraps.
//
// # Lifecycle
//
// Start either returns a serving Server or an error with nothing left
// behind: no micro service registered, no subscription, no goroutine, the
// connection's error handler put back (TestFailedStartLeavesNothing).
// Every goroutine the Server starts (the append batcher, the workers, the
// queries and watches waiting for a sequence) ends when Stop is called or
// Start's context ends, and Stop returns only once all of them have ended
// (TestStopWaitsForItsGoroutines); requests still in a lane are not
// answered. A round the batcher has begun is finished first: its appends
// are answered.
//
// A Server's methods are safe for concurrent use; Stop may be called more
// than once and from any goroutine, and returns the first call's error.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// Queries lists the query endpoints (wire.Queries).
var Queries = wire.Queries

// ValidOwner reports whether s can name an orchestrator (wire.ValidOwner).
func ValidOwner(s string) bool { return wire.ValidOwner(s) }

// Config configures the API. The zero value of every field but Service
// means its default.
type Config struct {
	Service *service.Service
	// Instance names this replica in the service's metadata.
	Instance string
	// MaxWait bounds how long a query waits for min_seq; default 2s.
	MaxWait time.Duration
	// Batch bounds how many appends one pipelined round carries; default
	// 256.
	Batch int
	// Linger bounds how long a round waits, after its first append, for
	// the writers the previous round just answered to send their next
	// appends, so concurrent writers share rounds instead of splitting
	// into two alternating halves. A round never waits longer than a
	// quarter of the previous round's time, nor when the previous round
	// held a single append (a lone writer never waits), nor after a round
	// that did not go as one atomic batch (single appends: each costs its
	// own write). Default 2ms when the service appends a round as one
	// atomic batch, whose cost is mostly fixed; none when it pipelines a
	// round, where waiting only idles the one goroutine that decides.
	// Negative disables it.
	Linger time.Duration
	// Workers is how many requests are handled at once, over every
	// endpoint; default 8. Requests wait in a lane per endpoint and owner
	// and workers take them from the lanes in turn (see the package doc).
	Workers int
	// MaxQueued bounds the requests one lane (an endpoint and an owner)
	// holds (and 64 MiB of them); past it a request is answered at once
	// with not_caught_up. Default 16384: a writer may pipeline thousands
	// of appends (TestAPIDeepSpawnChain sends 10,000 on one connection).
	MaxQueued int
	// MaxWaiting bounds the queries of one owner that wait for min_seq at
	// a time; past it a query the replica cannot answer yet is answered at
	// once with not_caught_up. Default 16.
	MaxWaiting int
	// MaxPolls bounds the long polls of one owner (watches and denials
	// with wait) that wait for records at a time; past it a poll that
	// finds nothing is answered at once with nothing, and the client
	// pauses before asking again. Default 256: a client keeps a watch per
	// session it follows (the MCP gateway one per ledger session), and
	// every one must wait (TestWatchesOfOneOwnerAllWait).
	MaxPolls int
	// ScopeLimits, when set, limits operators and orchestrators to scopes
	// (see ScopeLimits).
	ScopeLimits *ScopeLimits
	// Observer, when set, is told about every request.
	Observer Observer
	Logger   *slog.Logger
	// Clock reads the time a recorded check's within_ms is measured with
	// (its arrival, and the round that decides it); nil means time.Now.
	Clock func() time.Time
}

// Observer receives the outcome and duration of every request.
type Observer interface {
	Append(result string, d time.Duration)
	Query(endpoint string, d time.Duration)
}

// Server is the running micro service. Its methods are safe for
// concurrent use (see the package doc's Lifecycle).
type Server struct {
	cfg     Config
	log     *slog.Logger
	svc     micro.Service
	appends chan *pendingAppend
	// retries are the appends of failed rounds, decided again first;
	// lastTook is how long the last round took from its start to its end
	// (for fill).
	retries  *requeue
	lastTook atomic.Int64
	lanes    *lanes
	// local is each endpoint's handler by its name (its subject's token
	// after the prefix; "policy-unbound" for the bare policy subject),
	// for RequestWithContext; written by Start only.
	local   map[string]micro.HandlerFunc
	waiting *waiters
	polls   *polls
	// life ends when Stop is called or Start's context ends; the batcher,
	// the workers and the waiters end with it.
	life context.Context
	end  context.CancelFunc
	// wg counts the goroutines the Server runs (goWaited), which Stop waits for;
	// running is their number, for TestStopWaitsForItsGoroutines.
	wg      sync.WaitGroup
	running atomic.Int64
	// restore puts back the connection's error handler Start wrapped.
	restore  func()
	stopOnce sync.Once
	stopErr  error
}

// goWaited runs f on a goroutine Stop waits for. It is called by Start, and by
// handlers, which run on workers Stop also waits for, so no call comes
// after Stop's wait began with nothing counted.
func (s *Server) goWaited(f func()) {
	s.wg.Add(1)
	s.running.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.running.Add(-1)
		f()
	}()
}

// addEndpoint adds an endpoint to the service's group; a variable so that
// TestFailedStartLeavesNothing can fail one after the service is
// registered.
var addEndpoint = func(g micro.Group, name string, h micro.Handler, opts ...micro.EndpointOpt) error {
	return g.AddEndpoint(name, h, opts...)
}

// laneBytes bounds the request bytes one lane holds (nats.go's default
// pending limit of a subscription), beside MaxQueued.
const laneBytes = 64 << 20

// logEvery is how often one cause may write a log line.
const logEvery = time.Second

// pendingMsgs and pendingBytes are each endpoint subscription's pending
// limits: above nats.go's defaults, since the delivery goroutine only
// moves a request into its lane (bounded by MaxQueued, and answered at
// once beyond it); they are reached only if the process cannot even do
// that, and a drop then is logged (once a second).
const (
	pendingMsgs  = 1 << 20
	pendingBytes = 256 << 20
)

// Run registers the service on nc and serves until ctx ends.
func Run(ctx context.Context, nc *nats.Conn, cfg Config) error {
	s, err := Start(ctx, nc, cfg)
	if err != nil {
		return err
	}
	<-ctx.Done()
	return s.Stop()
}

// Start registers the service and returns once it serves, until Stop or
// the end of ctx; on an error it leaves nothing registered or running.
func Start(ctx context.Context, nc *nats.Conn, cfg Config) (*Server, error) {
	if cfg.Service == nil {
		return nil, errors.New("api: a service is required")
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 2 * time.Second
	}
	if cfg.Batch == 0 {
		cfg.Batch = 256
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = 16384
	}
	if cfg.MaxWaiting <= 0 {
		cfg.MaxWaiting = 16
	}
	if cfg.MaxPolls <= 0 {
		cfg.MaxPolls = 256
	}
	if cfg.Linger == 0 {
		cfg.Linger = 2 * time.Millisecond
		if cfg.Service.Pipelined() {
			cfg.Linger = -1
		}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = slog.New(newLimitedHandler(logger.Handler(), logEvery))
	s := &Server{cfg: cfg, log: logger, appends: make(chan *pendingAppend, 4*cfg.Batch), retries: newRequeue(),
		lanes: newLanes(cfg.MaxQueued, laneBytes), local: map[string]micro.HandlerFunc{}, waiting: &waiters{n: map[string]int{}, limit: cfg.MaxWaiting},
		polls: &polls{owners: map[string][]*poll{}, limit: cfg.MaxPolls},
	}
	s.life, s.end = context.WithCancel(ctx)
	// A drop on the service's subscriptions is logged here, at most once a
	// second, instead of by the connection's handler (nats.go's default
	// prints a line on stderr each time a subscription starts dropping);
	// set before AddService, which chains to it.
	prev := nc.ErrorHandler()
	s.restore = func() { nc.SetErrorHandler(prev) }
	nc.SetErrorHandler(func(c *nats.Conn, sub *nats.Subscription, err error) {
		if sub != nil && strings.HasPrefix(sub.Subject, wire.Prefix+".") {
			s.log.Error("api subscription error; requests were dropped", "subject", sub.Subject, "err", err)
			return
		}
		if prev != nil {
			prev(c, sub, err)
		}
	})
	ms, err := micro.AddService(nc, micro.Config{
		Name:        wire.ServiceName,
		Version:     wire.ServiceVersion,
		Description: "session policy ledger: append events, ask what a session may use and why",
		Metadata:    map[string]string{"instance": cfg.Instance},
	})
	if err != nil {
		s.restore()
		s.end()
		return nil, fmt.Errorf("api: %w", err)
	}
	s.svc = ms
	if err := s.addEndpoints(ctx, ms.AddGroup(wire.Prefix)); err != nil {
		// Nothing runs yet: stopping the service removes what was added.
		_ = ms.Stop()
		s.restore()
		s.end()
		return nil, fmt.Errorf("api: %w", err)
	}
	s.goWaited(func() { s.batchAppends(ctx) })
	for range cfg.Workers {
		s.goWaited(s.lanes.serve)
	}
	s.goWaited(func() {
		<-s.life.Done()
		s.lanes.stop()
	})
	// Serving means the server has the subscriptions: a request sent on
	// another connection right after Start must find them.
	if err := nc.Flush(); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("api: %w", err)
	}
	return s, nil
}

// addEndpoints adds every endpoint of the API to g.
func (s *Server) addEndpoints(ctx context.Context, g micro.Group) error {
	add := func(name, subject string, h micro.HandlerFunc) error {
		guarded := s.guard(name, h)
		h = s.dispatch(name, guarded, s.lanes.push)
		s.local[name] = h
		if name == wire.EndpointAppend || name == wire.EndpointCheck {
			// An append's handler, and a recorded check's (the
			// enforced call of serve --hooks and the gateway), only
			// parse the request and queue it for the batcher; a check
			// not recorded decides on the state there and then. A
			// local one runs on its requester's goroutine when its
			// lane is idle (lanes.run): one hand-off less on an
			// enforced call's path.
			s.local[name] = s.dispatch(name, guarded, s.lanes.run)
		}
		return addEndpoint(g, name, h, micro.WithEndpointSubject(subject),
			micro.WithEndpointMetadata(map[string]string{"subject": wire.Prefix + "." + subject}),
			micro.WithEndpointPendingLimits(pendingMsgs, pendingBytes))
	}
	if err := add(wire.EndpointAppend, wire.EndpointAppend+".*", s.handleAppend); err != nil {
		return err
	}
	if err := add(wire.EndpointPolicy, wire.EndpointPolicy+".*", s.handlePolicy); err != nil {
		return err
	}
	if err := add("policy-unbound", wire.EndpointPolicy, s.handlePolicy); err != nil {
		return err
	}
	for _, q := range wire.Queries {
		if err := add(q, q+".*", func(r micro.Request) { s.handleQuery(ctx, q, r) }); err != nil {
			return err
		}
	}
	if err := add(wire.EndpointDenials, wire.EndpointDenials+".*", func(r micro.Request) { s.handleDenials(ctx, r) }); err != nil {
		return err
	}
	return add(wire.EndpointWatch, wire.EndpointWatch+".*", func(r micro.Request) { s.handleWatch(ctx, r) })
}

// guard keeps one request that panics a handler from stopping the
// service: it is answered with an internal error and logged.
func (s *Server) guard(name string, h micro.HandlerFunc) micro.HandlerFunc {
	return func(r micro.Request) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("request handler panicked", "endpoint", name, "panic", fmt.Sprint(p))
				respondError(r, fmt.Errorf("the ledger failed on this request; it was not applied"), 0)
			}
		}()
		h(r)
	}
}

// dispatch moves a request from the subscription's delivery goroutine into
// its lane with enter (lanes.push; lanes.run for a local append), or
// answers it at once when the lane is full.
func (s *Server) dispatch(name string, h micro.HandlerFunc, enter func(string, micro.Request, micro.HandlerFunc) bool) micro.HandlerFunc {
	return func(r micro.Request) {
		owner := scope(r)
		if enter(name+" "+owner, r, h) {
			return
		}
		s.log.Warn("requests shed: an owner's lane is full", "endpoint", name, "owner", owner, "limit", s.cfg.MaxQueued)
		respondError(r, events.Errorf(events.CodeNotCaughtUp, "%d requests on %s.%s wait already; this one was not handled: retry after a pause", s.cfg.MaxQueued, name, owner), 0)
	}
}

// Stop unregisters the service and returns once every goroutine of the
// Server has ended (the batcher after the round it is in, the workers
// after their request); requests still queued are not answered.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.stopErr = s.svc.Stop()
		s.restore()
		s.end()
		s.lanes.stop()
		s.wg.Wait()
	})
	return s.stopErr
}

// Info is the micro service's info.
func (s *Server) Info() micro.Info { return s.svc.Info() }

// errorBody is what an error answers: its stable code and message.
func errorBody(err error, seq uint64) *wire.ErrorBody {
	code, msg := events.CodeOf(err), err.Error()
	var ee *events.Error
	if errors.As(err, &ee) {
		msg = ee.Msg
	}
	if code == "" {
		code = wire.CodeInternal
	}
	return &wire.ErrorBody{Code: code, Message: msg, Seq: seq}
}

// respondError answers with an error. Requests are answered after micro's
// handler returned (by a worker, a waiter or the append batcher):
// micro.Request.Error would record the error on the request while micro
// reads it for its statistics; Respond with the error headers does not.
func respondError(r micro.Request, err error, seq uint64) {
	e := errorBody(err, seq)
	body, _ := json.Marshal(e)
	_ = r.Respond(body, micro.WithHeaders(micro.Headers{wire.ErrorHeader: {e.Message}, wire.ErrorCodeHeader: {string(e.Code)}}))
}

func respondJSON(r micro.Request, v any) { respondJSONWith(r, v, nil) }

// scope returns the last token of the request subject.
func scope(r micro.Request) string {
	subj := r.Subject()
	return subj[strings.LastIndexByte(subj, '.')+1:]
}

// queryScope is the scope a query's subject names; when it names neither
// an orchestrator nor all, it answers the request invalid_event and returns
// false.
func queryScope(r micro.Request) (string, bool) {
	owner := scope(r)
	if owner != wire.ScopeAll && !ValidOwner(owner) {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s: the last token must name an orchestrator or be %q", r.Subject(), wire.ScopeAll), 0)
		return "", false
	}
	return owner, true
}

// owned checks that session key belongs to owner (scope "all" sees all).
// A session of another orchestrator is answered as unknown.
func owned(st *projection.State, key events.SessionKey, owner string) error {
	if owner == wire.ScopeAll {
		return nil
	}
	s := st.Session(key)
	if s == nil || s.Actor != owner {
		return events.UnknownSession(key)
	}
	return nil
}
