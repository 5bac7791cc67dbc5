package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/agenthook"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookcmd"
	"github.com/sessionledger/ledger/internal/cchook/thinhook"
	"github.com/sessionledger/ledger/internal/importer"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/safefile"
)

// defaultHookOwner is the orchestrator the hook appends and asks as.
const defaultHookOwner = hookcmd.DefaultOwner

const hookUsage = `Usage: ledger hook claude-code [flags] < PAYLOAD
       ledger hook codex [flags] < PAYLOAD
       ledger hook gemini [flags] < PAYLOAD
       ledger hook qwen [flags] < PAYLOAD
       ledger hook install [--runtime claude-code|codex|gemini|qwen] [--project DIR] [--shared] [--uninstall] [flags] [-- HOOK-FLAGS...]

  claude-code   the command Claude Code runs as a hook: reads one hook payload on standard
                input, appends what happened to the ledger over NATS, and answers a PreToolUse
                with a denial when the ledger denies the call (docs/claude-code-hooks.md);
                with --hooks URL the thin hook, which hands the payload to 'ledger serve --hooks'
  codex         the command Codex CLI runs as a hook (docs/codex-cli-hooks.md)
  gemini        the command Gemini CLI runs as a hook (docs/gemini-cli-hooks.md)
  qwen          the command Qwen Code runs as a hook (docs/qwen-code-hooks.md)
  install       merges the hooks block that runs 'ledger hook claude-code' into a project's
                .claude/settings.local.json (--uninstall removes it again); with --runtime codex
                'ledger hook codex' into DIR/.codex/hooks.json, with --runtime gemini 'ledger hook
                gemini' into DIR/.gemini/settings.json, with --runtime qwen 'ledger hook qwen'
                into DIR/.qwen/settings.json

Run 'ledger hook claude-code --help' (codex, gemini, qwen, install) for their flags.
`

func runHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		io.WriteString(stderr, hookUsage)
		return usageError("hook needs a subcommand: claude-code, codex, gemini, qwen or install")
	}
	switch args[0] {
	case "claude-code":
		return runHookClaudeCode(ctx, args[1:], stdin, stdout, stderr)
	case "codex":
		return runHookAgent(ctx, agenthook.Codex, args[1:], stdin, stdout, stderr)
	case "gemini":
		return runHookAgent(ctx, agenthook.Gemini, args[1:], stdin, stdout, stderr)
	case "qwen":
		return runHookAgent(ctx, agenthook.Qwen, args[1:], stdin, stdout, stderr)
	case "install":
		return runHookInstall(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		io.WriteString(stdout, hookUsage)
		return nil
	}
	return usageError("unknown hook subcommand %q: use claude-code, codex, gemini or install", args[0])
}

// runHookClaudeCode is 'ledger hook claude-code': internal/cchook/hookcmd,
// which the slim ledger-hook binary runs too.
// With --hooks URL it is the thin hook instead (internal/cchook/thinhook,
// the ledger-hook binary), which hands the payload to serve --hooks.
func runHookClaudeCode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if thinhook.Wants(args) {
		return hookExit(thinhook.Run(ctx, "ledger hook claude-code", args, stdin, stdout, stderr))
	}
	return hookExit(hookcmd.Run(ctx, args, stdin, stdout, stderr))
}

// hookExit turns hookcmd's exit errors into the ledger's.
func hookExit(err error) error {
	var he *hookcmd.ExitError
	if errors.As(err, &he) {
		return &exitError{code: he.Code, msg: he.Msg}
	}
	var te *thinhook.ExitError
	if errors.As(err, &te) {
		return &exitError{code: te.Code, msg: te.Msg}
	}
	return err
}

// redactURL drops the user and password from NATS URLs.
func redactURL(s string) string { return hookcmd.RedactURL(s) }

// settingsFiles are the project settings files 'hook install' writes: the
// local one by default (personal, not committed), the shared one with
// --shared.
const (
	localSettings  = "settings.local.json"
	sharedSettings = "settings.json"
)

// hookInstallAbout is the description 'hook install --help' prints.
const hookInstallAbout = "Merges the ledger's hooks into the project's Claude Code settings: command hooks running this binary's\n" +
	"'hook claude-code' over NATS (flags after --), or with --url Claude Code's HTTP hooks posting to 'ledger serve --hooks'\n" +
	"and, for SessionStart (which Claude Code sends command hooks only), the thin " + cchook.SlimBinary + " --hooks URL posting\n" +
	"to the same server (the binary beside this one or --hook-binary's, else this binary's 'hook claude-code --hooks').\n" +
	"They go in DIR/.claude/settings.local.json (personal, kept out of version control: the command names this\n" +
	"machine's ledger), or DIR/.claude/settings.json with --shared. One handler per event that maps\n" +
	"to something: SessionStart, UserPromptSubmit, PreToolUse (matcher \"*\"), PostToolBatch,\n" +
	"SubagentStart, SubagentStop and SessionEnd. Only the \"hooks\" key changes, and in it only the ledger's own\n" +
	"handlers (a command running 'hook claude-code' or " + cchook.SlimBinary + ", or an HTTP hook posting to " + cchook.HTTPPath + "):\n" +
	"every other byte of the file stays as it was. Installing again changes nothing; a different\n" +
	"command line replaces the old handlers. --uninstall removes the ledger's handlers from both\n" +
	"files, and whatever group, event or \"hooks\" key that leaves empty.\n\n" +
	"Refused, writing nothing: a settings file Claude Code would ignore as a whole (not strict JSON, or a\n" +
	"key of its settings schema with the wrong type, such as \"model\": 5, or a malformed hooks entry of\n" +
	"any event), named with the key to fix; and the other settings file of the project holding the\n" +
	"ledger's hooks with another command line, which Claude Code would run beside the new ones.\n\n" +
	"Flags after -- are written into the hook's command line (e.g. -- --nats nats://127.0.0.1:4222\n" +
	"--unreachable allow); see 'ledger hook claude-code --help'. Keep passwords in Claude Code's\n" +
	"environment (NATS_PASSWORD), not in the settings file.\n\n" +
	"With --runtime codex it writes DIR/.codex/hooks.json (running 'ledger hook codex'),\n" +
	"with --runtime gemini DIR/.gemini/settings.json (running 'ledger hook gemini'),\n" +
	"with --runtime qwen DIR/.qwen/settings.json (running 'ledger hook qwen'), the same way: only the\n" +
	"ledger's handlers change (see docs/codex-cli-hooks.md, docs/gemini-cli-hooks.md and docs/qwen-code-hooks.md)."

