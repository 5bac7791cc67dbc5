package cchook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/safefile"
)

// Ledger is what the hook asks of the ledger. ClientLedger is the NATS
// client's; tests may use anything else that answers the same way.
type Ledger interface {
	// Tree returns the session and the sub-tree under it; nil and no error
	// when the ledger has no such session.
	Tree(ctx context.Context, key events.SessionKey) (*client.TreeNode, error)
	// Policy returns the policy in force, read through one of the hook's
	// sessions.
	Policy(ctx context.Context, key events.SessionKey) (*envelope.PolicyState, error)
	// Append appends an event.
	Append(ctx context.Context, ev client.Event) (client.AppendResult, error)
	// Check decides a call at the head. With a call id it also records a
	// tool.checked for the session's current turn (Recorded is its
	// sequence).
	Check(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error)
	// Start decides a call at the moment it runs and records, in one
	// record, its check and the start of its effect (a tool.checked with
	// effect: true, client.CheckAndStart), for the session's current turn.
	Start(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error)
}

// Unreachable is what a PreToolUse answers while the ledger cannot be
// reached.
type Unreachable string

// The answers to an unreachable ledger.
const (
	UnreachableDeny  Unreachable = "deny"
	UnreachableAllow Unreachable = "allow"
)

// Options configure a Hook. The zero value of every field means its
// default.
type Options struct {
	// Catalogue is the catalogue a first policy.set needs (and one that
	// replaces the catalogue in force when it differs); nil: none.
	Catalogue []string
	// Import reads the project's policy document from the project
	// directory (WorkDir's answer); nil never imports. It returns nil and no error when the project has no
	// Claude Code configuration.
	Import func(dir string) (json.RawMessage, error)
	// MCPTools, when set, returns the catalogue names of the tools of the
	// project's MCP servers at the project directory (MCPTools), and a
	// warning for each server whose tools it could not learn. It is asked
	// whenever the project's policy is imported, and the names it returns
	// are added to Catalogue (when that is not empty) in the policy.set:
	// the catalogue is recorded, so the fold never lists a server. After a
	// warning the MCP tools of the catalogue in force are kept as well.
	MCPTools func(ctx context.Context, dir string) ([]string, []string)
	// Unreachable is what a PreToolUse answers when the ledger cannot be
	// reached; default UnreachableDeny.
	Unreachable Unreachable
	// Why is the command prefix a denial prints to explain itself; default
	// "ledger why".
	Why []string
	// Where names the ledger in messages (its NATS URL).
	Where string
	// ReadFile reads Claude Code's sub-agent metadata; default
	// safefile.ReadFile with a limit of maxMeta bytes. Every read is given
	// up after metaTimeout (or the payload's deadline, if sooner).
	ReadFile func(string) ([]byte, error)
	// WorkDir is the project directory of a session whose payload names
	// cwd and transcript (the project's root, which paths are decided
	// against and the policy imported from); default cwd itself.
	WorkDir func(cwd, transcript string) string
	// Home is the user's home directory, for when the payload's transcript
	// path does not tell it.
	Home string
	// PolicyTimeout bounds appending a changed policy, so that a user who
	// may not publish policy (an orchestrator under --gen-auth roles) still
	// gets the turn recorded; default 1s.
	PolicyTimeout time.Duration
	// Scope is the scope every root the hook starts is bound to, and the
	// project's policy imported into; "" derives it from the project
	// (ScopeOf).
	Scope string
	// Locate finds the project (and its repository) of the project
	// directory dir (WorkDir's answer); default LocateProject with
	// os.ReadFile. Called only when a root is started or the
	// project's policy imported.
	Locate func(dir string) Location
	// Who says who runs Claude Code and where (a root's identity); nil:
	// unknown. Called only when a root is started or a scope derived.
	Who func() Who
	// Roots, when not nil, are the directories under which the payload's
	// paths (cwd, transcript_path) may be opened: a path outside them, or
	// not absolute and clean (a "..", a "//"), is never opened, so the
	// project is neither located nor imported and no sub-agent metadata is
	// read (TestRootsConfine). nil opens any clean path: the command hook
	// reads its own user's files.
	Roots []string
}

// Hook handles payloads against one ledger. It holds no state between
// payloads: everything it knows comes from the ledger and the payload.
type Hook struct {
	L    Ledger
	Opts Options
}

// Appended is one event the hook appended (or found already landed).
type Appended struct {
	Type      events.Type       `json:"type"`
	Session   events.SessionKey `json:"session,omitempty"`
	Seq       uint64            `json:"seq"`
	ID        string            `json:"id"`
	Duplicate bool              `json:"duplicate,omitempty"`
}

