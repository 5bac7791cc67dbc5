package agenthook

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/wire"
)

// run is the handling of one payload.
type run struct {
	h   *Hook
	p   *Payload
	res *Result

	located bool
	loc     cchook.Location
}

func (r *run) warn(format string, args ...any) {
	r.res.Warnings = append(r.res.Warnings, fmt.Sprintf(format, args...))
}

func (r *run) append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	a, err := r.h.L.Append(ctx, ev)
	if err == nil {
		r.res.Appended = append(r.res.Appended, cchook.Appended{Type: ev.Type, Session: ev.Session, Seq: a.Seq, ID: a.ID, Duplicate: a.Duplicate})
	}
	return a, err
}

// sub reports whether the payload is a codex or qwen sub-agent's (its
// agent_id; its session_id is the root's). Gemini's payloads never tell
// one (a sub-agent's calls are decided as the root session's:
// docs/gemini-cli-hooks.md).
func (r *run) sub() bool { return r.h.Runtime.claudeShaped() && r.p.AgentID != "" }

// turnID names the payload's turn: codex's turn_id; qwen's prompt_id, one
// per user prompt (the UserPromptSubmit Qwen fires again, with an empty
// prompt, after every batch of tool results carries the same prompt_id,
// so it starts no turn: TestQwenPayloads).
func (r *run) turnID() string {
	if r.h.Runtime.Name == Qwen.Name {
		return r.p.PromptID
	}
	return r.p.TurnID
}

// spawnTool is the runtime's tool that spawns a sub-agent, as its hooks
// name it ("" for gemini, whose sub-agents are not placed).
func (rt Runtime) spawnTool() string {
	switch rt.Name {
	case Codex.Name:
		return SpawnTool
	case Qwen.Name:
		return QwenSpawnTool
	}
	return ""
}

// key is the session the payload is about: the root, or for a codex
// sub-agent's payload root:agent_id; a key the ledger would refuse is an
// error, never rewritten.
func (r *run) key() (events.SessionKey, error) {
	root, err := r.p.Root()
	if err != nil || !r.sub() {
		return root, err
	}
	return cchook.ChildKey(root, r.p.AgentID)
}

// other handles every payload but a call.
func (r *run) other(ctx context.Context) error {
	p := r.p
	switch p.Event {
	case SessionStart:
		_, err := r.root(ctx)
		return err
	case BeforeAgent:
		// Gemini: one turn per prompt (BeforeAgent), not per model request.
		n, err := r.root(ctx)
		if err != nil {
			return err
		}
		return r.nextTurn(ctx, n.Key, n.Turns, promptBasis(p.Timestamp, p.Prompt))
	case UserPromptSubmit, SubagentStart:
		if r.h.Runtime.Name == Qwen.Name && p.Event == UserPromptSubmit && p.Prompt == "" {
			// Qwen's UserPromptSubmit after a batch of tool results: the
			// same prompt_id, the same turn; nothing to record.
			return nil
		}
		// Codex: one turn per turn_id; a sub-agent's SubagentStart and its
		// first UserPromptSubmit name the same turn_id, which lands once.
		key, err := r.key()
		if err != nil {
			return err
		}
		r.res.Session = key
		var n *client.TreeNode
		if r.sub() {
			if n, err = r.h.L.Tree(ctx, key); err == nil && n == nil && p.Event == SubagentStart && r.h.Runtime.Name == Qwen.Name {
				if err = r.placeByCall(ctx, key); err != nil {
					r.warn("%v", err)
				}
				n, err = r.h.L.Tree(ctx, key)
			}
			if err == nil && n == nil {
				r.warn("sub-agent %s is not recorded yet: its spawn is recorded when the %s call that returned its agent_id ends (PostToolUse); its first call records its turn", key, r.h.Runtime.spawnTool())
				return nil
			}
		} else {
			n, err = r.root(ctx)
		}
		if err != nil {
			return err
		}
		return r.nextTurn(ctx, key, n.Turns, turnBasis(r.turnID()))
	case PostToolUse:
		if st := r.h.Runtime.spawnTool(); st != "" && p.ToolName == st {
			return r.spawn(ctx)
		}
	case SessionEnd:
		return r.end(ctx)
	}
	return nil
}

