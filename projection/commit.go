package projection

// This file is the store's write path: a commit gathers what a state
// folded since the last one as puts and makes them, with the checkpoint
// and the content sum, in one transaction.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/events"
)

// Commit writes everything s folded since its last commit, and the
// checkpoint, in one transaction, and from then on s reads its history
// from the store and keeps in memory only what it folds next. Records at
// or below the stored checkpoint are never written twice: a state behind
// the store is an error, and so is a state of another store. When the
// write fails, s is as it was, and the commit can be tried again.
func (st *Store) Commit(s *State) error {
	w, err := st.prepare(s)
	if w == nil || err != nil {
		return err
	}
	if err := w.encode(&st.envs); err != nil {
		return err
	}
	if err := st.write(s.recent.base, w, true); err != nil {
		return err
	}
	s.committed(st)
	return nil
}

// CommitAsync is Commit that writes the file in the background while s
// folds on: the next CommitAsync, Commit or Dump of s waits for it (and
// answers its error). A failed write leaves s behind the records it
// folded: every later Prepare, Apply and Commit of s fails. It suits a
// rebuild, which starts again from scratch when anything fails.
func (st *Store) CommitAsync(s *State) error {
	w, err := st.prepare(s)
	if w == nil || err != nil {
		return err
	}
	base := s.recent.base
	s.flushing = s.recent
	s.committed(st)
	done := make(chan error, 1)
	s.done = done
	go func() {
		if err := w.encode(&st.envs); err != nil {
			done <- err
			return
		}
		done <- st.write(base, w, false)
	}()
	return nil
}

// Settle waits for s's unfinished CommitAsync, if any, and answers its
// error. A state whose commit failed refuses every later Prepare, Apply
// and Commit; load a fresh one from the store.
func (st *Store) Settle(s *State) error { return s.wait() }

// prepare waits for s's unfinished commit and lists what s folded since
// (nil when nothing).
func (st *Store) prepare(s *State) (*writes, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	if s.hist != nil && s.hist != history(st) {
		return nil, fmt.Errorf("projection: the state reads its history from %s; it cannot be committed to %s", s.hist.Path(), st.path)
	}
	if s.recent.base == s.seq {
		return nil, nil
	}
	return s.writes(), nil
}

// wait waits for an unfinished CommitAsync of s.
func (s *State) wait() error {
	if s.done != nil {
		if err := <-s.done; err != nil && s.err == nil {
			s.err = fmt.Errorf("projection: committing: %w", err)
		}
		s.done, s.flushing = nil, nil
	}
	return s.err
}

// write makes a commit's puts in one transaction, which checks that the
// store's checkpoint is base, then drops the pages the commit read when
// asked to (drop), or when the file has grown by dropGrowth since the
// last drop.
func (st *Store) write(base uint64, w *writes, drop bool) error {
	var size int64
	var done func()
	err := st.db.Update(func(tx *bolt.Tx) error {
		defer func() { size = tx.Size() }()
		var cp uint64
		if v := tx.Bucket(bucketMeta).Get([]byte("checkpoint")); len(v) == 8 {
			cp = binary.BigEndian.Uint64(v)
		}
		if cp != base {
			return fmt.Errorf("projection: store checkpoint is %d but the state's uncommitted records start at %d", cp, base+1)
		}
		var err error
		if done, err = w.into(tx, st.held); err != nil {
			return err
		}
		// Raised before the transaction is seen, so never below a key a
		// reader can find (a transaction that fails leaves it higher,
		// which costs only a read).
		if k, _ := tx.Bucket(bucketIDs).Cursor().Last(); k != nil {
			st.lastID.raise(k)
		}
		return nil
	})
	if err == nil && done != nil {
		done()
	}
	if err == nil && (drop || size-st.droppedAt >= st.dropGrowth) {
		st.droppedAt = size
		st.trimPages()
	}
	return err
}

// committed starts s's next overlay once what it folded is written (or
// being written).
func (s *State) committed(st *Store) {
	s.hist = st
	s.recent = newOverlayLike(s.seq, s.recent)
	s.evictSessions(s.changed)
	s.changed = make(map[events.SessionKey]bool, len(s.changed))
}

// rebuildDropGrowth is how many bytes the file of a rebuild (a NoSync
// store) grows by before it drops the pages its commits read from its
// resident set (when the file is over its resident budget). Commit after
// commit it reads the pages near the end of each bucket and the sessions
// and chains it updates, and faulting them in again after each drop costs
// more than keeping them: dropping them every few commits costs about a
// tenth of a rebuild's CPU, in bbolt's first read of each page. A fixed
// growth bounds the file's pages a rebuild keeps mapped to about that
// many bytes beyond what it reads again (TestRebuildDropsPagesByGrowth;
// measured in docs/bench.md, "Rebuild, issue 28"). A store that serves
// replicas, whose resident set counts, drops them at every commit.
var rebuildDropGrowth int64 = 256 << 20

