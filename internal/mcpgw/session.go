package mcpgw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// DenialMeta is the _meta key of a refused call's result: an object with
// the decision, reason code, rule, record, the ledger session and tool,
// the tool.checked sequence and the why command (TestDeniedCallIsRefusedAndRecorded).
const DenialMeta = "sessionledger/denial"

// session is the gateway's state of one ledger session, and the MCP
// server every downstream session mapping to it shares.
//
// Invariants: the tools the server has registered are exactly the
// upstream tools whose ledger names are allowed in the tool set last
// read from the ledger (a tools/list reads it at the head first;
// TestToolsListIsTheLedgersToolSet); the Watch feed, not polling, brings
// each turn's new set, and a set that changes the registered tools makes
// the SDK send notifications/tools/list_changed
// (TestRevocationSendsListChanged).
type session struct {
	g   *Gateway
	key events.SessionKey
	srv *mcp.Server
	// ctx ends the session's watch when the gateway closes or evicts it.
	ctx    context.Context
	cancel context.CancelFunc
	// idleSince is when the server was last seen with no MCP session
	// (zero while it has one); startedHere, that the gateway started the
	// ledger session (counted in g.started); both guarded by g.mu.
	idleSince   time.Time
	startedHere bool

	// joinMu serialises joining; mu guards the rest.
	joinMu sync.Mutex
	mu     sync.Mutex
	joined bool
	// client is the MCP client of the first MCP session known to map to
	// this ledger session (its initialize's clientInfo), for the identity
	// of a session the gateway starts.
	client  *mcp.Implementation
	dialect string
	// release is the policy's dialect release (PolicyState.Release), which
	// openclaw names tools under (LedgerName).
	release string
	turn    int
	allowed map[string]bool // ledger names allowed at the last read
	// allowedList is the tool set allowed was made from; synced, that
	// resync registered the tools of allowed with every upstream listed,
	// at upstream count syncedGen (Gateway.upGen).
	allowedList []string
	synced      bool
	syncedGen   uint64
	listed      map[string]*mcp.Tool // exposed name -> the upstream tool registered for it
	watching    bool
	// adopted are the client tool-use ids (ToolUseMeta) this session's
	// calls claimed; at most maxAdopted.
	adopted map[string]struct{}
}

// ToolUseMeta is the _meta key of a tools/call in which Claude Code
// (2.1.328) names its tool_use id, the id its hooks record the call under
// ('call' of tool.checked and tool.effect_started).
const ToolUseMeta = "claudecode/toolUseId"

// maxAdopted bounds a session's adopted ids; past it, calls get fresh ids.
const maxAdopted = 1 << 16

// callID is the call id a tools/call claims: the Claude Code tool_use id
// its _meta names (ToolUseMeta), the id Claude Code's hooks record the
// call under, so that both name one call; claimed is false, and the id a
// fresh ULID, for a call that names none, an id this session has already
// claimed (a client re-sending an id must not have its second call ride
// on the first; TestToolUseIDIsAdoptedOnce) or one that cannot be an id.
// A claimed id is only a claim: call adopts it only when the hook checked
// the same tool under it (TestAdoptedIDDoesNotBorrowAnEffect).
func (s *session) callID(meta mcp.Meta) (call string, claimed bool) {
	id, _ := meta[ToolUseMeta].(string)
	if !toolUseID(id) {
		return ulid.Make().String(), false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.adopted[id]; seen || len(s.adopted) >= maxAdopted {
		return ulid.Make().String(), false
	}
	if s.adopted == nil {
		s.adopted = map[string]struct{}{}
	}
	s.adopted[id] = struct{}{}
	return id, true
}

// toolUseID reports whether id can be adopted as a call id: 1 to 128 of
// [A-Za-z0-9_-] (Claude Code's are "toolu_" and base62).
func toolUseID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func newSession(g *Gateway, key events.SessionKey) *session {
	s := &session{g: g, key: key, listed: map[string]*mcp.Tool{}}
	s.ctx, s.cancel = context.WithCancel(g.ctx)
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "ledger-mcp", Version: "1"}, &mcp.ServerOptions{
		Logger:       g.log,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		Instructions: "Tools of the upstream MCP servers, as the session policy ledger allows them for session " + string(key) + ".",
	})
	s.srv.AddReceivingMiddleware(s.middleware)
	return s
}