// SpawnTool is the codex tool that spawns a sub-agent, as its hooks name it.
const SpawnTool = "spawn_agent"

// QwenSpawnTool is Qwen Code's.
const QwenSpawnTool = "agent"

func turnBasis(turnID string) string {
	if turnID == "" {
		return cchook.FirstTurn
	}
	return "turn:" + turnID
}

// nextTurn starts the turn after turns, asked again at the session's new
// count while other hooks start turns in between; its id derives from its
// basis, so a turn delivered twice (or named by two events) lands once.
func (r *run) nextTurn(ctx context.Context, key events.SessionKey, turns int, basis string) error {
	_, err := r.append(ctx, cchook.TurnEventIn(key, turns+1, basis, ""))
	for try := 1; events.CodeOf(err) == events.CodeBadTurn && try < 16; try++ {
		n, terr := r.h.L.Tree(ctx, key)
		if terr != nil {
			return terr
		}
		if n == nil {
			return err
		}
		_, err = r.append(ctx, cchook.TurnEventIn(key, n.Turns+1, basis, ""))
	}
	return err
}

// location is the project of the payload's cwd (nil when it names none
// that is absolute and clean).
func (r *run) location() *cchook.Location {
	if !r.located {
		r.located = true
		cwd := r.p.Cwd
		if cwd != "" && filepath.IsAbs(cwd) && filepath.Clean(cwd) == cwd {
			if r.h.Opts.Locate != nil {
				r.loc = r.h.Opts.Locate(cwd)
			} else {
				r.loc = cchook.LocateProject(cwd, nil)
			}
		}
	}
	if r.loc.Dir == "" {
		return nil
	}
	return &r.loc
}

func (r *run) who() cchook.Who {
	if r.h.Opts.Who == nil {
		return cchook.Who{}
	}
	return r.h.Opts.Who()
}

// scope is the scope a new root is bound to: Options.Scope, else derived
// from the project as Claude Code's hook derives it (cchook.ScopeOf), named
// for the runtime: codex:github-com-acme-api-5355d101.
func (r *run) scope() string {
	if r.h.Opts.Scope != "" {
		return r.h.Opts.Scope
	}
	loc := r.location()
	if loc == nil {
		return ""
	}
	host := ""
	if loc.PathNamed() {
		host = r.who().Host
	}
	return ScopeOf(r.h.Runtime, *loc, host)
}

// ScopeOf is the scope derived for a runtime's project: cchook.ScopeOf with
// the runtime's name in place of claude-code.
func ScopeOf(rt Runtime, loc cchook.Location, host string) string {
	return rt.Name + ":" + strings.TrimPrefix(cchook.ScopeOf(loc, host), cchook.ScopePrefix)
}

// startData is a new root's session.started: the main agent, bound to the
// scope, with the identity the hook knows.
func (r *run) startData() events.StartedData {
	loc := r.location()
	d := cchook.StartData("", r.scope(), loc, r.who(), r.p.Model)
	d.Runtime = r.h.Runtime.Name
	if loc != nil {
		// The project is the runtime's working root, its cwd (codex -C,
		// gemini's project dir), not the repository's root above it: the
		// ledger dialect joins a relative path argument to it, and the
		// runtimes resolve them against the cwd.
		d.Project = cchook.StartData("", "", &cchook.Location{Dir: loc.Dir}, cchook.Who{}, "").Project
	}
	return d
}

