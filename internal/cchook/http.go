package cchook

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// HTTPPath is where `ledger serve --hooks` takes Claude Code's HTTP hooks.
const HTTPPath = "/hooks/claude-code"

// DefaultMaxConcurrent bounds the payloads a Handler handles at once when
// Handler.MaxConcurrent is zero.
const DefaultMaxConcurrent = 64

// Handler serves the mapping to Claude Code's HTTP hooks ("type": "http"):
// each POST to HTTPPath is one payload, answered with what the command hook
// would print, always with status 200 (Claude Code treats any other status
// as a non-blocking error, which would let a call through without
// onFailure "block").
//
// Invariants (TestHTTPRefusals, TestHTTPBusy, TestHTTPOversized,
// TestRefusalPassesOtherEvents, TestHandlerPanicDenies):
//   - A request the handler will not serve is answered with a PreToolUse
//     denial (the path's runtime's), status 200, and nothing of it is
//     appended: a method but POST (405, no hook), another path, no valid
//     bearer token (unless Insecure), a Content-Type but application/json,
//     any Origin header (a browser's: Claude Code sends none), a Host that
//     is not a loopback name while the handler is reached on a loopback
//     address (DNS rebinding), a Content-Length over MaxPayload, or more
//     than MaxConcurrent payloads in hand already. Of another path, a
//     missing or wrong token and a busy server, what a runtime's own hook
//     meets when it or the server is set up wrong, the body is read (up to
//     maxPeek bytes, to tell the event only): one JSON object whose
//     hook_event_name is not a call's gets the runtime's pass answer with
//     a warning instead (a denial of gemini's BeforeAgent would block the
//     user's prompt); nothing else is read.
//   - A panic, in a hook's run (Within) or in the handler, is answered as
//     any failure of the hook's own: a call denied (PanicReason), anything
//     else passed with a warning, status 200, the panic logged with its
//     stack; never a dropped connection, which a thin hook reads as a
//     server it cannot reach.
//   - A body is read up to one byte over MaxPayload and never cut: Handle
//     denies one over it.
//   - Token "" and Insecure false refuses everything: a server is given a
//     token or told, by name, to take hooks without one.
type Handler struct {
	Hook *Hook
	// Token must come as "Authorization: Bearer TOKEN".
	Token string
	// Insecure takes hooks without a token.
	Insecure bool
	// Timeout bounds one payload; default 5s.
	Timeout time.Duration
	// MaxConcurrent bounds the payloads in hand at once; default
	// DefaultMaxConcurrent.
	MaxConcurrent int
	Logger        *slog.Logger
	// Paths are other runtimes' hooks served at their own paths
	// (/hooks/codex, ...) under the same token, checks, bounds and
	// timeout: `serve --hooks` serves agenthook's there.
	Paths map[string]PathHook

	once sync.Once
	sem  chan struct{}
}

