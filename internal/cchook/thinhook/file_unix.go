//go:build unix

package thinhook

import (
	"fmt"
	"io"
	"io/fs"
	"syscall"
)

// The hook's files (its token, /etc/passwd) are read without os.Open: an
// os.File opened on a file brings up the runtime's network poller (epoll,
// its eventfd) and sets a cleanup on it, in a process that otherwise has
// no use for either (issue 28).

// readSmall reads a regular file of at most n bytes; its errors are an
// os.File's.
func readSmall(path string, n int64) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > n {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, n)
	}
	b, err := io.ReadAll(io.LimitReader(fdReader(fd), n))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// fdReader reads a file descriptor.
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// openRead opens path to read, as os.Open does but with no os.File.
func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
