package thinhook

import (
	"os"
	"syscall"
)

// sysSocket is a non-blocking stream socket of family, closed on exec: the
// net package's on Linux.
func sysSocket(family int) (int, error) {
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return fd, nil
}
