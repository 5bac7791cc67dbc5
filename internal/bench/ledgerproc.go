package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
)

// ledgerProcess is 'ledger serve' in a child process (its embedded NATS
// server listening on a loopback port, fsync on every write, serve's
// default), as a gateway or an orchestrator reaches a deployed ledger:
// over NATS, from another process, with a Go scheduler of its own.
type ledgerProcess struct {
	url string
	cmd *exec.Cmd
	// nc is a connection of the bench's own to it.
	nc     *nats.Conn
	exited chan error
}

// startLedgerProcess runs exe serve on dir and waits until it takes NATS
// connections.
func startLedgerProcess(ctx context.Context, exe, dir string) (*ledgerProcess, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(exe, "serve", "--data", filepath.Join(dir, "data"), "--listen", addr, "--log-level", "error")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &ledgerProcess{url: "nats://" + addr, cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if p.nc, err = nats.Connect(p.url, nats.Name("ledger bench"), nats.Timeout(time.Second)); err == nil {
			return p, nil
		}
		select {
		case e := <-p.exited:
			p.exited <- e
			return nil, fmt.Errorf("ledger serve exited before it took connections: %v", e)
		case <-ctx.Done():
			p.close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.close()
			return nil, fmt.Errorf("ledger serve took no connection on %s within 30 s: %w", addr, err)
		}
	}
}

// cpu is the CPU time the child has used so far.
func (p *ledgerProcess) cpu() (time.Duration, bool) { return pidCPU(p.cmd.Process.Pid) }

// close stops it (SIGINT, as Ctrl-C; killed after 10 s).
func (p *ledgerProcess) close() {
	if p.nc != nil {
		p.nc.Close()
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
