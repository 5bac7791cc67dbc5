package main

import (
	"context"
	"io"
)

func runPolicy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			io.WriteString(stdout, "Usage: ledger policy import --dialect openclaw|claude-code PATH\n")
			return nil
		}
		return usageError("policy has one subcommand: import")
	}
	return runPolicyImport(ctx, args[1:], stdin, stdout, stderr)
}

func runPolicyImport(_ context.Context, _ []string, _ io.Reader, _, _ io.Writer) error {
	return &exitError{code: 1, msg: "not_implemented: policy import is not implemented yet"}
}
