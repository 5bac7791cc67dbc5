package faults

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// Environment of the helper mode: the test binary re-executed with these
// set lowers its file size limit and execs the ledger binary, so only that
// subprocess sees a "full disk".
const (
	envHelperFsize = "FAULTTEST_EXEC_FSIZE"
	envHelperExec  = "FAULTTEST_EXEC"
)

func TestMain(m *testing.M) {
	if limit := os.Getenv(envHelperFsize); limit != "" {
		os.Exit(execWithFsize(limit))
	}
	os.Exit(ledgertest.Main(m)) // removes the binary the tests share
}

// execWithFsize sets the soft RLIMIT_FSIZE to limit bytes and replaces this process
// with the program in envHelperExec and the arguments after "--". The limit
// survives exec; Go programs ignore SIGXFSZ, so a write past it fails with
// EFBIG instead of killing the process.
func execWithFsize(limit string) int {
	n, err := strconv.ParseUint(limit, 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults helper: bad limit:", err)
		return 2
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "faults helper: getrlimit:", err)
		return 2
	}
	// Only the soft limit: the test lifts it again while the ledger runs.
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "faults helper: setrlimit:", err)
		return 2
	}
	prog := os.Getenv(envHelperExec)
	args := []string{prog}
	for i, a := range os.Args {
		if a == "--" {
			args = append(args, os.Args[i+1:]...)
			break
		}
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if len(kv) >= len(envHelperFsize) && kv[:len(envHelperFsize)] == envHelperFsize {
			continue
		}
		env = append(env, kv)
	}
	err = syscall.Exec(prog, args, env)
	fmt.Fprintln(os.Stderr, "faults helper: exec:", err)
	return 2
}

// binary is the ledger command, built once per test process.
func binary() (string, error) { return ledgertest.Binary() }

// ledgerBinary returns the built binary; it skips with -short.
func ledgerBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the ledger binary (skipped with -short)")
	}
	path, err := binary()
	if err != nil {
		t.Fatalf("building ledger: %v", err)
	}
	return path
}
