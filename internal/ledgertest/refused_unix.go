//go:build unix

package ledgertest

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusedAddr is a loopback address that refuses connections for the
// test's life: a socket bound to it that does not listen. It holds the
// port, so no server of another package tested alongside takes it
// meanwhile; a closed listener's port can be taken, and that server then
// receives what the test meant to have refused (claudecodetest's scripted
// model did, in a CI run: "requests the scripted model does not serve:
// POST /hooks/qwen").
func RefusedAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("getsockname: %T", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in.Port)
}