// middleware reads the tool set at the head before every tools/list, and
// takes every tools/call, so that a call to a tool the session is not
// shown is still decided and recorded (not answered "unknown tool" by
// the SDK).
func (s *session) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// The client's initialize was not seen before the server was
		// made (a join that failed then): the SDK kept it.
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
			if p := ss.InitializeParams(); p != nil {
				s.noteClient(p.ClientInfo)
			}
		}
		switch method {
		case "tools/list":
			if err := s.refresh(ctx); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				start := time.Now()
				res, err := s.call(ctx, r.Params.Name, r.Params.Arguments, r.Params.Meta)
				if o := s.g.opts.Observe; o != nil {
					o(PartCall, time.Since(start))
				}
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

// noteClient keeps c as the session's MCP client, unless it has one.
func (s *session) noteClient(c *mcp.Implementation) {
	if c == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		s.client = c
	}
}

// started is the session.started of a session the gateway starts: the
// agent Options.Start, bound to Options.Scope, with the gateway's
// identity (Runtime, the client's ClientVersion, Options.User and Host).
func (s *session) started() events.StartedData {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	o := s.g.opts
	return events.StartedData{Agent: o.Start, Scope: o.Scope, Runtime: Runtime, RuntimeVersion: ClientVersion(c), User: o.User, Host: o.Host}
}

// join reads the session (starting it with Options.Start when the ledger
// does not know it), its dialect and current turn, and starts its watch.
func (s *session) join(ctx context.Context) error {
	s.joinMu.Lock()
	defer s.joinMu.Unlock()
	s.mu.Lock()
	joined := s.joined
	s.mu.Unlock()
	if joined {
		return nil
	}
	c := s.g.opts.Ledger
	view, err := c.Session(ctx, s.key)
	if events.CodeOf(err) == events.CodeUnknownSession && s.g.opts.Start != "" {
		if err := s.g.reserveStart(s); err != nil {
			return fmt.Errorf("ledger session %s is not started: %w", s.key, err)
		}
		if _, err = c.Append(ctx, client.Start(s.key, s.started())); err == nil {
			_, err = c.Append(ctx, client.Turn(s.key, events.TurnData{Turn: 1}))
		}
		if err != nil {
			if events.CodeOf(err) == events.CodeDuplicateSession || events.CodeOf(err) == events.CodeBadTurn {
				// Another writer started it in between: not the gateway's.
				s.g.releaseStart(s)
			} else if _, verr := c.Session(ctx, s.key); events.CodeOf(verr) == events.CodeUnknownSession {
				s.g.releaseStart(s)
			}
			return fmt.Errorf("starting ledger session %s: %w", s.key, err)
		}
		view, err = c.Session(ctx, s.key)
	}
	if err != nil {
		return fmt.Errorf("ledger session %s: %w", s.key, err)
	}
	w, err := c.Why(ctx, s.key, "Agent")
	if err != nil {
		return fmt.Errorf("ledger session %s: %w", s.key, err)
	}
	if w.Policy == nil {
		return fmt.Errorf("ledger session %s: no policy in force", s.key)
	}
	if LedgerName(w.Policy.Dialect, w.Policy.Release, "s", "t") == "" {
		return fmt.Errorf("ledger session %s: dialect %q (release %q): MCP tool names not implemented for it in this build", s.key, w.Policy.Dialect, w.Policy.Release)
	}
	var from uint64
	turn := 0
	if n := len(view.Turns); n > 0 {
		turn, from = view.Turns[n-1].Turn, view.Turns[n-1].Seq+1
	}
	s.mu.Lock()
	s.dialect, s.release, s.turn, s.joined = w.Policy.Dialect, w.Policy.Release, turn, true
	start := !s.watching
	s.watching = true
	s.mu.Unlock()
	if start {
		go s.watch(from)
	}
	return nil
}

