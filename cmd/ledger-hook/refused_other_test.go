//go:build !unix

package main

import (
	"net"
	"testing"
)

// refusedAddr is a loopback address nothing listens on: a closed
// listener's (see refused_unix_test.go for the port it may lose).
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