// root returns the main session, starting it when the ledger does not know
// it and reopening it when it ended (a resumed codex session).
func (r *run) root(ctx context.Context) (*client.TreeNode, error) {
	root, err := r.p.Root()
	if err != nil {
		return nil, err
	}
	if r.res.Session == "" {
		r.res.Session = root
	}
	n, err := r.h.L.Tree(ctx, root)
	if err != nil {
		return nil, err
	}
	if n != nil && n.State == envelope.Ended {
		reason := r.p.Source
		if reason == "" {
			reason = r.p.Event
		}
		ev := cchook.ReopenEvent(root, reason, n.Turns)
		if _, err := r.append(ctx, ev); err != nil {
			return nil, fmt.Errorf("reopening the ended session %s: %w", root, err)
		}
		return r.h.L.Tree(ctx, root)
	}
	if n != nil {
		return n, nil
	}
	_, err = r.append(ctx, cchook.StartEventOf(root, r.startData()))
	switch events.CodeOf(err) {
	case "":
		if err != nil {
			return nil, err
		}
	case events.CodeDuplicateSession:
	default:
		return nil, err
	}
	if n, err = r.h.L.Tree(ctx, root); err == nil && n == nil {
		err = events.Errorf(events.CodeUnknownSession, "session %q was started but cannot be read", root)
	}
	return n, err
}

// spawn records the sub-agent a codex spawn_agent call started, placed
// under the session that made the call: the PostToolUse's tool_response
// names the new agent's id, which is its agent_id in every payload of its
// own. This is the one exact pairing the payloads allow (no payload names a
// sub-agent's parent): TestCodexSpawnPlacement guards it.
func (r *run) spawn(ctx context.Context) error {
	agentID, err := spawnedAgent(r.p.ToolResponse)
	if r.h.Runtime.Name == Qwen.Name {
		agentID, err = qwenSpawnedAgent(r.p.ToolResponse, r.p.ToolCallID)
	}
	if err != nil {
		return err
	}
	parent, err := r.key()
	if err != nil {
		return err
	}
	root, _ := r.p.Root()
	child, err := cchook.ChildKey(root, agentID)
	if err != nil {
		return err
	}
	r.res.Session = child
	pn, err := r.h.L.Tree(ctx, parent)
	if err != nil {
		return err
	}
	if pn == nil {
		return events.Errorf(events.CodeUnknownParent, "session %s spawned sub-agent %s, but the ledger does not know %s: the spawn is not recorded, and the sub-agent's calls are denied", parent, child, parent)
	}
	agentType := "default"
	var in map[string]any
	if t := strings.TrimSuffix(agentID, "-"+r.p.ToolCallID); r.h.Runtime.Name == Qwen.Name && validID(t) {
		// Qwen's: the config the sub-agent runs (general-purpose when the
		// call names no subagent_type), as its SubagentStart's agent_type,
		// which placeByCall records when it lands first: either way the
		// same type (TestQwenSpawn).
		agentType = t
	} else if json.Unmarshal(r.p.ToolInput, &in) == nil {
		if t, ok := in["agent_type"].(string); ok && validID(t) {
			agentType = t
		} else if t, ok := in["subagent_type"].(string); ok && validID(t) {
			agentType = t // qwen's agent
		}
	}
	_, err = r.append(ctx, cchook.SpawnEvent(child, parent, agentType))
	if events.CodeOf(err) == events.CodeDuplicateSession {
		return nil
	}
	return err
}

// callWhy is how the adapter asks the ledger about a recorded call (a
// why --call): the NATS client's WhyCall, or a Ledger's own.
type callWhy interface {
	WhyCall(ctx context.Context, call string, opts ...client.QueryOpt) (client.WhyResult, error)
}

func (r *run) callWhy() callWhy {
	switch l := r.h.L.(type) {
	case callWhy:
		return l
	case cchook.ClientLedger:
		return l.C
	case *cchook.ClientLedger:
		return l.C
	}
	return nil
}