// watch follows the session's tool-set changes from seq from on until the
// gateway closes, resuming after the last delivered change when the feed
// fails.
func (s *session) watch(from uint64) {
	ctx := s.ctx
	backoff := minBackoff
	for ctx.Err() == nil {
		err := s.g.opts.Ledger.Watch(ctx, client.WatchOptions{Session: s.key, From: from}, func(c client.Change) error {
			from = c.Seq + 1
			backoff = minBackoff
			s.mu.Lock()
			if c.Turn > s.turn {
				s.turn = c.Turn
			}
			s.mu.Unlock()
			s.apply(ctx, c.Tools.Allowed)
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		s.g.log.Warn("ledger watch failed; resuming", "session", s.key, "from", from, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// refresh joins and reads the tool set at the head.
func (s *session) refresh(ctx context.Context) error {
	if err := s.join(ctx); err != nil {
		return err
	}
	ts, err := s.g.opts.Ledger.Tools(ctx, s.key)
	if err != nil {
		return fmt.Errorf("ledger tools of %s: %w", s.key, err)
	}
	s.apply(ctx, ts.Tools.Allowed)
	return nil
}

// apply makes allowed the session's tool set and resyncs the server,
// unless the server already has exactly that set's tools registered: the
// same set, every upstream listed, and no upstream list dropped since (a
// tools/list at an unchanged head costs the ledger's read and no more;
// TestToolsListIsTheLedgersToolSet, TestUpstreamListChanged,
// TestGrantChangesReachClients, and TestUnlistedUpstreamIsListedWhenBack
// for a list that left an upstream out).
func (s *session) apply(ctx context.Context, allowed []string) {
	s.mu.Lock()
	if s.synced && s.syncedGen == s.g.upGen.Load() && slices.Equal(s.allowedList, allowed) {
		s.mu.Unlock()
		return
	}
	m := make(map[string]bool, len(allowed))
	for _, t := range allowed {
		m[t] = true
	}
	s.allowed, s.allowedList, s.synced = m, slices.Clone(allowed), false
	s.mu.Unlock()
	s.resync(ctx)
}

// resync registers exactly the upstream tools the last tool set allows.
func (s *session) resync(ctx context.Context) {
	gen := s.g.upGen.Load()
	cat, errs := s.g.catalogue(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.allowed == nil {
		return
	}
	s.synced, s.syncedGen = len(errs) == 0, gen
	want := map[string]*mcp.Tool{}
	for _, ut := range cat {
		if s.allowed[LedgerName(s.dialect, s.release, ut.server, ut.tool.Name)] {
			want[s.g.exposed(ut.server, ut.tool.Name)] = ut.tool
		}
	}
	var gone []string
	for name, t := range s.listed {
		if want[name] != t {
			gone = append(gone, name)
			delete(s.listed, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	for name, t := range want {
		if s.listed[name] == t {
			continue
		}
		cp := *t
		cp.Name = name
		if !objectSchema(cp.InputSchema) {
			cp.InputSchema = map[string]any{"type": "object"}
		}
		s.srv.AddTool(&cp, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.call(ctx, req.Params.Name, req.Params.Arguments, req.Params.Meta)
		})
		s.listed[name] = t
	}
}

// objectSchema reports whether a schema is a JSON object of type
// "object", as the SDK requires of every tool it serves.
func objectSchema(schema any) bool {
	var m map[string]any
	switch v := schema.(type) {
	case map[string]any:
		m = v
	case nil:
		return false
	default:
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &m) != nil {
			return false
		}
	}
	return m["type"] == "object"
}

// call decides, records and forwards one tools/call: one record, the
// check that starts the call's effect (tool.checked with effect: true),
// then, when it allows, the upstream call. A refusal is a tool error (IsError) whose text carries the
// reason code, the rule and the ledger why command, and whose _meta
// DenialMeta carries them as fields; a call the gateway cannot decide
// (ledger unreachable, unknown session) fails closed the same way. What
// the upstream answers, tool errors and JSON-RPC errors alike, is passed
// on unchanged (TestUpstreamErrorsPassThrough).
func (s *session) call(ctx context.Context, name string, args json.RawMessage, meta mcp.Meta) (*mcp.CallToolResult, error) {
	server, tool, ok := s.g.split(name)
	u := s.g.ups[server]
	if !ok || u == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q: the gateway's tools are %s of its configured servers", name, s.g.form())}
	}
	if err := s.join(ctx); err != nil {
		return refusal(fmt.Sprintf("The session policy ledger could not decide %s for session %s, so the gateway refuses it: %v", name, s.key, err), nil), nil
	}
	s.mu.Lock()
	dialect, release := s.dialect, s.release
	s.mu.Unlock()
	ln := LedgerName(dialect, release, server, tool)
	c := s.g.opts.Ledger
	callID, claimed := s.callID(meta)
	observe := s.g.opts.Observe
	started := time.Now()
	// A claimed tool_use id is the call's only if the hook checked this
	// very tool under it: the effect is appended first, prepared by the
	// latest check of this tool and call, under an event id of its own.
	// The ledger lands it only when such a check exists (re-deciding the
	// tool at the head), and refuses it (invalid_event) when the id's
	// check was for another tool or there is none; the call then gets a
	// fresh id, and its own check and effect (TestAdoptedIDDoesNotBorrowAnEffect).
	// An effect appended under the hook's own event id instead would be
	// answered as a duplicate of the hook's effect, whatever tool that was
	// for, and the forwarded tool would have no effect of its own.
	effected := false
	if claimed {
		a, err := s.appendEffect(ctx, ln, callID, 0)
		switch code := events.CodeOf(err); {
		case err == nil:
			effected = true
		case code == events.CodeAuthorizationChanged:
			return s.changedRefusal(ln, callID, a.Seq, err), nil
		case code == events.CodeInvalidEvent:
			callID = ulid.Make().String()
		default:
			return refusal(fmt.Sprintf("The session policy ledger could not record the start of %s for session %s, so the gateway refuses it: %v", ln, s.key, err), nil), nil
		}
	}
	// A call the gateway alone checks makes one record, the check that
	// starts its effect (CheckAndStart: decided at the head, one durable
	// append; TestAllowedCallIsRecordedAndForwarded). A claimed call's effect is
	// recorded above, and its check by the gateway beside it.
	var chk client.CheckResult
	var err error
	if effected {
		chk, err = c.CheckAndRecord(ctx, s.key, ln, callID)
	} else {
		chk, err = c.CheckAndStart(ctx, s.key, ln, callID)
	}
	if err != nil {
		return refusal(fmt.Sprintf("The session policy ledger could not decide %s for session %s, so the gateway refuses it: %v", ln, s.key, err), nil), nil
	}
	if chk.Decision != envelope.Allow {
		why := s.whyCommand(callID, chk.Recorded)
		return refusal(denialText(s.key, ln, chk.Decision, chk.Reason, why), denialMeta(s.key, ln, chk.Decision, chk.Reason, chk.Recorded, why)), nil
	}
	// Invariant: only an allow the ledger recorded for this session and
	// this tool is forwarded: an answer with no recorded sequence, or
	// naming another session or tool, is refused like a call the ledger
	// could not decide (fail closed; TestUnrecordedAllowIsRefused).
	if chk.Recorded == 0 || chk.Session != s.key || chk.Tool != ln {
		s.g.log.Warn("ledger answered an allow it did not record", "session", s.key, "tool", ln, "answer", chk)
		return refusal(fmt.Sprintf("The session policy ledger's answer for %s in session %s was not a recorded allow (recorded sequence %d, for session %q and tool %q), so the gateway refuses it and forwarded nothing. Check that the gateway reaches the ledger itself (its --nats, --user) and that nothing else answers the ledger's API subjects there, then call again.", ln, s.key, chk.Recorded, chk.Session, chk.Tool), nil), nil
	}
	if observe != nil {
		now := time.Now()
		observe(PartCheck, now.Sub(started))
		started = now
	}
	var fwd any
	if len(args) > 0 {
		fwd = args
	}
	res, err := u.call(ctx, tool, fwd)
	if observe != nil && err == nil {
		observe(PartUpstream, time.Since(started))
	}
	var deadline *DeadlineError
	var tooLarge *ResultTooLargeError
	switch werr, answer := err.(*jsonrpc.Error); {
	case answer: // the upstream's own error answer (upstream.call)
		return nil, werr
	case errors.As(err, &deadline), errors.As(err, &tooLarge):
		s.g.log.Warn("mcp upstream call failed", "server", server, "tool", tool, "err", err)
		return refusal(fmt.Sprintf("The MCP gateway could not pass on the answer of %s: %v", name, err), nil), nil
	case err != nil:
		s.g.log.Warn("mcp upstream call failed", "server", server, "tool", tool, "err", err)
		return refusal(fmt.Sprintf("The MCP gateway could not reach upstream server %s for %s (it is restarted on the next call): %v", server, name, err), nil), nil
	}
	return res, nil
}

// appendEffect appends the tool.effect_started of call (ledger name tool)
// at the session's current turn, prepared by the check at sequence
// prepared (0: the latest check of the tool and call). A turn that
// started between the last turn the gateway saw and the check is found
// and the effect recorded on it.
func (s *session) appendEffect(ctx context.Context, tool, call string, prepared uint64) (client.AppendResult, error) {
	c := s.g.opts.Ledger
	s.mu.Lock()
	turn := s.turn
	s.mu.Unlock()
	effect := func(turn int) client.Event {
		return client.EffectStarted(s.key, events.EffectData{Turn: turn, Tool: tool, Call: call, PreparedAt: prepared})
	}
	a, err := c.Append(ctx, effect(turn))
	if events.CodeOf(err) == events.CodeBadTurn {
		if view, verr := c.Session(ctx, s.key); verr == nil && len(view.Turns) > 0 {
			turn = view.Turns[len(view.Turns)-1].Turn
			s.mu.Lock()
			s.turn = max(s.turn, turn)
			s.mu.Unlock()
			a, err = c.Append(ctx, effect(turn))
		}
	}
	return a, err
}

// changedRefusal is the refusal of an effect the ledger refused
// (authorization_changed), its refusal record at seq.
func (s *session) changedRefusal(tool, callID string, seq uint64, err error) *mcp.CallToolResult {
	why := s.whyCommand(callID, seq)
	r := envelope.Reason{Code: string(events.CodeAuthorizationChanged)}
	return refusal(denialText(s.key, tool, envelope.Deny, r, why)+" (the decision changed when the effect was to start: "+err.Error()+")",
		denialMeta(s.key, tool, envelope.Deny, r, seq, why))
}

// whyCommand is the shell-quoted ledger why of a recorded call: --call
// with its id (the gateway's, or the Claude Code tool_use_id it adopted),
// which answers the decision recorded for the call and the record that
// caused it; --record SEQ for a call without one.
func (s *session) whyCommand(callID string, seq uint64) string {
	args := append([]string{}, s.g.opts.Why...)
	switch {
	case callID != "":
		args = append(args, "--call", callID)
	case seq > 0:
		args = append(args, "--record", fmt.Sprint(seq))
	}
	return shellquote.Join(args...)
}

// denialText is what a refused call tells the model: the tool, the
// session, the decision and reason code, the rule and the record that
// introduced it, and the command that explains it all.
func denialText(key events.SessionKey, tool string, d envelope.Decision, r envelope.Reason, why string) string {
	if d == envelope.Ask {
		return envelope.DenialText(key, tool, r, why, "the policy asks for approval, which the gateway cannot give")
	}
	return envelope.DenialText(key, tool, r, why)
}

func denialMeta(key events.SessionKey, tool string, d envelope.Decision, r envelope.Reason, seq uint64, why string) mcp.Meta {
	m := map[string]any{"session": string(key), "tool": tool, "decision": string(d), "code": r.Code, "why": why}
	if r.Rule != "" {
		m["rule"] = r.Rule
	}
	if r.Record != nil {
		m["record"] = r.Record
	}
	if seq > 0 {
		m["seq"] = seq
	}
	return mcp.Meta{DenialMeta: m}
}

// refusal is a tool error result.
func refusal(text string, meta mcp.Meta) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, Meta: meta}
}
