package projection

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// bbolt reads the file through a shared read-only mapping, so every page
// a commit or a read touches stays in the process's resident set; over a
// long catch-up that is most of the file. A dropped page stays in the
// kernel's page cache and faults back in when read again, at a few
// microseconds a fault (on a VM).

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): it faults a range
// in as reads would, in one call. The syscall package does not name it.
const madvPopulateRead = 22

func madvise(addr uintptr, n int64, advice int) syscall.Errno {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(n), uintptr(advice))
	return errno
}

// within reports whether a file of size bytes is within the store's
// resident budget.
func (st *Store) within(size int64) bool { return st.budget >= 0 && size <= st.budget }

// dropPages unmaps, from this process, the pages of the file it has read
// since the last call; the process's resident set is then what it holds,
// not the file.
func (st *Store) dropPages() {
	// A read transaction keeps bbolt from remapping the file meanwhile,
	// and tx.Size is within the mapping.
	_ = st.db.View(func(tx *bolt.Tx) error {
		madvise(st.db.Info().Data, tx.Size(), syscall.MADV_DONTNEED)
		return nil
	})
}

// trimPages follows a commit. It drops the file's pages when the file is
// over the resident budget. Within it, the pages stay; but when bbolt
// remapped the file to grow it since Load faulted it in (see fillPages),
// none is mapped any more, and it faults the file in again (remaps double
// the mapping, so that is rare).
func (st *Store) trimPages() {
	_ = st.db.View(func(tx *bolt.Tx) error {
		data := st.db.Info().Data
		switch filled := st.filled.Load(); {
		case !st.within(tx.Size()):
			madvise(data, tx.Size(), syscall.MADV_DONTNEED)
		case filled != 0 && filled != data:
			st.populate(data, tx.Size())
		}
		return nil
	})
}

// fillPages faults in the whole file when it is within the resident
// budget, so that the first query of each session after a Load reads
// mapped pages (one fault each would cost more than the rest of the
// query).
func (st *Store) fillPages() {
	_ = st.db.View(func(tx *bolt.Tx) error {
		if st.within(tx.Size()) {
			st.populate(st.db.Info().Data, tx.Size())
		}
		return nil
	})
}

func (st *Store) populate(data uintptr, size int64) {
	if madvise(data, size, madvPopulateRead) != 0 {
		// An older kernel: at least read the file into the page cache.
		madvise(data, size, syscall.MADV_WILLNEED)
	}
	st.filled.Store(data)
}
