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
	"path/filepath"
	"sort"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookcmd"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/importer"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	ocimport "github.com/sessionledger/ledger/internal/importer/openclaw"
	"github.com/sessionledger/ledger/internal/safefile"
)

// importActor is the actor of the policy.set events policy import prints.
const importActor = "ledger-import"

func runPolicy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "set" {
		return runPolicySet(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "import" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			io.WriteString(stdout, "Usage: ledger policy import --dialect openclaw|claude-code PATH\n"+
				"       ledger policy set --dialect NAME [--scope S] FILE\n\n"+
				"Run 'ledger policy import --help' or 'ledger policy set --help' for their flags.\n")
			return nil
		}
		return usageError("policy has two subcommands: import and set")
	}
	return runPolicyImport(ctx, args[1:], stdin, stdout, stderr)
}

// policyImportAbout is the description 'policy import --help' prints.
func policyImportAbout() string {
	return "Turns a real orchestrator config into a policy document and prints the policy.set event\n" +
		"that installs it, as one JSON line ready for 'ledger append'.\n\n" +
		"  --dialect openclaw PATH     PATH is an openclaw.json (JSON5; '-' reads standard input).\n" +
		"                              Only tools, agents (defaults, list) and channels are kept;\n" +
		"                              agents.entries maps become agents.list. With no --catalogue or --tools,\n" +
		"                              the event carries the release's core tools (openclaw " + openclaw.NewestRelease() + ")\n" +
		"                              and the tools pluginTools marks.\n" +
		"  --dialect claude-code DIR   DIR is a project root holding .claude/, or .claude itself. Loads what\n" +
		"                              Claude Code " + claudecode.LatestRelease + " loads: agents/**/*.md front matter (subfolders\n" +
		"                              too), and permissions layered from the user's settings.json (see\n" +
		"                              --user-config), settings.json and settings.local.json: rule lists\n" +
		"                              merged in that order, the last defaultMode wins. A file Claude Code\n" +
		"                              would not load is skipped with a warning saying why; the rest loads.\n" +
		"                              With no --catalogue or --tools, the event carries the built-in\n" +
		"                              catalogue of Claude Code " + claudecode.LatestRelease + ". See docs/importer-claude-code.md.\n\n" +
		"Only regular files are read (a named pipe, a device or a socket is refused), up to 8 MiB a file and\n" +
		"32 MiB in all (agent files: 1 MiB, as Claude Code); a larger file refuses the import. A symbolic link\n" +
		"in the claude-code project that leads out of it refuses the import unless --follow-symlinks.\n\n" +
		"Every key left out and every file skipped is reported as a warning, as file:line:column\n" +
		"(on standard error, or in --json output); --strict makes any warning an error.\n" +
		"The document is validated by the dialect before anything is printed. Malformed input is\n" +
		"refused with file:line[:column] and nothing is written.\n" +
		"Exit status: 0 on success, 1 when the input is refused (or, with --strict, warned about),\n" +
		"2 on a usage error."
}

// policyImportFlags are policy import's flags.
type policyImportFlags struct {
	dialect, scope, catFile, toolList string
	outFile, builtIns, userDir        string
	docOnly, asJSON, strict, follow   bool
	depth                             int
}

func (f *policyImportFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&f.dialect, "dialect", "", "`NAME` of the config's dialect: openclaw or claude-code (required)")
	fl.StringVar(&f.scope, "scope", "", "the scope `NAME` whose policy the event sets (default: the default scope); a new scope's first policy.set\nfixes its dialect")
	fl.StringVar(&f.catFile, "catalogue", "", "read the catalogue (the tool names that exist) from `FILE`: a JSON list, or one name per line (# starts a comment);\nclaude-code: replaces the built-in catalogue of the pinned release")
	fl.StringVar(&f.toolList, "tools", "", "the catalogue as a comma-separated `LIST` of tool names (instead of --catalogue)")
	fl.BoolVar(&f.docOnly, "document", false, "print only the policy document, not the policy.set event")
	fl.BoolVar(&f.asJSON, "json", false, `print {"event": ..., "warnings": [...]} ({"document": ..., "warnings": [...]} with --document)`)
	fl.StringVar(&f.outFile, "o", "", "write the output to `FILE` instead of standard output")
	fl.BoolVar(&f.strict, "strict", false, "treat every warning as an error: print the warnings, write nothing and exit 1 when there is any\n(a skipped file, a dropped key, a value Claude Code reads differently from how it is written)")
	fl.StringVar(&f.builtIns, "built-in-agents", "", "claude-code: set builtInAgents to true, false or a comma-separated `LIST` of built-in agents")
	fl.IntVar(&f.depth, "max-subagent-depth", 0, "claude-code: set maxSubagentDepth to `N` (replaces CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH from settings env)")
	fl.StringVar(&f.userDir, "user-config", "", "claude-code: the user's Claude Code `DIR`, whose settings.json is layered under the project's settings and\n"+
		"whose agents/ load under the project's agents, as Claude Code does (default: $CLAUDE_CONFIG_DIR, else $HOME/.claude,\n"+
		"read only when it exists; 'none' reads no user files)")
	fl.BoolVar(&f.follow, "follow-symlinks", false, "claude-code: read what symbolic links in the project lead to outside it (as Claude Code does);\nby default such a link refuses the import")
}

