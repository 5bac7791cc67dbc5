package faults

import (
	"syscall"
	"unsafe"
)

// raiseFsize lifts the soft file size limit of the running process pid to
// its hard limit (prlimit(2); a process's own user may do that).
func raiseFsize(pid int) error {
	var old syscall.Rlimit
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE, 0, uintptr(unsafe.Pointer(&old)), 0, 0); e != 0 {
		return e
	}
	lim := syscall.Rlimit{Cur: old.Max, Max: old.Max}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}