// installRuntimes are the runtimes 'hook install --runtime' takes, each
// named in hookInstallAbout (TestHookInstallHelpNamesEveryRuntime).
var installRuntimes = []string{"claude-code", "codex", "gemini", "qwen"}

// hookInstallFlags are hook install's flags. rest holds the arguments
// after --, the hook's own flags.
type hookInstallFlags struct {
	project, command, hookBinary, httpURL string
	tokenFile, tokenEnv, scope            string
	runtime                               string
	codexBin                              string
	shared, uninstall, noToken, trust     bool
	dryRun, asJSON, allowRemote           bool
	timeoutSec                            int
	rest                                  []string
}

func (f *hookInstallFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&f.runtime, "runtime", "claude-code", "the `RUNTIME` whose hooks to write: claude-code (DIR/.claude), codex (DIR/.codex/hooks.json, running\n'ledger hook codex'), gemini (DIR/.gemini/settings.json, running 'ledger hook gemini')\nor qwen (DIR/.qwen/settings.json, running 'ledger hook qwen')")
	fl.StringVar(&f.project, "project", ".", "the project `DIR` (holding, or to hold, .claude, .codex, .gemini or .qwen); it must exist: the install makes\nDIR/.claude (...) but never DIR itself, so that a mistyped path is refused, not made")
	fl.BoolVar(&f.shared, "shared", false, "write .claude/settings.json (committed, shared with the team) instead of settings.local.json")
	fl.BoolVar(&f.uninstall, "uninstall", false, "remove the ledger's hooks (from both settings files)")
	fl.StringVar(&f.command, "command", "", "the `COMMAND` that runs the ledger binary, as a shell line: the hooks run 'COMMAND hook claude-code' (default: this\nbinary's absolute path); with --url, SessionStart's 'COMMAND hook claude-code --hooks URL'")
	fl.StringVar(&f.hookBinary, "hook-binary", "", "with --url: the thin "+cchook.SlimBinary+" `PATH` SessionStart's command hook runs (go build -o PATH ./cmd/"+cchook.SlimBinary+"), instead of\nthe one found beside this binary")
	fl.StringVar(&f.httpURL, "url", "", "install HTTP hooks posting to this `URL` ('ledger serve --hooks ADDR' serves http://ADDR"+cchook.HTTPPath+") instead of command\nhooks over NATS, and for SessionStart, which Claude Code sends no HTTP hook, the thin "+cchook.SlimBinary+" --hooks URL;\na call whose hook fails (the server down) is blocked. The thin hook speaks plain HTTP only (no https), and the token\ngoes in the clear: the host must be loopback (127.0.0.1, [::1], localhost; with --runtime R, unix:PATH too) unless\n--allow-remote")
	fl.StringVar(&f.tokenFile, "token-file", defaultHooksTokenFile(), "with --url: the `FILE` holding the bearer token 'ledger serve --hooks' checks (its --hooks-token-file);\nmade, with a new random token, when it does not exist (once every settings file is checked: a refused install makes none)")
	fl.StringVar(&f.tokenEnv, "token-env", "", "with --url: have the hooks send the token from Claude Code's environment variable `NAME` instead of\nwriting it into the settings file (the default with --shared: LEDGER_HOOKS_TOKEN)")
	fl.BoolVar(&f.noToken, "no-token", false, "with --url: send no token (for a server run with --hooks-insecure)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "with --url: accept a host that is not this machine; the hooks then send the bearer token and every payload\n(prompts, tool inputs) across the network in plain HTTP, readable and replayable by anyone on the way (rather: run\n'ledger serve --nats URL --hooks 127.0.0.1:PORT' here and give its loopback URL)")
	fl.StringVar(&f.scope, "scope", "", "bind the project's sessions to scope `NAME` (written into the hook's command line as --scope NAME);\ndefault: the hook derives it from the project (its git origin, else its directory)")
	fl.IntVar(&f.timeoutSec, "hook-timeout", 10, "Claude Code's own bound on each hook run, in `SECONDS`")
	fl.BoolVar(&f.trust, "trust", false, "with --runtime codex: have codex trust the ledger's handlers it lists for the project (codex's own hash of each, written by\ncodex into $CODEX_HOME/config.toml, as its hooks review does), so that they run without --dangerously-bypass-hook-trust;\nthe project itself must be trusted in codex")
	fl.StringVar(&f.codexBin, "codex", "", "with --trust: the codex `PATH` to ask (default: codex on PATH)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the settings file as it would be written (with --uninstall each of the two under a line \"# PATH\"),\nand write nothing (not the token file either)")
	fl.BoolVar(&f.asJSON, "json", false, `print a list of {"file", "changed", "added", "removed"}, one per settings file (and "warnings", when there are`+"\n"+
		`any, as standard error prints them); with --dry-run one object,`+"\n"+
		`{"dry_run": true, "files": [{"file", "action", "changed", "added", "removed", "content"}], "token_file": {"file", "action"}};`+"\n"+
		`an error is {"error": {"code", "message"}} on standard error`)
}

