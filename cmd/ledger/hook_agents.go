package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/agenthook"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookcmd"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/cchook/thinhook"
	"github.com/sessionledger/ledger/internal/ledgercmd"
)

// agentHookFlags are the flags of 'ledger hook codex' and 'ledger hook
// gemini'.
type agentHookFlags struct {
	natsURL, creds, user, password, owner string
	scope, identity, unreachable          string
	timeout                               time.Duration
	verbose                               bool
}

func (f *agentHookFlags) register(fs *flag.FlagSet, rt agenthook.Runtime) {
	fs.StringVar(&f.natsURL, "nats", envOr("NATS_URL", nats.DefaultURL), "the `URL` of the NATS server the ledger serves its API on (env NATS_URL)")
	fs.StringVar(&f.creds, "creds", os.Getenv("NATS_CREDS"), "NATS credentials `FILE` (env NATS_CREDS)")
	fs.StringVar(&f.user, "user", os.Getenv("NATS_USER"), "NATS user `NAME` (env NATS_USER); with the roles of 'ledger serve --gen-auth', an orchestrator")
	fs.StringVar(&f.password, "password", os.Getenv("NATS_PASSWORD"), "NATS password (env NATS_PASSWORD; keep it there rather than in a hooks file)")
	fs.StringVar(&f.owner, "owner", os.Getenv("LEDGER_OWNER"), "the orchestrator `NAME` the sessions belong to (env LEDGER_OWNER; default: --user, else "+rt.Name+")")
	fs.StringVar(&f.scope, "scope", "", "bind every session this hook starts to scope `NAME`, which must hold a policy of the ledger dialect\n('ledger policy set --dialect ledger --scope NAME FILE'); default: derived from the project, e.g. "+rt.Name+":github-com-acme-api-5355d101")
	fs.StringVar(&f.identity, "user-identity", os.Getenv("LEDGER_IDENTITY"), "the user `NAME` a session records as who started it (env LEDGER_IDENTITY; default: the OS user's name)")
	fs.StringVar(&f.unreachable, "unreachable", string(cchook.UnreachableDeny), "what a call is answered when the ledger cannot be reached: deny (fail closed) or allow (let "+rt.Name+" decide alone)")
	fs.DurationVar(&f.timeout, "timeout", 3*time.Second, "bound on everything one payload waits for; the hook answers within --timeout plus at most 1s (a call not decided\nby then is denied), so keep that under the hook timeout in "+rt.Name+"'s configuration ('hook install --hook-timeout')")
	fs.BoolVar(&f.verbose, "verbose", false, "print what the hook did (the events appended, the decision, warnings) as one JSON line on standard error")
}

