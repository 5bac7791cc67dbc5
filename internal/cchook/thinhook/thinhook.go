// Package thinhook is the thin command hook: `ledger-hook --hooks URL` (and
// `ledger hook claude-code --hooks URL`). One run reads one payload from
// standard input, POSTs it to a running `ledger serve --hooks` (over
// loopback HTTP, or the server's Unix socket, unix:PATH) with what only a
// command hook's process knows (Claude Code's CLAUDE_PROJECT_DIR and
// AI_AGENT, the user, the host) as hookwire's headers, and prints the
// answer and exits as the NATS-speaking hook (internal/cchook/hookcmd)
// does. It does the ledger's work in no process of its own: a hook is a
// process per event, so its start-up is its cost.
//
// Invariants:
//   - The package's graph holds no nats.go (nor anything heavier): it
//     imports the standard library and hookwire only (tests/arch
//     TestThinHookLinksNoNATS, cmd/ledger-hook's TestDeps).
//   - Fail closed: a server that cannot be reached (no socket, refused,
//     past --timeout), answers with a status but 2xx, or answers anything
//     but one JSON object, is "the ledger cannot be reached": a PreToolUse
//     (or a payload whose event cannot be told) is denied with
//     hookwire.UnreachableReason, the NATS hook's message, unless
//     --unreachable allow; any other event goes on with the NATS hook's
//     warning (TestThinUnreachable).
//   - Given a payload, Run prints Claude Code's hook output and returns nil
//     or an *ExitError of code 2 (the server's Ledger-Hook-Exit, or a
//     payload whose event cannot be told while the server is unreachable,
//     or standard input held open past --timeout); without a payload a bad
//     command line is an *ExitError of code 2 (TestThinExitCodes).
//   - With --runtime codex|gemini|qwen the payload goes to the runtime's
//     path (hookwire.Agent.Path) with --scope as hookwire.HeaderScope, the
//     answer is printed as `ledger hook R` prints it (an empty one prints
//     nothing), and the run exits 0 whatever happens, as that adapter
//     does: an unreachable server denies a call (or a payload whose event
//     cannot be told) in the runtime's own format with the adapter's
//     message (hookwire.Agent.UnreachableReason), unless --unreachable
//     allow, and lets any other event go on with a warning
//     (TestThinAgentUnreachable, TestThinAgentAnswers). An answer is
//     serve --hooks's only when marked hookwire.HeaderAnswer with the
//     runtime's path, and an empty one only with a Content-Length of 0:
//     anything else is a server that does not answer
//     (TestThinAgentNeedsAnswerMark).
//   - A --hooks path that is another runtime's (/hooks/codex for gemini,
//     /hooks/gemini for Claude Code, ...), answered in a format this
//     runtime does not read, is a bad command line: a call is denied
//     whatever --unreachable says (TestThinRefusesOtherRuntimePath).
//   - Everything is answered within --timeout of the start (the payload's
//     read and the round trip: TestThinUnreachable/timeout, and standard
//     input held open in TestThinExitCodes).
//   - A panic in a run is the hook's internal error, answered as the NATS
//     hooks answer one, never Go's exit 2 with a stack: a call (or what
//     cannot be told from one) denied in the runtime's format with
//     hookwire.PanicReason, whatever --unreachable says, and any other
//     event let go on with hookwire.PanicWarning; the warning and the
//     stack on standard error (TestThinPanicDenies).
package thinhook

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// HTTPPath is where `serve --hooks` takes hooks (cchook.HTTPPath).
const HTTPPath = "/hooks/claude-code"

// DefaultTimeout bounds a run: above `serve --hooks`'s own bound on an
// answer (--hooks-timeout, 5s), below Claude Code's on the hook ('hook
// install --hook-timeout', 10s).
const DefaultTimeout = 6 * time.Second

// ExitError is an error with the exit code the command ends with; Msg is
// empty when the message was printed already (the flag package's).
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

func usageError(format string, args ...any) error {
	return &ExitError{Code: 2, Msg: fmt.Sprintf(format, args...)}
}

var errHelp = errors.New("help requested")

// Flags are the thin hook's flags.
type Flags struct {
	hooks, tokenFile, tokenEnv string
	noToken                    bool
	unreachable, identity      string
	timeout                    time.Duration
	verbose                    bool
	tokenFileSet               bool
	runtime, scope             string
	agent                      *hookwire.Agent
}

