package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binary builds the ledger command once for the tests that run it as a
// real subprocess.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ledger-bin-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "ledger")
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return path, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

func ledgerBinary(t *testing.T) string {
	t.Helper()
	path, err := binary()
	if err != nil {
		t.Fatalf("building ledger: %v", err)
	}
	return path
}

// runCLI runs the command in-process and returns its output and error.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, bytes.NewBufferString(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}
