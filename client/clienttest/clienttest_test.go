package clienttest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/client/clienttest"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// use appends a policy, a root and a turn through l and checks a tool.
func use(t *testing.T, l *clienttest.Ledger) {
	t.Helper()
	ctx := t.Context()
	ops, err := l.Client(client.Options{Actor: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	acme, err := l.Client(client.Options{Owner: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []client.Event{client.Start("agent:main:main", events.StartedData{Agent: "main"}), client.Turn("agent:main:main", events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	chk, err := acme.CheckAndRecord(ctx, "agent:main:main", "exec", "call-1")
	if err != nil || chk.Decision != "deny" || chk.Reason.Code != "global:deny" || chk.Recorded == 0 {
		t.Fatalf("check: %+v %v", chk, err)
	}
	for ch, err := range acme.Changes(ctx, client.WatchOptions{Session: "agent:main:main"}) {
		if err != nil || ch.Turn != 1 {
			t.Fatalf("changes: %+v %v", ch, err)
		}
		break
	}
}

// TestNew: a ledger for a test serves clients, refuses options that do
// not validate, and is closed when the test ends.
func TestNew(t *testing.T) {
	var l *clienttest.Ledger
	t.Run("test", func(t *testing.T) {
		l = clienttest.New(t, clienttest.Options{})
		use(t, l)
		if _, err := l.Client(client.Options{Owner: "acme.eu"}); err == nil || !strings.Contains(err.Error(), "not a valid owner") {
			t.Errorf("a client with an invalid owner: %v", err)
		}
		if l.URL() != "" {
			t.Errorf("a ledger that does not listen has the URL %q", l.URL())
		}
	})
	if _, err := l.Connect(); err == nil {
		t.Error("a connection to the ledger of a test that ended")
	}
}

// TestStartCloseLeavesNoGoroutine: Close returns once the ledger's parts
// have ended and removes its temporary directory; the goroutines it
// started end (with a deadline: a closed connection's reader and the
// server's last routines end just after Close, on their own). A first
// ledger is started and closed before counting, so that what the NATS
// libraries start once per process is in the count.
func TestStartCloseLeavesNoGoroutine(t *testing.T) {
	ctx := context.Background()
	cycle := func() string {
		l, err := clienttest.Start(ctx, clienttest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		use(t, l)
		nc, err := l.Connect()
		if err != nil {
			t.Fatal(err)
		}
		dir := l.Dir()
		if _, err := os.Stat(filepath.Join(dir, "projection.db")); err != nil {
			t.Fatalf("the ledger's directory: %v", err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if !nc.IsClosed() {
			t.Error("Close left a connection it made open")
		}
		if err := l.Close(); err != nil {
			t.Errorf("a second Close: %v", err)
		}
		return dir
	}
	cycle()
	before := runtime.NumGoroutine()
	if dir := cycle(); !strings.HasPrefix(dir, os.TempDir()) {
		t.Errorf("the ledger's directory %s is not a temporary one", dir)
	} else if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left its temporary directory %s: %v", dir, err)
	}
	defer func() {
		if n := runtime.NumGoroutine(); n > before && t.Failed() {
			buf := make([]byte, 1<<20)
			t.Logf("%d goroutines after Close, %d before the ledger started:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	}()
	ledgertest.WaitFor(t, 10*time.Second, fmt.Sprintf("the goroutines after Close back to the %d before the ledger started", before), func() bool {
		return runtime.NumGoroutine() <= before
	})
}

// TestListen: a ledger that listens does so on loopback, on a port the
// system picked, and serves a client connected by URL.
func TestListen(t *testing.T) {
	l := clienttest.New(t, clienttest.Options{Listen: true})
	url := l.URL()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || strings.HasSuffix(url, ":4222") || strings.HasSuffix(url, ":-1") {
		t.Fatalf("URL %q, want loopback on a picked port", url)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ops := client.New(nc, client.Options{})
	if _, err := ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
}

// TestDirKeepsTheLog: a ledger started on a Dir keeps it; started again
// on it, it resumes the log.
func TestDirKeepsTheLog(t *testing.T) {
	dir := t.TempDir()
	l := clienttest.New(t, clienttest.Options{Dir: dir})
	use(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	again := clienttest.New(t, clienttest.Options{Dir: dir})
	audit, err := again.Client(client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chk, err := audit.Check(t.Context(), "agent:main:main", "read")
	if err != nil || chk.Decision != "allow" || chk.Seq != 4 {
		t.Fatalf("the resumed ledger: %+v %v, want allow at 4", chk, err)
	}
}
