// Package hookcmd is the command Claude Code runs as a hook over NATS:
// `ledger hook claude-code --nats URL`. One run parses its flags, reads one
// payload from standard input, dials the ledger's NATS API, hands the
// payload to the cchook mapping and prints the answer. (The thin hook,
// `ledger-hook --hooks URL` and `ledger hook claude-code --hooks URL`, is
// internal/cchook/thinhook: it hands the payload to `serve --hooks`, which
// runs this mapping, and links no NATS.)
//
// A hook is a process per event, so its start-up is its cost: the package
// must stay free of nats-server, bbolt, internal/report and
// envelope/openclaw (tests/arch checks the package); with them `ledger`
// spends about 3 ms in package init alone, more than the hook's requests
// take.
//
// Invariants: given a payload, Run prints Claude Code's hook output and
// returns nil, whatever is wrong (its own flags included, --help among
// them when standard input may hold a payload, and a panic: a call is then
// denied, anything else let through; TestHelpWithPayloadDenies,
// TestRunPanicDenies), with one exception: a payload that
// cannot be read and whose hook event cannot be told (cchook.PeekAt) is
// answered with a PreToolUse denial and an *ExitError (code 2, the reason),
// since exit 2 is what blocks a PreToolUse in Claude Code whatever it makes
// of the output. A command line without a payload is refused with an
// *ExitError (code 2).
package hookcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	"github.com/sessionledger/ledger/internal/ledgercmd"
)

// DefaultOwner is the orchestrator the hook appends and asks as.
const DefaultOwner = "claude-code"

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

// ErrFlags says a hook command line does not parse (Check's answer; the
// flag package's own message was not printed).
var ErrFlags = errors.New("the hook flags do not parse")

// errHelp is --help: the usage is printed and the run succeeds.
var errHelp = errors.New("help requested")

// Flags are the command's flags.
type Flags struct {
	natsURL, creds, user, password, owner string
	catFile, toolList                     string
	scope, identity                       string
	noImport                              bool
	unreachable                           string
	timeout, importTimeout                time.Duration
	importCache                           string
	verbose                               bool
}

func (f *Flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.natsURL, "nats", envOr("NATS_URL", nats.DefaultURL), "the `URL` of the NATS server the ledger serves its API on (env NATS_URL)")
	fs.StringVar(&f.creds, "creds", os.Getenv("NATS_CREDS"), "NATS credentials `FILE` (env NATS_CREDS)")
	fs.StringVar(&f.user, "user", os.Getenv("NATS_USER"), "NATS user `NAME` (env NATS_USER); with the roles of 'ledger serve --gen-auth', an orchestrator, whose name is its owner token")
	fs.StringVar(&f.password, "password", os.Getenv("NATS_PASSWORD"), "NATS password (env NATS_PASSWORD; keep it there rather than in a settings file)")
	fs.StringVar(&f.owner, "owner", os.Getenv("LEDGER_OWNER"), "the orchestrator `NAME` the sessions belong to (env LEDGER_OWNER; default: --user, else claude-code)")
	fs.StringVar(&f.catFile, "catalogue", "", "the catalogue for the first policy.set, when the ledger has no policy yet: a JSON list or one name per line in `FILE`")
	fs.StringVar(&f.toolList, "tools", "", "the catalogue as a comma-separated `LIST` (instead of --catalogue)")
	fs.StringVar(&f.scope, "scope", "", "bind every session this hook starts to scope `NAME` ([A-Za-z0-9_:-]{1,128}), and import the project's policy into it;\ndefault: derived from the project (its git repository's origin, else its directory), e.g. claude-code:github-com-acme-api-5355d101")
	fs.StringVar(&f.identity, "user-identity", os.Getenv("LEDGER_IDENTITY"), "the user `NAME` a session records as who started it (env LEDGER_IDENTITY; default: the OS user's name)")
	fs.BoolVar(&f.noImport, "no-import", false, "never import the project's .claude configuration (the policy in the ledger is then the operator's alone)")
	fs.StringVar(&f.unreachable, "unreachable", string(cchook.UnreachableDeny), "what a PreToolUse answers when the ledger cannot be reached: deny (fail closed) or allow (let Claude Code decide alone);\nevery other event goes ahead whatever happens")
	fs.DurationVar(&f.timeout, "timeout", 3*time.Second, "bound on everything one payload waits for (connecting, every request); the hook answers within --timeout plus\nat most 1s whatever happens (a call is then denied), so keep that under the hooks' own timeout ('hook install --hook-timeout')")
	fs.DurationVar(&f.importTimeout, "import-timeout", 8*time.Second, "bound on the run of any event but a call (a SessionStart's or a prompt's, which import the project's policy and\ncache it for the calls that follow; they never block anything): keep it under the hooks' own timeout")
	fs.StringVar(&f.importCache, "import-cache", cchook.DefaultImportCacheDir(), "the `DIR` where imported project policies are kept by the fingerprint of their files, so that the same\nfiles are parsed once; off: import on every SessionStart and prompt")
	fs.BoolVar(&f.verbose, "verbose", false, "print what the hook did (the events appended, the decision, warnings) as one JSON line on standard error")
}

