// Command ledger-hook is the thin command hook (internal/cchook/thinhook):
// `ledger-hook --hooks URL` reads one Claude Code hook payload, hands it to
// a running `ledger serve --hooks` (loopback HTTP, or unix:PATH) with what
// only a command hook's process knows, and prints the answer and exits as
// `ledger hook claude-code --nats` does. Claude Code starts one process per
// hook event, so the binary links neither nats.go nor anything of the
// ledger's (its TestDeps, tests/arch TestThinHookLinksNoNATS); `ledger hook
// install --url` runs it for SessionStart, the one event Claude Code sends
// no HTTP hook. The NATS-speaking command hook is `ledger hook claude-code
// --nats URL`, in the ledger binary.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sessionledger/ledger/internal/cchook/thinhook"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := thinhook.Run(ctx, "ledger-hook", os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *thinhook.ExitError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintln(os.Stderr, "ledger-hook:", ee.Msg)
		}
		return ee.Code
	}
	fmt.Fprintln(os.Stderr, "ledger-hook:", err)
	return 1
}
