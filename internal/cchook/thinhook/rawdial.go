//go:build linux || darwin

package thinhook

import (
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// rawDial connects to a server on a Unix socket or at an IP address with
// a socket of its own, ok false for any other (a host name, an IPv6 zone):
// one non-blocking socket waited on with poll(2) by the run's goroutine.
// The net package's connection waits in the runtime's network poller
// (epoll, its eventfd) and hands the goroutine between threads at every
// wait, which cost a process that makes one round trip more than the rest
// of its run (issue 28). Its errors are the net package's, word for word:
// they are the reason a denial gives (TestRawDialErrors).
func rawDial(w *waiter, tg target) (c conn, ok bool, err error) {
	rc := &rawConn{fd: -1, w: w}
	var sa syscall.Sockaddr
	family := syscall.AF_UNIX
	if tg.socket != "" {
		rc.network, rc.raddr = "unix", &net.UnixAddr{Name: tg.socket, Net: "unix"}
		sa = &syscall.SockaddrUnix{Name: tg.socket}
	} else {
		ap, perr := netip.ParseAddrPort(tg.host)
		if perr != nil || ap.Addr().Zone() != "" || ap.Addr().Is4In6() {
			return nil, false, nil
		}
		rc.network, rc.raddr = "tcp", &net.TCPAddr{IP: ap.Addr().AsSlice(), Port: int(ap.Port())}
		if a := ap.Addr(); a.Is4() {
			family, sa = syscall.AF_INET, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: a.As4()}
		} else {
			family, sa = syscall.AF_INET6, &syscall.SockaddrInet6{Port: int(ap.Port()), Addr: a.As16()}
		}
	}
	if err := rc.connect(family, sa); err != nil {
		rc.Close()
		return nil, true, &net.OpError{Op: "dial", Net: rc.network, Addr: rc.raddr, Err: err}
	}
	return rc, true, nil
}

// rawConn is rawDial's connection.
type rawConn struct {
	fd           int
	w            *waiter
	network      string
	laddr, raddr net.Addr
}

// connect is the net package's netFD.connect, its errors the ones that
// package's dial gives.
func (c *rawConn) connect(family int, sa syscall.Sockaddr) error {
	if err := c.w.err(); err != nil {
		return mapErr(err)
	}
	fd, err := sysSocket(family)
	if err != nil {
		return err
	}
	c.fd = fd
	var rsa syscall.Sockaddr
	switch err := syscall.Connect(fd, sa); err {
	case syscall.EINPROGRESS, syscall.EALREADY, syscall.EINTR:
		if rsa, err = c.connected(); err != nil {
			return err
		}
	case nil, syscall.EISCONN:
		if err := c.w.err(); err != nil {
			return mapErr(err)
		}
	default:
		return os.NewSyscallError("connect", err)
	}
	if c.network == "tcp" {
		// As the net package's TCP connections (Nagle's algorithm off).
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	}
	if lsa, err := syscall.Getsockname(fd); err == nil {
		c.laddr = sockaddrAddr(lsa)
	}
	if rsa == nil {
		rsa, _ = syscall.Getpeername(fd)
	}
	if a := sockaddrAddr(rsa); a != nil {
		c.raddr = a
	}
	return nil
}

// connected waits for a connect in progress to end; the peer's address
// when it had to ask for it.
func (c *rawConn) connected() (syscall.Sockaddr, error) {
	for {
		if err := c.wait(unix.POLLOUT); err != nil {
			if werr := c.w.err(); werr != nil {
				return nil, mapErr(werr)
			}
			return nil, err
		}
		nerr, err := syscall.GetsockoptInt(c.fd, syscall.SOL_SOCKET, syscall.SO_ERROR)
		if err != nil {
			return nil, os.NewSyscallError("getsockopt", err)
		}
		switch err := syscall.Errno(nerr); err {
		case syscall.EINPROGRESS, syscall.EALREADY, syscall.EINTR:
		case syscall.EISCONN:
			return nil, nil
		case 0:
			// As the net package: a wake-up can be spurious.
			if rsa, err := syscall.Getpeername(c.fd); err == nil {
				return rsa, nil
			}
		default:
			return nil, os.NewSyscallError("connect", err)
		}
	}
}