// writes lists what s folded since its last commit, as puts. The values
// it leaves to encode are not changed by what s folds next (sessions, the
// only history a record changes in place, are copied), so they can be
// encoded while s folds on.
func (s *State) writes() *writes {
	r := s.recent
	n := len(r.refs)
	w := &writes{values: make([]any, 0, 2*n), puts: map[string][]kv{
		string(bucketLog): make([]kv, 0, n), string(bucketIDs): make([]kv, 0, n),
		string(bucketSessions): make([]kv, 0, 2*n+len(r.calls)+len(r.chains))}}
	// The keys and values made here come from one buffer, sized for the
	// log's and the ids' entries, the bulk of them (see free).
	w.buf = make([]byte, 0, max(n*128, 1<<10))
	// The policy states folded since the last commit are the last ones:
	// found from the end, so a commit does not walk every scope's history.
	first := len(s.policies)
	for first > 0 && s.policies[first-1].Seq > r.base {
		first--
	}
	for _, pa := range s.policies[first:] {
		w.json(bucketPolicy, w.u64(pa.Seq), pa.Policy)
	}
	for k, sl := range r.slots {
		w.put(bucketSlots, w.u64(sl.n), w.keep(appendSlotValue(w.free(), k, sl)))
	}
	for k := range s.changed {
		// A copy is enough: what a record changes of a session is its
		// fields, and it only appends to Children, beyond the copy's end.
		// (It is encoded in binary, see codec.go.)
		sess := *s.sessions[k]
		w.json(bucketSessions, w.sessionKey(s.slots[k].n, tagSession), &sess)
	}
	for k, tl := range r.turns {
		for i := range tl.list {
			w.json(bucketSessions, turnKey(s.slots[k].n, tl.stored+i+1), &tl.list[i])
		}
	}
	for k, y := range r.yields {
		w.json(bucketSessions, w.sessionKey(s.slots[k].n, tagYield), y)
	}
	for subj, h := range r.chains {
		b, k := s.appendChainKey(w.free(), subj)
		k = w.keep(k)
		w.put(b, k, w.keep(append(w.free(), h...)))
	}
	for c, seq := range r.calls {
		k := c.appendSuffix(appendSessionKey(w.free(), s.slots[c.key].n, tagCall))
		w.put(bucketSessions, w.keep(k), w.u64(seq))
	}
	// Tool sets never change: a stored one is this one.
	for h, ts := range r.toolsets {
		w.add(bucketToolSets, kv{k: []byte(h), i: w.value(storedToolSet{ts}), absent: true})
	}
	for i, ref := range r.refs {
		seq := r.base + 1 + uint64(i)
		// A check is stored in its record's log entry.
		c := r.checks[seq]
		size := len(ref.ID) + len(ref.Type) + len(r.times[i]) + 6
		if c != nil {
			size += checkSize(c)
		}
		w.put(bucketLog, w.u64(seq), w.keep(appendLogValue(w.room(size), ref, r.times[i], c)))
		// An id keeps the sequence it first landed at.
		if l, ok := r.ids[ref.ID]; ok && l.Seq == seq {
			id := w.keep(append(w.free(), ref.ID...))
			w.add(bucketIDs, kv{k: id, v: w.keep(appendLandedValue(w.free(), l)), i: -1, absent: true})
		}
	}
	w.json(bucketMeta, []byte("state"), metaState{Position: s.seq, Time: s.lastTime})
	w.put(bucketMeta, []byte("checkpoint"), w.u64(s.seq))
	return w
}

// writes gathers the puts of a commit by bucket, to make them in key
// order: bbolt inserts into a page in memory by shifting what follows the
// key, so puts in random order into the pages a commit fills (the newest
// sessions, records and ids) cost the square of their number. A key is
// put at most once.
type writes struct {
	puts map[string][]kv // by bucket
	// values are encoded as JSON, in parallel, before the puts are made.
	values []any
	// buf is where the small keys and values of a commit are made, one
	// after another (free, keep): a commit's few allocations instead of
	// one or two per record (replay.TestRebuildAllocs). What keep returns is
	// never written again, and bbolt holds it until the transaction ends.
	buf []byte
}

// free is the unused part of w's buffer, to append a key or a value to;
// keep(b) then takes what was appended as its own. A buffer nearly full
// is replaced by a new one (the old stays with the keys and values taken
// from it); a key or value that outgrows it is appended elsewhere.
func (w *writes) free() []byte {
	if cap(w.buf)-len(w.buf) < 128 {
		w.buf = make([]byte, 0, 16<<10)
	}
	return w.buf[len(w.buf):]
}

// room is free() with room for n bytes, when n is not more than a
// quarter of a buffer (a larger value is appended elsewhere).
func (w *writes) room(n int) []byte {
	if cap(w.buf)-len(w.buf) < n && n <= 4<<10 {
		w.buf = make([]byte, 0, 16<<10)
	}
	return w.free()
}

