package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// serveProc is `ledger serve` running as a subprocess, with its structured
// log lines delivered on a channel.
type serveProc struct {
	cmd *exec.Cmd
	// caughtUp is the highest position the process logged it caught up
	// at; changed is signalled after each update and closed at exit.
	caughtUp atomic.Uint64
	changed  chan struct{}
	exited   chan struct{}
	done     chan error
}

func startServe(t *testing.T, url, data string) *serveProc {
	t.Helper()
	cmd := exec.Command(ledgerBinary(t), "serve", "--nats", url, "--data", data)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, changed: make(chan struct{}, 1), exited: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m struct {
				Msg      string `json:"msg"`
				Position uint64 `json:"position"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Msg == "caught up" && m.Position > p.caughtUp.Load() {
				p.caughtUp.Store(m.Position)
				select {
				case p.changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

// waitPosition waits until the process logs that it caught up at or past
// position, with a deadline.
func (p *serveProc) waitPosition(t *testing.T, position uint64) {
	t.Helper()
	deadline := time.After(120 * time.Second)
	for p.caughtUp.Load() < position {
		select {
		case <-p.changed:
		case <-p.exited:
			if p.caughtUp.Load() < position {
				t.Fatalf("ledger serve exited at position %d before reaching %d", p.caughtUp.Load(), position)
			}
		case <-deadline:
			t.Fatalf("ledger serve did not reach position %d in 120s (at %d)", position, p.caughtUp.Load())
		}
	}
}

// TestServeSubprocessRestart kills `ledger serve` with SIGKILL while another
// writer appends, starts it again, and checks that its projection resumes
// and ends byte-identical to a full rebuild from the log.
func TestServeSubprocessRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ledger binary")
	}
	root := t.TempDir()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(root, "nats"), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	url := ns.ClientURL()
	nc, err := natslog.ConnectEmbedded(ns, "writer")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	writer, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	evs := workload.Sessions(30)
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := writer.Append(t.Context(), evs[i]); err != nil {
				t.Errorf("event %d: %v", i, err)
				return
			}
		}
	}
	third := len(evs) / 3
	write(0, third)

	data := filepath.Join(root, "serve")
	p := startServe(t, url, data)
	p.waitPosition(t, uint64(third))
	// Keep writing while the follower applies, and kill it mid-stream.
	writing := make(chan struct{})
	go func() { write(third, 2*third); close(writing) }()
	p.waitPosition(t, uint64(third)+5)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	<-writing
	write(2*third, len(evs))

	p = startServe(t, url, data)
	p.waitPosition(t, uint64(len(evs)))
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("ledger serve after SIGTERM: %v", err)
	}

	store, err := projection.OpenStore(filepath.Join(data, "projection.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if cp, _ := store.Checkpoint(); cp != uint64(len(evs)) {
		t.Fatalf("checkpoint %d, want %d", cp, len(evs))
	}
	want, err := replay.RebuildHash(t.Context(), log, dialects.All(), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := store.DumpHash()
	if got != want {
		t.Fatalf("projection after SIGKILL and restart %s, full rebuild %s", got, want)
	}
	if strings.TrimSpace(got) == "" {
		t.Fatal("empty hash")
	}
}