func (f *agentHookFlags) check() error {
	switch cchook.Unreachable(f.unreachable) {
	case cchook.UnreachableDeny, cchook.UnreachableAllow:
	default:
		return usageError("--unreachable %q: use deny or allow", f.unreachable)
	}
	if f.timeout <= 0 {
		return usageError("--timeout must be positive, got %s", f.timeout)
	}
	if f.scope != "" && !events.ValidScope(f.scope) {
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	if f.owner != "" && !api.ValidOwner(f.owner) {
		return usageError("--owner %q: an owner is [A-Za-z0-9_-]{1,64} and not \"all\"", f.owner)
	}
	if len(f.identity) > events.MaxIdentityLen {
		return usageError("--user-identity is %d bytes; the limit is %d", len(f.identity), events.MaxIdentityLen)
	}
	return nil
}

func agentHookAbout(rt agenthook.Runtime) string {
	events, deny := "SessionStart, UserPromptSubmit, PreToolUse, PostToolUse (spawn_agent), SubagentStart and SessionEnd",
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":...}}`
	doc := "docs/codex-cli-hooks.md"
	if rt.Name == agenthook.Gemini.Name {
		events, deny = "SessionStart, BeforeAgent, BeforeTool and SessionEnd", `{"decision":"deny","reason":...}`
		doc = "docs/gemini-cli-hooks.md"
	}
	if rt.Name == agenthook.Qwen.Name {
		events = "SessionStart, UserPromptSubmit, PreToolUse, PostToolUse (agent), SubagentStart and SessionEnd"
		doc = "docs/qwen-code-hooks.md"
	}
	return "The command " + rt.Name + " runs as a hook (install it with 'ledger hook install --runtime " + rt.Command + "'). It reads one\n" +
		"hook payload (" + events + ") on standard input and appends what happened through\n" +
		"the ledger's NATS API: the session started with its identity, its turns, its sub-agents where the\n" +
		"payload tells their parent, each call checked and its effect started in one record, the session ended.\n" +
		"A call the ledger denies, cannot decide, or cannot reach (--unreachable deny, the default) is answered\n" +
		deny + " with the reason\n" +
		"and the 'ledger why' command that explains it; anything else gets no output (no opinion). The\n" +
		"sessions' scope must hold a policy of the ledger dialect. See " + doc + ".\n\n" +
		"With --hooks URL it is the thin hook instead ('ledger-hook --runtime " + rt.Command + " --hooks URL', see its --help), which\n" +
		"hands the payload to a running 'ledger serve --hooks' (POST /hooks/" + rt.Command + ")."
}

func agentHookFlagSet(rt agenthook.Runtime, stderr io.Writer) (*flag.FlagSet, *agentHookFlags) {
	fs := flag.NewFlagSet("hook "+rt.Command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: ledger hook %s [flags] < PAYLOAD\n\n%s\n\nFlags:\n", rt.Command, agentHookAbout(rt))
		fs.PrintDefaults()
	}
	var f agentHookFlags
	f.register(fs, rt)
	return fs, &f
}

// checkAgentHookArgs says whether 'ledger hook codex|gemini' takes args
// (hook install checks the flags it writes), and returns the longest the
// hook takes to answer.
func checkAgentHookArgs(rt agenthook.Runtime, args []string) (time.Duration, error) {
	fs, f := agentHookFlagSet(rt, io.Discard)
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 0, usageError("the hook flags after -- do not parse (%q): see 'ledger hook %s --help'", args, rt.Command)
	}
	if err := f.check(); err != nil {
		return 0, err
	}
	return f.timeout + agentGrace(f.timeout), nil
}

func agentGrace(timeout time.Duration) time.Duration { return min(timeout, time.Second) }

// runHookAgent is 'ledger hook codex' and 'ledger hook gemini' (with
// --hooks URL the thin hook, as 'ledger-hook --runtime R' runs it). It exits 0
// whatever happens, with the answer on standard output: both runtimes run
// a call whose hook fails, so a call the hook cannot decide is denied in
// the runtime's format instead. A panic too: it is answered as
// agenthook's Panicked (a call denied, anything else no opinion), with the
// stack on standard error, unless an answer was printed already
// (TestHookAgentPanicDenies).
func runHookAgent(ctx context.Context, rt agenthook.Runtime, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	if thinhook.Wants(args) {
		return hookExit(thinhook.Run(ctx, "ledger hook "+rt.Command, append([]string{"--runtime", rt.Command}, args...), stdin, stdout, stderr))
	}
	var raw []byte
	out := &hookcmd.OutWriter{W: stdout}
	defer func() {
		if v := recover(); v != nil {
			res := (&agenthook.Hook{Runtime: rt}).Panicked(raw, v, debug.Stack())
			fmt.Fprintln(stderr, "ledger hook:", res.Warnings[0])
			fmt.Fprintf(stderr, "%s\n", res.Stack)
			if !out.Wrote {
				err = writeAgentOutput(out, res.Output)
			}
		}
	}()
	return runHookAgentPayload(ctx, rt, args, stdin, out, stderr, &raw)
}

