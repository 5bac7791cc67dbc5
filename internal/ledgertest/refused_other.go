//go:build !unix

package ledgertest

import (
	"net"
	"testing"
)

// RefusedAddr is a loopback address nothing listens on: a closed
// listener's (see refused_unix.go for the port it may lose).
func RefusedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