func (f *Flags) check() error {
	switch cchook.Unreachable(f.unreachable) {
	case cchook.UnreachableDeny, cchook.UnreachableAllow:
	default:
		return usageError("--unreachable %q: use deny or allow", f.unreachable)
	}
	if f.timeout <= 0 {
		return usageError("--timeout must be positive, got %s", f.timeout)
	}
	if f.importTimeout <= 0 {
		return usageError("--import-timeout must be positive, got %s", f.importTimeout)
	}
	if f.scope != "" && !events.ValidScope(f.scope) {
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	if len(f.identity) > events.MaxIdentityLen {
		return usageError("--user-identity is %d bytes; the limit is %d", len(f.identity), events.MaxIdentityLen)
	}
	if f.catFile != "" && f.toolList != "" {
		return usageError("give the catalogue with --catalogue or --tools, not both")
	}
	return nil
}

func (f *Flags) ownerName() string {
	switch {
	case f.owner != "":
		return f.owner
	case f.user != "":
		return f.user
	}
	return DefaultOwner
}

const about = "The command Claude Code runs as a hook (install it with 'ledger hook install'). It reads one hook\n" +
	"payload on standard input and appends what happened through the ledger's NATS API: a session\n" +
	"started (SessionStart; UserPromptSubmit or a tool call when none was seen), a turn (each\n" +
	"UserPromptSubmit, and each PostToolBatch for the model turn that follows), a sub-agent spawned\n" +
	"(SubagentStart, or its first event when its parent could not be told yet), a tool call checked\n" +
	"and its effect started (PreToolUse), the project's policy when it changed (SessionStart and\n" +
	"UserPromptSubmit), the session ended (SessionEnd) and reopened (the next event of an ended one).\n" +
	"Stop, SubagentStop and the other events append nothing. A session is bound to the project's\n" +
	"scope (--scope), and records who started it where (runtime and version, project, repository,\n" +
	"branch, user, host).\n\n" +
	"It prints Claude Code's hook output on standard output and exits 0: a PreToolUse the\n" +
	"ledger denies (or cannot decide, or cannot read) gets {\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\n" +
	"\"permissionDecision\":\"deny\",\"permissionDecisionReason\":...}} with the reason code, the rule and\n" +
	"the 'ledger why' command that explains it; anything else gets {} (no decision: Claude Code's\n" +
	"own rules still apply), or {\"systemMessage\": ...} when something went wrong. A payload it cannot\n" +
	"read and whose hook event it cannot tell (not one JSON object, over 16 MiB, ...) is denied the\n" +
	"same way, with exit status 2 and the reason on standard error: Claude Code blocks a PreToolUse on it.\n" +
	"With --hooks URL it is the thin hook instead, which hands the payload to 'ledger serve --hooks' (see\n" +
	"'ledger-hook --help'). See docs/claude-code-hooks.md."

func flagSet(stderr io.Writer) (*flag.FlagSet, *Flags) {
	fs := flag.NewFlagSet("hook claude-code", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: ledger hook claude-code [flags] < PAYLOAD\n\n%s\n\nFlags:\n", about)
		fs.PrintDefaults()
	}
	var f Flags
	f.register(fs)
	return fs, &f
}

// parse parses flags anywhere among the arguments, as the ledger's other
// commands do, and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, &ExitError{Code: 2}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// Check says whether Run would accept the command line args, without
// running anything: ErrFlags when they do not parse (or hold positional
// arguments, or --help), an *ExitError saying what to fix when they parse
// but are wrong, nil when they are good. `ledger hook install` checks the
// flags it writes into a settings file with it.
func Check(args []string) error {
	fs, f := flagSet(io.Discard)
	if extra, err := parse(fs, args); err != nil || len(extra) > 0 {
		return ErrFlags
	}
	return f.check()
}

// Budgets are the longest a hook run with the command line args takes to
// answer: a call (--timeout and its grace) and any other event
// (--import-timeout and its grace). `ledger hook install` keeps Claude
// Code's own timeout above them. args must pass Check.
func Budgets(args []string) (call, other time.Duration) {
	fs, f := flagSet(io.Discard)
	_, _ = parse(fs, args)
	o := max(f.timeout, f.importTimeout)
	return f.timeout + Grace(f.timeout), o + Grace(o)
}

// Run is one hook run: it reads one payload from stdin and prints the
// answer to stdout, warnings (and with --verbose, what it did as one JSON
// line) to stderr. A panic in it is answered as cchook.Panicked answers
// one in the mapping (a call denied, anything else let through), with the
// stack on stderr, unless an answer was printed already: never the Go
// runtime's exit 2, which would block a prompt too (TestRunPanicDenies).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var raw []byte
	out := &OutWriter{W: stdout}
	defer func() {
		if v := recover(); v != nil {
			err = panicked(raw, v, debug.Stack(), out, stderr)
		}
	}()
	return run(ctx, args, stdin, out, stderr, &raw)
}

