package natslog

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// OpenGroupSync is the GroupSync of a server whose store is in dir: each
// sync is one syncfs(2) of dir's file system, which writes back and
// flushes every file the server wrote there (the message blocks, a new
// block's directory entry, the stream's metadata).
func OpenGroupSync(dir string) (*GroupSync, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("natslog: opening the store %s to sync it: %w", dir, err)
	}
	return NewGroupSync(func() error { return unix.Syncfs(fd) }, func() error { return unix.Close(fd) }), nil
}
