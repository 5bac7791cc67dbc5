package projection

// This file is the store's read path: Load, and the reads of a state's
// history one key at a time (the store's side of the history interface,
// see history.go).

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Checkpoint returns the last sequence committed.
func (st *Store) Checkpoint() (uint64, error) {
	var cp uint64
	err := st.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get([]byte("checkpoint")); len(v) == 8 {
			cp = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return cp, err
}

// Load reads the state back from the store: the policy history and the
// slots of session keys. It reads sessions and the rest of the history
// from the store when they are asked for.
func (st *Store) Load(dialects Dialects) (s *State, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, damaged(st.path, fmt.Errorf("%v", p))
		}
	}()
	s = New(dialects)
	var last uint64
	err = st.db.View(func(tx *bolt.Tx) error {
		var m metaState
		if v := tx.Bucket(bucketMeta).Get([]byte("state")); v != nil {
			if err := json.Unmarshal(v, &m); err != nil {
				return err
			}
		}
		s.seq, s.lastTime = m.Position, m.Time
		// Every policy state that was in force, in sequence order; the
		// last is the current one. Revisions share their compiled form.
		compiled := map[uint64]any{}
		if err := tx.Bucket(bucketPolicy).ForEach(func(k, v []byte) error {
			var p envelope.PolicyState
			if err := json.Unmarshal(v, &p); err != nil {
				return err
			}
			dl := dialects[p.Dialect]
			if dl == nil {
				return fmt.Errorf("dialect %q is not known to this build", p.Dialect)
			}
			c, ok := compiled[p.Revision.Seq]
			if !ok {
				var err error
				if c, err = compileRecorded(dl, p.Document, p.Catalogue, p.Release); err != nil {
					return fmt.Errorf("stored policy %d no longer compiles: %w", p.Revision.Seq, err)
				}
				compiled[p.Revision.Seq] = c
			}
			p.Compiled = c
			sc := s.makeScope(p.Scope, dl)
			sc.dialect, sc.policy = dl, &p
			if err := sc.refreshEffective(); err != nil {
				return err
			}
			at := PolicyAt{Seq: binary.BigEndian.Uint64(k), Policy: &p}
			sc.history = append(sc.history, at)
			s.policies = append(s.policies, at)
			sc.version++
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketSlots).ForEach(func(k, v []byte) error {
			if len(k) != 8 || len(v) == 0 {
				return fmt.Errorf("bad slot %x", k)
			}
			s.slots[events.SessionKey(v[1:])] = slot{n: binary.BigEndian.Uint64(k), session: v[0] == 1}
			return nil
		}); err != nil {
			return err
		}
		if k, _ := tx.Bucket(bucketLog).Cursor().Last(); len(k) == 8 {
			last = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	if err != nil {
		return nil, damaged(st.path, err)
	}
	if last != s.seq {
		return nil, fmt.Errorf("projection: %s: log index ends at %d but the checkpoint is %d; rebuild with 'ledger replay --out NEW'", st.path, last, s.seq)
	}
	s.hist, s.recent = st, newOverlay(s.seq)
	st.fillPages()
	return s, nil
}

// The reads of a state's history, one key at a time.

func (st *Store) get(bucket, key []byte) (v []byte, err error) {
	err = st.view(func(tx *bolt.Tx) error {
		v = bytes.Clone(tx.Bucket(bucket).Get(key))
		return nil
	})
	return v, err
}

func (st *Store) getJSON(bucket, key []byte, v any) (bool, error) {
	raw, err := st.get(bucket, key)
	if raw == nil || err != nil {
		return false, err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, damaged(st.path, fmt.Errorf("%s %q: %w", bucket, key, err))
	}
	return true, nil
}

func (st *Store) landed(id string) (landed, bool, error) {
	if !st.closed.Load() && id > st.lastID.get() {
		return landed{}, false, nil
	}
	v, err := st.get(bucketIDs, []byte(id))
	if v == nil || err != nil {
		return landed{}, false, err
	}
	l, err := parseLanded(v)
	return l, err == nil, err
}

func (st *Store) chainHead(bucket, key []byte) (string, error) {
	v, err := st.get(bucket, key)
	return string(v), err
}

func (st *Store) check(seq uint64) (*check, error) {
	v, err := st.get(bucketLog, u64(seq))
	if v == nil || err != nil {
		return nil, err
	}
	_, raw, err := parseLogValue(v)
	if err != nil {
		return nil, damaged(st.path, fmt.Errorf("%s %d: %w", bucketLog, seq, err))
	}
	if len(raw) == 0 {
		return nil, nil // not a check's record
	}
	var c check
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, damaged(st.path, fmt.Errorf("the check of %s %d: %w", bucketLog, seq, err))
	}
	if string(c.Input) == "null" {
		// A check without input stores it as null, which decodes as the
		// bytes "null"; an input is never null (it is a string or an
		// object), and a refused effect's record carries the input as the
		// check had it.
		c.Input = nil
	}
	return &c, nil
}

func (st *Store) call(key []byte) (uint64, error) {
	v, err := st.get(bucketSessions, key)
	if len(v) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(v), nil
}

func (st *Store) yield(n uint64) (*yield, error) {
	var y yield
	if ok, err := st.getJSON(bucketSessions, sessionKey(n, tagYield), &y); !ok {
		return nil, err
	}
	return &y, nil
}

// toolSet reads a tool set: its entry, and its base, which the store
// decodes once and keeps (there are few; see toolSetFormat).
func (st *Store) toolSet(hash string) (envelope.ToolSet, error) {
	raw, ok := st.held.get(hash)
	if !ok {
		var err error
		if raw, err = st.get(bucketToolSets, []byte(hash)); err != nil {
			return envelope.ToolSet{}, err
		}
		// A turn names the set it resolved: one the file does not hold
		// is damage, never an empty set (TestMissingToolSetIsDamage).
		if raw == nil && hash != "" {
			return envelope.ToolSet{}, damaged(st.path, fmt.Errorf("%s %q is missing", bucketToolSets, hash))
		}
		if raw == nil {
			return envelope.ToolSet{}, nil
		}
	}
	key, refs, err := parseToolSetValue(raw)
	if err != nil {
		return envelope.ToolSet{}, damaged(st.path, fmt.Errorf("%s %q: %w", bucketToolSets, hash, err))
	}
	base, err := st.toolSetBase(key)
	if err != nil {
		return envelope.ToolSet{}, err
	}
	ts, err := joinToolSet(base, refs)
	if err != nil {
		return envelope.ToolSet{}, damaged(st.path, fmt.Errorf("%s %q: %w", bucketToolSets, hash, err))
	}
	return ts, nil
}

// maxToolSetBases bounds the bases a store keeps decoded.
const maxToolSetBases = 4096

func (st *Store) toolSetBase(key []byte) (envelope.ToolSet, error) {
	st.bases.Lock()
	ts, ok := st.bases.m[string(key)]
	st.bases.Unlock()
	if ok {
		return ts, nil
	}
	raw, err := st.get(bucketToolSetBases, key)
	if err != nil {
		return envelope.ToolSet{}, err
	}
	if raw == nil {
		return envelope.ToolSet{}, damaged(st.path, fmt.Errorf("%s %x is missing", bucketToolSetBases, key))
	}
	if err := json.Unmarshal(raw, &ts); err != nil {
		return envelope.ToolSet{}, damaged(st.path, fmt.Errorf("%s %x: %w", bucketToolSetBases, key, err))
	}
	st.bases.Lock()
	if st.bases.m == nil || len(st.bases.m) >= maxToolSetBases {
		st.bases.m = map[string]envelope.ToolSet{}
	}
	st.bases.m[string(key)] = ts
	st.bases.Unlock()
	return ts, nil
}

// session decodes a session straight from the file's pages: decoding
// copies its strings (into one allocation), so nothing is copied before.
func (st *Store) session(n uint64) (sess *envelope.Session, err error) {
	err = st.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketSessions).Get(sessionKey(n, tagSession))
		if raw == nil {
			// Asked for a slot that holds a session: its value gone is
			// damage, never an unknown session (TestMissingSessionIsDamage).
			return damaged(st.path, fmt.Errorf("session %d is missing", n))
		}
		if sess, err = decodeSessionBinary(raw); err != nil {
			return damaged(st.path, fmt.Errorf("session %d: %w", n, err))
		}
		return nil
	})
	return sess, err
}

