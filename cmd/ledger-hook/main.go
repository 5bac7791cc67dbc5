// Command ledger-hook is `ledger hook claude-code` in a binary of its own:
// the same flags, output and exit codes (internal/cchook/hookcmd), without
// the embedded NATS server, bbolt, the report and the openclaw dialect that
// the ledger binary initialises at every start. Claude Code starts one
// process per hook event, so `ledger hook install` writes this binary's
// command when it finds it beside the ledger.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sessionledger/ledger/internal/cchook/hookcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := hookcmd.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *hookcmd.ExitError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintln(os.Stderr, "ledger-hook:", ee.Msg)
		}
		return ee.Code
	}
	fmt.Fprintln(os.Stderr, "ledger-hook:", err)
	return 1
}