func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// Claude Code only POSTs: another method is not a hook.
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "POST a hook payload", http.StatusMethodNotAllowed)
		return
	}
	w := &answerWriter{ResponseWriter: rw}
	var raw []byte
	defer func() {
		if v := recover(); v != nil {
			h.recovered(w, r, raw, v, debug.Stack())
		}
	}()
	ph := h.Paths[r.URL.Path]
	if ph != nil {
		// Every answer at a runtime's path is in that runtime's format,
		// and marked so for its thin hook (hookwire.HeaderAnswer).
		w.Header().Set(hookwire.HeaderAnswer, r.URL.Path)
	}
	if reason, peek := h.refusal(r); reason != "" {
		if peek {
			raw = peekBody(r)
		}
		h.refuse(w, r, reason, ph, raw)
		return
	}
	// Up to one byte over the limit: Handle denies a body over it rather
	// than decode a cut one. A body that cannot be read is handed over as
	// nothing, which Handle denies too: any status but 200 would let a call
	// through. The body is read before a slot is taken, so a client that
	// trickles one holds no slot (the server's ReadTimeout cuts it off:
	// TestI24HookServerSlowBodyHoldsSlots).
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxPayload+1))
	if err != nil {
		raw = nil
	}
	h.once.Do(func() {
		n := h.MaxConcurrent
		if n <= 0 {
			n = DefaultMaxConcurrent
		}
		h.sem = make(chan struct{}, n)
	})
	select {
	case h.sem <- struct{}{}:
		defer func() { <-h.sem }()
	default:
		h.refuse(w, r, fmt.Sprintf("the session policy ledger's hook server is handling its limit of %d hooks at once, so it denies this call unread; make the call again", cap(h.sem)), ph, raw)
		return
	}
	d := h.Timeout
	if d <= 0 {
		d = 5 * time.Second
	}
	// The answer comes within d: the run has d less its grace.
	grace := min(d/5, time.Second)
	ctx, cancel := context.WithTimeout(r.Context(), d-grace)
	defer cancel()
	thin := r.Header.Get(hookwire.HeaderThin) == "1"
	if ph != nil {
		h.servePath(ctx, w, r, ph, raw, grace, thin)
		return
	}
	hook := h.Hook
	if thin && h.Token != "" {
		hook = withEnvironment(h.Hook, r.Header)
	}
	AnswerWithin(ctx, grace, func() *Result { return hook.Handle(ctx, raw) }, func() *Result { return Overdue(raw, grace) },
		func(v any, stack []byte) *Result { return Panicked(raw, v, stack) }, h.writer(w, r, thin, true, nil))
}

// writer is the write AnswerWithin calls for request r: the answer res,
// with the thin hook's headers when thin (thinHeaders; exit only on
// Claude Code's path: an agent runtime's hook exits 0 whatever happens),
// closing the connection when overdue, then the log line. It marks
// answered, when given.
func (h *Handler) writer(w http.ResponseWriter, r *http.Request, thin, exit bool, answered *atomic.Bool) func(*Result, bool) {
	verbose := r.Header.Get(hookwire.HeaderVerbose) == "1"
	return func(res *Result, overdue bool) {
		if answered != nil {
			answered.Store(true)
		}
		hdr := w.Header()
		hdr.Set("Content-Type", "application/json")
		if overdue {
			closeAfter(hdr)
		}
		if thin {
			thinHeaders(hdr, res, verbose, exit)
		}
		answer(w, res.Output)
		h.logPanic(r, res)
		if h.Logger != nil {
			h.Logger.Info("hook", "path", r.URL.Path, "event", res.Event, "session", res.Session, "decision", res.Decision,
				"denied", res.Denied, "unreadable", res.Unreadable, "appended", len(res.Appended), "warnings", res.Warnings, "thin", thin, "overdue", overdue)
		}
	}
}

// closeAfter marks an overdue answer's connection to be closed: the
// handler holds it until the run returns, so the client is not to send
// its next hook on it (TestHTTPOverdue).
func closeAfter(hdr http.Header) { hdr.Set("Connection", "close") }

// AnswerWithin is Within for an answer that must be written by a bound
// while its run may go on: run is made on the calling goroutine, with no
// hand-off (serve --hooks' handler: a goroutine woken for each payload
// cost its answer about 12 µs, docs/bench.md), and write is called exactly
// once, from one goroutine at a time, with the run's result (overdue
// false), or, when ctx is done and grace has passed before the run
// returns, with overdue's (overdue true), from a timer's goroutine while
// the run goes on. A run that panics is answered with panicked's. It
// returns when the run has returned and the answer is written, with the
// result written: the caller holds what write writes to until then
// (TestAnswerWithin). A panic in overdue or in that write is raised again
// on the calling goroutine once the run returns.
func AnswerWithin[T any](ctx context.Context, grace time.Duration, run, overdue func() T, panicked func(v any, stack []byte) T, write func(res T, overdue bool)) T {
	var (
		mu      sync.Mutex
		claimed bool
		timer   *time.Timer
		late    T
		failed  any
	)
	claim := func() bool {
		mu.Lock()
		defer mu.Unlock()
		ok := !claimed
		claimed = true
		if timer != nil {
			timer.Stop()
		}
		return ok
	}
	written := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if claimed {
			return
		}
		timer = time.AfterFunc(grace, func() {
			mu.Lock()
			if claimed {
				mu.Unlock()
				return
			}
			claimed = true
			mu.Unlock()
			defer close(written)
			defer func() { failed = recover() }()
			late = overdue()
			write(late, true)
		})
	})
	res := func() (res T) {
		defer func() {
			if v := recover(); v != nil {
				res = panicked(v, debug.Stack())
			}
		}()
		return run()
	}()
	stop()
	if claim() {
		write(res, false)
		return res
	}
	<-written
	if failed != nil {
		panic(failed)
	}
	return late
}