// validate checks the flags and the positional arguments, in the order the
// errors are reported.
func (f *policyImportFlags) validate(pos []string) error {
	switch {
	case f.dialect == "":
		return usageError("policy import needs --dialect openclaw or --dialect claude-code")
	case f.dialect != importer.DialectOpenClaw && f.dialect != importer.DialectClaudeCode:
		return usageError("unknown dialect %q: use openclaw or claude-code", f.dialect)
	case len(pos) != 1:
		return usageError("policy import takes one PATH (the openclaw.json, or the claude-code project directory), got %d", len(pos))
	case f.catFile != "" && f.toolList != "":
		return usageError("give the catalogue with --catalogue or --tools, not both")
	case f.dialect == importer.DialectOpenClaw && (f.builtIns != "" || f.depth != 0 || f.userDir != "" || f.follow):
		return usageError("--built-in-agents, --max-subagent-depth, --user-config and --follow-symlinks are claude-code options")
	case f.depth < 0:
		return usageError("--max-subagent-depth must be at least 1")
	case f.scope != "" && !events.ValidScope(f.scope):
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	return nil
}

// importOpenClaw imports the openclaw.json at path ('-': stdin). With no
// catalogue given, the catalogue is, as for claude-code, the release's
// core tools and the tools the document marks as its plugins'
// (pluginTools).
func importOpenClaw(path string, stdin io.Reader, catalogue []string, stderr io.Writer) (*importer.Result, []string, error) {
	name, src, err := readInput(path, stdin)
	if err != nil {
		return nil, nil, err
	}
	res, err := ocimport.Import(name, src)
	if err != nil {
		return nil, nil, refuse(stderr, err)
	}
	if catalogue == nil {
		catalogue = openclawCatalogue(res.Document)
	}
	return res, catalogue, nil
}

// importClaudeCode imports the Claude Code project at path. With no
// catalogue given, the catalogue is the pinned release's: a first
// policy.set needs one, and without it the import could not be appended.
func (f *policyImportFlags) importClaudeCode(path string, catalogue []string, stderr io.Writer) (*importer.Result, []string, error) {
	user, err := claudeUserDir(f.userDir)
	if err != nil {
		return nil, nil, err
	}
	res, err := ccimport.ClaudeCode(path, ccimport.ClaudeCodeOptions{BuiltInAgents: f.builtIns, MaxSubagentDepth: f.depth, UserDir: user, FollowSymlinks: f.follow})
	if err != nil {
		return nil, nil, refuse(stderr, err)
	}
	if catalogue == nil {
		catalogue, _ = claudecode.Catalogue(claudecode.LatestRelease)
	}
	return res, catalogue, nil
}

// checkImport validates the document with its dialect (a build without the
// dialect adds a warning instead) and, with --strict, refuses any warning.
func (f *policyImportFlags) checkImport(res *importer.Result, catalogue []string, stderr io.Writer) error {
	if d, ok := dialects.All()[res.Dialect]; ok {
		if err := res.Check(d, catalogue); err != nil {
			return refuse(stderr, err)
		}
	} else {
		res.Warnings = append(res.Warnings, importer.Warning{File: res.Source,
			Msg: "not validated: this build has no " + res.Dialect + " dialect"})
	}
	if f.strict && len(res.Warnings) > 0 {
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, w)
		}
		return &exitError{code: 1, msg: fmt.Sprintf("--strict: %d %s, so nothing was written", len(res.Warnings), plural(len(res.Warnings), "warning", "warnings"))}
	}
	return nil
}

// render prints the import as the flags ask: the event as one JSON line
// (by default), the document (--document), or either with the warnings
// (--json).
func (f *policyImportFlags) render(res *importer.Result, event *events.Event) ([]byte, error) {
	var out bytes.Buffer
	var err error
	switch {
	case f.asJSON:
		warnings := res.Warnings
		if warnings == nil {
			warnings = []importer.Warning{}
		}
		v := struct {
			Event    *events.Event      `json:"event,omitempty"`
			Document json.RawMessage    `json:"document,omitempty"`
			Warnings []importer.Warning `json:"warnings"`
		}{Warnings: warnings}
		if f.docOnly {
			v.Document = res.Document
		} else {
			v.Event = event
		}
		err = writeJSON(&out, v)
	case f.docOnly:
		err = writeJSON(&out, res.Document)
	default:
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		err = enc.Encode(event)
	}
	return out.Bytes(), err
}

