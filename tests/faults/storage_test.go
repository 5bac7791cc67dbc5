package faults

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// served is a NATS server in the test process with a log that `ledger
// serve` subprocesses have written through the API.
type served struct {
	ns   *server.Server
	log  *natslog.Log
	data string
}

// serveWorkload starts a server and `ledger serve`, appends the policy and
// n workload sessions through the client, and stops the ledger with
// SIGTERM.
func serveWorkload(t *testing.T, n int) *served {
	t.Helper()
	dir := t.TempDir()
	ns := startServer(t, filepath.Join(dir, "nats"))
	nc := connect(t, ns, "faults")
	s := &served{ns: ns, log: openLog(t, nc, natslog.StreamConfig{}), data: filepath.Join(dir, "serve")}
	p := startServe(t, ns.ClientURL(), s.data)
	p.waitCaughtUp(t, 0, 30*time.Second)
	appendSessions(t, nc, 0, n, true)
	if err := p.term(t); err != nil {
		t.Fatalf("ledger serve: %v\n%s", err, p.Stderr())
	}
	return s
}

// appendSessions appends (the policy, when policy is set, and) workload
// sessions from..to-1 through the client.
func appendSessions(t *testing.T, conn *nats.Conn, from, to int, policy bool) {
	t.Helper()
	if policy {
		if _, err := client.New(conn, client.Options{}).Append(t.Context(), workload.ClientEvent(workload.Policy())); err != nil {
			t.Fatal(err)
		}
	}
	acme := client.New(conn, client.Options{Owner: "acme"})
	for n := from; n < to; n++ {
		for _, ev := range sessionEvents(t, n) {
			if _, err := acme.Append(t.Context(), ev); err != nil {
				t.Fatalf("%s %s: %v", ev.Type, ev.Session, err)
			}
		}
	}
}

func (s *served) head(t *testing.T) uint64 {
	t.Helper()
	h, err := s.log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// restartAndCompare starts `ledger serve` on the data directory again,
// waits until it caught up with the log, stops it and checks that its
// projection equals a clean rebuild.
func (s *served) restartAndCompare(t *testing.T) {
	t.Helper()
	head := s.head(t)
	p := startServe(t, s.ns.ClientURL(), s.data)
	p.waitCaughtUp(t, head, 30*time.Second)
	if err := p.term(t); err != nil {
		t.Fatalf("ledger serve: %v\n%s", err, p.Stderr())
	}
	got, cp := storeHash(t, projectionPath(s.data))
	if want := rebuildHash(t, s.log, 0); got != want || cp != head {
		t.Fatalf("projection at %d: %s, rebuild of %d records: %s", cp, got, head, want)
	}
}

// TestMissingProjectionIsRebuilt: without its bbolt file the ledger starts,
// folds the whole log into a new projection and ends equal to a rebuild;
// in-process (service.Open) and as `ledger serve`.
func TestMissingProjectionIsRebuilt(t *testing.T) {
	t.Run("service", func(t *testing.T) {
		dir := t.TempDir()
		ns := startServer(t, filepath.Join(dir, "nats"))
		log := openLog(t, connect(t, ns, "faults"), natslog.StreamConfig{})
		writer, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range workload.Sessions(5) {
			if _, err := writer.Append(t.Context(), raw); err != nil {
				t.Fatal(err)
			}
		}
		head, _ := log.Head(t.Context())
		path := filepath.Join(dir, "p.db") // never existed
		store, err := projection.OpenStore(path, projection.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store})
		if err != nil {
			t.Fatal(err)
		}
		if svc.Position() != head {
			t.Fatalf("opened at %d, want %d", svc.Position(), head)
		}
		// Follow one more record, then stop (which commits what it holds).
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		if _, err := writer.Append(t.Context(), workload.Session(5)[0]); err != nil {
			t.Fatal(err)
		}
		head++
		ledgertest.WaitFor(t, 30*time.Second, "the service follows the new record", func() bool { return svc.Position() == head })
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		store.Close()
		got, cp := storeHash(t, path)
		if want := rebuildHash(t, log, 0); got != want || cp != head {
			t.Fatalf("projection at %d %s, rebuild %s", cp, got, want)
		}
	})
	t.Run("ledger serve, empty file", func(t *testing.T) {
		// bbolt takes an empty file for a new one: the same as a missing
		// projection.
		s := serveWorkload(t, 3)
		writeFile(t, projectionPath(s.data), nil)
		s.restartAndCompare(t)
	})
	t.Run("ledger serve", func(t *testing.T) {
		s := serveWorkload(t, 4)
		if err := os.Remove(projectionPath(s.data)); err != nil {
			t.Fatal(err)
		}
		s.restartAndCompare(t)
	})
}

