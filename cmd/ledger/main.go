// Command ledger is the session policy ledger's command line: it runs
// scenario files, answers tools/check/why queries over a scenario or a log
// file, and imports real orchestrator configs as policy documents.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sessionledger/ledger/events"
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
	// kind is the error's code in a --json error: "usage" for a usage
	// error, "no_ledger" when the named place holds no ledger.
	kind string
}

func (e *exitError) Error() string { return e.msg }

// usageError marks a mistake in the command line (exit code 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...), kind: "usage"}
}

// jsonError marks the error of a command run with --json: exitCode prints
// it as {"error": {"code", "message"}} on stderr.
type jsonError struct{ err error }

func (e *jsonError) Error() string { return e.err.Error() }
func (e *jsonError) Unwrap() error { return e.err }

// exitCode prints err (once, on stderr) and returns the exit status: 0 for
// none, the exitError's code, else 1.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	code, msg, kind := 1, err.Error(), "error"
	var ee *exitError
	if errors.As(err, &ee) {
		code, msg = ee.code, ee.msg
		if ee.kind != "" {
			kind = ee.kind
		}
	}
	var le *events.Error
	if errors.As(err, &le) {
		kind = string(le.Code)
	}
	if msg == "" {
		return code
	}
	var je *jsonError
	if errors.As(err, &je) {
		if le != nil && ee == nil {
			msg = le.Msg
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": kind, "message": msg}})
		fmt.Fprintf(stderr, "%s\n", b)
		return code
	}
	fmt.Fprintln(stderr, "ledger:", msg)
	return code
}