// placeByCall records a Qwen sub-agent's spawn at its SubagentStart, from
// the spawning call the ledger already holds. Qwen names a sub-agent
// `${name}-${callId}` (agent_id: <agent_type>-<the agent call's
// tool_call_id>) and SubagentStart names agent_type, so the spawning call
// id is agent_id less "<agent_type>-"; that call's PreToolUse was decided
// and recorded (a tool.checked under its tool_call_id) by the session that
// made it before the sub-agent started, so that session is the parent. It
// places only on an exact pairing: the call id is recorded in one session
// of the same root, every record of it is of the agent tool, and it was not
// denied (an ask ran: the hook answers it with no opinion, and the dialect
// admits a spawn whose call asked). Its subagent_type is not compared:
// Qwen resolves it to the config agent_type names, "fork" to another
// name. Anything else (no such call, two sessions, another tool or root,
// a denial) places nothing, and the sub-agent's calls wait, then are
// denied unknown_parent, as before. Foreground and nested sub-agents, whose
// agent call answers only after they finish, are placed this way; a
// background one too (its PostToolUse then finds it recorded).
// TestQwenPlaceByCall guards it.
func (r *run) placeByCall(ctx context.Context, child events.SessionKey) error {
	p := r.p
	if !validID(p.AgentType) || !strings.HasPrefix(p.AgentID, p.AgentType+"-") {
		return fmt.Errorf("sub-agent %s: its agent_id %q is not <agent_type>-<call id> (agent_type %q): not placed", child, p.AgentID, p.AgentType)
	}
	callID := strings.TrimPrefix(p.AgentID, p.AgentType+"-")
	if !validID(callID) {
		return fmt.Errorf("sub-agent %s: %q is not a call id: not placed", child, callID)
	}
	cw := r.callWhy()
	if cw == nil {
		return fmt.Errorf("sub-agent %s: this ledger answers no why about a call: not placed", child)
	}
	root, _ := p.Root()
	// The spawning call is a call of root's tree, made after its start:
	// the ledger looks for it there, and answers its records without
	// explaining them, so placing costs the records since the root
	// started, not the whole log (TestQwenPlaceByCall).
	w, err := cw.WhyCall(ctx, callID, client.InTree(root), client.Brief())
	if events.CodeOf(err) == wire.CodeUnknownCall {
		// No session of root's tree recorded it (another root's call, or
		// none): nothing to place it by, and nothing is guessed.
		return fmt.Errorf("sub-agent %s: its spawning call %s is not one of root %s's calls (%w): not placed", child, callID, root, err)
	}
	if err != nil {
		// The id checked in two sessions (invalid_event), or the ledger
		// not answering: nothing is guessed.
		return fmt.Errorf("sub-agent %s: its spawning call %s: %w: not placed", child, callID, err)
	}
	if w.Call == nil || len(w.Call.Records) == 0 {
		return fmt.Errorf("sub-agent %s: the ledger names no record of its spawning call %s: not placed", child, callID)
	}
	parent := w.Call.Records[0].Session
	if parent != root && !strings.HasPrefix(string(parent), string(root)+":") || parent == child {
		return fmt.Errorf("sub-agent %s: its spawning call %s was made by session %s, not one of root %s: not placed", child, callID, parent, root)
	}
	for _, c := range w.Call.Records {
		if c.Session != parent || c.Tool != QwenSpawnTool {
			return fmt.Errorf("sub-agent %s: call %s is of tool %s in session %s, not one %s call: not placed", child, callID, c.Tool, c.Session, QwenSpawnTool)
		}
	}
	if last := w.Call.Record; last.Decision == envelope.Deny {
		return fmt.Errorf("sub-agent %s: its spawning call %s was denied (%s): not placed", child, callID, last.Reason.Code)
	}
	_, err = r.append(ctx, cchook.SpawnEvent(child, parent, p.AgentType))
	if events.CodeOf(err) == events.CodeDuplicateSession {
		return nil
	}
	return err
}

// spawnedAgent reads the agent id from a spawn_agent's tool_response: a
// JSON object {"agent_id": ..., "nickname": ...}, or that object as a JSON
// string (what codex 0.169.0 sends).
func spawnedAgent(resp json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(resp, &s) == nil {
		resp = json.RawMessage(s)
	}
	var v struct {
		AgentID string `json:"agent_id"`
	}
	if err := json.Unmarshal(resp, &v); err != nil || !validID(v.AgentID) {
		return "", fmt.Errorf("the spawn_agent's tool_response names no agent_id (%.200s): its sub-agent is not recorded, and its calls are denied", string(resp))
	}
	return v.AgentID, nil
}