// corruptions damage a projection file in place.
var corruptions = []struct {
	name string
	do   func(t *testing.T, path string)
}{
	{"garbage instead of the file", func(t *testing.T, path string) {
		b := make([]byte, 64<<10)
		_, _ = rand.Read(b)
		writeFile(t, path, b)
	}},
	{"zeroed meta pages", func(t *testing.T, path string) {
		b := readFile(t, path)
		clear(b[:min(len(b), 2*4096)])
		writeFile(t, path, b)
	}},
	{"truncated to 100 bytes", func(t *testing.T, path string) {
		if err := os.Truncate(path, 100); err != nil {
			t.Fatal(err)
		}
	}},
	{"truncated to half", func(t *testing.T, path string) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
	}},
	{"a tool name changed in the data pages", func(t *testing.T, path string) {
		// One letter of every "read" in the file: the pages stay well
		// formed and the JSON valid, so only the content sum shows it
		// (issue 15: before, serve answered with the tool "sead").
		b := readFile(t, path)
		n := bytes.Count(b, []byte(`"read"`))
		if n == 0 {
			t.Fatal(`no "read" in the projection`)
		}
		writeFile(t, path, bytes.ReplaceAll(b, []byte(`"read"`), []byte(`"sead"`)))
	}},
	{"garbage in the data pages", func(t *testing.T, path string) {
		b := readFile(t, path)
		if len(b) <= 2*4096 {
			t.Fatalf("the projection is only %d bytes", len(b))
		}
		_, _ = rand.Read(b[2*4096:])
		writeFile(t, path, b)
	}},
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptProjection damages the bbolt file of a stopped ledger in
// several ways. `ledger serve` must refuse to start with an error that
// names the file (never start and answer from a damaged projection, never
// crash with a panic), and so must projection.OpenStore (or Load); the
// documented way back, `ledger replay --out NEW` and moving NEW over the
// file, gives a projection equal to a rebuild.
func TestCorruptProjection(t *testing.T) {
	s := serveWorkload(t, 4)
	good := readFile(t, projectionPath(s.data))
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			path := projectionPath(s.data)
			writeFile(t, path, good)
			c.do(t, path)
			p := startServe(t, s.ns.ClientURL(), s.data)
			err := p.wait(t, 30*time.Second)
			stderr := p.Stderr()
			if err == nil {
				t.Fatalf("ledger serve exited 0 on a damaged projection; stderr:\n%s", stderr)
			}
			panicked := strings.Contains(stderr, "panic:")
			if panicked {
				// Recover first, so the known issue leaves nothing behind.
				recoverProjection(t, s, path)
				if !*knownIssues {
					t.Skipf("known issue: ledger serve panics inside bbolt on this damaged projection instead of "+
						"refusing with an error that names the file: %s (run with -faults.known to fail on it)", firstLines(stderr, 1))
				}
				t.Fatalf("ledger serve crashed instead of reporting the damage:\n%s", firstLines(stderr, 12))
			}
			if !strings.Contains(stderr, path) {
				t.Errorf("the error does not name the projection file %s:\n%s", path, firstLines(stderr, 12))
			}
			t.Logf("ledger serve: %v: %s", err, lastLine(stderr))

			// In-process, OpenStore (or Check, or Load) must say the same.
			if err := openAndLoad(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("OpenStore/Load of the damaged file: %v (want an error naming %s)", err, path)
			}
			recoverProjection(t, s, path)

			// The error should also say the way back.
			if !strings.Contains(stderr, "replay") {
				if !*knownIssues {
					t.Skipf("known issue: the error names the file but not the way back ('ledger replay'): %s (run with -faults.known to fail on it)", lastLine(stderr))
				}
				t.Errorf("the error does not say how to recover (rebuild with 'ledger replay'): %s", lastLine(stderr))
			}
		})
	}
}

// openAndLoad opens a projection file, checks it as serve does at start
// and loads its state, turning a panic into an error.
func openAndLoad(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	st, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		return err
	}
	_, err = st.Load(dialects.All())
	return err
}

