package hookwire

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// What both hook processes (the NATS hook, internal/cchook/hookcmd, and
// the thin hook, internal/cchook/thinhook) do with their standard input and
// output, one copy for both.

// ErrSlowStdin is ReadPayloadWithin's error for standard input that did
// not end in time.
var ErrSlowStdin = errors.New("the hook payload on standard input did not end within the hook's --timeout")

// ReadPayloadWithin is ReadPayload, given up after d: Claude Code writes
// the payload and closes standard input at once, so one that stays open is
// not a payload the hook can wait for. The read goes on in its goroutine,
// dropped with the process. (The thin hook first tries a read bounded by
// poll(2), without the goroutine; thinhook's TestThinExitCodes and
// tests/hostile TestI24CommandHookStdinHeldOpen guard both.)
func ReadPayloadWithin(stdin io.Reader, d time.Duration) ([]byte, error) {
	type result struct {
		raw []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		raw, err := ReadPayload(stdin)
		done <- result{raw, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-done:
		return r.raw, r.err
	case <-t.C:
		return nil, ErrSlowStdin
	}
}

// ReadPayload reads standard input up to one byte over MaxPayload, which
// the hooks deny rather than decode a cut payload. The rest of a payload
// over the limit is read and dropped, so that Claude Code's write of it
// does not fail before it reads the answer.
func ReadPayload(stdin io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(stdin, MaxPayload+1))
	if err == nil && len(raw) > MaxPayload {
		_, err = io.Copy(io.Discard, stdin)
	}
	return raw, err
}

// WriteOutput writes a hook's answer, one line.
func WriteOutput(stdout io.Writer, out []byte) error {
	_, err := stdout.Write(append(out, '\n'))
	return err
}

// BadCommandLine is the answer to a payload a hook cannot serve because
// its own command line is wrong: a call is denied, anything else goes on
// with the message shown.
func BadCommandLine(raw []byte, msg string) []byte {
	if pk := PeekAt(raw); !pk.Told || pk.Event == PreToolUse {
		return DenyOutput(msg + " (the hook denies every call until its command line in the Claude Code settings is fixed)")
	}
	return PassOutput(msg)
}

// MayHoldPayload reports whether stdin may hold a hook payload: anything
// but a character device (a terminal, /dev/null). A hook's --help given
// such a stdin is a bad flag, which denies a call, never an empty answer,
// which lets one run (thinhook's TestThinHelpWithAPayload, hookcmd's
// TestHelpWithPayloadDenies, cmd/ledger's TestHookAgentHelpWithPayloadDenies).
func MayHoldPayload(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err != nil || st.Mode()&fs.ModeCharDevice == 0
}
