package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// startServer starts a NATS server with JetStream in the test process,
// listening on a random loopback port so `ledger serve --nats` subprocesses
// can reach it, and stops it at the end of the test.
func startServer(t *testing.T, dir string) *server.Server {
	t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: dir, Listen: "127.0.0.1:-1", Name: "faults"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}

// connect opens an in-process connection to ns, closed at the end of the
// test.
func connect(t *testing.T, ns *server.Server, name string) *nats.Conn {
	t.Helper()
	nc, err := natslog.ConnectEmbedded(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func openLog(t *testing.T, nc *nats.Conn, cfg natslog.StreamConfig) *natslog.Log {
	t.Helper()
	log, err := natslog.Open(t.Context(), nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// serveProc is `ledger serve` running as a subprocess. It follows the
// process's JSON log lines on stderr: the highest position it logged
// "caught up" at, and the last lines for failure messages.
type serveProc struct {
	t   *testing.T
	cmd *exec.Cmd

	mu       sync.Mutex
	ready    bool   // logged "caught up" at least once
	position uint64 // highest position logged with "caught up"
	tail     []string
	problems []string // every warning and error logged (the tail may have lost them)
	changed  chan struct{}

	exited  chan struct{} // closed when the process has exited and stderr is drained
	waitErr error
}

// startServe starts `ledger serve --nats url --data data` plus extra
// arguments. Use startServeCmd to run it through another program.
func startServe(t *testing.T, url, data string, extra ...string) *serveProc {
	t.Helper()
	return startServeCmd(t, serveCmd(t, url, data, extra...))
}

// serveCmd is the command line of startServe.
func serveCmd(t *testing.T, url, data string, extra ...string) *exec.Cmd {
	args := append([]string{"serve", "--nats", url, "--data", data, "--name", "faults"}, extra...)
	path, err := binary()
	if err != nil {
		t.Errorf("building ledger: %v", err)
		return exec.Command("false")
	}
	return exec.Command(path, args...)
}

func startServeCmd(t *testing.T, cmd *exec.Cmd) *serveProc {
	t.Helper()
	p, err := spawn(t, cmd)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// spawn starts cmd as a serveProc; unlike startServeCmd it may be called
// from any goroutine.
func spawn(t *testing.T, cmd *exec.Cmd) (*serveProc, error) {
	cmd.Env = cleanEnv(cmd.Env)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProc{t: t, cmd: cmd, changed: make(chan struct{}, 1), exited: make(chan struct{})}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			var m struct {
				Level    string  `json:"level"`
				Msg      string  `json:"msg"`
				Position *uint64 `json:"position"`
			}
			isJSON := json.Unmarshal([]byte(line), &m) == nil
			p.mu.Lock()
			p.tail = append(p.tail, line)
			if len(p.tail) > 40 {
				p.tail = p.tail[len(p.tail)-40:]
			}
			// A live replica logs "caught up" at every record it follows,
			// which soon pushes a warning out of the tail.
			if (!isJSON || m.Level == "WARN" || m.Level == "ERROR") && len(p.problems) < 1000 {
				p.problems = append(p.problems, line)
			}
			if isJSON && m.Msg == "caught up" && m.Position != nil {
				p.ready = true
				p.position = max(p.position, *m.Position)
			}
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
		}
	}()
	go func() {
		<-scanned
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	return p, nil
}

// cleanEnv returns env (the test's environment when nil) without the
// variables the ledger reads, so a developer's settings do not leak in.
func cleanEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "NATS_") || strings.HasPrefix(kv, "LEDGER_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Position is the highest position the process logged it caught up at.
func (p *serveProc) Position() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.position
}

// Stderr is the process's last log lines.
func (p *serveProc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// Logged reports whether a warning, an error or a line that is not a log
// record, of all the process wrote, or a line of the tail, contains s.
func (p *serveProc) Logged(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, lines := range [][]string{p.problems, p.tail} {
		for _, l := range lines {
			if strings.Contains(l, s) {
				return true
			}
		}
	}
	return false
}

// waitCaughtUp waits until the process has logged "caught up" at position
// or later (any position when position is 0).
func (p *serveProc) waitCaughtUp(t *testing.T, position uint64, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		ok := p.ready && p.position >= position
		at := p.position
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-p.changed:
		case <-p.exited:
			t.Fatalf("ledger serve exited (%v) at position %d before catching up to %d; stderr:\n%s", p.waitErr, p.Position(), position, p.Stderr())
		case <-deadline.C:
			t.Fatalf("ledger serve did not catch up to %d within %s (at %d); stderr:\n%s", position, timeout, at, p.Stderr())
		case <-t.Context().Done():
			t.Fatal("test context ended")
		}
	}
}

// kill sends SIGKILL and waits for the process to be gone. It may be
// called from any goroutine.
func (p *serveProc) kill() error {
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
		return errors.New("ledger serve did not exit within 30s of SIGKILL")
	}
}

// term sends SIGTERM and returns the exit error (nil for a clean exit).
func (p *serveProc) term(t *testing.T) error {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	return p.wait(t, 30*time.Second)
}

// wait waits for the process to exit and returns its exit error.
func (p *serveProc) wait(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(timeout):
		t.Fatalf("ledger serve did not exit within %s; stderr:\n%s", timeout, p.Stderr())
		return nil
	}
}

