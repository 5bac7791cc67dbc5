// Command ledger is the session policy ledger's command line: it runs
// scenario files, answers tools/check/why queries over a scenario or a log
// file, and imports real orchestrator configs as policy documents.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitError carries an exit code for an error already reported (or a
// failure that needs no message, such as failed scenarios).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageError marks a mistake in the command line (exit code 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "ledger:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "ledger:", err)
	return 1
}
