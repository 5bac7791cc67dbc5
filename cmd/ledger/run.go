package main

import (
	"context"
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
		{"test", "run scenario files and report failed expectations", runTest},
		{"tools", "print a session's tool set at a position", runTools},
		{"check", "decide one tool call at a position", runCheck},
		{"why", "explain one decision layer by layer", runWhy},
		{"policy", "import real orchestrator configs as policy documents (policy import)", runPolicy},
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
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return usageError("unknown command %q (run 'ledger --help' for the list)", args[0])
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
