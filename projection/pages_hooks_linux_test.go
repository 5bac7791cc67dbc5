package projection

import (
	"encoding/binary"
	"os"

	bolt "go.etcd.io/bbolt"
)

// ResidentPages reports how many of the file's pages are mapped in this
// process (present in its page table, as /proc/self/pagemap tells: the
// kernel's page cache may hold pages the process does not map), and how
// many pages the file has.
func ResidentPages(st *Store) (resident, pages int, err error) {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	err = st.db.View(func(tx *bolt.Tx) error {
		ps := int64(os.Getpagesize())
		pages = int(tx.Size() / ps)
		// One 64-bit entry per virtual page; bit 63 is "present".
		buf := make([]byte, 8*pages)
		if _, err := f.ReadAt(buf, int64(st.db.Info().Data)/ps*8); err != nil {
			return err
		}
		for i := range pages {
			if binary.NativeEndian.Uint64(buf[8*i:])>>63 == 1 {
				resident++
			}
		}
		return nil
	})
	return resident, pages, err
}

// CheckDrops makes Check drop pages after every sumBytes of entries it
// sums and never while bbolt checks its pages, calls each before each
// drop, and returns what sets them back.
func CheckDrops(sumBytes int, each func()) (restore func()) {
	b, i, f := sumDropBytes, checkDropInterval, onCheckDrop
	sumDropBytes, checkDropInterval, onCheckDrop = sumBytes, 0, each
	return func() { sumDropBytes, checkDropInterval, onCheckDrop = b, i, f }
}