// runHookAgentPayload is runHookAgent's NATS hook; it keeps the payload it
// read in *payload, for the answer to a panic.
func runHookAgentPayload(ctx context.Context, rt agenthook.Runtime, args []string, stdin io.Reader, stdout, stderr io.Writer, payload *[]byte) error {
	fs, f := agentHookFlagSet(rt, stderr)
	err := fs.Parse(args)
	help := errors.Is(err, flag.ErrHelp)
	if help {
		// The usage is printed. Given a payload, --help is a bad flag: a
		// call is denied, never answered with nothing, which the runtime
		// runs (TestHookAgentHelpWithPayloadDenies). A terminal (or
		// /dev/null) holds no payload to wait for.
		if !hookwire.MayHoldPayload(stdin) {
			return nil
		}
		err = usageError("--help is not a hook flag")
	}
	if err == nil && fs.NArg() > 0 {
		err = usageError("hook %s takes no arguments, got %q", rt.Command, fs.Args())
	}
	if err == nil {
		err = f.check()
	}
	start := time.Now()
	budget := 3 * time.Second
	if err == nil {
		budget = f.timeout
	}
	raw, rerr := hookwire.ReadPayloadWithin(stdin, budget)
	*payload = raw
	h := &agenthook.Hook{Runtime: rt}
	if help && rerr == nil && len(bytes.TrimSpace(raw)) == 0 {
		return nil // --help given no payload: the usage, printed
	}
	if err != nil || rerr != nil {
		msg := fmt.Sprintf("ledger hook %s: %v", rt.Command, errors.Join(err, rerr))
		fmt.Fprintln(stderr, msg)
		if pk := hookwire.PeekAt(raw); !pk.Told || hookwire.IsCall(pk.Event) {
			return writeAgentOutput(stdout, rt.DenyOutput(msg+" (the hook denies every call until its command line in the "+rt.Name+" configuration is fixed)"))
		}
		return nil
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(budget))
	defer cancel()
	h.Opts = agenthook.Options{
		Scope:       f.scope,
		Unreachable: cchook.Unreachable(f.unreachable),
		Why:         ledgercmd.Conn{NATS: f.natsURL, Creds: f.creds, User: f.user}.Words("why"),
		Where:       redactURL(f.natsURL),
		Who:         f.who,
		SpawnWait:   min(2*time.Second, f.timeout/2),
	}
	nc, cerr := f.connect()
	if cerr != nil {
		h.L = cchook.DownLedger{Err: cerr}
	} else {
		defer nc.Close()
		owner := f.owner
		if owner == "" {
			owner = f.user
		}
		if owner == "" {
			owner = rt.Name
		}
		per := min(f.timeout/2, 2*time.Second)
		h.L = cchook.ClientLedger{C: client.New(nc, client.Options{Owner: owner, Timeout: per, Retries: 1, Coalesce: 1})}
	}
	res := h.HandleWithin(ctx, raw, agentGrace(budget))
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
	return writeAgentOutput(stdout, res.Output)
}

func writeAgentOutput(stdout io.Writer, out []byte) error {
	if len(out) == 0 {
		return nil
	}
	_, err := stdout.Write(append(out, '\n'))
	return err
}

func (f *agentHookFlags) who() cchook.Who { return cchook.WhoRuns(f.identity, "") }

func (f *agentHookFlags) connect() (*nats.Conn, error) {
	return cchook.Dial(f.natsURL, f.creds, f.user, f.password, f.timeout)
}

