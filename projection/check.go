package projection

// This file keeps the store's content sum and checks the file against it:
// bbolt has no checksums of its own on data pages, so a byte flipped in a
// value on disk would otherwise be read, and served, as if it were true.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// sumsKey, in the meta bucket, holds the content sum: the sum (mod 2^64)
// of entrySum over every entry of every bucket but itself. A sum, unlike a
// hash of the file, is kept up to date at each commit from the entries it
// writes alone (minus the value a put replaces, plus the new one), and it
// depends only on what the store holds: two stores holding the same state
// have the same sum. It is not in Dump, whose lines it would add to.
var sumsKey = []byte("sums")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entrySum is one entry's part of the content sum: two CRC-32s (Castagnoli
// and IEEE, both computed in hardware on amd64 and arm64) of the bucket's
// name, the key's length, the key and the value. It is for damage, not
// tampering: a random change of an entry goes unnoticed with a chance of
// about 2^-64.
//
// n is scratch space for the key's length: crc32.Update's argument
// escapes, so a local array would be an allocation per entry.
func entrySum(n *[4]byte, bucket, k, v []byte) uint64 {
	binary.BigEndian.PutUint32(n[:], uint32(len(k)))
	c := crc32.Update(0, castagnoli, bucket)
	c = crc32.Update(c, castagnoli, n[:])
	c = crc32.Update(c, castagnoli, k)
	c = crc32.Update(c, castagnoli, v)
	i := crc32.Update(0, crc32.IEEETable, bucket)
	i = crc32.Update(i, crc32.IEEETable, n[:])
	i = crc32.Update(i, crc32.IEEETable, k)
	i = crc32.Update(i, crc32.IEEETable, v)
	return uint64(c)<<32 | uint64(i)
}

// contentSum computes the content sum from every entry of the file. It
// calls walked with the bytes of entries read since its last call, every
// sumDropBytes of them (see Check).
func contentSum(tx *bolt.Tx, walked func(n int)) uint64 {
	var sum uint64
	var scratch [4]byte
	n := 0
	for _, name := range allBuckets {
		b := tx.Bucket(name)
		if b == nil {
			continue
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil || string(name) == string(bucketMeta) && (string(k) == string(sumsKey) || string(k) == string(unfinishedKey)) {
				continue // a nested bucket (there are none), the sum itself, or a rebuild's mark
			}
			sum += entrySum(&scratch, name, k, v)
			if n += len(k) + len(v); n >= sumDropBytes {
				walked(n)
				n = 0
			}
		}
	}
	return sum
}

// storedSum reads the content sum a commit starts from; a file written
// errNoSum is a file of this layout without its content sum (OpenStore).
var errNoSum = errors.New("its content sum is missing, which every file of this layout is written with: the key was lost or its pages changed on disk")

// before sums existed gets one computed from what it holds.
func storedSum(tx *bolt.Tx) (uint64, bool) {
	if v := tx.Bucket(bucketMeta).Get(sumsKey); len(v) == 8 {
		return binary.BigEndian.Uint64(v), true
	}
	return 0, false
}

func putSum(tx *bolt.Tx, sum uint64) error { return tx.Bucket(bucketMeta).Put(sumsKey, u64(sum)) }

// ErrDamaged is what Check's errors are (errors.Is); the error itself names
// the file and says how to get a good one back.
var ErrDamaged = errors.New("projection damaged")

type damagedError struct{ err error }

func (e damagedError) Error() string        { return e.err.Error() }
func (e damagedError) Is(target error) bool { return target == ErrDamaged }

// Check reads the whole file and reports whether it is intact, holding
// off commits meanwhile: bbolt's own check of its pages (every page
// reachable once, none both free and in use, keys in order), then the
// content sum of every entry against the one stored. It costs a read of
// every page: 0.64 to 0.70 s on a file of 100,000 sessions (README,
// "Durability"). A file from before content sums were kept was given one,
// from what it held, when it was first opened by this version; damage
// older than that goes unnoticed by the sum.
//
// A file over the resident budget does not become resident for the read:
// its pages are dropped as the check goes (every checkDropInterval while
// bbolt checks its pages, every sumDropBytes of entries while it sums
// them), so the process's resident set stays what it holds, not the file
// (TestCheckDropsPagesAsItReads). A file within the budget keeps its pages.
func (st *Store) Check() error {
	var found error
	err := st.exclusive(func(tx *bolt.Tx) error {
		drop := func(int) {}
		if !st.within(tx.Size()) {
			data, size := st.db.Info().Data, tx.Size()
			drop = func(int) {
				if onCheckDrop != nil {
					onCheckDrop()
				}
				dropMapped(data, size)
			}
		}
		stop := st.dropWhile(drop)
		defer stop()
		var errs []error
		for err := range tx.Check() {
			if len(errs) < 5 {
				errs = append(errs, err)
			}
		}
		stop()
		if len(errs) > 0 {
			found = fmt.Errorf("bbolt's check of its pages: %w", errors.Join(errs...))
			return nil
		}
		want, ok := storedSum(tx)
		if !ok {
			return nil
		}
		if got := contentSum(tx, drop); got != want {
			found = fmt.Errorf("its entries sum to %016x but it was written with %016x: bytes of its pages changed on disk", got, want)
		}
		return nil
	})
	st.trimPages()
	switch {
	case found != nil:
		return damagedError{damaged(st.path, found)}
	case errors.Is(err, bolt.ErrDatabaseNotOpen):
		return err
	case err != nil:
		return damagedError{err} // bbolt panicked: view says so, naming the file
	}
	return nil
}

// sumDropBytes is how many bytes of entries contentSum reads between the
// calls that let Check drop the pages read. The kernel may map a whole
// large folio of the page cache (up to 2 MB) at the first read of any of
// its pages, so a step this small keeps what the sum maps meanwhile to
// tens of megabytes (docs/bench.md, "Resident memory: the projection's
// constants"). A variable for TestCheckDropsPagesAsItReads.
var sumDropBytes = 256 << 10

// checkDropInterval is how often Check drops the pages bbolt's check of
// the file has read meanwhile (0 or negative: never). bbolt walks
// the pages on its own goroutine with no hook between them, so this is
// the only pacing there is; as above, a read may map a whole folio
// (the interval's measurements: docs/bench.md, "Resident memory: the
// projection's constants").
var checkDropInterval = time.Millisecond

// onCheckDrop, when set, is called before each drop (for
// TestCheckDropsPagesAsItReads).
var onCheckDrop func()

// dropWhile calls drop every checkDropInterval (0 or negative: never)
// until the returned stop is first called; stop returns once drop is no
// longer running.
func (st *Store) dropWhile(drop func(int)) (stop func()) {
	if checkDropInterval <= 0 {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(checkDropInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				drop(0)
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-exited }) }
}

// exclusive runs fn in a write transaction that it rolls back: bbolt's
// check compares the pages reachable in the transaction with the freelist,
// which a commit made meanwhile (a CommitAsync still writing) changes, so
// in a read transaction it reports healthy pages as "reachable freed" or
// "unreachable unfreed". bbolt panics on some damaged pages; that is an
// error naming the file, as in view.
func (st *Store) exclusive(fn func(tx *bolt.Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = damaged(st.path, fmt.Errorf("%v", p))
		}
	}()
	tx, err := st.db.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}
