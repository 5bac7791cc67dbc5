//go:build unix

package main

import "golang.org/x/sys/unix"

// canWrite says whether this user may make files in the directory dir
// (access(2): its permissions, a read-only file system).
func canWrite(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
