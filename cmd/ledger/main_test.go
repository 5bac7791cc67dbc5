package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
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
	// cache and config directories: the tests' own, not the user's. The
	// go command's build cache stays where it was (it too defaults to the
	// user's cache directory), so the binary the subprocess tests run is
	// not built from a cold cache (minutes on a loaded 2-core machine).
	if os.Getenv("GOCACHE") == "" {
		if d, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(d, "go-build"))
		}
	}
	os.Setenv("XDG_CACHE_HOME", user+"/cache")
	os.Setenv("XDG_CONFIG_HOME", user+"/config")
	code := ledgertest.Main(m) // removes the binary the subprocess tests share
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

// ledgerBinary is the ledger command, built once for the tests that run
// it as a real subprocess (ledgertest.Main removes it).
func ledgerBinary(t *testing.T) string {
	t.Helper()
	return ledgertest.BuildLedger(t)
}

// runCLI runs the command in-process and returns its output and error.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, bytes.NewBufferString(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}