// recoverProjection is the documented way back from a lost or damaged
// projection: `ledger replay --out NEW`, move NEW over the file, start the
// ledger; it must then equal a rebuild.
func recoverProjection(t *testing.T, s *served, path string) {
	t.Helper()
	fresh := filepath.Join(t.TempDir(), "new.db")
	out, errOut, err := runLedger(t, "replay", "--nats", s.ns.ClientURL(), "--data", s.data, "--out", fresh)
	if err != nil {
		t.Fatalf("ledger replay: %v\n%s%s", err, out, errOut)
	}
	if err := os.Rename(fresh, path); err != nil {
		t.Fatal(err)
	}
	s.restartAndCompare(t)
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestProjectionAheadOfLog pairs a projection with a log it was not built
// from: a fresh stream (empty, or shorter than the projection) must be
// refused by service.Open and by `ledger serve` with an error that says to
// rebuild. A different stream at least as long as the projection is the
// same mistake and must be refused too.
func TestProjectionAheadOfLog(t *testing.T) {
	s := serveWorkload(t, 4)
	old := readFile(t, projectionPath(s.data))
	oldHead := s.head(t)
	for _, tc := range []struct {
		name     string
		sessions int  // workload sessions on the new stream (-1: no policy either)
		known    bool // a known issue while it is not detected
	}{
		{"empty stream", -1, false},
		{"shorter stream", 1, false},
		{"different stream of the same length", 4, true},
		{"longer different stream", 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ns := startServer(t, filepath.Join(dir, "nats"))
			nc := connect(t, ns, "faults")
			log := openLog(t, nc, natslog.StreamConfig{})
			if tc.sessions >= 0 {
				// Written by a ledger with its own projection.
				p := startServe(t, ns.ClientURL(), filepath.Join(dir, "writer"))
				p.waitCaughtUp(t, 0, 30*time.Second)
				appendSessions(t, nc, 10, 10+tc.sessions, true)
				if err := p.term(t); err != nil {
					t.Fatal(err)
				}
			}
			head, _ := log.Head(t.Context())
			path := filepath.Join(dir, "old.db")
			writeFile(t, path, old)
			t.Logf("projection at %d, the new stream ends at %d", oldHead, head)

			store, err := projection.OpenStore(path, projection.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store})
			store.Close()
			if err == nil {
				what := fmt.Sprintf("service.Open accepted a projection at %d on a different stream ending at %d (now at %d)", oldHead, head, svc.Position())
				if _, _, qerr := svc.Tools(t.Context(), rootOf(0), projection.Position{}); qerr == nil {
					what += fmt.Sprintf(", and it answers the tools of %s, a session the new stream does not hold", rootOf(0))
				}
				if tc.known && !*knownIssues {
					t.Skipf("known issue: %s: service.Open only compares the checkpoint with the head (run with -faults.known to fail on it)", what)
				}
				t.Fatal(what)
			} else if !strings.Contains(err.Error(), "rebuild") || !strings.Contains(err.Error(), "ledger replay") {
				t.Errorf("service.Open: %v; want an error that says to rebuild with 'ledger replay'", err)
			} else {
				t.Logf("service.Open: %v", err)
			}

			data := filepath.Join(dir, "stale")
			if err := os.MkdirAll(data, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, projectionPath(data), old)
			p := startServe(t, ns.ClientURL(), data)
			select {
			case <-p.exited:
				if p.waitErr == nil || !strings.Contains(p.Stderr(), "rebuild") {
					t.Errorf("ledger serve with the stale projection: %v; stderr:\n%s", p.waitErr, p.Stderr())
				} else {
					t.Logf("ledger serve: %v: %s", p.waitErr, lastLine(p.Stderr()))
				}
			case <-time.After(10 * time.Second):
				t.Errorf("ledger serve started on the stale projection and serves (position %d); stderr:\n%s", p.Position(), p.Stderr())
			}
		})
	}
}

