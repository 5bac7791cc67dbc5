package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain runs the package's tests with TMPDIR set to a directory of their
// own and fails the run when anything is left in it afterwards: every test
// cleans up after itself, the ledger binary built for the subprocess tests
// included. (A private directory, not a before/after listing of the shared
// one, so that other processes' temp files do not count.)
func TestMain(m *testing.M) {
	if os.Getenv(upstreamEnv) == "1" {
		runTestUpstream()
		return
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "ledger-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	user, err := os.MkdirTemp("", "ledger-cmd-test-user-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(user)
	orig, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", tmp)
	// The hook's import cache and the hooks token file go to the user's
	// cache and config directories: the tests' own, not the user's.
	os.Setenv("XDG_CACHE_HOME", user+"/cache")
	os.Setenv("XDG_CONFIG_HOME", user+"/config")
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if had {
		os.Setenv("TMPDIR", orig)
	} else {
		os.Unsetenv("TMPDIR")
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if len(left) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "the tests left %d entries in the temp dir:", len(left))
		for _, e := range left {
			fmt.Fprintf(os.Stderr, " %s", e.Name())
		}
		fmt.Fprintln(os.Stderr)
		return 1
	}
	return code
}

// binDir holds the binary built for the subprocess tests; TestMain removes
// it.
var binDir string

// binary builds the ledger command once for the tests that run it as a
// real subprocess.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ledger-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
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