func (f *Flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.hooks, "hooks", os.Getenv("LEDGER_HOOKS_URL"), "the `URL` of a running 'ledger serve --hooks' (env LEDGER_HOOKS_URL): http://127.0.0.1:PORT"+HTTPPath+",\nor unix:PATH for the server's Unix socket ('serve --hooks unix:PATH')")
	fs.StringVar(&f.tokenFile, "token-file", DefaultTokenFile(), "the `FILE` holding the server's hook token (its --hooks-token-file; default the same file)")
	fs.StringVar(&f.tokenEnv, "token-env", "", "send the token in the environment variable `NAME` instead of --token-file's")
	fs.BoolVar(&f.noToken, "no-token", false, "send no token (a server run with --hooks-insecure)")
	fs.StringVar(&f.unreachable, "unreachable", "deny", "what a PreToolUse answers when the server cannot be reached: deny (fail closed) or allow (let Claude Code decide alone);\nevery other event goes ahead whatever happens")
	fs.DurationVar(&f.timeout, "timeout", DefaultTimeout, "bound on the whole run (reading the payload, the server's answer); keep it above the server's --hooks-timeout\nand under the hooks' own timeout ('hook install --hook-timeout')")
	fs.StringVar(&f.identity, "user-identity", os.Getenv("LEDGER_IDENTITY"), "the user `NAME` a session records as who started it (env LEDGER_IDENTITY; default: the OS user's name)")
	fs.StringVar(&f.runtime, "runtime", "claude-code", "the `RUNTIME` whose hook this is: claude-code, codex, gemini or qwen; the payload goes to the server's\n/hooks/RUNTIME ('serve --hooks' serves all four), and is answered in that runtime's format")
	fs.StringVar(&f.scope, "scope", "", "with --runtime codex|gemini|qwen: bind every session this hook starts to scope `NAME` (as 'ledger hook R --scope');\ndefault: derived from the project")
	fs.BoolVar(&f.verbose, "verbose", false, "print what the server's hook did (the events appended, the decision, warnings) as one JSON line on standard error")
}

// target is where the hook posts: the request URL, the dialer (a Unix
// socket's, or nil), and the name its messages give the ledger.
type target struct {
	where, socket    string
	host, hostHeader string
	path             string
}

func parseTarget(s string, agent *hookwire.Agent) (target, error) {
	t, err := parseURL(s)
	if err == nil && agent != nil && (t.socket != "" || t.path == "/" || strings.TrimSuffix(t.path, "/") == HTTPPath) {
		// The server's address (or its Claude Code URL, which 'serve
		// --hooks' logs): the runtime's path on it.
		t.path = agent.Path()
	}
	if err != nil {
		return t, err
	}
	// Another runtime's path is answered in that runtime's format, which
	// this hook's runtime does not read: a usage error, so a call is
	// denied (TestThinRefusesOtherRuntimePath).
	own, name := HTTPPath, "Claude Code"
	if agent != nil {
		own, name = agent.Path(), agent.Name
	}
	if other, ok := hookwire.RuntimePath(t.path); ok && "/hooks/"+other != own {
		return target{}, fmt.Errorf("--hooks %q: %s is where 'ledger serve --hooks' takes %s's hooks, answered in its format, which %s does not read; %s's go to %s: give the server's address (http://HOST:PORT or unix:PATH) and the hook posts there", s, t.path, other, name, name, own)
	}
	return t, nil
}

