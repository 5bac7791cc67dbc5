package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/importer"
)

// defaultHookOwner is the orchestrator the hook appends and asks as.
const defaultHookOwner = "claude-code"

const hookUsage = `Usage: ledger hook claude-code [flags] < PAYLOAD
       ledger hook install [--project DIR] [--shared] [--uninstall] [flags] [-- HOOK-FLAGS...]

  claude-code   the command Claude Code runs as a hook: reads one hook payload on standard
                input, appends what happened to the ledger over NATS, and answers a PreToolUse
                with a denial when the ledger denies the call (docs/claude-code-hooks.md)
  install       merges the hooks block that runs 'ledger hook claude-code' into a project's
                .claude/settings.local.json (--uninstall removes it again)

Run 'ledger hook claude-code --help' or 'ledger hook install --help' for their flags.
`

func runHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		io.WriteString(stderr, hookUsage)
		return usageError("hook needs a subcommand: claude-code or install")
	}
	switch args[0] {
	case "claude-code":
		return runHookClaudeCode(ctx, args[1:], stdin, stdout, stderr)
	case "install":
		return runHookInstall(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		io.WriteString(stdout, hookUsage)
		return nil
	}
	return usageError("unknown hook subcommand %q: use claude-code or install", args[0])
}

// hookFlags are the flags of 'ledger hook claude-code'.
type hookFlags struct {
	natsURL, creds, user, password, owner string
	catFile, toolList                     string
	noImport                              bool
	unreachable                           string
	timeout                               time.Duration
	verbose                               bool
}

func (f *hookFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.natsURL, "nats", envOr("NATS_URL", nats.DefaultURL), "the `URL` of the NATS server the ledger serves its API on (env NATS_URL)")
	fs.StringVar(&f.creds, "creds", os.Getenv("NATS_CREDS"), "NATS credentials `FILE` (env NATS_CREDS)")
	fs.StringVar(&f.user, "user", os.Getenv("NATS_USER"), "NATS user `NAME` (env NATS_USER); with the roles of 'ledger serve --gen-auth', an orchestrator, whose name is its owner token")
	fs.StringVar(&f.password, "password", os.Getenv("NATS_PASSWORD"), "NATS password (env NATS_PASSWORD; keep it there rather than in a settings file)")
	fs.StringVar(&f.owner, "owner", os.Getenv("LEDGER_OWNER"), "the orchestrator `NAME` the sessions belong to (env LEDGER_OWNER; default: --user, else claude-code)")
	fs.StringVar(&f.catFile, "catalogue", "", "the catalogue for the first policy.set, when the ledger has no policy yet: a JSON list or one name per line in `FILE`")
	fs.StringVar(&f.toolList, "tools", "", "the catalogue as a comma-separated `LIST` (instead of --catalogue)")
	fs.BoolVar(&f.noImport, "no-import", false, "never import the project's .claude configuration (the policy in the ledger is then the operator's alone)")
	fs.StringVar(&f.unreachable, "unreachable", string(cchook.UnreachableDeny), "what a PreToolUse answers when the ledger cannot be reached: deny (fail closed) or allow (let Claude Code decide alone);\nevery other event goes ahead whatever happens")
	fs.DurationVar(&f.timeout, "timeout", 3*time.Second, "bound on everything one payload waits for (connecting, every request); keep it under the hooks' own timeout")
	fs.BoolVar(&f.verbose, "verbose", false, "print what the hook did (the events appended, the decision, warnings) as one JSON line on standard error")
}

func (f *hookFlags) check() error {
	switch cchook.Unreachable(f.unreachable) {
	case cchook.UnreachableDeny, cchook.UnreachableAllow:
	default:
		return usageError("--unreachable %q: use deny or allow", f.unreachable)
	}
	if f.timeout <= 0 {
		return usageError("--timeout must be positive, got %s", f.timeout)
	}
	if f.catFile != "" && f.toolList != "" {
		return usageError("give the catalogue with --catalogue or --tools, not both")
	}
	return nil
}

