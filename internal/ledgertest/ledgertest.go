// Package ledgertest is test support shared by the suites that drive the
// ledger as a separate process beside a real runtime (internal/claudecodetest,
// internal/openclawplugintest, cmd/ledger's hook tests): build the ledger
// binary, serve it on loopback, run its commands, and split the shell
// command lines the ledger prints; and WaitFor, the one poll for a
// condition nothing signals, which the unit tests of internal/service,
// internal/natslog and internal/api share.
//
// Every wait is bounded; every process started is stopped when the test
// ends (SIGTERM, then a kill after 10 s); nothing is written outside the
// test's temp directories.
package ledgertest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Root is the repository root (found from this file's location).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// BuildLedger returns the path of the ledger binary built from cmd/ledger.
// In a test binary whose TestMain runs through Main, it is built once for
// all its tests (Binary); elsewhere into the test's own temp directory.
func BuildLedger(t testing.TB) string {
	t.Helper()
	if mainRuns.Load() {
		bin, err := Binary()
		if err != nil {
			t.Fatal(err)
		}
		return bin
	}
	bin := filepath.Join(t.TempDir(), "ledger")
	if err := build(bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// mainRuns is set by Main: the shared build's directory is removed when
// the tests end.
var mainRuns atomic.Bool

// shared is the one build of a test binary that runs through Main.
var shared = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ledgertest-bin-")
	if err != nil {
		return "", err
	}
	sharedDir.Store(&dir)
	bin := filepath.Join(dir, "ledger")
	return bin, build(bin)
})

var sharedDir atomic.Pointer[string]

// Binary builds cmd/ledger once per test binary and returns its path. Only
// a test binary whose TestMain runs through Main may call it (the build is
// removed when Main's tests end); others use BuildLedger.
func Binary() (string, error) {
	if !mainRuns.Load() {
		return "", errors.New("ledgertest.Binary: the package's TestMain must run its tests through ledgertest.Main, which removes the build")
	}
	return shared()
}

// Main runs a package's tests (m.Run) and then removes the ledger binary
// they shared, and returns m.Run's exit code for os.Exit.
func Main(m *testing.M) int {
	mainRuns.Store(true)
	code := m.Run()
	if d := sharedDir.Load(); d != nil {
		_ = os.RemoveAll(*d)
	}
	return code
}

// build runs go build of cmd/ledger into bin.
func build(bin string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ledger")
	cmd.Dir = Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/ledger: %v\n%s", err, out)
	}
	return nil
}

// ServeLedger runs 'ledger serve' (the built binary) on a fresh data
// directory with NATS on loopback and returns its client URL. It is
// stopped with SIGTERM when the test ends (killed if it does not stop
// within 10s).
func ServeLedger(t testing.TB, bin string) string {
	t.Helper()
	return ServeLedgerWith(t, bin)
}

// ServeLedgerWith is ServeLedger with more serve flags (--hooks ...).
func ServeLedgerWith(t testing.TB, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--data", filepath.Join(t.TempDir(), "data"), "--listen", "127.0.0.1:-1"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`nats://127\.0\.0\.1:[0-9]+`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				select {
				case urls <- u:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("ledger serve: %v\n%s", err, stderr)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("ledger serve did not stop within 10s of SIGTERM")
		}
	})
	select {
	case u := <-urls:
		return u
	case err := <-exited:
		t.Fatalf("ledger serve exited: %v\n%s", err, stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("ledger serve printed no NATS URL within 30s\n%s", stderr)
	}
	return ""
}

// LedgerCmd runs the built binary with args (bounded by 30s) and returns
// its standard output; a non-zero exit fails the test.
func LedgerCmd(t testing.TB, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NO_COLOR=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ledger %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// ShellWords splits a command line whose words are plain or single-quoted
// (as the plugin quotes the 'ledger why' command of a denial).
func ShellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, any := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, any = !in, true
		case c == ' ' && !in:
			if any {
				words = append(words, cur.String())
			}
			cur.Reset()
			any = false
		case c == '\\' && !in && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			any = true
		default:
			cur.WriteByte(c)
			any = true
		}
	}
	if any {
		words = append(words, cur.String())
	}
	return words
}

// tailBuffer keeps the last max bytes written to it; it is safe for one
// writer and readers after the writer is done.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// Buffer is a process's output, safe to write from one goroutine while
// others read it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *Buffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *Buffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// Tail is the last n bytes written, after "…" when there were more.
func (w *Buffer) Tail(n int) string {
	s := w.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