// OutWriter knows whether anything was written to standard output: a
// hook that panicked prints its answer only when none was printed (the
// command hooks of every runtime).
type OutWriter struct {
	W     io.Writer
	Wrote bool
}

func (o *OutWriter) Write(b []byte) (int, error) {
	o.Wrote = true
	return o.W.Write(b)
}

// panicked answers a run that panicked with v, having read raw: the stack
// on stderr, and cchook.Panicked's answer unless one was printed.
func panicked(raw []byte, v any, stack []byte, out *OutWriter, stderr io.Writer) error {
	res := cchook.Panicked(raw, v, stack)
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "ledger hook:", w)
	}
	fmt.Fprintf(stderr, "%s\n", res.Stack)
	if out.Wrote {
		return nil
	}
	if err := hookwire.WriteOutput(out, res.Output); err != nil {
		return err
	}
	if res.Denied && res.Event == "" {
		// Not even the event can be told: exit 2 blocks the call, if it
		// is one, as for an unreadable payload.
		return &ExitError{Code: 2, Msg: res.Reason}
	}
	return nil
}

// run is Run; it keeps the payload it read in *payload, for the answer to
// a panic.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, payload *[]byte) error {
	fs, f := flagSet(stderr)
	_, err := parse(fs, args)
	help := errors.Is(err, errHelp)
	if help {
		// The usage is printed. Given a payload, --help is a bad flag: a
		// call is denied, never answered with nothing
		// (TestHelpWithPayloadDenies). A terminal (or /dev/null) holds no
		// payload to wait for.
		if !hookwire.MayHoldPayload(stdin) {
			return nil
		}
		err = usageError("--help is not a hook flag")
	}
	if err == nil {
		err = f.check()
	}
	start := time.Now()
	readFor := 3 * time.Second // the default --timeout, when the flags do not parse
	if err == nil {
		readFor = f.timeout
	}
	raw, rerr := hookwire.ReadPayloadWithin(stdin, readFor)
	*payload = raw
	if errors.Is(rerr, hookwire.ErrSlowStdin) {
		// Standard input held open past the budget: not even the event
		// can be told (TestI24CommandHookStdinHeldOpen).
		reason := cchook.UnreadableReason(false, rerr)
		_ = hookwire.WriteOutput(stdout, cchook.DenyOutput(reason))
		return &ExitError{Code: 2, Msg: reason}
	}
	if err != nil {
		// A broken command line in a settings file must not block Claude
		// Code, except a call, which fails closed.
		var ee *ExitError
		msg := err.Error()
		if errors.As(err, &ee) && ee.Msg == "" {
			msg = "bad flags (see the usage above)"
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if help {
				return nil
			}
			return err
		}
		return hookwire.WriteOutput(stdout, hookwire.BadCommandLine(raw, "ledger hook claude-code: "+msg))
	}
	if rerr != nil {
		raw = nil
	}
	catalogue, cerr := ReadCatalogue(f.catFile, f.toolList)
	if cerr != nil {
		return hookwire.WriteOutput(stdout, hookwire.BadCommandLine(raw, "ledger hook claude-code: "+cerr.Error()))
	}
	listMCP := catalogue == nil
	if listMCP {
		// The imported document names the pinned release: its built-in
		// catalogue is the first policy.set's, with the tools of the
		// project's MCP gateways.
		catalogue, _ = claudecode.Catalogue(claudecode.LatestRelease)
	}
	// A call is answered within --timeout (and its grace); any other
	// event may take up to --import-timeout, so that a project's import
	// too slow for a call's budget finishes once and is cached.
	budget := f.timeout
	if pk := cchook.PeekAt(raw); pk.Told && pk.Event != cchook.PreToolUse {
		budget = max(f.timeout, f.importTimeout)
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(budget))
	defer cancel()
	h := &cchook.Hook{Opts: f.options(catalogue, listMCP)}
	nc, err := f.connect()
	if err != nil {
		h.L = cchook.DownLedger{Err: err}
	} else {
		defer nc.Close()
		per := min(f.timeout/2, 2*time.Second)
		h.L = cchook.ClientLedger{C: client.New(nc, client.Options{Owner: f.ownerName(), Timeout: per, Retries: 1, Coalesce: 1})}
	}
	res := h.HandleWithin(ctx, raw, Grace(budget))
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "ledger hook:", w)
	}
	if len(res.Stack) > 0 {
		fmt.Fprintf(stderr, "%s\n", res.Stack)
	}
	if f.verbose {
		b, _ := json.Marshal(res)
		fmt.Fprintf(stderr, "%s\n", b)
	}
	if err := hookwire.WriteOutput(stdout, res.Output); err != nil {
		return err
	}
	if res.Unreadable && res.Event == "" {
		// Not even the event can be told: exit 2 blocks the call, if it
		// is one, and Claude Code hands the model this message.
		return &ExitError{Code: 2, Msg: res.Reason}
	}
	return nil
}

