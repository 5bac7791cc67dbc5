//go:build linux || darwin

package thinhook

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ports are the port numbers in an error: the hook's end of a connection
// has a port of its own each time.
var ports = regexp.MustCompile(`:[0-9]+->`)

// TestRawDialErrors: the errors of rawDial's connection are the net
// package's, which the hook's denials quoted before it had a socket of its
// own (and still quote for a host name): the same server, failing the same
// way, gives the same error through both.
func TestRawDialErrors(t *testing.T) {
	dir, err := os.MkdirTemp("", "raw")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	notSocket := filepath.Join(dir, "file")
	if err := os.WriteFile(notSocket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()

	// Servers that fail after accepting, each on TCP and on a socket.
	behaviours := map[string]func(c net.Conn){
		"closes":  func(c net.Conn) { c.Close() },
		"resets":  func(c net.Conn) { reset(c) },
		"garbage": func(c net.Conn) { readRequest(c); io.WriteString(c, "garbage\r\n"); c.Close() },
		"cut":     func(c net.Conn) { readRequest(c); io.WriteString(c, "HTTP/1.0 200 OK\r\nX: y"); c.Close() },
		"short": func(c net.Conn) {
			readRequest(c)
			io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\n{}")
			c.Close()
		},
		"answers": func(c net.Conn) { readRequest(c); io.WriteString(c, "HTTP/1.0 200 OK\r\n\r\n{}"); c.Close() },
	}
	targets := map[string]string{
		"refused":     "http://" + refused + HTTPPath,
		"refused ::1": "http://[::1]:1" + HTTPPath,
		"no socket":   "unix:" + filepath.Join(dir, "none.sock"),
		"not socket":  "unix:" + notSocket,
	}
	for name, b := range behaviours {
		for _, network := range []string{"tcp", "unix"} {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(dir, name+".sock")
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go b(c)
				}
			}()
			if network == "unix" {
				targets[name+" (unix)"] = "unix:" + addr
			} else {
				targets[name+" (tcp)"] = "http://" + ln.Addr().String() + HTTPPath
			}
		}
	}
	f := &Flags{unreachable: "deny"}
	for name, url := range targets {
		tg, err := parseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		for _, ctxState := range []string{"", "canceled", "past deadline"} {
			errs := map[string]string{}
			for _, how := range []string{"raw", "net"} {
				ctx, cancel := context.WithCancel(context.Background())
				w := &waiter{ctx: ctx, deadline: time.Now().Add(5 * time.Second)}
				switch ctxState {
				case "canceled":
					cancel()
				case "past deadline":
					w.deadline = time.Now().Add(-time.Second)
				}
				var c conn
				if how == "raw" {
					var ok bool
					c, ok, err = rawDial(w, tg)
					if !ok {
						t.Fatalf("%s: rawDial does not dial %s", name, url)
					}
				} else {
					c, err = dialNet(w, tg)
				}
				if err == nil {
					_, err = f.exchange(c, tg, "", []byte(call))
					c.Close()
				}
				cancel()
				errs[how] = "<nil>"
				if err != nil {
					errs[how] = ports.ReplaceAllString(err.Error(), ":PORT->")
				}
			}
			if strings.HasPrefix(name, "closes ") && ctxState == "" {
				// A server that closes without reading races the hook's
				// write: a broken pipe, a reset or an EOF, whichever side
				// wins, for either connection. Both must fail.
				if errs["raw"] == "<nil>" || errs["net"] == "<nil>" {
					t.Errorf("%s: rawDial's connection says %q, the net package's %q: want both to fail", name, errs["raw"], errs["net"])
				}
			} else if errs["raw"] != errs["net"] {
				t.Errorf("%s %s: rawDial's connection says %q, the net package's %q", name, ctxState, errs["raw"], errs["net"])
			} else {
				t.Logf("%s %s: %s", name, ctxState, errs["raw"])
			}
		}
	}
}

// readRequest reads the hook's request up to its end (the payload is call).
func readRequest(c net.Conn) {
	var b []byte
	buf := make([]byte, 4096)
	for !strings.HasSuffix(string(b), call) {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		b = append(b, buf[:n]...)
	}
}

// reset ends c with a reset: a TCP RST, or a Unix socket closed with the
// request unread.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		readRequest(c)
		tc.SetLinger(0)
	} else {
		time.Sleep(50 * time.Millisecond)
	}
	c.Close()
}

// TestRawDialDeadline: a server that does not answer is answered at the
// run's deadline, with the error the net package's connection gave.
func TestRawDialDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tg, _ := parseURL("http://" + ln.Addr().String() + HTTPPath)
	w := &waiter{ctx: context.Background(), deadline: time.Now().Add(200 * time.Millisecond)}
	begin := time.Now()
	_, err = (&Flags{}).post(w, tg, "", []byte(call))
	if took := time.Since(begin); took < 200*time.Millisecond || took > time.Second {
		t.Errorf("answered after %s", took)
	}
	if err == nil || err.Error() != "no answer within the hook's --timeout: context deadline exceeded" {
		t.Errorf("error %v", err)
	}
}

// TestRunSignals: a signal ends the wait for a server that does not
// answer, as the cancellation of Run's context did (the hook's process
// then answers as for a server that cannot be reached); one before the
// hook dials makes the dial's error, over its own socket and the net
// package's (a host name).
func TestRunSignals(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, host := range []string{"127.0.0.1", "localhost"} {
		url := "http://" + host + ":" + port + HTTPPath
		args := []string{"--hooks", url, "--no-token"}
		sig := make(chan os.Signal, 1)
		go func() {
			time.Sleep(100 * time.Millisecond)
			sig <- syscall.SIGTERM
		}()
		var out strings.Builder
		begin := time.Now()
		err := RunSignals(sig, "ledger-hook", args, strings.NewReader(call), &out, io.Discard)
		if took := time.Since(begin); err != nil || took > 2*time.Second {
			t.Errorf("%s: %v after %s", host, err, took)
		}
		unreachableText(t, out.String(), url, "Bash")
		if !strings.Contains(out.String(), "(no answer within the hook's --timeout: context canceled)") {
			t.Errorf("%s: %s", host, out.String())
		}

		// A signal before the dial: the dial's error, as with a context
		// canceled before it.
		sig <- syscall.SIGTERM
		out.Reset()
		if err := RunSignals(sig, "ledger-hook", args, strings.NewReader(call), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var want strings.Builder
		if err := Run(ctx, "ledger-hook", args, strings.NewReader(call), &want, io.Discard); err != nil {
			t.Fatal(err)
		}
		// With a host name the cancellation can land in the name lookup or
		// in the connect; either step denies the call, so the texts are
		// compared with the lookup's error written as the connect's.
		lookup := "dial tcp: lookup localhost: operation was canceled"
		dial := "dial tcp 127.0.0.1:" + port + ": operation was canceled"
		got, exp := strings.ReplaceAll(out.String(), lookup, dial), strings.ReplaceAll(want.String(), lookup, dial)
		if got != exp || !strings.Contains(exp, ": operation was canceled)") {
			t.Errorf("%s: signalled before the dial:\n%s\nwant\n%s", host, out.String(), want.String())
		}
	}
}
