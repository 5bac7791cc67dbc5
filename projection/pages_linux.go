package projection

import (
	"unsafe"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// bbolt reads the file through a shared read-only mapping, so every page
// a commit or a read touches stays in the process's resident set; over a
// long catch-up that is most of the file. A dropped page stays in the
// kernel's page cache and faults back in when read again, at a few
// microseconds a fault (on a VM).

// madvise gives the kernel advice about n bytes of the file's mapping at
// addr (bbolt's DB.Info().Data), with unix.Madvise.
func madvise(addr uintptr, n int64, advice int) error {
	return unix.Madvise(mapped(addr, n), advice)
}

// mapped returns the n bytes of the mapping at addr as a slice. The memory
// is bbolt's mmap of the file, outside the Go heap, so a pointer to it is
// safe to hold; it is read out of addr's storage rather than converted
// from the uintptr, the conversion go vet (rightly, for heap memory)
// flags.
func mapped(addr uintptr, n int64) []byte {
	if n <= 0 {
		return nil
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
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
		madvise(st.db.Info().Data, tx.Size(), unix.MADV_DONTNEED)
		return nil
	})
}

// dropMapped drops the pages of size bytes of the file's mapping at data
// (bbolt's DB.Info().Data) from this process, as dropPages does, for a
// caller already in a transaction (which keeps bbolt from remapping the
// file meanwhile).
func dropMapped(data uintptr, size int64) { madvise(data, size, unix.MADV_DONTNEED) }

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
			madvise(data, tx.Size(), unix.MADV_DONTNEED)
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
	// MADV_POPULATE_READ (Linux 5.14) faults the range in as reads would,
	// in one call.
	if madvise(data, size, unix.MADV_POPULATE_READ) != nil {
		// An older kernel: at least read the file into the page cache.
		madvise(data, size, unix.MADV_WILLNEED)
	}
	st.filled.Store(data)
}