// runAgentHookInstall is 'ledger hook install --runtime codex|gemini': the
// ledger's handlers written into the runtime's project-level hooks file,
// touching nothing else (agenthook.Runtime.Install).
func runAgentHookInstall(rt agenthook.Runtime, f *hookInstallFlags, pos []string, stdout, stderr io.Writer) error {
	switch {
	case len(pos) > 0:
		return usageError("hook install takes no arguments (give the project with --project DIR, hook flags after --), got %q", pos)
	case f.shared:
		return usageError("--shared is about Claude Code's settings; --runtime %s installs command hooks in %s", rt.Command, rt.File("DIR"))
	case f.httpURL == "" && (f.hookBinary != "" || f.tokenEnv != "" || f.noToken || f.allowRemote):
		return usageError("--hook-binary, --token-env, --no-token and --allow-remote are about the thin hook of --url: give them with --url, or leave them out")
	case f.httpURL != "" && len(f.rest) > 0:
		return usageError("--url installs the thin %s --runtime %s, which takes no hook flags but --scope: give the others to 'ledger serve --hooks'", cchook.SlimBinary, rt.Command)
	case f.httpURL != "" && f.command != "" && f.hookBinary != "":
		return usageError("give the hooks' binary with --command (the ledger) or --hook-binary (the slim %s), not both", cchook.SlimBinary)
	case f.tokenEnv != "" && f.noToken:
		return usageError("give --token-env or --no-token, not both")
	case f.timeoutSec <= 0:
		return usageError("--hook-timeout must be at least 1 second")
	case (f.trust || f.codexBin != "") && rt.Name != agenthook.Codex.Name:
		return usageError("--trust and --codex are about codex's hook trust; %s has none for the ledger to write", rt.Name)
	case f.codexBin != "" && !f.trust:
		return usageError("--codex names the codex --trust asks; give --trust with it")
	case f.trust && (f.uninstall || f.dryRun):
		return usageError("--trust has codex write its trust of the installed hooks: not with --uninstall or --dry-run")
	case rt.Name == agenthook.Qwen.Name && f.timeoutSec >= 1000:
		// Qwen Code reads a timeout of 1000 or more as milliseconds.
		return usageError("--hook-timeout %d: qwen reads a hook timeout of 1000 or more as milliseconds; give under 1000 seconds", f.timeoutSec)
	}
	if err := f.checkURL(rt.Command); err != nil {
		return err
	}
	if err := checkProjectDir(f.project); err != nil {
		return err
	}
	if !f.uninstall {
		if err := checkHooksEnabled(rt.Command, f.project); err != nil {
			return err
		}
	}
	if f.httpURL != "" && !f.uninstall {
		return runAgentThinInstall(rt, f, stdout, stderr)
	}
	hookArgs := f.hookArgs()
	budget, err := checkAgentHookArgs(rt, hookArgs)
	if err != nil {
		return err
	}
	if limit := time.Duration(f.timeoutSec) * time.Second; budget >= limit {
		return usageError("--hook-timeout %ds is not above the hook's budget (%s: its --timeout and up to 1s past it): %s runs a call whose hook times out, so raise --hook-timeout or lower the hook's --timeout", f.timeoutSec, budget, rt.Name)
	}
	if passwordIn(hookArgs) {
		return usageError("keep the NATS password out of the hooks file (a --password flag, or a password in the --nats URL): set NATS_PASSWORD in %s's environment, and give the URL without it", rt.Name)
	}
	command := ""
	if !f.uninstall {
		command = f.command
		if command == "" {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this ledger binary (give --command): %w", err)
			}
			warnTemporary(exe, stderr)
			command = cchook.Quote(exe)
		}
		command += " " + cchook.Quote(append([]string{"hook", rt.Command}, hookArgs...)...)
	}
	e, err := f.planFile(rt.File(f.project), func(src []byte) ([]byte, cchook.Change, error) {
		if f.uninstall {
			return rt.Uninstall(src)
		}
		return rt.Install(src, command, f.timeoutSec)
	})
	if err != nil {
		return err
	}
	return finishAgentInstall(rt, f, e, nil, "", stdout, stderr)
}