// splitDashDash splits args at the first "--": the command's own
// arguments, and the ones after it (nil when there is no "--").
func splitDashDash(args []string) (own, rest []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// validate checks the flags against each other, in the order the errors
// are reported.
func (f *hookInstallFlags) validate(pos []string) error {
	if len(pos) > 0 {
		return usageError("hook install takes no arguments (give the project with --project DIR, hook flags after --), got %q", pos)
	}
	if f.timeoutSec <= 0 {
		return usageError("--hook-timeout must be at least 1 second")
	}
	if f.command != "" && f.hookBinary != "" {
		return usageError("give the hooks' binary with --command (the ledger) or --hook-binary (the slim %s), not both", cchook.SlimBinary)
	}
	if f.httpURL != "" && (len(f.rest) > 0 || f.scope != "") {
		return usageError("--url installs HTTP hooks (and the thin hook for SessionStart), which take no hook flags: give those (--scope as --hooks-scope) to 'ledger serve --hooks'")
	}
	if f.httpURL == "" && f.hookBinary != "" {
		return usageError("--hook-binary is the thin %s, which hands payloads to 'ledger serve --hooks' and does not speak NATS: give it with --url (the command hook over NATS is the ledger's, --command)", cchook.SlimBinary)
	}
	if f.httpURL == "" && (f.tokenEnv != "" || f.noToken) {
		return usageError("--token-env and --no-token are about the HTTP hooks of --url")
	}
	if f.tokenEnv != "" && f.noToken {
		return usageError("give --token-env or --no-token, not both")
	}
	if f.tokenEnv != "" && !validEnvName(f.tokenEnv) {
		return usageError("--token-env %q: an environment variable name is [A-Za-z_][A-Za-z0-9_]*", f.tokenEnv)
	}
	return f.checkURL("claude-code")
}

// hookArgs are the flags written into the hook's command line: the ones
// after --, then --scope, so that --scope is the one in force.
func (f *hookInstallFlags) hookArgs() []string {
	if f.scope == "" {
		return f.rest
	}
	return append(append([]string{}, f.rest...), "--scope", f.scope)
}

// checkHookArgs checks the hook's flags: they parse, Claude Code's
// timeout leaves the hook its budget, and they hold no password.
func (f *hookInstallFlags) checkHookArgs(hookArgs []string, stderr io.Writer) error {
	if err := hookcmd.Check(hookArgs); errors.Is(err, hookcmd.ErrFlags) {
		return usageError("the hook flags after -- do not parse (%q): see 'ledger hook claude-code --help'", hookArgs)
	} else if err != nil {
		return hookExit(err)
	}
	if f.httpURL == "" {
		if err := checkHookBudgets(hookArgs, f.timeoutSec, stderr); err != nil {
			return err
		}
	}
	if passwordIn(hookArgs) {
		return usageError("keep the NATS password out of the settings file (a --password flag, or a password in the --nats URL): set NATS_PASSWORD in Claude Code's environment, and give the URL without it")
	}
	return nil
}

// checkHookBudgets checks that Claude Code's timeout leaves the command
// hook its budget: a call killed at the timeout is blocked (onFailure),
// but a prompt's import cut short is never cached, so the first is an
// error and the second a warning.
func checkHookBudgets(hookArgs []string, timeoutSec int, stderr io.Writer) error {
	call, other := hookcmd.Budgets(hookArgs)
	if limit := time.Duration(timeoutSec) * time.Second; call >= limit {
		return usageError("--hook-timeout %ds is not above the hook's budget for a call (%s: its --timeout and up to 1s past it): raise --hook-timeout or lower the hook's --timeout", timeoutSec, call)
	} else if other >= limit {
		fmt.Fprintf(stderr, "ledger: warning: --hook-timeout %ds is not above the hook's budget for a prompt (%s: its --import-timeout and up to 1s past it): a slow import is cut short and never cached; raise --hook-timeout or lower --import-timeout\n", timeoutSec, other)
	}
	return nil
}

// block is the hooks block to install (nil with --uninstall), and whether
// it holds the token itself (secret: the file is then written private);
// token is the one the HTTP hooks of --url send (planToken).
func (f *hookInstallFlags) block(hookArgs []string, token string, stderr io.Writer) (blk []cchook.EventGroup, secret bool, err error) {
	switch {
	case f.uninstall:
		return nil, false, nil
	case f.httpURL != "":
		secret = token != "" && !strings.HasPrefix(token, "$")
		start, err := f.thinCommand("claude-code", nil, stderr)
		if err != nil {
			return nil, false, err
		}
		return cchook.HTTPBlockWith(f.httpURL, token, f.timeoutSec, start), secret, nil
	}
	cmd, err := hookCommand(f.command, hookArgs, stderr)
	if err != nil {
		return nil, false, err
	}
	return cchook.CommandBlock(cmd, f.timeoutSec), false, nil
}

// startCommand is the SessionStart command hook of --url, which Claude
// Code sends no HTTP hook: the thin hook posting to the same server, with
// the token the HTTP hooks send (its file, never the token itself on a
// command line; or its environment variable). Its binary is --command's
// ledger ('hook claude-code --hooks URL'), else the thin ledger-hook
// (--hook-binary's, or the one beside this binary), else this binary.
//
// For another runtime (--runtime codex --url URL) it is every hook's
// command: 'ledger-hook --runtime R --hooks URL ...' with extra (its
// --scope), or '... hook R --hooks URL ...' of the ledger binary.
func (f *hookInstallFlags) thinCommand(runtime string, extra []string, stderr io.Writer) (string, error) {
	args := []string{"--hooks", f.httpURL}
	switch {
	case f.noToken:
		args = append(args, "--no-token")
	case f.tokenEnv != "" || f.shared:
		name := f.tokenEnv
		if name == "" {
			name = "LEDGER_HOOKS_TOKEN"
		}
		args = append(args, "--token-env", name)
	default:
		abs, err := filepath.Abs(f.tokenFile)
		if err != nil {
			return "", err
		}
		args = append(args, "--token-file", abs)
	}
	args = append(args, extra...)
	thinArgs := args
	if runtime != "claude-code" {
		thinArgs = append([]string{"--runtime", runtime}, args...)
	}
	if err := thinhook.Check(thinArgs); err != nil {
		return "", hookExit(err)
	}
	if limit := time.Duration(f.timeoutSec) * time.Second; thinhook.Timeout(args) >= limit {
		return "", usageError("--hook-timeout %ds is not above the thin hook's --timeout (%s): raise --hook-timeout", f.timeoutSec, thinhook.Timeout(args))
	}
	ledgerCmd := func(cmd string) string {
		return cmd + " " + cchook.Quote(append([]string{"hook", runtime}, args...)...)
	}
	if f.command != "" {
		return ledgerCmd(f.command), nil
	}
	thin := ""
	if f.hookBinary != "" {
		abs, err := filepath.Abs(f.hookBinary)
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			return "", usageError("--hook-binary %s: not an executable file (build it with: go build -o %s ./cmd/%s)", f.hookBinary, f.hookBinary, cchook.SlimBinary)
		}
		thin = abs
	} else {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding this ledger binary (give --command or --hook-binary): %w", err)
		}
		if thin = slimBeside(exe); thin == "" {
			warnTemporary(exe, stderr)
			return ledgerCmd(cchook.Quote(exe)), nil
		}
	}
	warnTemporary(thin, stderr)
	return cchook.Quote(append([]string{thin}, thinArgs...)...), nil
}