func (f *hookFlags) ownerName() string {
	switch {
	case f.owner != "":
		return f.owner
	case f.user != "":
		return f.user
	}
	return defaultHookOwner
}

func hookFlagSet(stderr io.Writer) (*flag.FlagSet, *hookFlags) {
	fl := newFlags("hook claude-code", "< PAYLOAD",
		"The command Claude Code runs as a hook (install it with 'ledger hook install'). It reads one hook\n"+
			"payload on standard input and appends what happened through the ledger's NATS API: a session\n"+
			"started (SessionStart; UserPromptSubmit or a tool call when none was seen), a turn (each\n"+
			"UserPromptSubmit, and each PostToolBatch for the model turn that follows), a sub-agent spawned\n"+
			"(SubagentStart, or its first event when its parent could not be told yet), a tool call checked\n"+
			"and its effect started (PreToolUse), and the project's policy when it changed (SessionStart and\n"+
			"UserPromptSubmit). Stop, SubagentStop, SessionEnd and the other events append nothing.\n\n"+
			"It prints Claude Code's hook output on standard output and always exits 0: a PreToolUse the\n"+
			"ledger denies (or cannot decide) gets {\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\n"+
			"\"permissionDecision\":\"deny\",\"permissionDecisionReason\":...}} with the reason code, the rule and\n"+
			"the 'ledger why' command that explains it; anything else gets {} (no decision: Claude Code's\n"+
			"own rules still apply), or {\"systemMessage\": ...} when something went wrong.\n"+
			"See docs/claude-code-hooks.md.", stderr)
	var f hookFlags
	f.register(fl)
	return fl, &f
}

func runHookClaudeCode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl, f := hookFlagSet(stderr)
	_, err := parseFlags(fl, args)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err == nil {
		err = f.check()
	}
	raw, rerr := io.ReadAll(io.LimitReader(stdin, 64<<20))
	if err != nil {
		// A broken command line in a settings file must not block Claude
		// Code, except a call, which fails closed.
		var ee *exitError
		msg := err.Error()
		if errors.As(err, &ee) && ee.msg == "" {
			msg = "bad flags (see the usage above)"
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			return err
		}
		return writeHookOutput(stdout, badCommandLine(raw, "ledger hook claude-code: "+msg))
	}
	if rerr != nil {
		raw = nil
	}
	catalogue, cerr := readCatalogue(f.catFile, f.toolList)
	if cerr != nil {
		return writeHookOutput(stdout, badCommandLine(raw, "ledger hook claude-code: "+cerr.Error()))
	}
	if catalogue == nil {
		// The imported document names the pinned release: its built-in
		// catalogue is the first policy.set's.
		catalogue, _ = claudecode.Catalogue(claudecode.LatestRelease)
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	h := &cchook.Hook{Opts: f.options(catalogue)}
	nc, err := f.connect()
	if err != nil {
		h.L = downLedger{err}
	} else {
		defer nc.Close()
		per := min(f.timeout/2, 2*time.Second)
		h.L = cchook.ClientLedger{C: client.New(nc, client.Options{Owner: f.ownerName(), Timeout: per, Retries: 1, Coalesce: 1})}
	}
	res := h.Handle(ctx, raw)
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "ledger hook:", w)
	}
	if f.verbose {
		b, _ := json.Marshal(res)
		fmt.Fprintf(stderr, "%s\n", b)
	}
	return writeHookOutput(stdout, res.Output)
}

func writeHookOutput(stdout io.Writer, out []byte) error {
	_, err := stdout.Write(append(out, '\n'))
	return err
}