// keep takes b, appended to free(), as a key or value of its own.
func (w *writes) keep(b []byte) []byte {
	rest := w.buf[len(w.buf):cap(w.buf)]
	if len(b) > 0 && len(b) <= len(rest) && &rest[0] == &b[0] {
		w.buf = w.buf[:len(w.buf)+len(b)]
	}
	return b[:len(b):len(b)]
}

// u64 is u64(n), made in w's buffer.
func (w *writes) u64(n uint64) []byte { return w.keep(binary.BigEndian.AppendUint64(w.free(), n)) }

// sessionKey is sessionKey(n, tag, rest...), made in w's buffer.
func (w *writes) sessionKey(n uint64, tag byte, rest ...byte) []byte {
	return w.keep(appendSessionKey(w.free(), n, tag, rest...))
}

// kv is a put: a key and its value, or the index of a value in values;
// absent puts it only where the bucket does not hold the key yet.
type kv struct {
	k, v   []byte
	i      int
	absent bool
	sum    uint64 // entrySum of the put, once order has run
}

func (w *writes) put(bucket, k, v []byte) { w.add(bucket, kv{k: k, v: v, i: -1}) }

func (w *writes) add(bucket []byte, p kv) { w.puts[string(bucket)] = append(w.puts[string(bucket)], p) }

// json puts v as JSON. encoding/json is deterministic for the values
// stored here (struct fields in order, map keys sorted), which is all the
// canonical dump needs; full RFC 8785 re-encoding would cost more than the
// rest of a commit.
func (w *writes) json(bucket, k []byte, v any) { w.add(bucket, kv{k: k, i: w.value(v)}) }

func (w *writes) value(v any) int {
	w.values = append(w.values, v)
	return len(w.values) - 1
}

// fill is how full pages are split in the buckets whose new keys mostly
// come last (bbolt's default is half full).
var fill = map[string]float64{string(bucketLog): 1, string(bucketSlots): 1,
	string(bucketIDs): 0.9, string(bucketSessions): 0.9}

// order sorts each bucket's puts by key and sums each put's entry, the
// part of a commit that needs no transaction. It is done before the
// transaction, the big buckets side by side, so that a rebuild's commits
// (the stage its fold waits for) hold the file's one writer for less;
// TestCheckKeepsTheSum checks the sums against a full count.
func (w *writes) order() {
	var wg sync.WaitGroup
	for name, puts := range w.puts {
		if len(puts) >= orderApart {
			wg.Go(func() { orderBucket([]byte(name), puts) })
		} else {
			orderBucket([]byte(name), puts)
		}
	}
	wg.Wait()
}

// orderApart is how many puts a bucket needs to be ordered in a goroutine
// of its own.
const orderApart = 256

func orderBucket(bucket []byte, puts []kv) {
	byKey := func(a, b kv) int { return bytes.Compare(a.k, b.k) }
	if !slices.IsSortedFunc(puts, byKey) { // the log's are, and the checks'
		slices.SortFunc(puts, byKey)
	}
	var scratch [4]byte
	for j := range puts {
		puts[j].sum = entrySum(&scratch, bucket, puts[j].k, puts[j].v)
	}
}

// into makes w's puts in tx, and updates the content sum. With held (a
// rebuild's store: StoreOptions.HoldToolSets) new tool sets are held
// instead of put, and written with this commit only once the hold is full;
// then done, called once tx has committed, empties the hold (a commit that
// fails leaves them held).
func (w *writes) into(tx *bolt.Tx, held *heldSets) (done func(), err error) {
	sum, ok := storedSum(tx)
	if !ok {
		sum = contentSum(tx, func(int) {})
	}
	var scratch [4]byte
	for name, puts := range w.puts {
		b := tx.Bucket([]byte(name))
		if name == string(bucketToolSets) && held.holding() {
			held.hold(b, puts)
			if !held.full() {
				continue
			}
			if sum, done, err = held.write(tx, sum); err != nil {
				return nil, err
			}
			continue
		}
		if f, ok := fill[name]; ok {
			b.FillPercent = f
		}
		// Keys after the last stored one are not stored: ids mostly come
		// in order (a ULID starts with its time).
		c := b.Cursor()
		last, _ := c.Last()
		last = bytes.Clone(last)
		bucket := []byte(name)
		var prev []byte
		for _, p := range puts {
			// The content sum loses the value a put replaces; a key past
			// the last has none, unless this commit put it already. (One
			// cursor looks them up: each Get would make one and grow its
			// stack, a few allocations a key.)
			var old []byte
			if bytes.Compare(p.k, last) <= 0 || bytes.Equal(p.k, prev) {
				if k, v := c.Seek(p.k); bytes.Equal(k, p.k) {
					old = v
				}
			}
			prev = p.k
			if p.absent && old != nil {
				continue
			}
			if old != nil {
				sum -= entrySum(&scratch, bucket, p.k, old)
			}
			sum += p.sum // order's
			// bbolt keeps keys and values until the transaction ends:
			// each has bytes of its own.
			if err := b.Put(p.k, p.v); err != nil {
				return nil, err
			}
		}
	}
	return done, putSum(tx, sum)
}
