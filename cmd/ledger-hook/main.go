// The runtime's goroutine that follows a change of the CPU limit
// (GOMAXPROCS) is for a process that lives: this one lives a few
// milliseconds, and starting it cost the hook threads and context switches
// at every call (issue 28).
//
//go:debug updatemaxprocs=0

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
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sessionledger/ledger/internal/cchook/thinhook"
)

func main() {
	// SIGINT and SIGTERM end the wait for the server, which the hook then
	// answers as one that cannot be reached (a PreToolUse denied). The
	// run looks at the channel itself: signal.NotifyContext's goroutine
	// would be one more thread in a process that lives a few milliseconds.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	os.Exit(exitCode(thinhook.RunSignals(sig, "ledger-hook", os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
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