func (st *Store) turn(n uint64, turn int) (Turn, bool, error) {
	raw, err := st.get(bucketSessions, turnKey(n, turn))
	if raw == nil || err != nil {
		return Turn{}, false, err
	}
	t, err := decodeTurn(raw)
	if err != nil {
		return Turn{}, false, damaged(st.path, fmt.Errorf("turn %d of session %d: %w", turn, n, err))
	}
	return t, true, nil
}

// turnCount is the number of a session's turns: its turns are numbered
// from 1 without a gap, so it is the number of the last.
func (st *Store) turnCount(sl uint64) (n int, err error) {
	err = st.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSessions).Cursor()
		prefix := sessionKey(sl, tagTurn)
		k, _ := c.Seek(turnKey(sl, math.MaxUint32))
		if k == nil {
			k, _ = c.Last()
		} else if !bytes.Equal(k, turnKey(sl, math.MaxUint32)) {
			k, _ = c.Prev()
		}
		if len(k) == len(prefix)+4 && bytes.HasPrefix(k, prefix) {
			n = int(binary.BigEndian.Uint32(k[len(prefix):]))
		}
		return nil
	})
	return n, err
}

func (st *Store) logEntry(seq uint64) (logEntry, bool, error) {
	v, err := st.get(bucketLog, u64(seq))
	if v == nil || err != nil {
		return logEntry{}, false, err
	}
	e, _, err := parseLogValue(v)
	return e, err == nil, err
}

