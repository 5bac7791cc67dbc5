//go:build !linux

package natslog

import (
	"fmt"
	"runtime"
)

// OpenGroupSync is not implemented outside Linux (it needs syncfs(2)): run
// the embedded server with its own fsync of every write instead.
func OpenGroupSync(dir string) (*GroupSync, error) {
	return nil, fmt.Errorf("natslog: the ledger's group sync is not implemented on %s; let the server fsync every write (ledger serve --server-fsync)", runtime.GOOS)
}