func parseURL(s string) (target, error) {
	if s == "" {
		return target{}, errors.New("--hooks is required: the URL of a running 'ledger serve --hooks' (http://127.0.0.1:PORT" + HTTPPath + " or unix:PATH)")
	}
	if p, ok := strings.CutPrefix(s, "unix:"); ok {
		if p == "" || !filepath.IsAbs(p) {
			return target{}, fmt.Errorf("--hooks %q: a socket is unix: and an absolute path", s)
		}
		return target{where: s, socket: p, hostHeader: "localhost", path: HTTPPath}, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return target{}, fmt.Errorf("--hooks %q: give http://HOST:PORT%s (plain HTTP, to a server on this machine) or unix:PATH", s, HTTPPath)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return target{where: s, host: host, hostHeader: u.Host, path: path}, nil
}

func (f *Flags) check() (target, error) {
	if f.unreachable != "deny" && f.unreachable != "allow" {
		return target{}, usageError("--unreachable %q: use deny or allow", f.unreachable)
	}
	if f.timeout <= 0 {
		return target{}, usageError("--timeout must be positive, got %s", f.timeout)
	}
	if f.runtime != "claude-code" {
		a, ok := hookwire.Agents[f.runtime]
		if !ok {
			return target{}, usageError("--runtime %q: use claude-code, codex, gemini or qwen", f.runtime)
		}
		f.agent = &a
	}
	if f.scope != "" && (f.agent == nil || !hookwire.ValidScope(f.scope)) {
		if f.agent == nil {
			return target{}, usageError("--scope is for --runtime codex|gemini|qwen: Claude Code's scope is the server's --hooks-scope")
		}
		return target{}, usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	if n := btoi(f.noToken) + btoi(f.tokenEnv != "") + btoi(f.tokenFileSet); n > 1 {
		return target{}, usageError("give the token with one of --token-file, --token-env and --no-token")
	}
	t, err := parseTarget(f.hooks, f.agent)
	if err != nil {
		return target{}, usageError("%v", err)
	}
	return t, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// token is the bearer token to send, "" for none: --no-token, an unset
// --token-env, or no token file where the default one would be.
func (f *Flags) token() (string, error) {
	switch {
	case f.noToken:
		return "", nil
	case f.tokenEnv != "":
		return strings.TrimSpace(os.Getenv(f.tokenEnv)), nil
	case f.tokenFile == "":
		return "", nil
	}
	b, err := readSmall(f.tokenFile, 4096)
	if errors.Is(err, fs.ErrNotExist) && !f.tokenFileSet {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("the hook token file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// DefaultTokenFile is $XDG_CONFIG_HOME/ledger/hooks-token (the platform's
// user config directory), the file 'serve --hooks' and 'hook install --url'
// read by default; "" when there is none.
func DefaultTokenFile() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ledger", "hooks-token")
}

const about = "The thin command hook: it reads one Claude Code hook payload on standard input, hands it to a running\n" +
	"'ledger serve --hooks' (--hooks URL: loopback HTTP or the server's Unix socket, unix:PATH) with what\n" +
	"only a command hook knows (CLAUDE_PROJECT_DIR, AI_AGENT, the user and host), and prints the answer,\n" +
	"exiting as 'ledger hook claude-code --nats' does. A server that cannot be reached, answers a status\n" +
	"but 2xx or an answer that does not read denies a PreToolUse (--unreachable deny, the default) and\n" +
	"lets every other event go on. 'ledger hook install --url URL' installs it for SessionStart, the one\n" +
	"event Claude Code does not send HTTP hooks. See docs/claude-code-hooks.md.\n\n" +
	"With --runtime codex|gemini|qwen it is the same hook for Codex CLI, Gemini CLI or Qwen Code: the payload goes to\n" +
	"the server's /hooks/RUNTIME, the answer is what 'ledger hook RUNTIME' prints (exit 0), and a server that cannot be\n" +
	"reached denies a call in the runtime's format ('ledger hook install --runtime R --url URL' installs it; see\n" +
	"docs/codex-cli-hooks.md)."

func flagSet(name string, stderr io.Writer) (*flag.FlagSet, *Flags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s --hooks URL [flags] < PAYLOAD\n\n%s\n\nFlags:\n", name, about)
		fs.PrintDefaults()
	}
	var f Flags
	f.register(fs)
	return fs, &f
}

func parse(fs *flag.FlagSet, f *Flags, args []string) error {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return errHelp
			}
			return &ExitError{Code: 2}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		return usageError("the hook takes no arguments, got %q", args)
	}
	fs.Visit(func(fl *flag.Flag) { f.tokenFileSet = f.tokenFileSet || fl.Name == "token-file" })
	return nil
}

// Wants reports whether a hook command line asks for the thin hook: it
// names --hooks.
func Wants(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "hooks" {
			return true
		}
	}
	return false
}

// Check says whether Run would accept the command line args: nil, or an
// *ExitError saying what to fix. `ledger hook install` checks the command
// it writes with it.
func Check(args []string) error {
	fs, f := flagSet("ledger-hook", io.Discard)
	if err := parse(fs, f, args); err != nil {
		if errors.Is(err, errHelp) {
			return usageError("--help is not a hook flag")
		}
		var ee *ExitError
		if errors.As(err, &ee) && ee.Msg == "" {
			return usageError("the hook flags do not parse (%q)", args)
		}
		return err
	}
	_, err := f.check()
	return err
}

// Timeout is the bound of a run with the command line args (which pass
// Check).
func Timeout(args []string) time.Duration {
	fs, f := flagSet("ledger-hook", io.Discard)
	_ = parse(fs, f, args)
	return f.timeout
}

// Run is one run of the thin hook named name (its usage line's command).
// The cancellation of ctx ends its wait for the server's answer (which it
// then answers as a server that cannot be reached).
func Run(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runHook(ctx, nil, name, args, stdin, stdout, stderr)
}

// RunSignals is Run for the hook's own process (cmd/ledger-hook): a signal
// on sig (signal.Notify's channel) ends the run's wait for the server as
// the cancellation of Run's context does. It does so without a goroutine
// that waits for the signal (signal.NotifyContext's): in a process that
// lives a few milliseconds, every goroutine that waits is a thread
// started (issue 28).
func RunSignals(sig <-chan os.Signal, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runHook(context.Background(), sig, name, args, stdin, stdout, stderr)
}

// runHook is Run and RunSignals. A panic in the run is answered as the
// NATS hooks answer one (panicked): never Go's exit 2 with the stack,
// which a runtime reads as a denial of whatever event it was, a prompt
// included (TestThinPanicDenies).
func runHook(ctx context.Context, sig <-chan os.Signal, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var raw []byte
	out := &outWriter{w: stdout}
	defer func() {
		if v := recover(); v != nil {
			err = panicked(name, args, raw, v, out, stderr)
		}
	}()
	return runPayload(ctx, sig, name, args, stdin, out, stderr, &raw)
}

// outWriter knows whether anything was written to standard output: a run
// that panicked prints its answer only when none was printed (hookcmd's
// OutWriter, which this package may not link).
type outWriter struct {
	w     io.Writer
	wrote bool
}

func (o *outWriter) Write(b []byte) (int, error) {
	o.wrote = true
	return o.w.Write(b)
}

// panicked answers a run that panicked with v, having read raw (nil when
// it panicked before): the warning (hookwire.PanicWarning) and the stack
// on standard error, and, unless an answer was printed already, the
// answer the NATS hook of the runtime gives a panic. For Claude Code
// (cchook.Panicked, hookcmd): a PreToolUse denied with
// hookwire.PanicReason, exit 0, and a payload whose event cannot be told
// denied with exit 2; any other event goes on with the warning as a
// systemMessage. For codex, gemini and qwen (agenthook's Panicked,
// `ledger hook R`): a call, or what cannot be told from one, denied in the
// runtime's format, anything else no opinion, exit 0 always. It decides
// on the flags and the payload alone, so a panic of --unreachable allow's
// run denies too.
func panicked(name string, args []string, raw []byte, v any, out *outWriter, stderr io.Writer) error {
	what := fmt.Sprint(v)
	warning := hookwire.PanicWarning(what)
	fmt.Fprintln(stderr, "ledger hook:", warning)
	fmt.Fprintf(stderr, "%s\n", stack())
	if out.wrote {
		return nil
	}
	// The runtime, as the run read it from the same flags: the flag
	// package does not panic on a command line.
	fs, f := flagSet(name, io.Discard)
	_ = parse(fs, f, args)
	pk := hookwire.PeekAt(raw)
	reason := hookwire.PanicReason(what)
	if a, ok := hookwire.Agents[f.runtime]; ok {
		if pk.Told && !hookwire.IsCall(pk.Event) {
			return nil
		}
		return hookwire.WriteOutput(out, a.DenyOutput(reason))
	}
	if pk.Told && pk.Event != hookwire.PreToolUse {
		return hookwire.WriteOutput(out, hookwire.PassOutput("ledger hook: "+warning+" (this "+pk.Event+" goes on)"))
	}
	if err := hookwire.WriteOutput(out, hookwire.DenyOutput(reason)); err != nil {
		return err
	}
	if !pk.Told {
		// Not even the event can be told: exit 2 blocks the call, if it
		// is one (the NATS hook's rule for what it cannot read).
		return &ExitError{Code: 2, Msg: reason}
	}
	return nil
}

// stack is the calling goroutine's stack, as runtime/debug.Stack makes it
// (runtime/debug is one package more in every hook process's graph).
func stack() []byte {
	buf := make([]byte, 4096)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// runPayload is runHook's run; it keeps the payload it read in *payload,
// for the answer to a panic.
func runPayload(ctx context.Context, sig <-chan os.Signal, name string, args []string, stdin io.Reader, stdout, stderr io.Writer, payload *[]byte) error {
	start := time.Now()
	fs, f := flagSet(name, stderr)
	err := parse(fs, f, args)
	help := errors.Is(err, errHelp)
	if help {
		// The usage is printed. A hook's --help is a bad flag: given a
		// payload (Claude Code pipes one), the hook must not answer
		// nothing, which lets a call run; it answers as for any bad
		// flag. A terminal (or /dev/null) holds no payload to wait for.
		if !hookwire.MayHoldPayload(stdin) {
			return nil
		}
		err = usageError("--help is not a hook flag")
		if a, ok := hookwire.Agents[f.runtime]; ok {
			f.agent = &a
		}
	}
	var tg target
	if err == nil {
		tg, err = f.check()
	}
	readFor := DefaultTimeout
	if err == nil {
		readFor = f.timeout
	}
	raw, rerr := readPayloadWithin(stdin, readFor)
	*payload = raw
	if errors.Is(rerr, hookwire.ErrSlowStdin) {
		reason := hookwire.UnreadableReason(false, rerr)
		if f.agent != nil {
			fmt.Fprintln(stderr, "ledger hook:", rerr)
			return hookwire.WriteOutput(stdout, f.agent.DenyOutput(reason))
		}
		_ = hookwire.WriteOutput(stdout, hookwire.DenyOutput(reason))
		return &ExitError{Code: 2, Msg: reason}
	}
	var token string
	if err == nil {
		token, err = f.token()
	}
	if err != nil {
		var ee *ExitError
		msg := err.Error()
		if errors.As(err, &ee) && ee.Msg == "" {
			msg = "bad flags (see the usage above)"
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if help {
				return nil
			}
			if ee == nil {
				return &ExitError{Code: 2, Msg: msg}
			}
			return err
		}
		if f.agent != nil {
			fmt.Fprintln(stderr, name+": "+msg)
			if pk := hookwire.PeekAt(raw); !pk.Told || hookwire.IsCall(pk.Event) {
				return hookwire.WriteOutput(stdout, f.agent.DenyOutput(name+": "+msg+" (the hook denies every call until its command line in the "+f.agent.Name+" configuration is fixed)"))
			}
			return nil
		}
		return hookwire.WriteOutput(stdout, hookwire.BadCommandLine(raw, name+": "+msg))
	}
	if rerr != nil {
		raw = nil
	}
	ans, err := f.post(&waiter{ctx: ctx, sig: sig, deadline: start.Add(f.timeout)}, tg, token, raw)
	if err != nil {
		return f.unreachableAnswer(tg, raw, err, stdout, stderr)
	}
	for _, w := range ans.warnings {
		fmt.Fprintln(stderr, "ledger hook:", w)
	}
	if f.verbose && ans.result != "" {
		fmt.Fprintln(stderr, ans.result)
	}
	if f.agent != nil && len(ans.body) == 0 {
		return nil
	}
	if err := hookwire.WriteOutput(stdout, ans.body); err != nil {
		return err
	}
	if ans.exit != 0 {
		return &ExitError{Code: ans.exit, Msg: ans.reason}
	}
	return nil
}

// unreachableAnswer answers a payload the server did not answer: as the
// NATS hook answers one its ledger did not.
func (f *Flags) unreachableAnswer(tg target, raw []byte, err error, stdout, stderr io.Writer) error {
	pk := hookwire.PeekAt(raw)
	if f.agent != nil {
		return f.agentUnreachable(tg, pk, err, stdout, stderr)
	}
	if pk.Told && pk.Event != hookwire.PreToolUse {
		w := hookwire.UnreachableOther(tg.where, pk.Event, err)
		fmt.Fprintln(stderr, "ledger hook:", w)
		return hookwire.WriteOutput(stdout, hookwire.PassOutput("ledger hook: "+w))
	}
	tool := pk.Tool
	if tool == "" {
		tool = "this call"
	}
	if f.unreachable == "allow" && pk.Told {
		w := hookwire.UnreachableAllowed(tg.where, tool, err)
		fmt.Fprintln(stderr, "ledger hook:", w)
		return hookwire.WriteOutput(stdout, hookwire.PassOutput("ledger hook: "+w))
	}
	reason := hookwire.UnreachableReason(tg.where, tool, err)
	if err := hookwire.WriteOutput(stdout, hookwire.DenyOutput(reason)); err != nil {
		return err
	}
	if !pk.Told {
		// Not even the event can be told: exit 2 blocks the call, if it
		// is one (the NATS hook's rule for what it cannot read).
		return &ExitError{Code: 2, Msg: reason}
	}
	return nil
}

// agentUnreachable is unreachableAnswer for an agent runtime, as `ledger
// hook R` answers when it cannot reach the ledger: a call (or what cannot
// be told from one) denied in the runtime's format, anything else goes on
// with a warning; exit 0 always.
func (f *Flags) agentUnreachable(tg target, pk hookwire.Peek, err error, stdout, stderr io.Writer) error {
	tool := pk.Tool
	if tool == "" {
		tool = "this call"
	}
	switch {
	case pk.Told && !hookwire.IsCall(pk.Event):
		fmt.Fprintln(stderr, "ledger hook:", hookwire.UnreachableOther(tg.where, pk.Event, err))
		return nil
	case f.unreachable == "allow" && pk.Told:
		fmt.Fprintln(stderr, "ledger hook:", hookwire.UnreachableAllowed(tg.where, tool, err))
		return nil
	}
	return hookwire.WriteOutput(stdout, f.agent.DenyOutput(f.agent.UnreachableReason(tg.where, tool, err)))
}

// answer is what the server answered: the body for Claude Code, the exit
// status, the warnings to print, the result for --verbose, and the
// denial's reason (for exit 2's message).
type answer struct {
	body           []byte
	exit           int
	warnings       []string
	result, reason string
}

// maxAnswer bounds the server's answer: a denial's reason is a few KiB.
const maxAnswer = 1 << 20

// post hands raw to the server and reads its answer; an error is a server
// that cannot be reached, or did not answer as `serve --hooks` does.
//
// It speaks HTTP/1.0 itself over one connection (TCP, or the Unix socket),
// closed after the answer, rather than through net/http: the thin hook
// reaches a local server in plain HTTP, and net/http's client brings
// crypto/tls, x509 and HTTP/2 into every hook process's start-up. An
// HTTP/1.0 request is answered with no chunking, the body ending with the
// connection (TestThinAnswers runs it against net/http's server). The
// connection is dial's: a socket of its own on Linux and macOS when the
// server is a Unix socket or an IP address, else the net package's.
func (f *Flags) post(w *waiter, tg target, token string, raw []byte) (*answer, error) {
	conn, err := dial(w, tg)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return f.exchange(conn, tg, token, raw)
}

// exchange is post's request and answer over conn.
func (f *Flags) exchange(conn conn, tg target, token string, raw []byte) (*answer, error) {
	if _, err := conn.Write(f.request(tg, token, raw)); err != nil {
		return nil, conn.deadlined(err)
	}
	tp := textproto.NewReader(bufio.NewReader(conn))
	status, err := tp.ReadLine()
	if err != nil {
		return nil, conn.deadlined(fmt.Errorf("reading the answer: %w", err))
	}
	proto, rest, _ := strings.Cut(status, " ")
	code, _, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || !statusCode(code) {
		// A status line cut short by the end of the wait reads as a
		// line (bufio's ReadLine): that is the wait's end.
		return nil, conn.deadlined(fmt.Errorf("the server's answer is not HTTP: %q", status))
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, conn.deadlined(fmt.Errorf("reading the answer: %w", err))
	}
	body, err := io.ReadAll(io.LimitReader(tp.R, maxAnswer+1))
	if err != nil {
		return nil, conn.deadlined(fmt.Errorf("reading the answer: %w", err))
	}
	if n := hdr.Get("Content-Length"); n != "" && n != strconv.Itoa(len(body)) {
		return nil, fmt.Errorf("the server's answer ended after %d of %s bytes", len(body), n)
	}
	if code[0] != '2' {
		return nil, fmt.Errorf("the server answered %s", code)
	}
	if f.agent != nil {
		// Only serve --hooks's answer for this runtime, marked so, is
		// one (TestThinAgentNeedsAnswerMark).
		if mark := hdr.Get(hookwire.HeaderAnswer); mark == "" {
			return nil, fmt.Errorf("the server's answer is not 'ledger serve --hooks''s for %s (no %s header)", f.agent.Name, hookwire.HeaderAnswer)
		} else if mark != f.agent.Path() {
			return nil, fmt.Errorf("the server answered for %s, not for %s at %s", mark, f.agent.Name, f.agent.Path())
		}
	}
	if f.agent != nil && len(body) == 0 && hdr.Get("Content-Length") == "0" {
		// An agent runtime's "no opinion": marked, and empty by its
		// length, never by a body cut off.
	} else if len(body) > maxAnswer || !hookwire.IsObject(body) {
		return nil, errors.New("the server's answer is not a hook answer (one JSON object)")
	}
	a := &answer{body: bytes.TrimSpace(body)}
	switch e := hdr.Get(hookwire.HeaderExit); e {
	case "", "0":
	case "2":
		a.exit = 2
		a.reason = hookwire.DenialReason(body)
	default:
		return nil, fmt.Errorf("the server's answer names exit status %q", e)
	}
	for _, w := range hdr.Values(hookwire.HeaderWarning) {
		a.warnings = append(a.warnings, hookwire.DecodeHeader(w))
	}
	a.result = hookwire.DecodeHeader(hdr.Get(hookwire.HeaderResult))
	return a, nil
}

// statusCode reports whether code is an HTTP status code: three digits,
// the first 1 to 5. Anything else ("2xx", "20", "2000") is not an answer
// of `serve --hooks`, and must not read as a 2xx one.
func statusCode(code string) bool {
	if len(code) != 3 || code[0] < '1' || code[0] > '5' {
		return false
	}
	for i := 1; i < 3; i++ {
		if code[i] < '0' || code[i] > '9' {
			return false
		}
	}
	return true
}

// request is the HTTP/1.0 request that posts raw.
func (f *Flags) request(tg target, token string, raw []byte) []byte {
	req := make([]byte, 0, 512+len(raw))
	req = append(req, "POST "+tg.path+" HTTP/1.0\r\nHost: "+tg.hostHeader+"\r\nContent-Type: application/json\r\nUser-Agent: ledger-hook\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(raw)), 10)
	req = append(req, "\r\n"...)
	header := func(k, v string) { req = append(req, k+": "+v+"\r\n"...) }
	if token != "" {
		header("Authorization", "Bearer "+token)
	}
	header(hookwire.HeaderThin, "1")
	if f.agent != nil {
		if f.scope != "" {
			header(hookwire.HeaderScope, f.scope)
		}
		if f.unreachable == "allow" {
			header(hookwire.HeaderUnreachable, "allow")
		}
	}
	if f.verbose {
		header(hookwire.HeaderVerbose, "1")
	}
	env := f.environment()
	names := []string{hookwire.HeaderProjectDir, hookwire.HeaderAIAgent, hookwire.HeaderUser, hookwire.HeaderHost}
	if f.agent != nil {
		// Claude Code's environment is not an agent runtime's: who and
		// where only.
		names = names[2:]
	}
	for _, h := range names {
		if v := env[h]; v != "" {
			header(h, hookwire.EncodeHeader(v))
		}
	}
	req = append(req, "\r\n"...)
	return append(req, raw...)
}

// waiter is what ends a run's wait for the server: its deadline (the
// run's --timeout, or ctx's if sooner), the cancellation of ctx, and a
// signal on sig (RunSignals).
type waiter struct {
	ctx      context.Context
	sig      <-chan os.Signal
	signaled bool
	deadline time.Time
}

// err is why the wait is over (context.Canceled or DeadlineExceeded, as
// a context's Err), nil while it is not.
func (w *waiter) err() error {
	if w.sig != nil && !w.signaled {
		select {
		case <-w.sig:
			w.signaled = true
		default:
		}
	}
	if w.signaled {
		return context.Canceled
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if dl, ok := w.ctx.Deadline(); ok && dl.Before(w.deadline) {
		w.deadline = dl
	}
	if !time.Now().Before(w.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// deadlineError is the error of a wait for the server that ended (err is
// context.Canceled or DeadlineExceeded).
func deadlineError(err error) error {
	return fmt.Errorf("no answer within the hook's --timeout: %w", err)
}

// mapErr is the net package's error for a context's that ends a dial:
// "operation was canceled", "i/o timeout".
func mapErr(err error) error {
	switch err {
	case context.Canceled:
		return canceledError{}
	case context.DeadlineExceeded:
		return timeoutError{}
	}
	return err
}

type canceledError struct{}

func (canceledError) Error() string     { return "operation was canceled" }
func (canceledError) Is(err error) bool { return err == context.Canceled }

type timeoutError struct{}

func (timeoutError) Error() string     { return "i/o timeout" }
func (timeoutError) Timeout() bool     { return true }
func (timeoutError) Temporary() bool   { return true }
func (timeoutError) Is(err error) bool { return err == context.DeadlineExceeded }

// conn is a connection to the server.
type conn interface {
	io.ReadWriteCloser
	// deadlined says a read or write cut short by the end of the wait
	// is that.
	deadlined(error) error
}

// dial connects to the server: with a socket of its own (rawDial) where
// it can, else with the net package (dialNet).
func dial(w *waiter, tg target) (conn, error) {
	if c, ok, err := rawDial(w, tg); ok {
		return c, err
	}
	return dialNet(w, tg)
}

// dialNet connects to the server with the net package.
func dialNet(w *waiter, tg target) (conn, error) {
	ctx, cancel := context.WithDeadline(w.ctx, w.deadline)
	if w.sig != nil {
		// RunSignals: the context ends with a signal.
		select {
		case <-w.sig:
			w.signaled = true
		default:
		}
		if w.signaled {
			cancel()
		} else {
			go func() {
				select {
				case <-w.sig:
					cancel()
				case <-ctx.Done():
				}
			}()
		}
	}
	var d net.Dialer
	var c net.Conn
	var err error
	if tg.socket != "" {
		c, err = d.DialContext(ctx, "unix", tg.socket)
	} else {
		c, err = d.DialContext(ctx, "tcp", tg.host)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	return &netConn{Conn: c, ctx: ctx, stop: func() { stop(); cancel() }}, nil
}

// netConn is a connection of the net package's.
type netConn struct {
	net.Conn
	ctx  context.Context
	stop func()
}

func (c *netConn) Close() error {
	err := c.Conn.Close()
	c.stop()
	return err
}

func (c *netConn) deadlined(err error) error {
	if c.ctx.Err() != nil {
		return deadlineError(c.ctx.Err())
	}
	return err
}

// environment is what only the hook's process knows, by header: what
// Claude Code gives a command hook (the project directory, its version),
// who runs it, and where.
func (f *Flags) environment() map[string]string {
	who := f.identity
	if who == "" {
		who = osUserName()
	}
	host, _ := os.Hostname()
	return map[string]string{
		hookwire.HeaderProjectDir: os.Getenv("CLAUDE_PROJECT_DIR"),
		hookwire.HeaderAIAgent:    os.Getenv("AI_AGENT"),
		hookwire.HeaderUser:       who,
		hookwire.HeaderHost:       host,
	}
}

// readPayloadWithin is hookwire.ReadPayloadWithin, read on the run's
// goroutine with poll(2) where there is one (pollStdin).
func readPayloadWithin(stdin io.Reader, d time.Duration) ([]byte, error) {
	if pf := pollStdin(stdin, d); pf != nil {
		raw, err := hookwire.ReadPayload(pf)
		if errors.Is(err, hookwire.ErrSlowStdin) {
			return nil, hookwire.ErrSlowStdin
		}
		return raw, err
	}
	return hookwire.ReadPayloadWithin(stdin, d)
}