// sockaddrAddr is the net package's address of sa (as its connections
// name their ends), nil for none.
func sockaddrAddr(sa syscall.Sockaddr) net.Addr {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: sa.Addr[0:], Port: sa.Port}
	case *syscall.SockaddrInet6:
		a := &net.TCPAddr{IP: sa.Addr[0:], Port: sa.Port}
		if sa.ZoneId != 0 {
			// No address rawDial connects to has a zone, nor one a
			// connection to it gets; the net package names the zone.
			if ifc, err := net.InterfaceByIndex(int(sa.ZoneId)); err == nil {
				a.Zone = ifc.Name
			} else {
				a.Zone = strconv.Itoa(int(sa.ZoneId))
			}
		}
		return a
	case *syscall.SockaddrUnix:
		return &net.UnixAddr{Name: sa.Name, Net: "unix"}
	}
	return nil
}

// pollSlice is the longest poll(2) waits before the run looks at its
// context and signals again: how late a signal can end the wait.
const pollSlice = 20 * time.Millisecond

// wait waits until the socket is ready for events, or the run's wait is
// over: then os.ErrDeadlineExceeded, as a net connection's deadline.
func (c *rawConn) wait(events int16) error {
	for {
		if c.w.err() != nil {
			return os.ErrDeadlineExceeded
		}
		d := min(time.Until(c.w.deadline), pollSlice)
		ms := int((d + time.Millisecond - 1) / time.Millisecond)
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(c.fd), Events: events}}, max(ms, 0))
		if err != nil && err != syscall.EINTR {
			return os.NewSyscallError("poll", err)
		}
		if n > 0 {
			return nil
		}
	}
}

func (c *rawConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.laddr, Addr: c.raddr, Err: err}
}

// Read is a net connection's Read.
func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if err := c.wait(unix.POLLIN); err != nil {
				return 0, c.opError("read", err)
			}
			continue
		case err != nil:
			return 0, c.opError("read", os.NewSyscallError("read", err))
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write is a net connection's Write: all of p, or an error.
func (c *rawConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(c.fd, p[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if err := c.wait(unix.POLLOUT); err != nil {
				return done, c.opError("write", err)
			}
			continue
		case err != nil:
			return done, c.opError("write", os.NewSyscallError("write", err))
		}
		done += n
	}
	return done, nil
}

func (c *rawConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := syscall.Close(c.fd)
	c.fd = -1
	return err
}

func (c *rawConn) deadlined(err error) error {
	if werr := c.w.err(); werr != nil {
		return deadlineError(werr)
	}
	return err
}

// pollFile is a file whose reads wait with poll(2) until the deadline
// first; past it, a read is hookwire.ErrSlowStdin. It makes
// readPayloadWithin's bound of standard input the run's goroutine's
// (without a goroutine to read and a timer to wait: issue 28).
type pollFile struct {
	f        *os.File
	fd       int
	deadline time.Time
}

// pollStdin is a pollFile of stdin, nil for a reader that is not a file.
// It does not change the file's blocking mode (os.File.Fd would).
func pollStdin(stdin io.Reader, d time.Duration) io.Reader {
	f, ok := stdin.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	if rc.Control(func(s uintptr) { fd = int(s) }) != nil || fd < 0 {
		return nil
	}
	return &pollFile{f: f, fd: fd, deadline: time.Now().Add(d)}
}

func (p *pollFile) Read(b []byte) (int, error) {
	if len(b) > 0 {
		for {
			left := time.Until(p.deadline)
			if left <= 0 {
				return 0, hookwire.ErrSlowStdin
			}
			ms := int((left + time.Millisecond - 1) / time.Millisecond)
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}, ms)
			if err == syscall.EINTR {
				continue
			}
			if n > 0 || err != nil {
				// Ready (or at its end, or in error: the read says so).
				break
			}
		}
	}
	return p.f.Read(b)
}