// answer writes out a hook's answer, with its length, and sends it at
// once: what the handler does after it (its log line) never holds the
// answer back (TestHTTPSlowLogHoldsNoAnswer). The response is the one
// net/http would send when the handler returns (Content-Length, no
// chunks).
func answer(w http.ResponseWriter, out []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// withEnvironment is hook for one request of the thin hook (a command
// hook's process: hookwire's headers), which carried the server's token:
// the project is Claude Code's CLAUDE_PROJECT_DIR (still opened only under
// Options.Roots), and a root's identity takes the hook's AI_AGENT (its
// runtime_version), user and host, as the NATS hook's does
// (TestThinHeaders). A request without the token is never read so: the
// handler reads the headers only when it checks a token.
func withEnvironment(base *Hook, hdr http.Header) *Hook {
	get := func(name string) string { return hookwire.DecodeHeader(hdr.Get(name)) }
	project, agent, user, host := get(hookwire.HeaderProjectDir), get(hookwire.HeaderAIAgent), get(hookwire.HeaderUser), get(hookwire.HeaderHost)
	if project == "" && agent == "" && user == "" && host == "" {
		return base
	}
	h := *base
	if project != "" && filepath.IsAbs(project) && filepath.Clean(project) == project {
		base := base.Opts.WorkDir
		h.Opts.WorkDir = func(cwd, transcript string) string {
			if underAny(filepath.Clean(cwd), []string{project}) || base == nil {
				return project
			}
			return base(cwd, transcript)
		}
	}
	who := base.Opts.Who
	h.Opts.Who = func() Who {
		var w Who
		if who != nil {
			w = who()
		}
		if v := RuntimeVersionOf(agent); v != "" {
			w.RuntimeVersion = v
		}
		if user != "" {
			w.User = user
		}
		if host != "" {
			w.Host = host
		}
		return w
	}
	return &h
}

// thinHeaders tell the thin hook what the command hook would do besides
// printing res.Output: its exit status, its warnings, and with verbose its
// result (the command hook's --verbose line).
func thinHeaders(hdr http.Header, res *Result, verbose, exit bool) {
	if exit && res.Unreadable && res.Event == "" {
		hdr.Set(hookwire.HeaderExit, "2")
	}
	for _, w := range res.Warnings {
		hdr.Add(hookwire.HeaderWarning, hookwire.EncodeHeader(w))
	}
	if verbose {
		b, _ := json.Marshal(res)
		hdr.Set(hookwire.HeaderResult, hookwire.EncodeHeader(string(b)))
	}
}

// refusal is why the handler will not serve r, or "", and whether its
// body may be peeked at to tell a call from another event (refuse): only
// for what a runtime's own hook meets when it or the server is set up
// wrong (another path, no token to check, a wrong token). What no
// runtime's hook sends (an Origin, another Content-Type, a foreign Host)
// and a body over the limit are denied unread.
func (h *Handler) refusal(r *http.Request) (string, bool) {
	const who = "the session policy ledger's hook server"
	if r.URL.Path != HTTPPath && h.Paths[r.URL.Path] == nil {
		return who + " takes hooks at POST " + HTTPPath + ", not " + r.URL.Path +
			": the call is denied until the hook's URL in the project's .claude settings is fixed ('ledger hook install --url')", true
	}
	if h.Token == "" && !h.Insecure {
		return who + " has no token to check hooks against, so it takes none: give 'ledger serve' --hooks-token-file (or --hooks-insecure)", true
	}
	if h.Token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+h.Token)) != 1 {
		return who + " refused this hook: no valid 'Authorization: Bearer' token (the server's --hooks-token-file); " +
			"the call is denied until the hook's headers carry it ('ledger hook install --url' writes them)", true
	}
	if o := r.Header.Get("Origin"); o != "" {
		return who + " refused a request from a web page (Origin " + strconv.Quote(o) + "): Claude Code's hooks send no Origin", false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return who + " takes only Content-Type application/json, not " + strconv.Quote(r.Header.Get("Content-Type")), false
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && loopbackAddr(local) && !loopbackHost(r.Host) {
		return who + " listens on loopback and refused Host " + strconv.Quote(r.Host) + " (a name that resolves elsewhere: DNS rebinding); use http://127.0.0.1:PORT or http://localhost:PORT", false
	}
	if r.ContentLength > MaxPayload {
		return fmt.Sprintf("%s refused a payload of %d bytes, over its limit of %d MiB: the call is denied unread", who, r.ContentLength, MaxPayload>>20), false
	}
	return "", false
}

