package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// startLedgerProcess runs exe serve on dir, with extra flags, and waits
// until it takes NATS connections.
func startLedgerProcess(ctx context.Context, exe, dir string, extra ...string) (*ledgerProcess, error) {
	addr, err := freeLoopback()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{"serve", "--data", filepath.Join(dir, "data"), "--listen", addr, "--log-level", "error"}, extra...)...)
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
	stopChild(p.cmd, p.exited)
}

// freeLoopback is a loopback address whose port was free a moment ago,
// for a child that must be told where to listen (a race with any other
// process binding it meanwhile, as startServerProcess has).
func freeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// ServeProxyArg is the argument with which 'ledger bench' runs ServeProxy
// on the upstream URL that follows it: the 64-session rows' bare proxy
// in a process of its own.
const ServeProxyArg = "--serve-mcp-proxy"

// ServeProxy serves the bare SDK proxy (bareProxy) in front of upURL
// until ctx ends, after printing its URL on stdout, one line.
func ServeProxy(ctx context.Context, upURL string, stdout io.Writer) error {
	p, err := startProxyWith(ctx, upURL, nil, "proxy")
	if err != nil {
		return fmt.Errorf("bench proxy: %w", err)
	}
	defer p.close()
	if _, err := fmt.Fprintln(stdout, p.url); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// proxyProcess is ServeProxy in a child process.
type proxyProcess struct {
	url    string
	cmd    *exec.Cmd
	exited chan error
}

func startProxyProcess(ctx context.Context, exe, upURL string) (*proxyProcess, error) {
	cmd := exec.Command(exe, "bench", ServeProxyArg, upURL)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proxyProcess{cmd: cmd, exited: make(chan error, 1)}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, out)
		p.exited <- cmd.Wait()
	}()
	select {
	case u, ok := <-line:
		if ok && strings.HasPrefix(u, "http://") {
			p.url = u
			return p, nil
		}
		p.close()
		return nil, fmt.Errorf("the proxy process printed %q, not its URL", u)
	case <-ctx.Done():
		p.close()
		return nil, ctx.Err()
	case <-time.After(30 * time.Second):
		p.close()
		return nil, errors.New("the proxy process printed no URL within 30 s")
	}
}

func (p *proxyProcess) cpu() (time.Duration, bool) { return pidCPU(p.cmd.Process.Pid) }

func (p *proxyProcess) close() {
	stopChild(p.cmd, p.exited)
}

// gatewayProcess is 'ledger mcp --listen' in a child process, reaching a
// ledger over NATS.
type gatewayProcess struct {
	url    string
	cmd    *exec.Cmd
	exited chan error
}

// startGatewayProcess runs exe mcp with the config file conf against the
// ledger at natsURL, serving owner's sessions, and waits until its port
// takes connections.
func startGatewayProcess(ctx context.Context, exe, conf, natsURL, owner string) (*gatewayProcess, error) {
	addr, err := freeLoopback()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "mcp", "--config", conf, "--nats", natsURL, "--listen", addr, "--owner", owner)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &gatewayProcess{url: "http://" + addr + "/mcp", cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	if err := waitListening(ctx, addr, p.exited); err != nil {
		p.close()
		return nil, fmt.Errorf("ledger mcp: %w", err)
	}
	return p, nil
}

// waitListening waits until addr takes a TCP connection, at most 30 s,
// or the process whose exit exited reports ends.
func waitListening(ctx context.Context, addr string, exited chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case e := <-exited:
			exited <- e
			return fmt.Errorf("exited before it listened on %s: %v", addr, e)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("did not listen on %s within 30 s: %w", addr, err)
		}
	}
}

func (p *gatewayProcess) cpu() (time.Duration, bool) { return pidCPU(p.cmd.Process.Pid) }

func (p *gatewayProcess) close() { stopChild(p.cmd, p.exited) }

// stopChild stops a child (SIGINT, as Ctrl-C; killed after 10 s) and
// waits for exited.
func stopChild(cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}