// files are the settings files to change, in .claude: the local one by
// default, the shared one with --shared, both with --uninstall.
func (f *hookInstallFlags) files() []string {
	switch {
	case f.uninstall:
		return []string{localSettings, sharedSettings}
	case f.shared:
		return []string{sharedSettings}
	}
	return []string{localSettings}
}

// settingsReport is what hook install did to one settings file; --json
// prints them as they are (Added and Removed never null).
type settingsReport struct {
	File    string   `json:"file"`
	Changed bool     `json:"changed"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// CodexTrust is what --trust had codex trust (--runtime codex).
	CodexTrust *agenthook.CodexTrust `json:"codex_trust,omitempty"`
	// CodexTrustNeeded says that this install added or changed the
	// ledger's codex handlers without --trust: codex runs none of them
	// until they are trusted, as Note says how (--runtime codex).
	CodexTrustNeeded bool `json:"codex_trust_needed,omitempty"`
	// CodexMoved are the handlers of the file, not the ledger's, that
	// removing the ledger's moved to another position: codex trusts a
	// handler by its position, so it runs them only once they are
	// trusted again (--runtime codex; agenthook.Runtime.Moved).
	CodexMoved []agenthook.Moved `json:"codex_moved,omitempty"`
	// Note is what the runtime needs besides the file, as the text
	// report's last lines say it (--runtime codex|gemini|qwen, not with
	// --uninstall).
	Note string `json:"note,omitempty"`
	// Warnings are what the install found wrong but wrote anyway (each
	// printed on standard error too): the other Claude Code settings
	// file holding the same ledger hooks (checkOtherSettings).
	Warnings []string `json:"warnings,omitempty"`
}

// planSettings installs blk in the settings file at path, or with
// --uninstall removes the ledger's hooks from it, and returns the file's
// new bytes; it writes nothing (planFile).
func (f *hookInstallFlags) planSettings(path string, blk []cchook.EventGroup) (settingsEdit, error) {
	if !f.uninstall {
		if err := linkInProject(path, f.project); err != nil {
			return settingsEdit{}, err
		}
	}
	return f.planFile(path, func(src []byte) ([]byte, cchook.Change, error) {
		if f.uninstall {
			return cchook.Uninstall(src)
		}
		return cchook.Install(src, blk)
	})
}

// checkOtherSettings looks into the project's other Claude Code settings
// file (settings.json when the install writes settings.local.json, and
// back): Claude Code runs the hooks of both, merged, so one holding the
// ledger's handlers with another command line (another ledger, other
// flags, --url against command hooks) would have every event run two
// ledger hooks. That is refused, saying which file to install into or how
// to remove them, rather than warned about: "a different command line
// replaces the old handlers" is what install promises, and a local file
// cannot replace the shared file's hooks, only add to them
// (TestHookInstallOtherSettingsFile). The same handlers there are a
// warning (returned): whether Claude Code runs an identical handler of two
// files once or twice was not observed. A file that is not there, cannot
// be read, or that Claude Code ignores whole runs no hooks and is passed
// over.
func (f *hookInstallFlags) checkOtherSettings(name string, blk []cchook.EventGroup) ([]string, error) {
	other, into := sharedSettings, "give --shared to install into it instead"
	if name == sharedSettings {
		other, into = localSettings, "install without --shared to write into it instead"
	}
	path := filepath.Join(f.project, ".claude", other)
	if a, err := os.Stat(path); err == nil {
		if b, err := os.Stat(filepath.Join(f.project, ".claude", name)); err == nil && os.SameFile(a, b) {
			return nil, nil // one file under two names (a link): the install replaces its hooks
		}
	}
	src, err := safefile.ReadFile(path, maxSettingsFile)
	if err != nil {
		return nil, nil
	}
	h, err := cchook.Holds(src, blk)
	switch {
	case err != nil || !h.Has:
		return nil, nil
	case h.Same:
		return []string{fmt.Sprintf("%s holds the same ledger hooks: Claude Code merges the hooks of both settings files, so keep them in one ('ledger hook install --uninstall' removes them from both; then install once)", path)}, nil
	}
	return nil, &exitError{code: 1, msg: fmt.Sprintf("%s holds the ledger's hooks already, running %s: Claude Code runs the hooks of both %s and %s, so every event would run two ledger hooks with different command lines; %s, "+
		"or remove the ledger's hooks from it first ('ledger hook install --uninstall' removes them from both files), and run again; nothing was written",
		path, strings.Join(quoteEach(h.Runs), ", "), other, name, into)}
}

// quoteEach quotes each string, for a message.
func quoteEach(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// printSettingsReports prints one line per settings file.
func printSettingsReports(stdout io.Writer, reports []settingsReport, uninstall bool) {
	for _, r := range reports {
		switch {
		case uninstall && r.Changed:
			fmt.Fprintf(stdout, "removed the ledger's Claude Code hooks from %s (%s)\n", r.File, strings.Join(r.Removed, ", "))
		case uninstall:
			fmt.Fprintf(stdout, "no ledger hooks in %s\n", r.File)
		case r.Changed:
			fmt.Fprintf(stdout, "installed the ledger's Claude Code hooks in %s (%s)\n", r.File, strings.Join(r.Added, ", "))
		default:
			fmt.Fprintf(stdout, "the ledger's Claude Code hooks are already installed in %s\n", r.File)
		}
	}
}

// runHookInstall is 'ledger hook install': every check before any file is
// read, every file updated before anything is printed.
func runHookInstall(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("hook install", "[--project DIR] [-- HOOK-FLAGS...]", hookInstallAbout, stderr)
	var f hookInstallFlags
	f.register(fl)
	args, f.rest = splitDashDash(args)
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	switch f.runtime {
	case "claude-code":
		if f.trust || f.codexBin != "" {
			return usageError("--trust and --codex are about codex's hook trust (--runtime codex); Claude Code runs the hooks in its settings files")
		}
	case "codex":
		return runAgentHookInstall(agenthook.Codex, &f, pos, stdout, stderr)
	case "gemini":
		return runAgentHookInstall(agenthook.Gemini, &f, pos, stdout, stderr)
	case "qwen":
		return runAgentHookInstall(agenthook.Qwen, &f, pos, stdout, stderr)
	default:
		return usageError("--runtime %q: use %s or %s", f.runtime, strings.Join(installRuntimes[:len(installRuntimes)-1], ", "), installRuntimes[len(installRuntimes)-1])
	}
	if err := f.validate(pos); err != nil {
		return err
	}
	if err := checkProjectDir(f.project); err != nil {
		return err
	}
	if !f.uninstall {
		if err := checkHooksEnabled("claude-code", f.project); err != nil {
			return err
		}
	}
	hookArgs := f.hookArgs()
	if err := f.checkHookArgs(hookArgs, stderr); err != nil {
		return err
	}
	tok := &tokenPlan{}
	if f.httpURL != "" && !f.uninstall {
		var err error
		if tok, err = f.planToken(stderr); err != nil {
			return err
		}
	}
	// Every file is read and edited before any is written: a refused
	// one (--uninstall edits both) leaves the other as it was, and no
	// token file is made.
	plan := func(token string) ([]settingsEdit, bool, error) {
		blk, secret, err := f.block(hookArgs, token, stderr)
		if err != nil {
			return nil, false, err
		}
		var edits []settingsEdit
		for _, name := range f.files() {
			e, err := f.planSettings(filepath.Join(f.project, ".claude", name), blk)
			if err != nil {
				return nil, false, err
			}
			if !f.uninstall {
				if e.report.Warnings, err = f.checkOtherSettings(name, blk); err != nil {
					return nil, false, err
				}
			}
			edits = append(edits, e)
		}
		return edits, secret, nil
	}
	edits, secret, err := plan(tok.value)
	if err != nil {
		return err
	}
	for _, e := range edits {
		for _, w := range e.report.Warnings {
			fmt.Fprintf(stderr, "ledger: warning: %s\n", w)
		}
	}
	if f.dryRun {
		return f.printDryRun(stdout, stderr, edits, tok)
	}
	if planned := tok.value; tok.make {
		token, err := tok.commit(stderr)
		if err != nil {
			return err
		}
		if token != planned {
			// Another install made the token file first: its token.
			if edits, secret, err = plan(token); err != nil {
				return err
			}
		}
	}
	var reports []settingsReport
	for _, e := range edits {
		if e.changed {
			if err := writeSettings(e.path, e.out, secret); err != nil {
				return err
			}
		}
		reports = append(reports, e.report)
	}
	if f.asJSON {
		return writeJSON(stdout, reports)
	}
	printSettingsReports(stdout, reports, f.uninstall)
	return nil
}

func validEnvName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// maxSettingsFile bounds a settings (or hooks) file 'hook install' reads:
// the limit the hook's import reads a Claude Code settings file up to
// (ccimport.ClaudeCodeOptions' default), so that install takes every file
// the hook reads (TestHookInstallSettingsLimit).
const maxSettingsFile = importer.DefaultMaxFileSize

// hookCommand is the shell line the command hooks run over NATS:
// --command's ledger with 'hook claude-code', else this ledger binary with
// 'hook claude-code'; then the hook flags. (The slim ledger-hook is the
// thin hook of --url, which does not speak NATS.)
func hookCommand(command string, flags []string, stderr io.Writer) (string, error) {
	ledgerCmd := func(cmd string) string {
		return cmd + " " + cchook.Quote(append([]string{"hook", "claude-code"}, flags...)...)
	}
	if command != "" {
		return ledgerCmd(command), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this ledger binary (give --command): %w", err)
	}
	warnTemporary(exe, stderr)
	return ledgerCmd(cchook.Quote(exe)), nil
}

// slimBeside is the slim hook binary in the directory of the ledger binary
// exe (as 'go install ./cmd/...' and a release put them), or "".
func slimBeside(exe string) string {
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	p := filepath.Join(filepath.Dir(exe), cchook.SlimBinary)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		return p
	}
	return ""
}

// warnTemporary warns when the binary the hooks will run is a temporary
// build, which goes away.
func warnTemporary(exe string, stderr io.Writer) {
	if strings.Contains(exe, string(filepath.Separator)+"go-build") || strings.HasPrefix(exe, os.TempDir()) {
		fmt.Fprintf(stderr, "ledger: warning: %s is a temporary build (go run?): the hooks stop working when it is removed; install the binaries (go install ./cmd/ledger ./cmd/%s) or pass --command or --hook-binary\n", exe, cchook.SlimBinary)
	}
}

// writeSettings writes a settings file through a temporary file in the
// same directory, keeping the mode of the file it replaces; one that holds
// a secret is readable by its owner alone.
//
// A settings file that is a symbolic link (a dotfiles checkout) is written
// where it points, the link kept; one without its owner's write
// permission is refused, not replaced (TestHookInstallAdversarialSymlink,
// TestHookInstallAdversarialReadOnly).
func writeSettings(path string, data []byte, secret bool) error {
	path, err := settingsTarget(path)
	if err != nil {
		return err
	}
	if err := checkWritable(path); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if secret {
		mode &^= 0o077
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	// On disk before the rename, and the rename itself after it: a power
	// loss leaves the old file or the new one, never an empty one.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// hookServer is what 'ledger serve --hooks' needs to serve Claude Code's
// HTTP hooks.
type hookServer struct {
	addr, token, owner, catFile string
	tokenFile, roots            string
	scope                       string
	noImport, insecure          bool
	maxConcurrent               int
	timeout                     time.Duration
	catalogue                   []string
	rootList                    []string
}

func (s *hookServer) register(fs *flag.FlagSet) {
	fs.StringVar(&s.addr, "hooks", "", "serve Claude Code's HTTP hooks at http://ADDR"+cchook.HTTPPath+" (ADDR without a host binds loopback, e.g. :8787), or on the Unix\nsocket unix:PATH (mode 0600, removed on stop: the thin ledger-hook --hooks unix:PATH reaches it); install them with 'ledger hook install --url http://ADDR"+cchook.HTTPPath+"' (docs/claude-code-hooks.md)")
	fs.StringVar(&s.token, "hooks-token", os.Getenv("LEDGER_HOOKS_TOKEN"), "with --hooks: accept only requests with Authorization: Bearer `TOKEN` (env LEDGER_HOOKS_TOKEN), instead of --hooks-token-file's")
	fs.StringVar(&s.tokenFile, "hooks-token-file", defaultHooksTokenFile(), "with --hooks: accept only requests with the bearer token in `FILE`, made when it does not exist\n('ledger hook install --url' writes the same file's token into the project's hooks)")
	fs.BoolVar(&s.insecure, "hooks-insecure", false, "with --hooks: accept requests without a token (anyone who reaches the address may append as --hooks-owner)")
	fs.StringVar(&s.roots, "hooks-roots", "", "with --hooks: the comma-separated `DIRS` under which a payload's cwd and transcript_path may be opened\n(the project's settings, its git files, sub-agent metadata); default: this user's home directory")
	fs.IntVar(&s.maxConcurrent, "hooks-max-concurrent", cchook.DefaultMaxConcurrent, "with --hooks: the hooks handled at once; past them a call is denied unread")
	fs.DurationVar(&s.timeout, "hooks-timeout", 5*time.Second, "with --hooks: answer each hook within `DURATION`, denying a call not decided by then;\nkeep it below the hooks' timeout ('hook install --hook-timeout', 10 s by default), or Claude Code gives up first (and blocks the call)")
	fs.StringVar(&s.owner, "hooks-owner", defaultHookOwner, "with --hooks: the orchestrator `NAME` the sessions belong to")
	fs.StringVar(&s.catFile, "hooks-catalogue", "", "with --hooks: the catalogue `FILE` of the policy.set the hooks install (default: Claude Code's built-in tools)")
	fs.BoolVar(&s.noImport, "hooks-no-import", false, "with --hooks: never import the projects' .claude configuration")
	fs.StringVar(&s.scope, "hooks-scope", "", "with --hooks: bind every session the hooks start to scope `NAME` (default: derived from each project, as the command hook does)")
}

// check validates the hooks flags before the ledger opens.
func (s *hookServer) check() error {
	if s.addr == "" {
		return nil
	}
	if p, ok := strings.CutPrefix(s.addr, "unix:"); ok && (p == "" || !filepath.IsAbs(p)) {
		return usageError("--hooks %q: a Unix socket is unix: and an absolute path", s.addr)
	}
	if !api.ValidOwner(s.owner) {
		return usageError("--hooks-owner %q: an owner is [A-Za-z0-9_-]{1,64} and not \"all\"", s.owner)
	}
	if s.scope != "" && !events.ValidScope(s.scope) {
		return usageError("--hooks-scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", s.scope)
	}
	if s.timeout < 100*time.Millisecond || s.timeout > 10*time.Minute {
		return usageError("--hooks-timeout must be between 100ms and 10m, got %s", s.timeout)
	}
	if s.maxConcurrent <= 0 {
		return usageError("--hooks-max-concurrent must be at least 1, got %d", s.maxConcurrent)
	}
	if s.insecure && s.token != "" {
		return usageError("--hooks-insecure takes hooks without a token, and --hooks-token (or LEDGER_HOOKS_TOKEN) gives one: give one of them")
	}
	if !s.insecure && s.token == "" {
		token, made, err := hooksToken(s.tokenFile)
		if err != nil {
			return usageError("--hooks needs a token: %v (or run with --hooks-insecure)", err)
		}
		if made {
			fmt.Fprintf(os.Stderr, "ledger: made a new hooks token in %s; 'ledger hook install --url' writes it into a project's hooks\n", s.tokenFile)
		}
		s.token = token
	} else if s.token != "" && !validHooksToken(s.token) {
		return usageError("--hooks-token: a token is 16 to 512 of A-Z a-z 0-9 - . _ ~ + / =")
	}
	roots, err := hookRoots(s.roots)
	if err != nil {
		return err
	}
	s.rootList = roots
	if s.catalogue, err = readCatalogue(s.catFile, ""); err != nil || s.catalogue != nil {
		return err
	}
	// As the command hook: the imported document names the pinned
	// release, whose built-in tools are the catalogue (it lists no MCP
	// gateway: a server does not fetch the URLs a project names).
	s.catalogue, _ = claudecode.Catalogue(claudecode.LatestRelease)
	return nil
}

// hookRoots is the list of --hooks-roots, each absolute and clean, with
// the path its links resolve to beside it; the home directory by default.
func hookRoots(list string) ([]string, error) {
	if list == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, usageError("--hooks: no home directory to take payload paths under: give --hooks-roots DIRS")
		}
		list = home
	}
	var out []string
	for _, d := range strings.Split(list, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, usageError("--hooks-roots %q: %v", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, usageError("--hooks-roots %q: %v", d, err)
		}
		out = append(out, abs)
		if real != abs {
			out = append(out, real)
		}
	}
	if len(out) == 0 {
		return nil, usageError("--hooks-roots names no directory")
	}
	return out, nil
}

// loopback makes an address without a host bind the loopback interface.
func loopback(addr string) string {
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// serve serves the hooks until stopped. The hook talks to this replica's
// API over its own NATS connection, exactly as the command hook does from
// outside. why names the flags that find this ledger in the 'ledger why'
// command a denial prints.
func (s *hookServer) serve(nc client.Requester, why ledgercmd.Conn, logger *slog.Logger) (*httpActor, error) {
	home, _ := os.UserHomeDir()
	opts := cchook.Options{
		Catalogue: s.catalogue,
		Scope:     s.scope,
		Why:       why.Words("why"),
		Where:     "this ledger's API",
		Home:      home,
		Roots:     s.rootList,
		WorkDir: func(cwd, transcript string) string {
			// No CLAUDE_PROJECT_DIR reaches an HTTP hook: the transcript's
			// folder names the project, else the nearest .claude within
			// the roots.
			if d := cchook.ProjectOfTranscript(cwd, transcript); d != "" {
				return d
			}
			if d := cchook.ProjectDirWithin(cwd, "", home, s.rootList); d != "" {
				return d
			}
			return cwd
		},
	}
	if !s.noImport {
		opts.Import = cchook.ImportProject("", home, ccimport.ClaudeCodeOptions{UserDir: ccimport.ClaudeUserDir()}, &cchook.ImportCache{})
	}
	ln, url, local, err := s.listen()
	if err != nil {
		return nil, err
	}
	// An HTTP hook names no version (its User-Agent is axios's) and no
	// user; bound to loopback (or a Unix socket), Claude Code runs on this
	// host.
	if local {
		opts.Who = func() cchook.Who {
			name, _ := os.Hostname()
			return cchook.Who{Host: name}
		}
	}
	h := &cchook.Handler{Hook: &cchook.Hook{L: cchook.ClientLedger{C: client.NewOn(nc, client.Options{Owner: s.owner, Timeout: 2 * time.Second, Retries: 1, Coalesce: 1})}, Opts: opts},
		Token: s.token, Insecure: s.insecure, MaxConcurrent: s.maxConcurrent, Timeout: s.timeout, Logger: logger,
		Paths: s.agentPaths(nc, why, opts.Who)}
	if s.insecure {
		logger.Warn("hooks take requests without a token (--hooks-insecure): anything that reaches the address can append to the ledger as "+s.owner, "addr", ln.Addr().String())
	}
	logger.Info("hooks", "addr", ln.Addr().String(), "url", url, "owner", s.owner)
	// Bounded in time and in connections, so that no client can hold the
	// server's descriptors or its slots: a request's headers within 5s
	// and its body within 10s, an idle connection closed after 30s, and
	// at most 2 connections per payload slot, the rest waiting in the
	// kernel's backlog (TestI24HookServerIdleConnectionsStopAPI,
	// TestI24HookServerSlowBodyHoldsSlots).
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: max(20*time.Second, s.timeout+15*time.Second), IdleTimeout: 30 * time.Second, MaxHeaderBytes: 64 << 10}
	return &httpActor{name: "hooks", srv: srv, ln: limitListener(ln, 2*s.maxConcurrent)}, nil
}

// agentPaths are the agent runtimes' hooks the server takes besides
// Claude Code's (POST /hooks/codex, /hooks/gemini, /hooks/qwen, for
// 'ledger-hook --runtime R'): agenthook's mapping, as 'ledger hook R' runs
// it, over this server's NATS connection. The sessions belong to
// --hooks-owner when it is given, else to the runtime (as 'ledger hook R'
// without --owner); their scope is the hook's --scope, else derived from
// the project (--hooks-scope is Claude Code's, whose policies are of
// another dialect); a cwd is looked into only under --hooks-roots.
func (s *hookServer) agentPaths(nc client.Requester, why ledgercmd.Conn, who func() cchook.Who) map[string]cchook.PathHook {
	out := map[string]cchook.PathHook{}
	for _, rt := range []agenthook.Runtime{agenthook.Codex, agenthook.Gemini, agenthook.Qwen} {
		owner := s.owner
		if owner == defaultHookOwner {
			owner = rt.Name
		}
		h := &agenthook.Hook{Runtime: rt,
			L: cchook.ClientLedger{C: client.NewOn(nc, client.Options{Owner: owner, Timeout: 2 * time.Second, Retries: 1, Coalesce: 1})},
			Opts: agenthook.Options{Why: why.Words("why"), Where: "this ledger's API", Who: who,
				Locate: agenthook.LocateWithin(s.rootList), SpawnWait: min(2*time.Second, s.timeout/2)}}
		out[rt.Path()] = &agenthook.HTTPHook{Hook: h}
	}
	return out
}

// listen opens the hooks' listener: a TCP address (one without a host
// binds loopback), or with unix:PATH a Unix socket at PATH, made readable
// and writable by this user alone (mode 0600) and removed when the
// listener closes (TestServeHooksUnixSocket). A socket file left by a
// server that is gone is replaced; one a live server answers on is not.
// url is what the thin hook's --hooks names; local says Claude Code runs
// on this host.
func (s *hookServer) listen() (ln net.Listener, url string, local bool, err error) {
	path, ok := strings.CutPrefix(s.addr, "unix:")
	if !ok {
		if ln, err = net.Listen("tcp", loopback(s.addr)); err != nil {
			return nil, "", false, err
		}
		host, _, _ := net.SplitHostPort(ln.Addr().String())
		return ln, "http://" + ln.Addr().String() + cchook.HTTPPath, net.ParseIP(host).IsLoopback(), nil
	}
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSocket != 0 {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, "", false, fmt.Errorf("a server is already listening on %s", path)
		}
		_ = os.Remove(path)
	}
	ul, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", false, err
	}
	// The token still guards every request; the mode keeps other users
	// from reaching the socket at all.
	if err := os.Chmod(path, 0o600); err != nil {
		ul.Close()
		return nil, "", false, err
	}
	return ul, "unix:" + path, true, nil
}

// limitListener accepts at most n connections at once: Accept waits for
// one to close.
func limitListener(ln net.Listener, n int) net.Listener {
	return &limitedListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{} // closed by Close: a waiting Accept returns
	once  sync.Once
}

func (l *limitedListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// settingsTarget is the file a settings path names: the path itself, or
// the file a symbolic link there points to (which is then written, the
// link kept); a link to nothing is refused.
func settingsTarget(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", &exitError{code: 1, msg: fmt.Sprintf("%s is a symbolic link that cannot be followed (%v); make it point to a file (or remove it) and run again", path, err)}
	}
	return target, nil
}

// linkInProject refuses a Claude Code settings file that a symbolic link
// (the file's, or its .claude directory's) leads out of the project: the hook imports the project's settings as
// 'ledger policy import' does, which refuses such a link (it is not
// followed unless asked), so hooks written through it would find the
// project's policy refused at every session. Uninstall still takes its
// hooks out (TestHookInstallRefusesLinkOutOfProject).
func linkInProject(path, project string) error {
	root, err := filepath.EvalSymlinks(project)
	if err != nil {
		return nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		// Not there yet (or a link to nothing, which settingsTarget
		// names): where it would be made.
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if derr != nil {
			return nil
		}
		target = filepath.Join(dir, filepath.Base(path))
	}
	if rel, err := filepath.Rel(root, target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return &exitError{code: 1, msg: fmt.Sprintf("%s leads through a symbolic link to %s, outside the project %s: the hook imports the project's settings "+
		"as 'ledger policy import' does, which does not follow a link out of the project, so its sessions would find the policy refused; "+
		"make .claude a directory and %s a file in the project (or links inside it) and run again; nothing was written", path, target, root, filepath.Base(path))}
}

// checkWritable refuses a settings file its owner may not write (mode
// without u+w): someone made it read-only, and renaming a new file over it
// would change it anyway.
func checkWritable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // none yet, or the write says what is wrong
	}
	if st.Mode().Perm()&0o200 == 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%s is read-only (mode %v); make it writable (chmod u+w) to have the ledger's hooks changed in it, and run again", path, st.Mode().Perm())}
	}
	return nil
}