// badCommandLine is the answer to a payload the hook cannot serve because
// its own command line is wrong: a call is denied, anything else goes on
// with the message shown.
func badCommandLine(raw []byte, msg string) []byte {
	var probe struct {
		Event string `json:"hook_event_name"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.Event == cchook.PreToolUse {
		return cchook.DenyOutput(msg + " (the hook denies every call until its command line in the Claude Code settings is fixed)")
	}
	return cchook.PassOutput(msg)
}

// options are the hook's cchook options.
func (f *hookFlags) options(catalogue []string) cchook.Options {
	home, _ := os.UserHomeDir()
	projectDir := os.Getenv("CLAUDE_PROJECT_DIR")
	where := redactURL(f.natsURL)
	o := cchook.Options{
		Catalogue:   catalogue,
		Unreachable: cchook.Unreachable(f.unreachable),
		Why:         []string{"ledger", "why", "--nats", where},
		Where:       where,
		Home:        home,
		WorkDir: func(cwd string) string {
			if d := cchook.ProjectDir(cwd, projectDir, home); d != "" {
				return d
			}
			return cwd
		},
	}
	if f.creds != "" {
		o.Why = append(o.Why, "--creds", f.creds)
	}
	if !f.noImport {
		o.Import = cchook.ImportProject(projectDir, home, importer.ClaudeCodeOptions{UserDir: importer.ClaudeUserDir()})
	}
	return o
}

// redactURL drops the user and password from NATS URLs (a comma-separated
// list), which the hook prints where the model and the transcript see them.
func redactURL(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			u.User = nil
			parts[i] = u.String()
		}
	}
	return strings.Join(parts, ",")
}

// connect dials NATS once, within a bounded time, with no reconnects: a
// hook is short-lived.
func (f *hookFlags) connect() (*nats.Conn, error) {
	lf := ledgerFlags{creds: f.creds, user: f.user, password: f.password}
	opts := append([]nats.Option{nats.Name("ledger-hook"), nats.Timeout(min(f.timeout/2, time.Second)), nats.MaxReconnects(0)}, lf.authOptions()...)
	return nats.Connect(f.natsURL, opts...)
}

// downLedger answers every request with the error that kept the hook from
// reaching the ledger.
type downLedger struct{ err error }

func (d downLedger) Tree(context.Context, events.SessionKey) (*client.TreeNode, error) {
	return nil, d.err
}
func (d downLedger) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	return nil, d.err
}
func (d downLedger) Append(context.Context, client.Event) (client.AppendResult, error) {
	return client.AppendResult{}, d.err
}
func (d downLedger) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{}, d.err
}

// settingsFiles are the project settings files 'hook install' writes: the
// local one by default (personal, not committed), the shared one with
// --shared.
const (
	localSettings  = "settings.local.json"
	sharedSettings = "settings.json"
)

func runHookInstall(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("hook install", "[--project DIR] [-- HOOK-FLAGS...]",
		"Merges the hooks that run 'ledger hook claude-code' into the project's Claude Code settings:\n"+
			"DIR/.claude/settings.local.json (personal, kept out of version control: the command names this\n"+
			"machine's ledger), or DIR/.claude/settings.json with --shared. One handler per event that maps\n"+
			"to something: SessionStart, UserPromptSubmit, PreToolUse (matcher \"*\"), PostToolBatch,\n"+
			"SubagentStart and SubagentStop. Only the \"hooks\" key changes, and in it only the ledger's own\n"+
			"handlers (a command running 'hook claude-code', or an HTTP hook posting to "+cchook.HTTPPath+"):\n"+
			"every other byte of the file stays as it was. Installing again changes nothing; a different\n"+
			"command line replaces the old handlers. --uninstall removes the ledger's handlers from both\n"+
			"files, and whatever group, event or \"hooks\" key that leaves empty.\n\n"+
			"Flags after -- are written into the hook's command line (e.g. -- --nats nats://127.0.0.1:4222\n"+
			"--unreachable allow); see 'ledger hook claude-code --help'. Keep passwords in Claude Code's\n"+
			"environment (NATS_PASSWORD), not in the settings file.", stderr)
	project := fl.String("project", ".", "the project `DIR` (holding, or to hold, .claude)")
	shared := fl.Bool("shared", false, "write .claude/settings.json (committed, shared with the team) instead of settings.local.json")
	uninstall := fl.Bool("uninstall", false, "remove the ledger's hooks (from both settings files)")
	command := fl.String("command", "", "the `COMMAND` that runs the ledger binary, as a shell line (default: this binary's absolute path)")
	httpURL := fl.String("url", "", "install HTTP hooks posting to this `URL` ('ledger serve --hooks ADDR' serves http://ADDR"+cchook.HTTPPath+") instead of command hooks;\nClaude Code sends no SessionStart to HTTP hooks, and lets calls through when the server is down")
	timeoutSec := fl.Int("hook-timeout", 10, "Claude Code's own bound on each hook run, in `SECONDS`")
	dryRun := fl.Bool("dry-run", false, "print the settings file as it would be written, and write nothing")
	asJSON := fl.Bool("json", false, `print {"file", "changed", "added", "removed"} per settings file`)
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 0 {
		return usageError("hook install takes no arguments (give the project with --project DIR, hook flags after --), got %q", pos)
	}
	if *timeoutSec <= 0 {
		return usageError("--hook-timeout must be at least 1 second")
	}
	if *httpURL != "" && (len(rest) > 0 || *command != "") {
		return usageError("--url installs HTTP hooks, which take no command or hook flags: give those to 'ledger serve --hooks'")
	}
	// The hook flags must parse, and hold no password.
	hfl, hf := hookFlagSet(io.Discard)
	if extra, err := parseFlags(hfl, rest); err != nil || len(extra) > 0 {
		return usageError("the hook flags after -- do not parse (%q): see 'ledger hook claude-code --help'", rest)
	}
	if err := hf.check(); err != nil {
		return err
	}
	for _, a := range rest {
		if a == "--password" || a == "-password" || strings.HasPrefix(a, "--password=") || strings.HasPrefix(a, "-password=") {
			return usageError("keep the NATS password out of the settings file: set NATS_PASSWORD in Claude Code's environment")
		}
	}
	dir := filepath.Join(*project, ".claude")
	var blk []cchook.EventGroup
	if !*uninstall {
		if *httpURL != "" {
			blk = cchook.HTTPBlock(*httpURL, *timeoutSec)
		} else {
			cmd := *command
			if cmd == "" {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("finding this ledger binary (give --command): %w", err)
				}
				if strings.Contains(exe, string(filepath.Separator)+"go-build") || strings.HasPrefix(exe, os.TempDir()) {
					fmt.Fprintf(stderr, "ledger: warning: %s is a temporary build (go run?): the hooks stop working when it is removed; install the binary (go install ./cmd/ledger) or pass --command\n", exe)
				}
				cmd = cchook.Quote(exe)
			}
			blk = cchook.CommandBlock(cmd+" "+cchook.Quote(append([]string{"hook", "claude-code"}, rest...)...), *timeoutSec)
		}
	}
	files := []string{localSettings}
	switch {
	case *uninstall:
		files = []string{localSettings, sharedSettings}
	case *shared:
		files = []string{sharedSettings}
	}
	type report struct {
		File    string   `json:"file"`
		Changed bool     `json:"changed"`
		Added   []string `json:"added"`
		Removed []string `json:"removed"`
	}
	var reports []report
	for _, name := range files {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		var out []byte
		var ch cchook.Change
		if *uninstall {
			out, ch, err = cchook.Uninstall(src)
		} else {
			out, ch, err = cchook.Install(src, blk)
		}
		if err != nil {
			return &exitError{code: 1, msg: fmt.Sprintf("%s: %v; fix the file (or move it away) and run again", path, err)}
		}
		changed := !bytes.Equal(out, src)
		if *dryRun {
			if _, err := stdout.Write(out); err != nil {
				return err
			}
		} else if changed {
			if err := writeSettings(path, out); err != nil {
				return err
			}
		}
		r := report{File: path, Changed: changed, Added: ch.Added, Removed: ch.Removed}
		if r.Added == nil {
			r.Added = []string{}
		}
		if r.Removed == nil {
			r.Removed = []string{}
		}
		reports = append(reports, r)
	}
	if *dryRun {
		return nil
	}
	if *asJSON {
		return writeJSON(stdout, reports)
	}
	for _, r := range reports {
		switch {
		case *uninstall && r.Changed:
			fmt.Fprintf(stdout, "removed the ledger's Claude Code hooks from %s (%s)\n", r.File, strings.Join(r.Removed, ", "))
		case *uninstall:
			fmt.Fprintf(stdout, "no ledger hooks in %s\n", r.File)
		case r.Changed:
			fmt.Fprintf(stdout, "installed the ledger's Claude Code hooks in %s (%s)\n", r.File, strings.Join(r.Added, ", "))
		default:
			fmt.Fprintf(stdout, "the ledger's Claude Code hooks are already installed in %s\n", r.File)
		}
	}
	return nil
}

// writeSettings writes a settings file through a temporary file in the
// same directory, keeping the mode of the file it replaces.
func writeSettings(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
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
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// hookServer is what 'ledger serve --hooks' needs to serve Claude Code's
// HTTP hooks.
type hookServer struct {
	addr, token, owner, catFile string
	noImport                    bool
	catalogue                   []string
}

func (s *hookServer) register(fs *flag.FlagSet) {
	fs.StringVar(&s.addr, "hooks", "", "serve Claude Code's HTTP hooks at http://ADDR"+cchook.HTTPPath+" (ADDR without a host binds loopback, e.g. :8787);\ninstall them with 'ledger hook install --url http://ADDR"+cchook.HTTPPath+"' (docs/claude-code-hooks.md)")
	fs.StringVar(&s.token, "hooks-token", os.Getenv("LEDGER_HOOKS_TOKEN"), "with --hooks: accept only requests with Authorization: Bearer `TOKEN` (env LEDGER_HOOKS_TOKEN)")
	fs.StringVar(&s.owner, "hooks-owner", defaultHookOwner, "with --hooks: the orchestrator `NAME` the sessions belong to")
	fs.StringVar(&s.catFile, "hooks-catalogue", "", "with --hooks: the catalogue `FILE` for the first policy.set, when the ledger has no policy yet")
	fs.BoolVar(&s.noImport, "hooks-no-import", false, "with --hooks: never import the projects' .claude configuration")
}

// check validates the hooks flags before the ledger opens.
func (s *hookServer) check() error {
	if s.addr == "" {
		return nil
	}
	if !api.ValidOwner(s.owner) {
		return usageError("--hooks-owner %q: an owner is [A-Za-z0-9_-]{1,64} and not \"all\"", s.owner)
	}
	var err error
	s.catalogue, err = readCatalogue(s.catFile, "")
	return err
}

func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactURL(a)
	}
	return out
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
func (s *hookServer) serve(nc *nats.Conn, why []string, logger *slog.Logger) (stop func(), err error) {
	home, _ := os.UserHomeDir()
	opts := cchook.Options{
		Catalogue: s.catalogue,
		Why:       append([]string{"ledger", "why"}, redactArgs(why)...),
		Where:     "this ledger's API",
		Home:      home,
		WorkDir: func(cwd string) string {
			if d := cchook.ProjectDir(cwd, "", home); d != "" {
				return d
			}
			return cwd
		},
	}
	if !s.noImport {
		opts.Import = cchook.ImportProject("", home, importer.ClaudeCodeOptions{UserDir: importer.ClaudeUserDir()})
	}
	h := &cchook.Handler{Hook: &cchook.Hook{L: cchook.ClientLedger{C: client.New(nc, client.Options{Owner: s.owner, Timeout: 2 * time.Second, Retries: 1, Coalesce: 1})}, Opts: opts},
		Token: s.token, Timeout: 5 * time.Second, Logger: logger}
	ln, err := net.Listen("tcp", loopback(s.addr))
	if err != nil {
		return nil, err
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); s.token == "" && !net.ParseIP(host).IsLoopback() {
		logger.Warn("hooks listen beyond loopback without --hooks-token: anyone who reaches the address can append to the ledger as "+s.owner, "addr", ln.Addr().String())
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("hooks server stopped", "err", err)
		}
	}()
	logger.Info("hooks", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+cchook.HTTPPath, "owner", s.owner)
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}, nil
}