// qwenSpawnedAgent reads the agent id from the PostToolUse of Qwen Code's
// agent call: a sub-agent launched in the background (the default for a
// top-level one) answers {"llmContent": "Background agent launched
// successfully.\ntask_id: <agent_type>-<call id> ...", "returnDisplay":
// {"type": "task_execution", "status": "background", ...}}, and that
// task_id is the agent_id of every payload of the sub-agent. Only that
// launch text is read (a foreground sub-agent's llmContent is its own
// answer, which the model writes; it is placed at its SubagentStart,
// placeByCall), and the id must end with "-" and the
// spawning call's tool_call_id, as Qwen names its sub-agents
// (`${name}-${callId}` in the bundle): TestQwenSpawn guards it.
func qwenSpawnedAgent(resp json.RawMessage, callID string) (string, error) {
	var v struct {
		LLMContent    string `json:"llmContent"`
		ReturnDisplay struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"returnDisplay"`
	}
	_ = json.Unmarshal(resp, &v)
	const launched = "Background agent launched successfully.\ntask_id: "
	if v.ReturnDisplay.Type != "task_execution" || v.ReturnDisplay.Status != "background" || !strings.HasPrefix(v.LLMContent, launched) {
		return "", fmt.Errorf("the agent call's tool_response is not a background launch (%.120s): nothing is placed here (a foreground sub-agent is placed at its SubagentStart, by this call's record)", string(resp))
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(v.LLMContent, launched), " ")
	if id, _, _ = strings.Cut(id, "\n"); !validID(id) || callID == "" || !strings.HasSuffix(id, "-"+callID) {
		return "", fmt.Errorf("the agent call's tool_response names task_id %q, which is not <agent_type>-%s: its sub-agent is not recorded, and its calls are denied", id, callID)
	}
	return id, nil
}

// placed returns a codex sub-agent's session, waiting up to
// Options.SpawnWait for its spawn to be recorded (by its parent's
// PostToolUse, which may still run); nil when it still is not.
func (r *run) placed(ctx context.Context, key events.SessionKey) (*client.TreeNode, error) {
	wait := r.h.Opts.SpawnWait
	if wait <= 0 {
		wait = 2 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		n, err := r.h.L.Tree(ctx, key)
		if err != nil || n != nil {
			return n, err
		}
		if time.Now().After(deadline) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// end ends the main session (SessionEnd); an unknown or finished one
// appends nothing.
func (r *run) end(ctx context.Context) error {
	root, err := r.p.Root()
	if err != nil {
		return err
	}
	r.res.Session = root
	n, err := r.h.L.Tree(ctx, root)
	if err != nil || n == nil || n.State != envelope.Active {
		return err
	}
	_, err = r.append(ctx, cchook.EndEvent(root, r.p.Reason, "", n.Turns))
	return err
}

// call decides a call in one record (client.CheckAndStart: its check and
// the start of its effect, at the moment it runs) and answers.
func (r *run) call(ctx context.Context) {
	p, res, rt := r.p, r.res, r.h.Runtime
	tool := p.ToolName
	deny := func(reason string) {
		res.Denied, res.Reason = true, reason
		res.Output = rt.DenyOutput(reason)
	}
	failed := func(key events.SessionKey, err error) {
		switch {
		case unreachable(err):
			res.Unreachable = true
			if r.h.Opts.Unreachable == cchook.UnreachableAllow {
				r.warn("the ledger at %s cannot be reached (%v): %s goes ahead unchecked (--unreachable allow)", r.h.where(), err, tool)
				return
			}
			deny(rt.UnreachableReason(r.h.where(), tool, err))
		case events.CodeOf(err) == events.CodeInvalidPolicy:
			deny(NoPolicyReason(key, tool, r.scope(), err.Error()))
		default:
			deny(cchook.RefusalReason(key, tool, err))
		}
	}
	key, err := r.key()
	if err != nil {
		root, _ := p.Root()
		failed(root, err)
		return
	}
	res.Session = key
	// The call of a running session whose scope has a ledger policy is
	// checked after one read, of the policy: two requests, not a Tree
	// before them (TestCallRequests). What that read or the check says
	// otherwise (an unknown or ended session, none of its turns, another
	// dialect's policy, any failure) takes the way below, which readies
	// the session and answers as it always did; a check refused so
	// recorded nothing.
	if pol, err := r.h.L.Policy(ctx, key); err == nil && pol != nil && pol.Dialect == Dialect {
		if r.checked(ctx, key, failed, deny, true) {
			return
		}
	}
	var n *client.TreeNode
	if r.sub() {
		if _, err = r.root(ctx); err == nil {
			n, err = r.placed(ctx, key)
		}
		if err == nil && n == nil {
			err = events.Errorf(events.CodeUnknownParent, "sub-agent %s is not in the ledger: its spawn is recorded when the %s call that returned its agent_id ends, and none has; %s's payloads name no parent, and the ledger does not guess one", key, rt.spawnTool(), rt.Name)
		}
	} else {
		n, err = r.root(ctx)
	}
	if err == nil && n.Turns == 0 {
		if err = r.nextTurn(ctx, key, 0, turnBasis(r.turnID())); err == nil {
			n.Turns = 1
		}
	}
	if err != nil {
		failed(key, err)
		return
	}
	pol, err := r.h.L.Policy(ctx, key)
	if err != nil {
		failed(key, err)
		return
	}
	if pol == nil || pol.Dialect != Dialect {
		have := "none"
		if pol != nil {
			have = "one in the " + pol.Dialect + " dialect"
		}
		scope := n.Scope
		if scope == "" {
			scope = r.scope()
		}
		deny(NoPolicyReason(key, tool, scope, fmt.Sprintf("its scope %s has %s, and %s sessions are decided in the %s dialect", events.ScopeName(scope), have, rt.Name, Dialect)))
		return
	}
	r.checked(ctx, key, failed, deny, false)
}

// checked checks the call and starts its effect in one record
// (client.CheckAndStart), and answers; first, before the session is
// readied, it returns false, having answered nothing, when the ledger
// refused the check because the session is not ready for it
// (cchook.NotReady: recorded nothing).
func (r *run) checked(ctx context.Context, key events.SessionKey, failed func(events.SessionKey, error), deny func(string), first bool) bool {
	p, res, rt := r.p, r.res, r.h.Runtime
	tool := p.ToolName
	call := r.callID(key)
	input, err := CallInput(rt, tool, p.ToolInput)
	if err != nil {
		// The call cannot be checked on its input: denied as a call whose
		// payload cannot be read, never checked with no input.
		res.Unreadable = true
		deny(cchook.UnreadableReason(true, err))
		cchook.RecordUnreadable(ctx, r.h.L, res, tool, call, err)
		return true
	}
	check, err := r.h.L.Start(ctx, key, tool, input, call)
	if first && cchook.NotReady(err) {
		return false
	}
	if err != nil {
		failed(key, err)
		return true
	}
	res.Appended = append(res.Appended, cchook.Appended{Type: events.ToolChecked, Session: key, Seq: check.Recorded})
	res.Decision = check.Decision
	if check.Decision != envelope.Allow {
		why := r.h.Opts.Why
		if len(why) == 0 {
			why = []string{"ledger", "why"}
		}
		var details []string
		if check.Decision == envelope.Ask {
			// Fail closed: none of these runtimes' pre-tool hooks can hand a
			// call to its user's approval (codex's "ask" is unverified, and
			// the runs the adapter is made for approve everything), so an
			// answer with no opinion would run an asked call unasked; the
			// record starts nothing (TestAskIsDenied).
			details = []string{"the policy asks for approval, which the " + rt.Name + " hook cannot obtain"}
		}
		deny(envelope.DenialText(key, tool, check.Reason, cchook.WhyCommand(why, key, tool, input, call, check.Recorded), details...))
	}
	return true
}

// callID is the call's id: codex's tool_use_id (the model's call_id),
// qwen's tool_call_id (the model's; its tool_use_id is one Qwen makes up,
// toolu_<ms>_<random>, which the user never sees: TestQwenPayloads); for
// gemini, which names none, one derived from the payload (CallID).
func (r *run) callID(key events.SessionKey) string {
	p := r.p
	if r.h.Runtime.Name == Qwen.Name {
		if validID(p.ToolCallID) {
			return p.ToolCallID
		}
		return "qwen-" + strings.TrimPrefix(CallID(string(key), p.PromptID+"\x00"+p.ToolCallID+"\x00"+p.ToolUseID, p.ToolName, p.ToolInput), "gemini-")
	}
	if r.h.Runtime.Name == Codex.Name {
		if validID(p.ToolUseID) {
			return p.ToolUseID
		}
		// An id the ledger cannot take as it is: one derived from it,
		// never a rewrite of it.
		return "codex-" + strings.TrimPrefix(CallID(string(key), p.TurnID+"\x00"+p.ToolUseID, p.ToolName, p.ToolInput), "gemini-")
	}
	return CallID(string(key), p.Timestamp, p.ToolName, p.ToolInput)
}

// maxParam bounds a recorded string argument other than the tool's primary
// one, as cchook.CallInput does.
const maxParam = 256

// CutKey names the arguments left out of a recorded input for their size.
const CutKey = "_cut"

// primary is each tool's primary argument, recorded whole.
var primary = map[string]string{
	// codex 0.169.0
	"Bash": "command", "apply_patch": "command", "view_image": "path",
	// gemini-cli 0.61.0
	"run_shell_command": "command", "read_file": "file_path", "write_file": "file_path", "replace": "file_path",
	"list_directory": "dir_path", "glob": "dir_path", "grep_search": "dir_path", "web_fetch": "prompt",
	"google_web_search": "query", "invoke_agent": "agent_name", "activate_skill": "name",
	// qwen-code 0.24.4 (run_shell_command, read_file, write_file as gemini's)
	"edit": "file_path", "notebook_edit": "notebook_path", "zoom_image": "file_path", "web_search": "query",
}

// qwenPrimary is where qwen's tools differ from gemini's of the same name.
var qwenPrimary = map[string]string{"list_directory": "path", "glob": "path", "grep_search": "path", "web_fetch": "url"}

func primaryOf(rt Runtime, tool string) string {
	if f, ok := qwenPrimary[tool]; ok && rt.Name == Qwen.Name {
		return f
	}
	return primary[tool]
}

// CallInput is the input recorded for a call: the tool's top-level scalar
// arguments in key order, a string over maxParam bytes left out (and named
// under CutKey) unless it is the tool's primary argument; nil when there
// are none. An input that is not an object, or whose arguments cannot be
// written canonically (a number past float64's range), is an error, never
// no input: a call checked without its input matches no deny pattern
// (TestCallInputFailsClosed). Parse refuses both first.
func CallInput(rt Runtime, tool string, input json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the call's tool_input is not a JSON object (%.40s)", input)
	}
	keep := map[string]json.RawMessage{}
	var cut []string
	for k, v := range m {
		switch t := strings.TrimSpace(string(v)); {
		case k == CutKey:
		case t == "" || t[0] == '{' || t[0] == '[' || t == "null":
		case t[0] == '"' && len(t) > maxParam+2 && k != primaryOf(rt, tool):
			cut = append(cut, k)
		default:
			keep[k] = v
		}
	}
	if len(cut) > 0 {
		slices.Sort(cut)
		keep[CutKey], _ = json.Marshal(cut)
	}
	if len(keep) == 0 {
		return nil, nil
	}
	b, err := events.Canonical(keep)
	if err != nil {
		return nil, fmt.Errorf("the call's input cannot be recorded: %v", err)
	}
	return b, nil
}