// Grace is how long past --timeout a hook run may take before it answers
// without its outcome: what the ledger requests cannot overrun (they end
// with --timeout), a file read or an import can.
func Grace(timeout time.Duration) time.Duration { return min(timeout, time.Second) }

// options are the hook's cchook options; listMCP adds the tools of the
// project's MCP gateways to catalogue (the built-in one: a catalogue given
// with --catalogue or --tools is the operator's, whole).
func (f *Flags) options(catalogue []string, listMCP bool) cchook.Options {
	home, _ := os.UserHomeDir()
	projectDir := os.Getenv("CLAUDE_PROJECT_DIR")
	where := RedactURL(f.natsURL)
	o := cchook.Options{
		Catalogue:   catalogue,
		Scope:       f.scope,
		Who:         f.who,
		Unreachable: cchook.Unreachable(f.unreachable),
		// The why a denial prints reaches this hook's ledger as the hook
		// does: its server, credentials file and user (never a password).
		Why:   ledgercmd.Conn{NATS: f.natsURL, Creds: f.creds, User: f.user}.Words("why"),
		Where: where,
		Home:  home,
		WorkDir: func(cwd, transcript string) string {
			if projectDir != "" {
				return projectDir
			}
			if d := cchook.ProjectOfTranscript(cwd, transcript); d != "" {
				return d
			}
			if d := cchook.ProjectDir(cwd, "", home); d != "" {
				return d
			}
			return cwd
		},
	}
	if !f.noImport {
		var cache *cchook.ImportCache
		if f.importCache != "off" {
			cache = &cchook.ImportCache{Dir: f.importCache}
		}
		o.Import = cchook.ImportProject(projectDir, home, ccimport.ClaudeCodeOptions{UserDir: ccimport.ClaudeUserDir()}, cache)
		if listMCP {
			o.MCPTools = func(ctx context.Context, dir string) ([]string, []string) {
				return cchook.MCPTools(ctx, dir, cchook.ClaudeJSON(home), nil, nil)
			}
		}
	}
	return o
}

// who is who runs Claude Code and where: its version from the AI_AGENT
// variable it gives hooks, --user-identity else the OS user, the host name.
func (f *Flags) who() cchook.Who {
	return cchook.WhoRuns(f.identity, cchook.RuntimeVersionOf(os.Getenv("AI_AGENT")))
}

// RedactURL drops the user and password from NATS URLs (a comma-separated
// list), which the hook prints where the model and the transcript see them.
func RedactURL(s string) string { return ledgercmd.RedactURL(s) }

// connect dials NATS once, within a bounded time, with no reconnects.
func (f *Flags) connect() (*nats.Conn, error) {
	return cchook.Dial(f.natsURL, f.creds, f.user, f.password, f.timeout)
}

// ReadCatalogue reads the catalogue from a file (a JSON list of names, or
// one name per line, # comments) or a comma-separated list; nil when
// neither is given. It is cmd/ledger's readCatalogue (kept beside it,
// since this package may not import the command), with its messages.
func ReadCatalogue(file, list string) ([]string, error) {
	var names []string
	switch {
	case file != "":
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, &ExitError{Code: 1, Msg: err.Error()}
		}
		if t := bytes.TrimSpace(src); len(t) > 0 && t[0] == '[' {
			if err := json.Unmarshal(t, &names); err != nil {
				return nil, &ExitError{Code: 1, Msg: fmt.Sprintf("%s: the catalogue must be a JSON list of tool names: %v", file, err)}
			}
		} else {
			for _, line := range strings.Split(string(src), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					names = append(names, line)
				}
			}
		}
		if len(names) == 0 {
			return nil, &ExitError{Code: 1, Msg: file + ": the catalogue names no tools"}
		}
	case list != "":
		for _, name := range strings.Split(list, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return nil, usageError("--tools names no tools")
		}
	}
	return names, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