// runAgentThinInstall is 'ledger hook install --runtime R --url URL': the
// same handlers running the thin hook (ledger-hook --runtime R --hooks URL
// with the token's file, or its environment variable), which hands each
// payload to 'ledger serve --hooks' (TestAgentInstallGolden's thin cases).
func runAgentThinInstall(rt agenthook.Runtime, f *hookInstallFlags, stdout, stderr io.Writer) error {
	// The thin hook reads the token file itself: the install only makes
	// it when there is none, once the hooks file has been planned.
	tok, err := f.planToken(stderr)
	if err != nil {
		return err
	}
	var extra []string
	if f.scope != "" {
		extra = []string{"--scope", f.scope}
	}
	command, err := f.thinCommand(rt.Command, extra, stderr)
	if err != nil {
		return err
	}
	e, err := f.planFile(rt.File(f.project), func(src []byte) ([]byte, cchook.Change, error) {
		return rt.Install(src, command, f.timeoutSec)
	})
	if err != nil {
		return err
	}
	return finishAgentInstall(rt, f, e, tok, " (the thin hook, to "+f.httpURL+")", stdout, stderr)
}

// finishAgentInstall makes the token file of tok (--url; nil without),
// writes the runtime's hooks file as planned (or prints it with
// --dry-run), has codex trust the ledger's handlers with --trust, and
// reports what changed: a line, or with --json {"file", "changed",
// "added", "removed"}, with --trust "codex_trust", and for an install
// "note" (what the runtime needs besides the file, which the text report
// ends with) and, for codex without --trust, "codex_trust_needed" when the
// ledger's handlers changed (TestHookInstallCodexJSONNote).
//
// Codex trusts a handler by its position in the file: when removing the
// ledger's handlers moved others (an uninstall, or a ledger handler that
// could not be replaced in place), it warns, naming each with its codex
// key before and after, on standard error, or as "codex_moved" with
// --json (TestHookInstallCodexMovedWarns).
func finishAgentInstall(rt agenthook.Runtime, f *hookInstallFlags, e settingsEdit, tok *tokenPlan, how string, stdout, stderr io.Writer) error {
	if e.changed {
		abs, err := filepath.Abs(e.path)
		if err != nil {
			abs = e.path
		}
		e.report.CodexMoved = rt.Moved(abs, e.src, e.out)
	}
	if !f.asJSON {
		warnMoved(stderr, e.path, e.report.CodexMoved, f.dryRun)
	}
	if f.dryRun {
		return f.printDryRun(stdout, stderr, []settingsEdit{e}, tok)
	}
	if tok != nil {
		if _, err := tok.commit(stderr); err != nil {
			return err
		}
	}
	path, changed, r := e.path, e.changed, e.report
	if changed {
		if err := writeSettings(path, e.out, false); err != nil {
			return err
		}
	}
	if f.trust {
		tr, err := trustCodexHooks(f, stderr)
		if err != nil {
			return &exitError{code: 1, msg: fmt.Sprintf("installed the ledger's codex hooks in %s, but codex does not trust them yet: %v", path, err)}
		}
		r.CodexTrust = &tr
	}
	if f.asJSON {
		if !f.uninstall {
			r.Note = agentInstallNote(rt, f.trust)
			r.CodexTrustNeeded = rt.Name == agenthook.Codex.Name && !f.trust && len(r.Added) > 0
		}
		return writeJSON(stdout, []settingsReport{r})
	}
	switch {
	case f.uninstall && changed:
		fmt.Fprintf(stdout, "removed the ledger's %s hooks from %s (%s)\n", rt.Name, path, strings.Join(r.Removed, ", "))
	case f.uninstall:
		fmt.Fprintf(stdout, "no ledger hooks in %s\n", path)
	case changed:
		fmt.Fprintf(stdout, "installed the ledger's %s hooks%s in %s (%s)\n", rt.Name, how, path, strings.Join(r.Added, ", "))
	default:
		fmt.Fprintf(stdout, "the ledger's %s hooks are already installed in %s\n", rt.Name, path)
	}
	if f.uninstall {
		return nil
	}
	if r.CodexTrust != nil {
		tr := r.CodexTrust
		switch {
		case len(tr.Trusted) > 0:
			fmt.Fprintf(stdout, "codex now trusts them: %d handler(s) trusted in %s (%d already were)\n", len(tr.Trusted), tr.ConfigFile, len(tr.Already))
		default:
			fmt.Fprintf(stdout, "codex already trusts them (%d handler(s))\n", len(tr.Already))
		}
	}
	fmt.Fprintln(stdout, agentInstallNote(rt, f.trust))
	return nil
}