// Result is what handling one payload did and answers.
type Result struct {
	// Output is the JSON to hand Claude Code (a command hook's standard
	// output, an HTTP hook's response body).
	Output []byte `json:"-"`
	Event  string `json:"event"`
	// Session is the key the payload is about ("" when it has none).
	Session events.SessionKey `json:"session,omitempty"`
	// Decision is a PreToolUse's ledger decision ("" otherwise, or when
	// none was made), Denied whether the hook denied the call.
	Decision envelope.Decision `json:"decision,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	Denied   bool              `json:"denied,omitempty"`
	Appended []Appended        `json:"appended"`
	Warnings []string          `json:"warnings,omitempty"`
	// Unreachable says the ledger could not be reached.
	Unreachable bool `json:"unreachable,omitempty"`
	// Unreadable says the payload could not be read, so it was denied
	// unchecked; Event is then PreToolUse, or "" when even the event
	// could not be told.
	Unreadable bool `json:"unreadable,omitempty"`
	// Stack is the stack of a panic in the run (Panicked), for the log
	// that reports it (serve --hooks' error line, the command hook's
	// standard error); never in the answer.
	Stack []byte `json:"-"`
}

func (r *Result) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// Handle maps one payload and answers it. It never returns an error: what
// went wrong is in the answer (a PreToolUse denial) and in Warnings.
func (h *Hook) Handle(ctx context.Context, raw []byte) *Result {
	res := &Result{Appended: []Appended{}}
	p, err := Parse(raw)
	if err != nil {
		pk := PeekAt(raw)
		if pk.Told && pk.Event != PreToolUse {
			// Clearly another event: it goes on, as every event but a
			// call does whatever happened.
			res.Event = pk.Event
			res.warn("%v", err)
			res.Output = PassOutput("ledger hook: " + err.Error())
			return res
		}
		h.unreadable(ctx, res, pk, err)
		return res
	}
	res.Event = p.Event
	r := &run{h: h, p: p, res: res}
	if p.Event == PreToolUse {
		r.preToolUse(ctx)
		return res
	}
	if err := r.other(ctx); err != nil {
		if Unreached(err) {
			res.Unreachable = true
			res.warn("the ledger at %s cannot be reached: %v (nothing was recorded for this %s)", h.where(), err, p.Event)
		} else {
			res.warn("%v", err)
		}
	}
	msg := ""
	if len(res.Warnings) > 0 {
		msg = "ledger hook: " + res.Warnings[0]
	}
	res.Output = PassOutput(msg)
	return res
}

// unreadable denies a payload that could be a PreToolUse and cannot be
// read: a call that cannot be read cannot be decided, so it fails closed,
// unchecked, and its denial is recorded where it can be
// (RecordUnreadable). TestUnreadableRecorded guards both.
func (h *Hook) unreadable(ctx context.Context, res *Result, pk Peek, err error) {
	if pk.Told {
		res.Event = PreToolUse
	}
	p := Payload{SessionID: pk.SessionID, AgentID: pk.AgentID}
	if key, kerr := p.Key(); kerr == nil {
		res.Session = key
	}
	res.Denied, res.Unreadable = true, true
	res.Reason = UnreadableReason(pk.Told, err)
	res.Output = DenyOutput(res.Reason)
	RecordUnreadable(ctx, h.L, res, pk.Tool, pk.CallID, err)
}

// RecordUnreadable records the denial of a call whose payload could not be
// read (cause) on the session res names (res.Session; none when it is ""
// or l is nil): when the ledger knows it, with a turn, as a tool.checked
// carrying Unreadable (the ledger decides it deny, unreadable:payload, with
// no input: there is none to decide on, and checking an empty one would
// record a decision, maybe an allow, that is not the call's). Otherwise,
// or when the ledger cannot take it, it is in the warnings (the command
// hook's standard error, serve --hooks' log), naming the session and the
// call (tool, call: what the payload tells of them, "" when nothing). The
// Claude Code hook and agenthook's runtimes record their unreadable calls
// with it (TestUnreadableRecorded, agenthook's TestAgentUnreadableRecorded).
func RecordUnreadable(ctx context.Context, l Ledger, res *Result, tool, call string, cause error) {
	session, t, c := string(res.Session), tool, call
	if session == "" {
		session = "(unknown)"
	}
	if t == "" {
		t = "(unknown)"
	}
	if c == "" {
		c = "(unknown)"
	}
	if res.Session != "" && l != nil {
		rerr := recordUnreadable(ctx, l, res, res.Session, tool, call, cause)
		if rerr == nil {
			return
		}
		res.warn("denied an unreadable payload, unchecked and unrecorded (%v): session %s, tool %s, call %s: %v", rerr, session, t, c, cause)
		return
	}
	res.warn("denied an unreadable payload, unchecked and unrecorded: session %s, tool %s, call %s: %v", session, t, c, cause)
}

// recordUnreadable appends the tool.checked of an unreadable call to the
// session key, at its current turn. Its id derives from the key and the
// call id, when the payload names one, so a payload delivered twice is
// recorded once.
func recordUnreadable(ctx context.Context, l Ledger, res *Result, key events.SessionKey, tool, call string, cause error) error {
	n, err := l.Tree(ctx, key)
	switch {
	case err != nil:
		return err
	case n == nil:
		return errors.New("the ledger does not know the session")
	case n.Turns == 0 || n.State != envelope.Active:
		return fmt.Errorf("the session is %s with %d turns", n.State, n.Turns)
	}
	if tool == "" || len(tool) > maxParam || !utf8.ValidString(tool) {
		tool = "(unreadable)"
	}
	d := events.CheckedData{Turn: n.Turns, Tool: tool, Unreadable: cut(cause.Error(), maxParam)}
	ev := client.Checked(key, d)
	if call != "" && len(call) <= maxParam && validAgentID(call) {
		d.Call = call
		ev = client.Checked(key, d)
		ev.ID = EventID(string(key), "unreadable", call)
	}
	a, err := l.Append(ctx, ev)
	if err != nil {
		return err
	}
	res.Appended = append(res.Appended, Appended{Type: ev.Type, Session: key, Seq: a.Seq, ID: a.ID, Duplicate: a.Duplicate})
	res.warn("denied an unreadable payload unchecked, recorded at sequence %d: session %s, tool %s, call %s: %v", a.Seq, key, tool, d.Call, cause)
	return nil
}

// HandleWithin is Handle, answered when ctx is done plus grace at the
// latest: past it the payload is answered as Overdue (a call denied). The
// run goes on in its goroutine with ctx done, so what it still asks of the
// ledger fails, and an import it started completes into the cache for the
// next hook (TestHookDeadline; TestI24HookServerSlowImportPastTimeout: two
// settings files of 8 MiB once kept serve --hooks' answer 23 s).
// A run that panics is answered as Panicked (TestPanicDenies).
func (h *Hook) HandleWithin(ctx context.Context, raw []byte, grace time.Duration) *Result {
	return Within(ctx, grace, func() *Result { return h.Handle(ctx, raw) }, func() *Result { return Overdue(raw, grace) },
		func(v any, stack []byte) *Result { return Panicked(raw, v, stack) })
}

// Within runs run on a goroutine of its own and returns its answer, or,
// when ctx is done and grace has passed too, overdue's: the bound a hook's
// answer has whatever its run waits for (the Claude Code hook's and the
// other runtimes' adapters'). A panic in run is recovered on that
// goroutine and answered with panicked's answer, given the panic's value
// and stack: a hook's run never takes down the process that serves hooks
// (serve --hooks: net/http recovers only its handler's own goroutine), and
// is never answered with nothing (TestWithinRecoversPanic).
func Within[T any](ctx context.Context, grace time.Duration, run, overdue func() T, panicked func(v any, stack []byte) T) T {
	done := make(chan T, 1)
	goRun(func() {
		defer func() {
			if v := recover(); v != nil {
				done <- panicked(v, debug.Stack())
			}
		}()
		done <- run()
	})
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case res := <-done:
		return res
	case <-t.C:
		return overdue()
	}
}

// idleRunners are goroutines that ran a Within's run and wait for the
// next one, at most maxIdleRunners of them: their stacks are grown already
// to what a run needs (the payload's JSON decoding, the ledger's NATS
// request), which a new goroutine grows again from its first 2 KiB,
// copying its stack at each doubling, on every hook's path. A run that
// never returns keeps its runner; the next run takes another, or a new
// goroutine: a run never waits for one (TestWithinReusesRunners).
var idleRunners = make(chan chan func(), maxIdleRunners)

// maxIdleRunners bounds the runners kept waiting; serve --hooks handles up
// to DefaultMaxConcurrent hooks at once, and the runners of a burst past
// these end when their runs do.
const maxIdleRunners = 8

// goRun runs f on an idle runner, else on a new goroutine, and returns at
// once.
func goRun(f func()) {
	select {
	case r := <-idleRunners:
		r <- f
	default:
		r := make(chan func(), 1)
		r <- f
		go runner(r)
	}
}

// runner runs the funcs sent on r, waiting among the idle runners between
// them, and ends when there are enough idle ones already.
func runner(r chan func()) {
	for f := range r {
		f()
		select {
		case idleRunners <- r:
		default:
			return
		}
	}
}

// Overdue is the answer to a payload whose handling outran its budget (its
// context's deadline, and grace past it): a call, or what cannot be told
// from one, is denied unchecked, as an unreadable one is; anything else
// goes on with a warning. Whatever the run appended stays appended.
func Overdue(raw []byte, grace time.Duration) *Result {
	err := fmt.Errorf("the hook did not finish within its budget (and %s past it): a file it reads or the project's import took too long", grace)
	res := unrun(&Result{Appended: []Appended{}}, raw,
		fmt.Sprintf("The session policy ledger's hook could not decide this call in time, so it denies it: %v. Make the call again; if it keeps happening, see 'ledger hook claude-code --help' (--timeout, --import-cache).", err),
		"ledger hook: "+err.Error())
	if res.Denied {
		res.warn("denied a call unchecked: %v", err)
	} else {
		res.warn("%v", err)
	}
	return res
}

// Panicked is the answer to a payload whose run panicked (v, with its
// stack): an internal error of the hook, not something the payload or the
// ledger said. A call, or what cannot be told from one, is denied with
// PanicReason; anything else goes on with a warning. Whatever the run
// appended stays appended; the stack is in Result.Stack, for the log,
// never in the answer (TestPanicDenies).
func Panicked(raw []byte, v any, stack []byte) *Result {
	res := &Result{Appended: []Appended{}, Stack: stack}
	res.warn("%s", PanicWarning(v))
	return unrun(res, raw, PanicReason(v), "ledger hook: "+res.Warnings[0]+" (nothing more is recorded for this "+PeekAt(raw).Event+")")
}

// unrun answers, in res, a payload the hook could not run to its end: a
// call, or what cannot be told from one, denied with reason (naming its
// session when the payload tells it); any other event goes on, pass its
// message (Overdue, Panicked).
func unrun(res *Result, raw []byte, reason, pass string) *Result {
	pk := PeekAt(raw)
	if pk.Told && pk.Event != PreToolUse {
		res.Event = pk.Event
		res.Output = PassOutput(pass)
		return res
	}
	p := Payload{SessionID: pk.SessionID, AgentID: pk.AgentID}
	if key, kerr := p.Key(); kerr == nil {
		res.Session = key
	}
	if pk.Told {
		res.Event = PreToolUse
	}
	res.Denied, res.Reason, res.Output = true, reason, DenyOutput(reason)
	return res
}

// panicLog begins the log line of a panic in a hook's run, which
// PanicReason tells the user to report (hookwire's, which the thin hook
// shares).
const panicLog = hookwire.PanicLog

// PanicWarning is the warning of a run that panicked with v; the log line
// that reports it (its stack) begins with the same words.
func PanicWarning(v any) string { return hookwire.PanicWarning(fmt.Sprint(v)) }

// PanicReason is the denial of a call whose hook run panicked with v: the
// ledger's hook failed, not the call, and the stack is in its log.
func PanicReason(v any) string { return hookwire.PanicReason(fmt.Sprint(v)) }

func (h *Hook) where() string {
	if h.Opts.Where != "" {
		return h.Opts.Where
	}
	return "its NATS server"
}

// Unreached reports whether err says the ledger could not be reached or
// did not answer in time: the one failure --unreachable allow lets a call
// through on. Only a transport failure counts: the hook's connection not
// made (DownLedger's error), no responders (no ledger API on the server),
// a timeout (NATS's, a context's, the ledger's deadline_passed), a
// connection closed, draining or lost. Anything else is an answer or a
// request the ledger never got to judge, and denies the call with its
// cause whatever --unreachable says: a refusal, a request over the NATS
// server's max_payload, an answer that does not decode, the ledger's
// internal error (TestUnreachedIsTransportOnly, TestOverMaxPayloadDenies).
func Unreached(err error) bool {
	var down downError
	if errors.As(err, &down) {
		return true
	}
	for _, t := range transportErrors {
		if errors.Is(err, t) {
			return true
		}
	}
	return events.CodeOf(err) == events.CodeDeadlinePassed
}

// transportErrors are the errors of a request that did not reach the
// ledger or was not answered in time (Unreached).
var transportErrors = []error{
	context.DeadlineExceeded, context.Canceled,
	nats.ErrTimeout, nats.ErrNoResponders, nats.ErrNoServers,
	nats.ErrConnectionClosed, nats.ErrConnectionDraining, nats.ErrConnectionReconnecting,
	nats.ErrDisconnected, nats.ErrStaleConnection,
}

// run is the handling of one payload.
type run struct {
	h   *Hook
	p   *Payload
	res *Result

	// Read once, when first needed: the project's location, who runs it,
	// the scope.
	located bool
	loc     Location
	who     *Who
	scopeOf string
	// mcp are the catalogue names of the project's MCP tools, read with
	// the project's policy (Options.MCPTools); mcpPartial says some server
	// could not be listed.
	mcp        []string
	mcpPartial bool
}

// catalogue is the catalogue of the policy the hook installs:
// Options.Catalogue and, when it has one, the project's MCP tools it does
// not name already, sorted after it. When a server could not be listed,
// the MCP tools of in (the catalogue in force, as recorded) are kept too:
// a gateway down for a moment does not take its tools away at every
// prompt, and a tool never listed stays unknown.
func (r *run) catalogue(in *envelope.PolicyState) []string {
	cat := r.h.Opts.Catalogue
	mcp := slices.Clone(r.mcp)
	if r.mcpPartial && in != nil {
		for _, t := range in.Catalogue {
			if strings.HasPrefix(t, "mcp__") {
				mcp = append(mcp, t)
			}
		}
	}
	slices.Sort(mcp)
	mcp = slices.Compact(mcp)
	if len(cat) == 0 || len(mcp) == 0 {
		return cat
	}
	out := append([]string(nil), cat...)
	for _, t := range mcp {
		if !slices.Contains(cat, t) {
			out = append(out, t)
		}
	}
	return out
}

// opens reports whether path may be opened: absolute and clean, and under
// Options.Roots when they are set, both as written and with its links
// resolved.
func (h *Hook) opens(path string) bool {
	if path == "" || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return false
	}
	if h.Opts.Roots == nil {
		return true
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A name that does not resolve (yet): its parent must.
		if real, err = filepath.EvalSymlinks(filepath.Dir(path)); err != nil {
			return false
		}
		real = filepath.Join(real, filepath.Base(path))
	}
	return underAny(path, h.Opts.Roots) && underAny(real, h.Opts.Roots)
}

func underAny(path string, roots []string) bool {
	for _, root := range roots {
		if path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// workDir is the project directory of the payload's cwd; the cwd itself
// when it may not be opened.
func (r *run) workDir() string {
	if !r.h.opens(r.p.Cwd) {
		return r.p.Cwd
	}
	if r.h.Opts.WorkDir != nil {
		if d := r.h.Opts.WorkDir(r.p.Cwd, r.p.TranscriptPath); d != "" && r.h.opens(d) {
			return d
		}
		return r.p.Cwd
	}
	return r.p.Cwd
}

// location is the project's location; nil when the payload names no
// directory.
func (r *run) location() *Location {
	if !r.located {
		r.located = true
		dir := r.workDir()
		if dir == "" {
			return nil
		}
		if !r.h.opens(r.p.Cwd) {
			// Named, not read.
			r.loc = Location{Dir: filepath.Clean(dir)}
		} else if r.h.Opts.Locate != nil {
			r.loc = r.h.Opts.Locate(dir)
		} else {
			r.loc = LocateProject(dir, nil)
		}
	}
	if r.loc.Dir == "" {
		return nil
	}
	return &r.loc
}

func (r *run) whoRuns() Who {
	if r.who == nil {
		r.who = &Who{}
		if r.h.Opts.Who != nil {
			*r.who = r.h.Opts.Who()
		}
	}
	return *r.who
}

// scope is the scope a new root of this payload is bound to and the
// project's policy goes to: Options.Scope, else derived from the project
// (ScopeOf); "" (the default scope) when the payload names no directory.
func (r *run) scope() string {
	if r.h.Opts.Scope != "" {
		return r.h.Opts.Scope
	}
	if r.scopeOf == "" {
		if loc := r.location(); loc != nil {
			host := ""
			if loc.PathNamed() {
				host = r.whoRuns().Host
			}
			r.scopeOf = ScopeOf(*loc, host)
		}
	}
	return r.scopeOf
}

func (r *run) append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	a, err := r.h.L.Append(ctx, ev)
	if err == nil {
		r.res.Appended = append(r.res.Appended, Appended{Type: ev.Type, Session: ev.Session, Seq: a.Seq, ID: a.ID, Duplicate: a.Duplicate})
	}
	return a, err
}

// other handles every event but PreToolUse.
func (r *run) other(ctx context.Context) error {
	p := r.p
	switch p.Event {
	case SessionStart:
		_, err := r.root(ctx, true)
		return err
	case UserPromptSubmit, PostToolBatch:
		key, err := p.Key()
		if err != nil {
			return err
		}
		r.res.Session = key
		// A prompt opens the session's next turn (its first, for a new
		// session); a batch ends the turn its calls were made in, which
		// must exist, and opens the next.
		prompt := p.Event == UserPromptSubmit
		n, err := r.session(ctx, prompt, !prompt)
		if err != nil {
			return err
		}
		if n == nil {
			return nil
		}
		return r.nextTurn(ctx, key, n.Turns, p.TurnBasis())
	case SubagentStart:
		return r.subagentStart(ctx)
	case SessionEnd:
		return r.end(ctx)
	case SubagentStop:
		// Nothing ends: Claude Code may resume the sub-agent. A sub-agent
		// that made no call is placed now, so the tree shows it.
		key, err := p.Key()
		if err != nil {
			return err
		}
		r.res.Session = key
		_, err = r.session(ctx, false, true)
		return err
	}
	return nil
}

// session returns the payload's session, starting the root or placing the
// sub-agent when the ledger does not know it yet, with at least one turn.
// sync also imports the project's policy for a root; turn makes sure the
// session has a turn. It returns nil and no error for a sub-agent whose
// parent cannot be told yet.
func (r *run) session(ctx context.Context, sync, turn bool) (*client.TreeNode, error) {
	if !r.p.Sub() {
		n, err := r.root(ctx, sync)
		if err != nil || !turn {
			return n, err
		}
		return r.firstTurn(ctx, n)
	}
	key, err := r.p.Key()
	if err != nil {
		return nil, err
	}
	n, err := r.h.L.Tree(ctx, key)
	if err != nil {
		return nil, err
	}
	if n == nil {
		if n, err = r.place(ctx, r.p.AgentID, r.p.AgentType, 0); err != nil || n == nil {
			return nil, err
		}
	}
	if !turn {
		return n, nil
	}
	return r.firstTurn(ctx, n)
}

// firstTurn starts turn 1 of a session that has none.
func (r *run) firstTurn(ctx context.Context, n *client.TreeNode) (*client.TreeNode, error) {
	if n.Turns > 0 {
		return n, nil
	}
	if err := r.nextTurn(ctx, n.Key, 0, FirstTurn); err != nil {
		return nil, err
	}
	n.Turns = 1
	return n, nil
}

// nextTurn starts the turn after turns. When other hooks of the session
// start turns in between (concurrent prompts), the turn is asked for again
// at the session's new count until it lands, at most maxTurnTries times:
// every prompt records its turn (TestConcurrentPrompts; 10 concurrent
// prompts once recorded 5 turns). The event's id derives from its basis,
// not its number, so a prompt delivered twice still lands once.
func (r *run) nextTurn(ctx context.Context, key events.SessionKey, turns int, basis string) error {
	mode := r.p.TurnMode()
	_, err := r.append(ctx, TurnEventIn(key, turns+1, basis, mode))
	for try := 1; events.CodeOf(err) == events.CodeBadTurn && try < maxTurnTries; try++ {
		n, terr := r.h.L.Tree(ctx, key)
		if terr != nil {
			return terr
		}
		if n == nil {
			return err
		}
		if basis == FirstTurn && n.Turns > 0 {
			return nil // the turn this wanted exists
		}
		_, err = r.append(ctx, TurnEventIn(key, n.Turns+1, basis, mode))
	}
	return err
}

// maxTurnTries bounds how often one payload asks for its turn.
const maxTurnTries = 64

// root returns the main session, starting it when the ledger does not know
// it. A new root, and sync, import the project's policy first.
func (r *run) root(ctx context.Context, sync bool) (*client.TreeNode, error) {
	p := r.p
	root := p.Root()
	if !events.ValidKey(root) {
		_, err := p.Key()
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
		if n, err = r.reopen(ctx, n); err != nil {
			return nil, err
		}
	}
	var doc json.RawMessage
	if sync || n == nil {
		doc = r.importProject(ctx, n)
	}
	policySet := false
	if n == nil {
		if n, policySet, err = r.startRoot(ctx, root, doc); err != nil {
			return nil, err
		}
	}
	if doc != nil && !policySet {
		r.syncPolicy(ctx, root, doc)
	}
	return n, nil
}

// importProject imports the project's policy for the root n (nil when the
// ledger does not know it yet) and lists its MCP gateways' tools; it
// returns nil, with a warning, when the policy is not imported: no
// importer, a cwd outside the server's roots, an import that fails, or a
// root that runs under another scope than the project now derives.
func (r *run) importProject(ctx context.Context, n *client.TreeNode) json.RawMessage {
	p := r.p
	if r.h.Opts.Import == nil || p.Cwd == "" {
		return nil
	}
	if !r.h.opens(p.Cwd) {
		r.res.warn("the payload's cwd %q is not a clean absolute path under the hook server's roots (%s): the project's policy was not imported, nor its files read",
			p.Cwd, strings.Join(r.h.Opts.Roots, ", "))
		return nil
	}
	doc, err := r.h.Opts.Import(r.workDir())
	if err != nil {
		r.res.warn("the project's policy was not imported: %v", err)
		return nil
	}
	if doc != nil && r.h.Opts.MCPTools != nil {
		var warns []string
		r.mcp, warns = r.h.Opts.MCPTools(ctx, r.workDir())
		r.mcpPartial = len(warns) > 0
		for _, w := range warns {
			r.res.warn("%s", w)
		}
	}
	if doc != nil && n != nil && n.Scope != "" && events.ScopeName(n.Scope) != events.ScopeName(r.scope()) {
		// Importing into the scope derived now would change a scope this
		// session does not run under, and into its own one a policy that
		// no longer derives it.
		r.res.warn("session %s runs under scope %s, and the project is now scope %s: the project's policy was not imported (a new session imports it into %s)",
			n.Key, n.Scope, events.ScopeName(r.scope()), events.ScopeName(r.scope()))
		return nil
	}
	return doc
}

// startRoot starts the root the ledger does not know. With no policy yet
// (or one the start cannot run under) it installs the project's doc and
// starts again (policySet); a start another hook landed first is read back.
func (r *run) startRoot(ctx context.Context, root events.SessionKey, doc json.RawMessage) (n *client.TreeNode, policySet bool, err error) {
	p := r.p
	start := StartEventOf(root, StartData(RootMode(p.PermissionMode, doc), r.scope(), r.location(), r.whoRuns(), p.Model))
	_, err = r.append(ctx, start)
	if events.CodeOf(err) == events.CodeInvalidPolicy && doc != nil {
		if len(r.catalogue(nil)) == 0 {
			return nil, false, events.Errorf(events.CodeInvalidPolicy, "%s; the hook could install the project's policy, but a first policy.set needs a catalogue: run the hook with --catalogue FILE or --tools LIST", errMsg(err))
		}
		if _, perr := r.append(ctx, PolicyEvent(doc, r.catalogue(nil), r.scope())); perr != nil {
			return nil, false, fmt.Errorf("installing the project's policy: %w", perr)
		}
		policySet = true
		_, err = r.append(ctx, start)
	}
	switch events.CodeOf(err) {
	case "":
		if err != nil {
			return nil, policySet, err
		}
		return &client.TreeNode{Key: root, Agent: MainAgent, State: envelope.Active}, policySet, nil
	case events.CodeDuplicateSession:
		if n, err = r.h.L.Tree(ctx, root); err != nil || n == nil {
			return nil, policySet, errors.Join(err, fmt.Errorf("session %q exists but cannot be read", root))
		}
		return n, policySet, nil
	default:
		return nil, policySet, err
	}
}

// reopen reopens an ended root: Claude Code resumed it (SessionStart with
// source resume, or, where SessionStart is not delivered, as HTTP hooks
// are not, its next event). It goes on under its recorded scope and
// envelope. A reopen whose derived id landed before (an earlier reopen at
// the same turn count) is appended again under a new id.
func (r *run) reopen(ctx context.Context, n *client.TreeNode) (*client.TreeNode, error) {
	reason := r.p.Source
	if reason == "" {
		reason = r.p.Event
	}
	ev := ReopenEvent(n.Key, reason, n.Turns)
	a, err := r.append(ctx, ev)
	if err == nil && a.Duplicate {
		if m, terr := r.h.L.Tree(ctx, n.Key); terr == nil && m != nil && m.State == envelope.Ended {
			ev.ID = ""
			_, err = r.append(ctx, ev)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reopening the ended session %s: %w", n.Key, err)
	}
	m, err := r.h.L.Tree(ctx, n.Key)
	if err == nil && m == nil {
		err = events.Errorf(events.CodeUnknownSession, "session %q was reopened but cannot be read", n.Key)
	}
	return m, err
}

// end ends the main session at SessionEnd; a sub-agent's, an unknown or
// a finished session's end appends nothing.
func (r *run) end(ctx context.Context) error {
	if r.p.Sub() {
		return nil
	}
	root := r.p.Root()
	if !events.ValidKey(root) {
		_, err := r.p.Key()
		return err
	}
	r.res.Session = root
	n, err := r.h.L.Tree(ctx, root)
	if err != nil || n == nil || n.State != envelope.Active {
		return err
	}
	ev := EndEvent(root, r.p.Reason, r.p.PromptID, n.Turns)
	a, err := r.append(ctx, ev)
	if err == nil && a.Duplicate {
		// An end at the same prompt and turn count landed before (ended,
		// reopened, ended again): this one is new.
		if m, terr := r.h.L.Tree(ctx, root); terr == nil && m != nil && m.State == envelope.Active {
			ev.ID = ""
			_, err = r.append(ctx, ev)
		}
	}
	return err
}

// syncPolicy appends the project's policy, to the project's scope, when it
// differs from the policy in force for the session key (its scope's). A
// failure is a warning: the session goes on under the policy in force.
func (r *run) syncPolicy(ctx context.Context, key events.SessionKey, doc json.RawMessage) {
	in, err := r.h.L.Policy(ctx, key)
	if err != nil {
		r.res.warn("the policy in force could not be read, so the project's was not compared with it: %v", err)
		return
	}
	ev, err := PolicyChange(doc, r.catalogue(in), r.scope(), in)
	if err != nil {
		r.res.warn("%v", err)
		return
	}
	if ev == nil {
		return
	}
	d := r.h.Opts.PolicyTimeout
	if d <= 0 {
		d = time.Second
	}
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if _, err := r.append(pctx, *ev); err != nil {
		hint := ""
		if Unreached(err) {
			hint = " (a NATS user with the orchestrator role may not publish on ledger.v1.policy: give the hook an operator's credentials, or run it with --import=false and set the policy with 'ledger policy import | ledger append')"
		}
		r.res.warn("the project's policy changed, but the new policy.set was not appended: %v%s", err, hint)
	}
}

// maxHops bounds how many unplaced ancestors one payload places.
const maxHops = 32

// place records the spawn of sub-agent agentID (of type agentType), whose
// parent the ledger does not know yet: from Claude Code's metadata when it
// is there (placing unplaced ancestors first), else from the ledger (the
// only session that may launch agentType). It returns nil and no error at
// SubagentStart when the parent cannot be told yet.
func (r *run) place(ctx context.Context, agentID, agentType string, hops int) (*client.TreeNode, error) {
	root := r.p.Root()
	child, err := ChildKey(root, agentID)
	if err != nil {
		return nil, err
	}
	if hops > maxHops {
		return nil, events.Errorf(events.CodeUnknownParent, "sub-agent %s has more than %d unplaced ancestors", child, maxHops)
	}
	rootNode, err := r.rootForSpawn(ctx)
	if err != nil {
		return nil, err
	}
	var parent events.SessionKey
	meta, merr := r.meta(ctx, agentID, agentType)
	switch {
	case meta != nil && meta.ParentAgentID == "":
		parent = root
	case meta != nil:
		if parent, err = ChildKey(root, meta.ParentAgentID); err != nil {
			return nil, err
		}
		pn, err := r.h.L.Tree(ctx, parent)
		if err != nil {
			return nil, err
		}
		if pn == nil {
			pm, _ := r.meta(ctx, meta.ParentAgentID, "")
			ptype := ""
			if pm != nil {
				ptype = pm.AgentType
			}
			if ptype == "" {
				return nil, events.Errorf(events.CodeUnknownParent, "sub-agent %s was launched by sub-agent %s, which the ledger does not know and whose type Claude Code's metadata does not say", child, parent)
			}
			if _, err := r.place(ctx, meta.ParentAgentID, ptype, hops+1); err != nil {
				return nil, fmt.Errorf("placing %s's parent %s: %w", child, parent, err)
			}
		}
	case r.p.Event == SubagentStart && hops == 0:
		pl := PlaceByTree(rootNode, child)
		if pl.Parent == "" {
			r.res.warn("sub-agent %s is not recorded yet: %s", child, pl.How)
			return nil, nil
		}
		parent = pl.Parent
	default:
		if parent, err = r.placeByPolicy(ctx, rootNode, child, agentType, merr); err != nil {
			return nil, err
		}
	}
	if _, err := r.append(ctx, SpawnEvent(child, parent, agentType)); err != nil && events.CodeOf(err) != events.CodeDuplicateSession {
		return nil, err
	}
	n, err := r.h.L.Tree(ctx, child)
	if err == nil && n == nil {
		err = events.Errorf(events.CodeUnknownSession, "sub-agent %s was spawned but cannot be read", child)
	}
	if err != nil {
		return nil, err
	}
	if hops > 0 {
		_, err = r.firstTurn(ctx, n)
	}
	return n, err
}

// rootForSpawn is the main session's tree, starting the root when the
// ledger does not know it (and reopening it when it ended).
func (r *run) rootForSpawn(ctx context.Context) (*client.TreeNode, error) {
	n, err := r.h.L.Tree(ctx, r.p.Root())
	if err != nil || (n != nil && n.State != envelope.Ended) {
		return n, err
	}
	if _, err := r.root(ctx, false); err != nil {
		return nil, err
	}
	if n, err = r.h.L.Tree(ctx, r.p.Root()); err == nil && n == nil {
		err = events.Errorf(events.CodeUnknownSession, "session %q was started but cannot be read", r.p.Root())
	}
	return n, err
}

// maxCandidates bounds the checks placeByPolicy makes.
const maxCandidates = 16

// placeByPolicy finds the parent of a sub-agent without metadata: the one
// active session of the tree that may launch agentType (a session the
// ledger denies Agent for that type could not have passed its PreToolUse).
// None, or more than one, refuses: the ledger does not guess a parent.
func (r *run) placeByPolicy(ctx context.Context, rootNode *client.TreeNode, child events.SessionKey, agentType string, metaErr error) (events.SessionKey, error) {
	why := "Claude Code's sub-agent metadata is not readable"
	if metaErr != nil {
		why += " (" + metaErr.Error() + ")"
	}
	cands := Candidates(rootNode, child)
	if len(cands) > maxCandidates {
		return "", events.Errorf(events.CodeUnknownParent, "the parent of sub-agent %s is unknown: %s, and %d sessions could have launched it", child, why, len(cands))
	}
	input, _ := json.Marshal(map[string]string{"subagent_type": agentType})
	if agentType == ForkAgent {
		input = nil
	}
	var may []events.SessionKey
	for _, c := range cands {
		res, err := r.h.L.Check(ctx, c, "Agent", input, "")
		if err != nil {
			return "", err
		}
		if res.Decision != envelope.Deny {
			may = append(may, c)
		}
	}
	switch len(may) {
	case 1:
		return may[0], nil
	case 0:
		return "", events.Errorf(events.CodeUnknownParent, "the parent of sub-agent %s is unknown: %s, and no session of %s may launch a %q agent", child, why, r.p.Root(), agentType)
	}
	return "", events.Errorf(events.CodeUnknownParent, "the parent of sub-agent %s is unknown: %s, and %d sessions may have launched it (%v); the ledger does not guess", child, why, len(may), may)
}

// meta reads Claude Code's metadata of a sub-agent; nil when there is none
// (with why, when there is one that does not read).
func (r *run) meta(ctx context.Context, agentID, agentType string) (*Meta, error) {
	path := MetaPath(r.p.TranscriptPath, agentID)
	if path == "" {
		return nil, errors.New("the payload names no transcript")
	}
	if !r.h.opens(r.p.TranscriptPath) || !r.h.opens(path) {
		return nil, fmt.Errorf("the transcript %s is not a clean absolute path under the hook server's roots (%s): its sub-agents' metadata is not read", r.p.TranscriptPath, strings.Join(r.h.Opts.Roots, ", "))
	}
	read := r.h.Opts.ReadFile
	if read == nil {
		read = func(path string) ([]byte, error) { return safefile.ReadFile(path, maxMeta) }
	}
	b, err := readWithin(ctx, metaTimeout, read, path)
	if err != nil {
		return nil, err
	}
	m, err := ParseMeta(b, agentType)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// The bounds of a read of Claude Code's sub-agent metadata, a file of a
// hundred bytes or so that anything running as the user can replace.
const (
	maxMeta     = 64 << 10
	metaTimeout = time.Second
)

// readWithin reads path with read, giving up after d or when ctx is done.
// A read of a regular file cannot be interrupted (a hung network file
// system): the read goes on in its goroutine, which ends with it, and its
// result is dropped.
func readWithin(ctx context.Context, d time.Duration, read func(string) ([]byte, error), path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Off the run's goroutine, so out of Within's recover: a read
		// that panics is an error reading the file.
		defer func() {
			if v := recover(); v != nil {
				done <- result{nil, fmt.Errorf("%s: %s", path, PanicWarning(v))}
			}
		}()
		b, err := read(path)
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: not read within %s: %w", path, d, ctx.Err())
	}
}

// subagentStart places a new sub-agent and starts its first turn.
func (r *run) subagentStart(ctx context.Context) error {
	key, err := r.p.Key()
	if err != nil {
		return err
	}
	r.res.Session = key
	n, err := r.h.L.Tree(ctx, key)
	if err != nil {
		return err
	}
	if n == nil {
		if n, err = r.place(ctx, r.p.AgentID, r.p.AgentType, 0); err != nil || n == nil {
			return err
		}
	}
	_, err = r.firstTurn(ctx, n)
	return err
}

// preToolUse checks the call, starts its effect, and answers.
func (r *run) preToolUse(ctx context.Context) {
	p, res := r.p, r.res
	tool := p.ToolName
	deny := func(reason string) {
		res.Denied, res.Reason = true, reason
		res.Output = DenyOutput(reason)
	}
	failed := func(key events.SessionKey, err error) {
		if Unreached(err) {
			res.Unreachable = true
			if r.h.Opts.Unreachable == UnreachableAllow {
				res.warn("the ledger at %s cannot be reached (%v): %s goes ahead unchecked (--unreachable allow)", r.h.where(), err, tool)
				res.Output = PassOutput("ledger hook: " + res.Warnings[len(res.Warnings)-1])
				return
			}
			deny(UnreachableReason(r.h.where(), tool, err))
			return
		}
		deny(RefusalReason(key, tool, err))
	}
	key, err := p.Key()
	if err != nil {
		failed(p.Root(), err)
		return
	}
	res.Session = key
	// One record decides the call and starts its effect: a PreToolUse
	// runs at the moment the tool would, so nothing can change between
	// the check and the start (TestPreToolUseMakesOneRecord).
	var input json.RawMessage
	var check client.CheckResult
	err = errSessionNotRead
	if p.TranscriptPath != "" {
		// The call of a running session (started, active, with a turn)
		// is checked at once: one request to the ledger
		// (TestPreToolUseOneRequest). Only a refusal that says the
		// session is not ready for it, which records nothing, takes the
		// way below that starts, places or reopens it or opens its first
		// turn, and checks again (TestPreToolUseReadiesSession). Without
		// a transcript the call's project may be the session's, which
		// needs the session read first.
		input = r.callInput(nil)
		check, err = r.h.L.Start(ctx, key, tool, input, p.ToolUseID)
	}
	if NotReady(err) {
		var n *client.TreeNode
		n, err = r.session(ctx, false, true)
		if err == nil && n == nil {
			err = events.Errorf(events.CodeUnknownParent, "sub-agent %s is not in the ledger and its parent cannot be told", key)
		}
		if err != nil {
			failed(key, err)
			return
		}
		input = r.callInput(n)
		check, err = r.h.L.Start(ctx, key, tool, input, p.ToolUseID)
	}
	if err != nil {
		failed(key, err)
		return
	}
	r.res.Appended = append(r.res.Appended, Appended{Type: events.ToolChecked, Session: key, Seq: check.Recorded})
	res.Decision = check.Decision
	why := r.h.Opts.Why
	if len(why) == 0 {
		why = []string{"ledger", "why"}
	}
	switch check.Decision {
	case envelope.Allow, envelope.Ask:
		// Claude Code decides an asked call with its own prompt.
	case envelope.Deny:
		deny(DenialReason(key, tool, check.Reason, WhyCommand(why, key, tool, input, p.ToolUseID, check.Recorded)))
		return
	default:
		// Fail closed: only allow and ask go on; an answer with any
		// other decision, or none, is not one the hook can act on
		// (TestUnknownDecisionDenies).
		deny(fmt.Sprintf("The session policy ledger could not decide %s for session %s, so the hook denies it: the ledger's answer holds no decision the hook knows (%q). Make the call again; to see what the ledger recorded, run: %s",
			tool, key, check.Decision, WhyCommand(why, key, tool, input, p.ToolUseID, check.Recorded)))
		return
	}
	res.Output = PassOutput("")
}

// errSessionNotRead stands for a check not made yet because the session
// must be read first (NotReady).
var errSessionNotRead = errors.New("cchook: the session is read before the check")

// NotReady reports whether a check refused with err may go through once
// the hook has readied its session (run.session): the ledger does not
// know it (or it is another orchestrator's, which the API answers alike),
// it is not active (ended, or a root that ended), or it has no turn (a
// check is made for turn 1 at least). Such a refusal records nothing.
func NotReady(err error) bool {
	if err == errSessionNotRead {
		return true
	}
	switch events.CodeOf(err) {
	case events.CodeUnknownSession, events.CodeSessionNotActive, events.CodeBadTurn:
		return true
	}
	return false
}

// callInput is the call's input as the ledger decides it: its paths read
// from the project's directory and the user's home. n, when read, is the
// session, whose project is the call's when no transcript names one.
func (r *run) callInput(n *client.TreeNode) json.RawMessage {
	p := r.p
	workDir := r.workDir()
	if p.TranscriptPath == "" && n != nil && n.Identity != nil && n.Identity.Project != "" && underAny(filepath.Clean(p.Cwd), []string{n.Identity.Project}) && r.h.opens(n.Identity.Project) {
		// No transcript names the project: the one the session started
		// in, which the cwd is under, rather than a .claude nearer the
		// cwd (TestI24HookServerNestedClaudeDirShiftsPaths).
		workDir = n.Identity.Project
	}
	home := HomeOf(p.TranscriptPath)
	if home == "" {
		home = r.h.Opts.Home
	}
	// The call's path is resolved through symbolic links where the hook
	// may look: the command hook (no Roots) anywhere, a hook server only
	// under its roots (the links found there lead where they lead).
	links := r.h.Opts.Roots == nil || underAny(filepath.Clean(workDir), r.h.Opts.Roots)
	if p.inputFields != nil {
		return callInputOf(p.ToolName, p.inputFields, workDir, home, p.Cwd, links)
	}
	var m map[string]json.RawMessage
	if len(p.ToolInput) == 0 || json.Unmarshal(p.ToolInput, &m) != nil {
		return nil
	}
	return callInputOf(p.ToolName, m, workDir, home, p.Cwd, links)
}

// errMsg is an error's message without its code.
func errMsg(err error) string {
	var ee *events.Error
	if errors.As(err, &ee) {
		return ee.Msg
	}
	return err.Error()
}
