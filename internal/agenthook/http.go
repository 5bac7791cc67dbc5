package agenthook

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// HTTPHook serves one runtime's hooks in `ledger serve --hooks`, at
// hookwire's path for it (/hooks/codex, /hooks/gemini, /hooks/qwen), as a
// cchook.PathHook: the thin hook (`ledger-hook --runtime codex --hooks
// URL`) posts a payload there and prints the answer, which is what
// `ledger hook codex` prints for it.
//
// Invariants (TestHTTPHookAnswers):
//   - The answer is Hook's (as HandleWithin's, run on the handler's
//     goroutine: cchook.AnswerWithin), the same mapping and the same
//     bytes as the NATS adapter's for the same ledger.
//   - The thin hook's headers are read only from a request that carried
//     the server's token (trusted non-nil): hookwire.HeaderScope binds a
//     new session's scope (a name that is not a scope denies a call, as
//     the adapter's bad --scope does), HeaderUser and HeaderHost are who
//     runs the runtime and where, HeaderUnreachable "allow" is the
//     adapter's --unreachable allow. Without them the base Hook's options
//     stand.
type HTTPHook struct {
	Hook *Hook
}

// Serve implements cchook.PathHook.
// write may be nil (nothing written).
func (s *HTTPHook) Serve(ctx context.Context, raw []byte, grace time.Duration, trusted http.Header, write func(res *Result, overdue bool)) *Result {
	if write == nil {
		write = func(*Result, bool) {}
	}
	h := s.Hook
	if trusted != nil {
		get := func(name string) string { return hookwire.DecodeHeader(trusted.Get(name)) }
		scope, user, host := get(hookwire.HeaderScope), get(hookwire.HeaderUser), get(hookwire.HeaderHost)
		if scope != "" && !hookwire.ValidScope(scope) {
			res := s.badScope(raw, scope)
			write(res, false)
			return res
		}
		c := *h
		if scope != "" {
			c.Opts.Scope = scope
		}
		if trusted.Get(hookwire.HeaderUnreachable) == "allow" {
			c.Opts.Unreachable = cchook.UnreachableAllow
		}
		if user != "" || host != "" {
			who := h.Opts.Who
			c.Opts.Who = func() cchook.Who {
				var w cchook.Who
				if who != nil {
					w = who()
				}
				if user != "" {
					w.User = user
				}
				if host != "" {
					w.Host = host
				}
				return w
			}
		}
		h = &c
	}
	return cchook.AnswerWithin(ctx, grace, func() *Result { return h.Handle(ctx, raw) }, func() *Result { return h.Overdue(raw) },
		func(v any, stack []byte) *Result { return h.Panicked(raw, v, stack) }, write)
}

// badScope answers a payload whose hook names a scope that is not one: a
// call is denied, anything else goes on with a warning.
func (s *HTTPHook) badScope(raw []byte, scope string) *Result {
	rt := s.Hook.Runtime
	msg := fmt.Sprintf("ledger-hook --runtime %s: --scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", rt.Command, scope)
	ev := peekEvent(raw)
	res := &Result{Appended: []cchook.Appended{}, Event: ev, Warnings: []string{msg}}
	if ev == "" || hookwire.IsCall(ev) {
		res.Denied, res.Reason = true, msg+" (the hook denies every call until its command line in the "+rt.Name+" configuration is fixed)"
		res.Output = rt.DenyOutput(res.Reason)
	}
	return res
}

// Deny implements cchook.PathHook.
func (s *HTTPHook) Deny(reason string) []byte { return s.Hook.Runtime.DenyOutput(reason) }

// Pass implements cchook.PathHook: no output, the runtimes' "no opinion"
// for every event but a call (what Handle answers them); the warning
// reaches the user as the thin hook's standard error only.
func (s *HTTPHook) Pass(string) []byte { return nil }

// Path is where `serve --hooks` takes the runtime's hooks.
func (rt Runtime) Path() string { return rt.wire().Path() }

// LocateWithin is an Options.Locate for a server: a cwd is looked into
// (its repository's files read) only under roots (cchook.Opens); any other
// is the project as it is named, its scope derived from its path.
func LocateWithin(roots []string) func(string) cchook.Location {
	return func(dir string) cchook.Location {
		if cchook.Opens(dir, roots) {
			return cchook.LocateProject(dir, nil)
		}
		return cchook.Location{Dir: dir}
	}
}
