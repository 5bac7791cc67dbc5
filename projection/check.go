package projection

// This file keeps the store's content sum and checks the file against it:
// bbolt has no checksums of its own on data pages, so a byte flipped in a
// value on disk would otherwise be read, and served, as if it were true.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

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
func entrySum(bucket, k, v []byte) uint64 {
	var n [4]byte
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

// contentSum computes the content sum from every entry of the file.
func contentSum(tx *bolt.Tx) uint64 {
	var sum uint64
	for _, name := range allBuckets {
		b := tx.Bucket(name)
		if b == nil {
			continue
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil || string(name) == string(bucketMeta) && string(k) == string(sumsKey) {
				continue // a nested bucket (there are none), or the sum itself
			}
			sum += entrySum(name, k, v)
		}
	}
	return sum
}

// storedSum reads the content sum a commit starts from; a file written
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
func (st *Store) Check() error {
	var found error
	err := st.exclusive(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			if len(errs) < 5 {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			found = fmt.Errorf("bbolt's check of its pages: %w", errors.Join(errs...))
			return nil
		}
		want, ok := storedSum(tx)
		if !ok {
			return nil
		}
		if got := contentSum(tx); got != want {
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