// warnMoved warns, on stderr, that editing the codex hooks file at path
// moved the handlers of moved (none: no warning) to other positions, where
// codex, which trusts a handler by its position, runs them only once they
// are trusted again; dryRun: the edit would.
func warnMoved(stderr io.Writer, path string, moved []agenthook.Moved, dryRun bool) {
	if len(moved) == 0 {
		return
	}
	verb := "moved"
	if dryRun {
		verb = "would move"
	}
	fmt.Fprintf(stderr, "ledger: warning: removing the ledger's handlers from %s %s %d other hook(s) in it to another position, and codex trusts a hook by its position:\n"+
		"codex will not run them until they are trusted again (review them in codex's hooks list, which saves their trusted_hash in config.toml):\n", path, verb, len(moved))
	for _, m := range moved {
		fmt.Fprintf(stderr, "  %s %q: %s is now %s\n", m.Event, m.Command, m.From, m.To)
	}
}

// trustCodexHooks runs agenthook.TrustCodex with --codex (or the codex on
// PATH), in this process's environment (its CODEX_HOME), for --project,
// within a minute.
func trustCodexHooks(f *hookInstallFlags, stderr io.Writer) (agenthook.CodexTrust, error) {
	codex := f.codexBin
	if codex == "" {
		p, err := exec.LookPath("codex")
		if err != nil {
			return agenthook.CodexTrust{}, fmt.Errorf("--trust runs codex to read its hooks' hashes, and there is no codex on PATH: give --codex PATH")
		}
		codex = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return agenthook.TrustCodex(ctx, codex, os.Environ(), f.project)
}

// agentInstallNote says what the runtime needs besides the file (trusted:
// codex's trust of the hooks was written by --trust).
func agentInstallNote(rt agenthook.Runtime, trusted bool) string {
	if rt.Name == agenthook.Qwen.Name {
		return "qwen-code reads a project's .qwen/settings.json unless folder trust is on and the folder is untrusted (or the project is HOME); its hooks add to\n" +
			"the user's. The sessions' scope needs a policy of the ledger dialect: ledger policy set --dialect ledger --scope SCOPE FILE"
	}
	if rt.Name == agenthook.Gemini.Name {
		return "gemini-cli reads project hooks only in a trusted folder (trust it, or GEMINI_CLI_TRUST_WORKSPACE=true headless); it warns about new project hooks once, then runs them.\n" +
			"The sessions' scope needs a policy of the ledger dialect: ledger policy set --dialect ledger --scope SCOPE FILE"
	}
	if trusted {
		return "codex trusts a hook by its hash: a changed command line (another binary path or flag) is untrusted again; run this again after one.\n" +
			"The sessions' scope needs a policy of the ledger dialect: ledger policy set --dialect ledger --scope SCOPE FILE"
	}
	return "codex reads .codex/hooks.json only in a trusted project, and runs a hook only once it is trusted: review and trust the hooks in codex\n" +
		"(its hooks list in the TUI, which saves their trusted_hash in config.toml), run this again with --trust (which has codex write it), or run\n" +
		"'codex exec --dangerously-bypass-hook-trust'. The sessions' scope needs a policy of the ledger dialect: ledger policy set --dialect ledger --scope SCOPE FILE"
}
