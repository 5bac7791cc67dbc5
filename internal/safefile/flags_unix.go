//go:build unix

package safefile

import "syscall"

// openFlags makes an open of a named pipe return at once instead of
// waiting for a writer; on a regular file it changes nothing.
const openFlags = syscall.O_NONBLOCK