// runPolicyImport is 'ledger policy import': nothing is printed or written
// until the document is imported, validated and rendered.
func runPolicyImport(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("policy import", "--dialect openclaw|claude-code PATH", policyImportAbout(), stderr)
	var f policyImportFlags
	f.register(fl)
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	if err := f.validate(pos); err != nil {
		return err
	}
	catalogue, err := readCatalogue(f.catFile, f.toolList)
	if err != nil {
		return err
	}
	var res *importer.Result
	if f.dialect == importer.DialectOpenClaw {
		res, catalogue, err = importOpenClaw(pos[0], stdin, catalogue, stderr)
	} else {
		res, catalogue, err = f.importClaudeCode(pos[0], catalogue, stderr)
	}
	if err != nil {
		return err
	}
	if err := f.checkImport(res, catalogue, stderr); err != nil {
		return err
	}
	event, err := policySetEvent(f.scope, res, catalogue)
	if err != nil {
		return err
	}
	out, err := f.render(res, event)
	if err != nil {
		return err
	}
	if !f.asJSON {
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, w)
		}
	}
	if f.outFile == "" {
		_, err = stdout.Write(out)
		return err
	}
	return writeFileAtomic(f.outFile, out)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// claudeUserDir resolves --user-config: by default the directory Claude
// Code itself takes its user scope from (ccimport.ClaudeUserDir), "" for
// none. A default that does not exist reads nothing; a directory named on
// the command line must exist.
func claudeUserDir(flagValue string) (string, error) {
	switch flagValue {
	case "none":
		return "", nil
	case "":
		return ccimport.ClaudeUserDir(), nil
	}
	if st, err := os.Stat(flagValue); err != nil || !st.IsDir() {
		return "", &exitError{code: 1, msg: "--user-config " + flagValue + ": not a directory (give the user's Claude Code directory, such as ~/.claude, or 'none')"}
	}
	return flagValue, nil
}

// refuse prints each problem of a refused input on its own line, in the
// file:line:column form editors jump to, and exits with status 1.
func refuse(stderr io.Writer, err error) error {
	var ie *importer.Error
	if !errors.As(err, &ie) {
		return err
	}
	fmt.Fprintln(stderr, err)
	return &exitError{code: 1}
}

// readInput reads the config to import: a regular file (or standard input)
// of at most importer.DefaultMaxFileSize bytes, read no further than that.
func readInput(path string, stdin io.Reader) (string, []byte, error) {
	const limit = importer.DefaultMaxFileSize
	if path == "-" {
		src, err := io.ReadAll(io.LimitReader(stdin, limit+1))
		if err == nil && len(src) > limit {
			err = &safefile.LimitError{Path: "<stdin>", Limit: limit}
		}
		if err != nil {
			return "", nil, &exitError{code: 1, msg: err.Error() + ": nothing was imported"}
		}
		return "<stdin>", src, nil
	}
	src, err := safefile.ReadFile(path, limit)
	if err != nil {
		return "", nil, &exitError{code: 1, msg: err.Error() + ": nothing was imported"}
	}
	return path, src, nil
}

// openclawCatalogue is the default catalogue of an openclaw document: the
// core tools of the release it names (the newest this build pins when it
// names none) and then the tools its pluginTools mark, plugin by plugin in
// name order, each once; nil when the document does not parse (the
// dialect's check then says why).
func openclawCatalogue(doc json.RawMessage) []string {
	d, err := openclaw.ParseDocument(doc)
	if err != nil {
		return nil
	}
	cat, ok := openclaw.Catalogue(d.Release)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for _, t := range cat {
		seen[t] = true
	}
	plugins := make([]string, 0, len(d.PluginTools))
	for id := range d.PluginTools {
		plugins = append(plugins, id)
	}
	sort.Strings(plugins)
	for _, id := range plugins {
		for _, t := range d.PluginTools[id] {
			if !seen[t] {
				seen[t] = true
				cat = append(cat, t)
			}
		}
	}
	return cat
}

// readCatalogue reads the catalogue from a file (a JSON list of names, or
// one name per line) or a comma-separated list. nil means none was given.
// It is hookcmd.ReadCatalogue, whose hook command reads the same flags.
func readCatalogue(file, list string) ([]string, error) {
	names, err := hookcmd.ReadCatalogue(file, list)
	return names, hookExit(err)
}

// policySetEvent is the policy.set event that installs res in a scope (""
// for the default scope).
func policySetEvent(scope string, res *importer.Result, catalogue []string) (*events.Event, error) {
	// Rules such as Bash(make && make test) stay readable: no HTML escaping.
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(events.PolicySetData{Scope: scope, Dialect: res.Dialect, Document: res.Document, Catalogue: catalogue}); err != nil {
		return nil, err
	}
	return &events.Event{Type: events.PolicySet, V: 1, Actor: importActor, Data: bytes.TrimSpace(data.Bytes())}, nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so that a reader never sees half a policy.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing to remove
	if err := f.Chmod(0o644); err != nil {
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