// runLedger runs a one-shot ledger command and returns its stdout, stderr
// and exit error.
func runLedger(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ledgerBinary(t), args...)
	cmd.Env = cleanEnv(nil)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// sessionEvents returns the client events of workload session n (13
// events: a root, two children, checks, an effect, completions and a
// resume).
func sessionEvents(t testing.TB, n int) []client.Event {
	t.Helper()
	var out []client.Event
	for _, raw := range workload.Session(n) {
		out = append(out, workload.ClientEvent(raw))
	}
	return out
}

// rootOf is the root session of workload session n.
func rootOf(n int) events.SessionKey { return events.SessionKey(fmt.Sprintf("agent:main:w%d", n)) }

// rebuildHash is the dump hash of a clean rebuild of the log's first to
// records (0: all).
func rebuildHash(t *testing.T, src replay.Source, to uint64) string {
	t.Helper()
	h, err := replay.RebuildHash(t.Context(), src, dialects.All(), t.TempDir(), to)
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	return h
}

// storeHash opens a closed projection file and returns its dump hash and
// checkpoint.
func storeHash(t *testing.T, path string) (string, uint64) {
	t.Helper()
	st, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatalf("opening the projection: %v", err)
	}
	defer st.Close()
	h, err := st.DumpHash()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := st.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return h, cp
}

// idCount reads every record of the log with service.ReadRecords and
// counts each id.
func idCount(t *testing.T, log service.Log) (map[string]int, []*events.Record) {
	t.Helper()
	head, err := log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := service.ReadRecords(t.Context(), log, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(recs)) != head {
		t.Fatalf("read %d records, head is %d", len(recs), head)
	}
	counts := map[string]int{}
	for _, r := range recs {
		counts[r.ID]++
	}
	return counts, recs
}

func projectionPath(data string) string { return filepath.Join(data, "projection.db") }

// dumpDiff rebuilds src into a fresh file and returns the first line where
// the canonical dump of the (closed) projection file at path and the
// rebuild's differ ("" when they agree).
func dumpDiff(t *testing.T, path string, src replay.Source) string {
	t.Helper()
	rpath := filepath.Join(t.TempDir(), "diff.db")
	if _, err := replay.Rebuild(t.Context(), src, dialects.All(), rpath, 0, nil); err != nil {
		return "rebuild: " + err.Error()
	}
	var a, b strings.Builder
	for _, d := range []struct {
		path string
		out  *strings.Builder
	}{{path, &a}, {rpath, &b}} {
		st, err := projection.OpenStore(d.path, projection.StoreOptions{})
		if err != nil {
			return err.Error()
		}
		err = st.Dump(d.out)
		st.Close()
		if err != nil {
			return err.Error()
		}
	}
	la, lb := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("dump line %d:\n  projection: %s\n  rebuild:    %s", i+1, x, y)
		}
	}
	return ""
}
