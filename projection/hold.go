package projection

import (
	"bytes"
	"errors"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// heldSets are the tool sets a rebuild's store (StoreOptions.HoldToolSets)
// has committed but not yet written to the file. A tool set's key is its
// hash, so each commit's new sets land on pages all over the bucket: a
// million records make about 150,000 sets, and writing each commit's few
// hundred rewrote a few hundred of its pages every commit, about a quarter
// of a rebuild's time (docs/bench.md, "the tool sets a rebuild holds").
// Held, they are written once, in key order, when the store is synced or
// closed, or within a commit once they pass holdBytes.
//
// Invariants (TestHeldToolSets):
//   - a held set is read as a stored one (Store.toolSet), so a state that
//     reads its history from the store sees every set it committed;
//   - the file's content sum counts a set when it is written, so the sum
//     always matches the file (Check);
//   - Sync and Close write every held set first: a file a rebuild returns
//     holds them all;
//   - the file is marked unfinished (unfinishedKey) from its opening until
//     then, so that one left by a writer that died is refused, not served
//     without its tool sets (TestUnfinishedRebuildRefused).
type heldSets struct {
	mu    sync.Mutex
	m     map[string]heldSet
	bytes int
	// unmarked: the file's unfinishedKey is gone (writeHeld wrote all).
	unmarked bool
}

type heldSet struct {
	v   []byte
	sum uint64 // the entry's part of the content sum (entrySum)
}

// holdBytes bounds the keys and values a store holds before a commit
// writes them (a million records hold about 30 MB).
var holdBytes = 64 << 20

func (h *heldSets) get(k string) ([]byte, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.m[k]
	return s.v, ok
}

// hold keeps a commit's new tool sets (puts of bucketToolSets, absent
// when the bucket or the hold has their key), copied: the commit's
// buffers are reused.
func (h *heldSets) hold(b *bolt.Bucket, puts []kv) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range puts {
		if _, ok := h.m[string(p.k)]; ok {
			continue
		}
		if b.Get(p.k) != nil {
			continue
		}
		h.m[string(p.k)] = heldSet{v: bytes.Clone(p.v), sum: p.sum}
		h.bytes += len(p.k) + len(p.v)
	}
}

// sorted is what h holds, in key order (none when h is nil).
func (h *heldSets) sorted() (keys []string, vals [][]byte) {
	if h == nil {
		return nil, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	keys = make([]string, 0, len(h.m))
	for k := range h.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	vals = make([][]byte, len(keys))
	for i, k := range keys {
		vals[i] = h.m[k].v
	}
	return keys, vals
}

// holding reports whether commits still hold their tool sets: until the
// store is synced or closed; after that they write them (the file has no
// mark left to say it lacks any).
func (h *heldSets) holding() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.unmarked
}

// full reports whether the hold is past holdBytes.
func (h *heldSets) full() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes >= holdBytes
}

// write puts every held set into tx's bucket in key order and returns
// the content sum with them; the hold is emptied once tx commits (done).
func (h *heldSets) write(tx *bolt.Tx, sum uint64) (uint64, func(), error) {
	keys, vals := h.sorted()
	h.mu.Lock()
	for _, k := range keys {
		sum += h.m[k].sum
	}
	h.mu.Unlock()
	b := tx.Bucket(bucketToolSets)
	if k, _ := b.Cursor().First(); k == nil {
		b.FillPercent = 1 // in key order into an empty bucket: full pages
	}
	for i, k := range keys {
		if err := b.Put([]byte(k), vals[i]); err != nil {
			return 0, nil, err
		}
	}
	return sum, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for i, k := range keys {
			delete(h.m, k)
			h.bytes -= len(k) + len(vals[i])
		}
		if len(h.m) == 0 {
			h.m = map[string]heldSet{} // a map keeps the room it grew to
		}
	}, nil
}

// unfinishedKey marks, in the meta bucket, the file of a store that holds
// tool sets back, from its opening until it has written them (writeHeld):
// a file whose writer died holding some lacks them, and OpenStore refuses
// it with what to do (TestUnfinishedRebuildRefused). The content sum leaves
// the mark out.
var unfinishedKey = []byte("unfinished")

// errUnfinished is OpenStore's error for a file with unfinishedKey.
var errUnfinished = errors.New("an unfinished rebuild")

// writeHeld writes what st holds, and takes the file's mark off, in a
// transaction of its own.
func (st *Store) writeHeld() error {
	if st.held == nil {
		return nil
	}
	st.held.mu.Lock()
	n, marked := len(st.held.m), !st.held.unmarked
	st.held.mu.Unlock()
	if n == 0 && !marked {
		return nil
	}
	var done func()
	err := st.db.Update(func(tx *bolt.Tx) error {
		sum, ok := storedSum(tx)
		if !ok {
			sum = contentSum(tx, func(int) {})
		}
		sum, d, err := st.held.write(tx, sum)
		if err != nil {
			return err
		}
		done = d
		if err := tx.Bucket(bucketMeta).Delete(unfinishedKey); err != nil {
			return err
		}
		return putSum(tx, sum)
	})
	if err == nil {
		done()
		st.held.mu.Lock()
		st.held.unmarked = true
		st.held.mu.Unlock()
	}
	return err
}
