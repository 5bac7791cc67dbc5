package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startBound is how long a `ledger serve` that cannot start may take to
// say so: generous, against the 10 to 30 s it used to take.
const startBound = 10 * time.Second

// serveFails runs `ledger serve` as a subprocess that is expected to give
// up, and returns its exit code and output.
func serveFails(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*startBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, ledgerBinary(t), append([]string{"serve"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	if took := time.Since(start); took > startBound {
		t.Fatalf("ledger serve %v took %v to give up (bound %v)\n%s%s", args, took, startBound, out.String(), errOut.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("ledger serve %v: %v, want it to fail\n%s%s", args, err, out.String(), errOut.String())
	}
	return ee.ExitCode(), out.String(), errOut.String()
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestServeFailsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ledger binary")
	}
	dir := t.TempDir()
	auth := filepath.Join(dir, "auth.conf")
	if _, errOut, err := runCLI(t, "", "serve", "--gen-auth", auth, "--service-users", "ledger:s3cret", "--orchestrators", "acme"); err != nil {
		t.Fatalf("gen-auth: %v %s", err, errOut)
	}
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"port in use", []string{"--listen", held.Addr().String()}, 1, "--listen " + held.Addr().String() + ": listen tcp " + held.Addr().String() + ": bind: address already in use"},
		{"auth needed", []string{"--nats-config", auth}, 2, "--nats-config " + auth + " requires a user: give --user and --password"},
		{"unknown user", []string{"--nats-config", auth, "--user", "bob", "--password", "x"}, 2, "--user bob is not a user of " + auth},
		{"wrong password", []string{"--nats-config", auth, "--user", "ledger", "--password", "nope"}, 2, "--user ledger: the password is not the one"},
		{"server not reachable", []string{"--nats", "nats://" + freeAddr(t)}, 1, "connecting to NATS at nats://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "d")
			code, out, errOut := serveFails(t, append([]string{"--data", data}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q, want exit %d and %q\n%s", code, errOut, tt.code, tt.want, out)
			}
			if tt.code == 2 {
				if _, err := os.Stat(data); !os.IsNotExist(err) {
					t.Fatalf("a refused start created %s", data)
				}
			}
		})
	}
	// The right user and password start it; SIGTERM stops it.
	t.Run("right user", func(t *testing.T) {
		cmd := exec.Command(ledgerBinary(t), "serve", "--data", filepath.Join(t.TempDir(), "d"), "--nats-config", auth, "--user", "ledger", "--password", "s3cret")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() || !strings.HasPrefix(sc.Text(), "ledger serving:") {
			cmd.Wait()
			t.Fatalf("first line %q, want ledger serving:\n%s", sc.Text(), errOut.String())
		}
		cmd.Process.Signal(syscall.SIGTERM)
		go io.Copy(io.Discard, stdout)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("after SIGTERM: %v\n%s", err, errOut.String())
		}
	})
}

// TestServeHonoursSIGTERMWhileStarting: a serve that is still starting
// (here: against a server that speaks the NATS protocol but never answers
// JetStream) stops on SIGTERM, at once and cleanly.
func TestServeHonoursSIGTERMWhileStarting(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ledger binary")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	asked := make(chan struct{}, 1)
	go fakeNATS(ln, asked)
	cmd := exec.Command(ledgerBinary(t), "serve", "--data", filepath.Join(t.TempDir(), "d"), "--nats", "nats://"+ln.Addr().String())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("serve exited before asking JetStream: %v\n%s%s", err, out.String(), errOut.String())
	case <-time.After(startBound):
		t.Fatal("serve never asked the server for JetStream")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "ledger stopped while starting") {
			t.Fatalf("after SIGTERM: %v, stdout %q, stderr %q; want exit 0 and 'ledger stopped while starting'", err, out.String(), errOut.String())
		}
	case <-time.After(startBound):
		t.Fatalf("serve did not stop within %v of SIGTERM while starting", startBound)
	}
}

// fakeNATS accepts NATS clients and answers the handshake and PINGs but
// nothing else; it signals asked when a client first publishes to the
// JetStream API.
func fakeNATS(ln net.Listener, asked chan<- struct{}) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			fmt.Fprintf(c, "INFO {\"server_id\":\"fake\",\"version\":\"2.10.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576}\r\n")
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				f := strings.Fields(line)
				if len(f) == 0 {
					continue
				}
				switch strings.ToUpper(f[0]) {
				case "PING":
					io.WriteString(c, "PONG\r\n")
				case "PUB", "HPUB":
					n, _ := strconv.Atoi(f[len(f)-1])
					if _, err := io.CopyN(io.Discard, r, int64(n)+2); err != nil {
						return
					}
					if strings.HasPrefix(f[1], "$JS.API") {
						select {
						case asked <- struct{}{}:
						default:
						}
					}
				}
			}
		}()
	}
}
