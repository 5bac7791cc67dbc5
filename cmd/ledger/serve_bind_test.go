package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
)

// TestServeUnauthenticatedListenIsLoopback: without --nats-config the
// embedded server has no authentication, so --listen accepts a loopback
// host only (':PORT' binds 127.0.0.1) and says so; a wider address needs
// --nats-config or --insecure.
func TestServeUnauthenticatedListenIsLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:-1", "[::]:-1", "192.0.2.1:4222"} {
		t.Run("refuses "+addr, func(t *testing.T) {
			// Bounded: before the check, serve would start and run.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			err := run(ctx, []string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--no-api", "--listen", addr}, nil, io.Discard, io.Discard)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(ee.msg, "--nats-config") || !strings.Contains(ee.msg, "--insecure") {
				t.Fatalf("serve --listen %s without auth: got %v, want a usage error naming --nats-config and --insecure", addr, err)
			}
		})
	}
	tests := []struct {
		name       string
		args       []string
		wantListen string // the listen address the warning names
		wantWarn   string
		wantHTTP   string // the console's address starts so
	}{
		{"no host binds loopback", []string{"--listen", ":-1", "--http", ":0"}, "127.0.0.1:-1", "loopback only", "127.0.0.1:"},
		{"loopback host kept", []string{"--listen", "127.0.0.1:-1", "--http", "127.0.0.1:0"}, "127.0.0.1:-1", "loopback only", "127.0.0.1:"},
		{"insecure allows any host", []string{"--listen", "0.0.0.0:-1", "--insecure"}, "0.0.0.0:-1", "--insecure", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := serveLogs(t, tc.args, func(m map[string]any) bool { return m["msg"] == "serving" })
			var warned, httpWarned bool
			for _, m := range logs {
				msg, _ := m["msg"].(string)
				if m["level"] == "WARN" && strings.Contains(msg, tc.wantWarn) && m["listen"] == tc.wantListen {
					warned = true
				}
				if m["level"] == "WARN" && strings.Contains(msg, "every tenant") {
					httpWarned = true
				}
				if msg == "console" && tc.wantHTTP != "" {
					if a, _ := m["addr"].(string); !strings.HasPrefix(a, tc.wantHTTP) {
						t.Errorf("the console listens on %s, want %s...", a, tc.wantHTTP)
					}
				}
			}
			if !warned {
				t.Errorf("no warning %q naming listen %s on stderr: %v", tc.wantWarn, tc.wantListen, logs)
			}
			if tc.wantHTTP != "" && !httpWarned {
				t.Errorf("--http gave no warning that it serves every tenant without authentication: %v", logs)
			}
		})
	}
}

// TestServeSaysItsDurability: serve's embedded server runs under the
// ledger's group sync by default, and says so; --server-fsync lets the
// server fsync every write itself, --sync-interval every interval.
func TestServeSaysItsDurability(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "group sync"},
		{[]string{"--server-fsync"}, "fsyncs every write"},
		{[]string{"--sync-interval", "1s"}, "fsyncs every 1s"},
	} {
		t.Run(strings.Join(append([]string{"serve"}, tc.args...), " "), func(t *testing.T) {
			if tc.args == nil && runtime.GOOS != "linux" {
				t.Skip("group sync needs syncfs(2), Linux's")
			}
			logs := serveLogs(t, tc.args, func(m map[string]any) bool { return m["msg"] == "serving" })
			if d, _ := logs[len(logs)-1]["durability"].(string); !strings.Contains(d, tc.want) {
				t.Fatalf("durability %q, want it to say %q", d, tc.want)
			}
		})
	}
}

// serveLogs runs serve in process with args until a JSON log line on
// stderr satisfies until, and returns the lines up to it.
func serveLogs(t *testing.T, args []string, until func(map[string]any) bool) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--no-api"}, args...), nil, io.Discard, errW)
		errW.Close()
	}()
	var logs []map[string]any
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		logs = append(logs, m)
		if until(m) {
			cancel()
			break
		}
	}
	go io.Copy(io.Discard, errR)
	if err := <-done; err != nil {
		t.Fatalf("serve %v: %v\n%v", args, err, logs)
	}
	if ctx.Err() == nil {
		t.Fatalf("serve %v ended before the line it waited for: %v", args, logs)
	}
	return logs
}

// TestAppendOverNATSUnderGroupSync: another process appending straight to
// the stream of serve's embedded server (append --nats against serve
// --listen, as docs/openclaw-plugin.md shows) is answered only once serve
// has synced its records: its appends (single records, or atomic
// batches) ask serve for a sync (natslog.GroupSyncSubject) before they
// are answered, and every record is in the log.
func TestAppendOverNATSUnderGroupSync(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("group sync needs syncfs(2), Linux's")
	}
	url := serveForTest(t)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if name := nc.ConnectedServerName(); !strings.HasSuffix(name, natslog.GroupSyncNameSuffix) {
		t.Fatalf("serve's server is named %q: its clients cannot tell it syncs under group sync", name)
	}
	var asked atomic.Int64
	sub, err := nc.Subscribe(natslog.GroupSyncSubject, func(*nats.Msg) { asked.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, strings.Join(twoScopes, "\n")+"\n", "append", "--nats", url)
	if err != nil || !strings.Contains(out, "13 accepted") {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	ledgertest.WaitFor(t, 10*time.Second, "a sync asked for", func() bool { return asked.Load() > 0 })
	if out, errOut, err := runCLI(t, "", "log", "--nats", url); err != nil || strings.Count(out, "\n") != 13 {
		t.Fatalf("log: %v\n%s%s", err, out, errOut)
	}
	// A replica on that server says whose syncs its appends wait for.
	logs := serveLogs(t, []string{"--nats", url}, func(m map[string]any) bool { return m["msg"] == "serving" })
	if d, _ := logs[len(logs)-1]["durability"].(string); !strings.Contains(d, "group sync of the ledger that runs the server") {
		t.Fatalf("a replica on a server under group sync says its durability is %q", d)
	}
}