// TestDiskFull runs `ledger serve` with a file size limit (a soft
// RLIMIT_FSIZE, set in a re-executed helper so only that process has it)
// that its projection soon outgrows. The ledger may then refuse appends or
// go on acknowledging them from memory while it retries the commit; either
// way it must say in its logs that the projection cannot be written, every
// acknowledged append must be in the log once, an append answered with an
// error must not be in the log, queries must still answer right, and once
// the disk has room again (the limit lifted with prlimit, or a restart
// without it) the projection must equal a rebuild.
func TestDiskFull(t *testing.T) {
	bin := ledgerBinary(t)
	ref := referenceAnswers(t)
	dir := t.TempDir()
	ns := startServer(t, filepath.Join(dir, "nats"))
	nc := connect(t, ns, "faults")
	log := openLog(t, nc, natslog.StreamConfig{})
	data := filepath.Join(dir, "serve")
	const limit = 96 << 10
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "serve", "--nats", ns.ClientURL(), "--data", data, "--name", "faults")
	cmd.Env = append(os.Environ(), envHelperFsize+"="+strconv.Itoa(limit), envHelperExec+"="+bin)
	p := startServeCmd(t, cmd)
	p.waitCaughtUp(t, 0, 30*time.Second)
	full := func() bool { return p.Logged("file too large") || p.Logged("file size limit") }

	opts := client.Options{Timeout: 2 * time.Second, Retries: 1}
	if _, err := client.New(nc, opts).Append(t.Context(), workload.ClientEvent(workload.Policy())); err != nil {
		t.Fatal(err)
	}
	acme := client.New(nc, client.Options{Owner: "acme", Timeout: opts.Timeout, Retries: opts.Retries})
	acked := map[string]uint64{}
	var failed []string // ids of appends answered with an error
	var firstErr error
	var wrong, unavailable atomic.Int64
	sessions, fullAt := 0, -1
	// Append until the ledger says its projection cannot be written, then
	// a few sessions more.
	for n := 0; n < 300 && (fullAt < 0 || n < fullAt+3); n++ {
		sessions = n + 1
		for k, ev := range sessionEvents(t, n) {
			ev.ID = newID()
			res, err := acme.Append(t.Context(), ev)
			if err != nil {
				failed = append(failed, ev.ID)
				if firstErr == nil {
					firstErr = err
					t.Logf("first failed append (%s %s): %v", ev.Type, ev.Session, err)
				}
				// Sent again with its id: a duplicate of where it landed,
				// or an error again; never a second record.
				if res, err = acme.Append(t.Context(), ev); err != nil {
					break // the rest of this session depends on it
				}
			}
			acked[ev.ID] = res.Seq
			if k == 1 && fullAt >= 0 { // the root's turn, while the disk is full
				queryRoot(t.Context(), t, acme, rootOf(n), 0, ref, &wrong, &unavailable)
			}
		}
		if fullAt < 0 && (full() || firstErr != nil) {
			fullAt = n
			fi, _ := os.Stat(projectionPath(data))
			t.Logf("the disk is full after %d sessions (projection file %d bytes, limit %d): %s", n+1, fi.Size(), limit, lastLine(p.Stderr()))
		}
		select {
		case <-p.exited:
			t.Logf("ledger serve exited: %v: %s", p.waitErr, lastLine(p.Stderr()))
			n = 300
		default:
		}
	}
	if fullAt < 0 {
		t.Fatalf("%d appends went through a %d-byte file size limit and the ledger said nothing", len(acked), limit)
	}
	if !full() {
		t.Errorf("the ledger's logs do not say the projection could not be written:\n%s", firstLines(p.Stderr(), 20))
	}
	t.Logf("%d sessions, %d appends acknowledged, %d answered with an error; %d queries wrong while the disk was full",
		sessions, len(acked), len(failed), wrong.Load())

	// Every acknowledged append is in the log once; one answered with an
	// error is not in it (or the answer was wrong).
	counts, recs := idCount(t, log)
	for id, seq := range acked {
		if counts[id] != 1 || recs[seq-1].ID != id {
			t.Errorf("acknowledged id %s at %d: in the log %d times", id, seq, counts[id])
		}
	}
	for _, id := range failed {
		switch {
		case counts[id] > 1:
			t.Errorf("event %s, whose append failed, is in the log %d times", id, counts[id])
		case counts[id] == 1 && *knownIssues:
			t.Errorf("known issue: event %s was answered with an error (%v) but is in the log", id, firstErr)
		case counts[id] == 1:
			t.Logf("known issue: event %s was answered with an error but is in the log (run with -faults.known to fail on it)", id)
		}
	}

	// Room again: lift the limit of the running ledger and stop it (it
	// commits on the way out), or restart it without the limit.
	head := uint64(len(recs))
	select {
	case <-p.exited:
	default:
		if err := raiseFsize(p.cmd.Process.Pid); err != nil {
			t.Logf("cannot lift the limit of the running ledger (%v): killing it", err)
			_ = p.kill()
		} else {
			p.waitCaughtUp(t, head, 30*time.Second)
			if err := p.term(t); err != nil {
				t.Errorf("ledger serve, stopped after the disk had room again: %v\n%s", err, p.Stderr())
			}
			got, cp := storeHash(t, projectionPath(data))
			if want := rebuildHash(t, log, 0); got != want || cp != head {
				t.Fatalf("after the disk had room again: projection at %d %s, rebuild of %d: %s", cp, got, head, want)
			}
		}
	}
	p = startServe(t, ns.ClientURL(), data)
	p.waitCaughtUp(t, head, 30*time.Second)
	if err := p.term(t); err != nil {
		t.Fatalf("ledger serve without the limit: %v\n%s", err, p.Stderr())
	}
	got, cp := storeHash(t, projectionPath(data))
	if want := rebuildHash(t, log, 0); got != want || cp != head {
		t.Fatalf("after the disk was full: projection at %d %s, rebuild %s", cp, got, want)
	}
}
