package projection_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/projection"
)

// TestOpenStoreCutShort: a bbolt file cut to a fraction of its size, so
// that its freelist or root lies past its end, is refused as damaged,
// naming the file, and never faults the process (bbolt reads such a page
// through its mapping: a fault the store turns into an error).
func TestOpenStoreCutShort(t *testing.T) {
	for _, frac := range []int64{0, 2, 3, 4} {
		name := fmt.Sprintf("1/%d", frac)
		if frac == 0 {
			name = "just before its freelist page"
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.db")
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 20 {
				if err := db.Update(func(tx *bolt.Tx) error {
					b, err := tx.CreateBucketIfNotExists([]byte("b"))
					if err != nil {
						return err
					}
					for i := range 200 {
						if err := b.Put(fmt.Appendf(nil, "k%03d-%05d", round, i), make([]byte, 100)); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			size := fi.Size() / max(frac, 1)
			if frac == 0 {
				// The page that bbolt.Open reads first past the metas:
				// cut there, it lies within the mapping and past the end.
				size = freelistOffset(t, path) - 1
			}
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
			st, err := projection.OpenStore(path, projection.StoreOptions{})
			if err == nil {
				st.Close()
				t.Fatal("a file cut short opened")
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("the error does not name the file: %v", err)
			}
		})
	}
}

// freelistOffset is where the freelist page of the bbolt file at path
// begins, read from its newer meta page (bbolt's layout: a 16-byte page
// header, then magic, version, page size and flags, 4 bytes each, the root
// bucket's 16, then the freelist's page id, the high water mark and the
// transaction id, 8 bytes each).
func freelistOffset(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u64 := func(off int) uint64 { return binary.LittleEndian.Uint64(b[off:]) }
	pageSize := int(binary.LittleEndian.Uint32(b[16+8:]))
	meta := 0
	if u64(pageSize+64) > u64(64) {
		meta = pageSize
	}
	return int64(u64(meta+16+32)) * int64(pageSize)
}
