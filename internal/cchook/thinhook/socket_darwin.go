package thinhook

import (
	"os"
	"syscall"
)

// sysSocket is a non-blocking stream socket of family, closed on exec: the
// net package's on macOS.
func sysSocket(family int) (int, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return -1, os.NewSyscallError("setnonblock", err)
	}
	return fd, nil
}
