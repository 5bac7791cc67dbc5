package projection

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// dropPages unmaps, from this process, the pages of the file it has read
// since the last call. bbolt reads the file through a shared read-only
// mapping, so every page a commit or a read touches stays in the
// process's resident set; over a long catch-up that is most of the file.
// The pages stay in the kernel's page cache and fault back in when read
// again: the process's resident set is then what it holds, not the file.
func (st *Store) dropPages() {
	// A read transaction keeps bbolt from remapping the file meanwhile,
	// and tx.Size is within the mapping.
	_ = st.db.View(func(tx *bolt.Tx) error {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, st.db.Info().Data, uintptr(tx.Size()), syscall.MADV_DONTNEED)
		return nil
	})
}