// maxPeek bounds what is read of a refused request's body to tell its
// event (refusal): a request that did not carry the token reads no more
// than this, and one past it is denied as a call.
const maxPeek = 1 << 20

// peekBody is r's body when it is at most maxPeek bytes, nil otherwise.
func peekBody(r *http.Request) []byte {
	if r.ContentLength > maxPeek {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
	if err != nil || len(raw) > maxPeek {
		return nil
	}
	return raw
}

// loopbackAddr reports whether a is a loopback TCP address.
func loopbackAddr(a net.Addr) bool {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether the Host header hostPort names this
// machine's loopback: localhost or a loopback IP, any port.
func loopbackHost(hostPort string) bool {
	host := hostPort
	if h, _, err := net.SplitHostPort(hostPort); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// refuse answers a request it will not handle, with nothing of it
// appended: raw (what was read of its body, nil when nothing was) that is
// one JSON object naming an event that is not a call (hookwire.PeekAt and
// IsCall: a SessionStart, a prompt, gemini's BeforeAgent) gets the
// runtime's pass answer (ph's, or Claude Code's: PassOutput) with a
// warning saying why nothing was recorded; anything else, a call or what
// cannot be told from one, the runtime's denial (TestRefusalPassesOtherEvents).
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, reason string, ph PathHook, raw []byte) {
	pk := PeekAt(raw)
	pass := pk.Told && !hookwire.IsCall(pk.Event)
	if h.Logger != nil {
		h.Logger.Warn("hook refused", "path", r.URL.Path, "event", pk.Event, "denied", !pass, "reason", reason)
	}
	w.Header().Set("Content-Type", "application/json")
	if !pass {
		deny := DenyOutput
		if ph != nil {
			deny = ph.Deny
		}
		answer(w, deny(reason))
		return
	}
	msg := "ledger hook: nothing was recorded for this " + pk.Event + ": " + reason
	w.Header().Add(hookwire.HeaderWarning, hookwire.EncodeHeader(msg))
	if ph != nil {
		answer(w, ph.Pass(msg))
		return
	}
	answer(w, PassOutput(msg))
}

// recovered answers a request whose handling panicked outside a hook's
// run (which Within recovers): with what refuse answers for raw (what was
// read of its body), the reason PanicReason, unless an answer was written
// already; the panic is logged with its stack either way. The handler
// never lets net/http drop the connection, which a thin hook would read
// as a server that cannot be reached (TestHandlerPanicDenies).
func (h *Handler) recovered(w *answerWriter, r *http.Request, raw []byte, v any, stack []byte) {
	pk := PeekAt(raw)
	if h.Logger != nil {
		h.Logger.Error(panicLog, "panic", fmt.Sprint(v), "path", r.URL.Path, "event", pk.Event, "stack", string(stack))
	}
	if w.wrote {
		return
	}
	ph := h.Paths[r.URL.Path]
	hdr := w.Header()
	for _, k := range []string{hookwire.HeaderWarning, hookwire.HeaderResult, hookwire.HeaderExit, "Content-Length"} {
		hdr.Del(k)
	}
	if ph != nil {
		hdr.Set(hookwire.HeaderAnswer, r.URL.Path)
	}
	hdr.Set("Content-Type", "application/json")
	if !pk.Told || hookwire.IsCall(pk.Event) {
		deny := DenyOutput
		if ph != nil {
			deny = ph.Deny
		}
		answer(w, deny(PanicReason(v)))
		return
	}
	msg := "ledger hook: " + PanicWarning(v) + " (nothing more is recorded for this " + pk.Event + ")"
	hdr.Add(hookwire.HeaderWarning, hookwire.EncodeHeader(msg))
	if ph != nil {
		answer(w, ph.Pass(msg))
		return
	}
	answer(w, PassOutput(msg))
}

// logPanic logs the stack of a run that panicked (Result.Stack), which
// Within answered (Panicked).
func (h *Handler) logPanic(r *http.Request, res *Result) {
	if len(res.Stack) > 0 && h.Logger != nil {
		h.Logger.Error(panicLog, "path", r.URL.Path, "event", res.Event, "session", res.Session, "warnings", res.Warnings, "stack", string(res.Stack))
	}
}

// answerWriter is a ResponseWriter that knows whether an answer was
// written (recovered).
type answerWriter struct {
	http.ResponseWriter
	wrote bool
}

func (a *answerWriter) WriteHeader(code int) {
	a.wrote = true
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerWriter) Write(b []byte) (int, error) {
	a.wrote = true
	return a.ResponseWriter.Write(b)
}

func (a *answerWriter) Flush() {
	if f, ok := a.ResponseWriter.(http.Flusher); ok {
		a.wrote = true
		f.Flush()
	}
}

func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// PathHook is another runtime's hooks, which a Handler serves at a path of
// its own (Handler.Paths): agenthook's codex, gemini and qwen.
type PathHook interface {
	// Serve maps one payload and answers it with write, called once, by
	// ctx's deadline plus grace, as AnswerWithin does (the run on the
	// caller's goroutine, an overdue answer written while it goes on), and
	// returns the answer written once the run has returned. trusted holds
	// the thin hook's headers (hookwire's) of a request that carried the
	// server's token, nil otherwise.
	Serve(ctx context.Context, raw []byte, grace time.Duration, trusted http.Header, write func(res *Result, overdue bool)) *Result
	// Deny is the runtime's denial of a call, the answer to a request
	// the handler refuses.
	Deny(reason string) []byte
	// Pass is the runtime's answer to any other event, with warning for
	// its user where the runtime shows one (it also goes as
	// hookwire.HeaderWarning): the answer to a request of another event
	// the handler refuses.
	Pass(warning string) []byte
}

// servePath answers a payload of another runtime: its answer as its
// command hook prints it (empty: no opinion, with a Content-Length of 0
// and, as every answer at the path, hookwire.HeaderAnswer, without which
// the thin hook takes no answer: TestThinAgentNeedsAnswerMark,
// agenthook's TestHTTPHookAnswers), and for the thin hook its
// warnings (and with verbose its result) as headers. An agent runtime's
// hook exits 0 whatever happens (it runs a call whose hook fails), so no
// exit status is sent (agenthook's TestHTTPHookAnswers).
func (h *Handler) servePath(ctx context.Context, w http.ResponseWriter, r *http.Request, ph PathHook, raw []byte, grace time.Duration, thin bool) {
	var trusted http.Header
	if thin && h.Token != "" {
		trusted = r.Header
	}
	var answered atomic.Bool
	ph.Serve(ctx, raw, grace, trusted, h.writer(w, r, thin, false, &answered))
	if !answered.Load() {
		// A runtime's hooks that returned without an answer: an empty
		// body would be no opinion, which runs a call
		// (TestPathWithoutAnswerDenies).
		h.refuse(w, r, "the session policy ledger's hook server had no answer for this payload (an internal error), so it denies it: make the call again", ph, raw)
	}
}

// Opens reports whether path may be opened by a hook confined to roots:
// absolute and clean, and under one of them (nil: any) both as written and
// with its links resolved; what Options.Roots confines Hook to.
func Opens(path string, roots []string) bool {
	return (&Hook{Opts: Options{Roots: roots}}).opens(path)
}
