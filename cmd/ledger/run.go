package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"demo", "tell a realistic story on the embedded ledger and show what it recorded", runDemo},
		{"serve", "run the ledger: embedded NATS JetStream (or --nats), stream and projection", runServe},
		{"append", "append events (JSON lines from a file or stdin)", runAppend},
		{"tools", "print a session's tool set at a position", runTools},
		{"check", "decide one tool call at a position", runCheck},
		{"why", "explain one decision layer by layer", runWhy},
		{"session", "print a session: envelope, context, turns with their tool sets, children", runSession},
		{"tree", "print the spawn tree under a root (or all roots)", runTree},
		{"log", "print the log's records (--follow to keep printing)", runLog},
		{"denials", "print the denied and asked calls of every session, filtered (--follow to keep printing)", runDenials},
		{"export", "export the log or a spawn tree as JSON Lines with the decisions the projection derived", runExport},
		{"report", "write the audit report: one self-contained HTML page (--html FILE)", runReport},
		{"replay", "rebuild the projection from the log into a fresh file (--to for time travel)", runReplay},
		{"verify", "rebuild, compare state hashes and recompute every recorded decision", runVerify},
		{"test", "run scenario files and report failed expectations", runTest},
		{"bench", "measure the ledger against raw JetStream and bbolt and print the table", runBench},
		{"policy", "import real orchestrator configs as policy documents (policy import)", runPolicy},
		{"deny", "revoke a tool for a session, its sub-agents, an agent, a user or a project (--lift to lift it)", runDeny},
		{"hook", "be Claude Code's hook (hook claude-code) and install it in a project (hook install)", runHook},
		{"mcp", "run an MCP gateway in front of MCP servers that enforces and records each session's tools", runMCP},
		{"version", "print this binary's version and revision, its components and the runtime releases it models", runVersion},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return usageError("name a command")
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, args[1:], stdin, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdin, stdout, stderr)
			var help *helpRequest
			if errors.As(err, &help) {
				_, err = io.WriteString(stdout, help.usage)
				return err
			}
			if err != nil && wantsJSON(args[1:]) {
				return &jsonError{err}
			}
			return err
		}
	}
	if s := suggestCommand(args[0]); s != "" {
		return usageError("unknown command %q (did you mean '%s'? run 'ledger --help' for the list)", args[0], s)
	}
	return usageError("unknown command %q (run 'ledger --help' for the list)", args[0])
}

// suggestCommand returns the command closest to name (at most two edits
// away, or name a prefix of it of three letters or more), or "".
func suggestCommand(name string) string {
	best, bestDist := "", 3
	for _, c := range commands() {
		d := editDistance(strings.ToLower(name), c.name)
		if strings.HasPrefix(c.name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestDist || d == bestDist && c.name < best {
			best, bestDist = c.name, d
		}
	}
	return best
}

func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("ledger: the session policy ledger\n\nUsage: ledger COMMAND [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'ledger COMMAND --help' for a command's flags.\n")
	io.WriteString(w, b.String())
}