// atTime returns how many of the records 1..n have a time at or before t;
// record times never decrease along the log.
func (st *Store) atTime(t string, n uint64) (found uint64, err error) {
	err = st.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLog)
		var ferr error
		i := sort.Search(int(n), func(i int) bool {
			e, _, err := parseLogValue(b.Get(u64(uint64(i) + 1)))
			if err != nil {
				ferr = err
				return true
			}
			return e.Time > t
		})
		found = uint64(i)
		return ferr
	})
	return found, err
}

// scan runs fn in one read transaction, with a reader of a bucket's
// entries in key order (which stay valid for the transaction). The tool
// sets a rebuild's store holds are read among the bucket's, as Store.toolSet
// reads them, so a state's dump is the same before the store writes them
// (TestHeldToolSets).
func (st *Store) scan(fn func(each func(bucket []byte, fn func(k, v []byte) error) error) error) error {
	return st.view(func(tx *bolt.Tx) error {
		return fn(func(bucket []byte, f func(k, v []byte) error) error {
			b := tx.Bucket(bucket)
			if string(bucket) == string(bucketToolSets) {
				if keys, vals := st.held.sorted(); len(keys) > 0 {
					return eachMerged(b.Cursor(), keys, vals, f)
				}
			}
			return b.ForEach(f)
		})
	})
}

// eachMerged calls f with c's entries and the entries keys and vals (in
// key order, none of them c's) in key order.
func eachMerged(c *bolt.Cursor, keys []string, vals [][]byte, f func(k, v []byte) error) error {
	k, v := c.First()
	i := 0
	for k != nil || i < len(keys) {
		if k == nil || i < len(keys) && keys[i] < string(k) {
			if err := f([]byte(keys[i]), vals[i]); err != nil {
				return err
			}
			i++
			continue
		}
		if err := f(k, v); err != nil {
			return err
		}
		k, v = c.Next()
	}
	return nil
}
