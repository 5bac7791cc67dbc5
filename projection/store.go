package projection

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Bucket names. They reach disk: never rename one.
var (
	bucketMeta     = []byte("meta")
	bucketPolicy   = []byte("policy")
	bucketSessions = []byte("sessions")
	bucketIDs      = []byte("ids")
	bucketYields   = []byte("yields")
	bucketChecks   = []byte("checks")
	bucketTurns    = []byte("turns")
	bucketToolSets = []byte("toolsets")
	bucketLog      = []byte("log")
	bucketChains   = []byte("chains")
	allBuckets     = [][]byte{bucketMeta, bucketPolicy, bucketSessions, bucketIDs, bucketYields,
		bucketChecks, bucketTurns, bucketToolSets, bucketLog, bucketChains}
)

// SchemaVersion is the layout version of the store; a store of another
// version is refused with a message that says to rebuild it.
const SchemaVersion = "2"

// ErrSchema is returned for a store written by another layout version.
var ErrSchema = errors.New("projection: the store was written by another layout version; rebuild it with 'ledger replay'")

// Store keeps a State in a bbolt file: every part of the state in its
// bucket, and the checkpoint (the last sequence applied) in the same
// transaction as the rows, so a restart resumes exactly where the last
// commit ended.
type Store struct {
	db   *bolt.DB
	path string
}

// StoreOptions configures a Store; the zero value means the defaults.
type StoreOptions struct {
	// NoSync skips fsync on commit. Only for rebuilding into a fresh file
	// that is synced and renamed afterwards.
	NoSync bool
}

// OpenStore opens (creating if needed) the bbolt file at path.
func OpenStore(path string, opts StoreOptions) (st *Store, err error) {
	// bbolt panics on some damaged files; a damaged projection is an error
	// with a way back, never a crash.
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, damaged(path, fmt.Errorf("%v", p))
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second, FreelistType: bolt.FreelistMapType, NoSync: opts.NoSync})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("projection: opening %s: %w (is another ledger using it?)", path, err)
	}
	if err != nil {
		return nil, damaged(path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		switch v := meta.Get([]byte("schema")); {
		case v == nil:
			return meta.Put([]byte("schema"), []byte(SchemaVersion))
		case string(v) != SchemaVersion:
			return ErrSchema
		}
		return nil
	})
	if errors.Is(err, ErrSchema) {
		db.Close()
		return nil, fmt.Errorf("projection: %s: %w", path, err)
	}
	if err != nil {
		db.Close()
		return nil, damaged(path, err)
	}
	return &Store{db: db, path: path}, nil
}

// damaged is the error for a projection file that cannot be read.
func damaged(path string, err error) error {
	return fmt.Errorf("projection: %s is damaged (%v): the log is the truth, so rebuild the projection with 'ledger replay --out NEW' and move NEW over %s (or delete %s and restart: it is rebuilt from the log)", path, err, path, path)
}

// Close closes the file.
func (st *Store) Close() error { return st.db.Close() }

// Path is the file's path.
func (st *Store) Path() string { return st.path }

// Sync flushes the file to disk (after a NoSync rebuild).
func (st *Store) Sync() error { return st.db.Sync() }

func u64(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

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

// putJSON stores v as JSON. encoding/json is deterministic for the values
// stored here (struct fields in order, map keys sorted), which is all the
// canonical dump needs; full RFC 8785 re-encoding would cost more than the
// rest of a commit.
func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// Commit writes everything s changed since the last commit, and the
// checkpoint, in one transaction. Records at or below the stored checkpoint
// are never written twice: a state behind the store is an error.
func (st *Store) Commit(s *State) error {
	if s.dirty.from > s.seq {
		return nil
	}
	err := st.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		var cp uint64
		if v := meta.Get([]byte("checkpoint")); len(v) == 8 {
			cp = binary.BigEndian.Uint64(v)
		}
		if cp != s.dirty.from-1 {
			return fmt.Errorf("projection: store checkpoint is %d but the state's uncommitted records start at %d", cp, s.dirty.from)
		}
		pb := tx.Bucket(bucketPolicy)
		for _, pa := range s.policies {
			if pa.Seq >= s.dirty.from {
				if err := putJSON(pb, u64(pa.Seq), pa.Policy); err != nil {
					return err
				}
			}
		}
		sb := tx.Bucket(bucketSessions)
		for k := range s.dirty.sessions {
			if sess := s.sessions[k]; sess != nil {
				if err := putJSON(sb, []byte(k), sess); err != nil {
					return err
				}
			}
		}
		chb := tx.Bucket(bucketChains)
		for subj := range s.dirty.chains {
			if err := chb.Put([]byte(subj), []byte(s.chains[subj])); err != nil {
				return err
			}
		}
		yb := tx.Bucket(bucketYields)
		for k := range s.dirty.yields {
			if err := putJSON(yb, []byte(k), s.yields[k]); err != nil {
				return err
			}
		}
		tb := tx.Bucket(bucketToolSets)
		for h := range s.dirty.toolsets {
			if err := putJSON(tb, []byte(h), s.toolsets[h]); err != nil {
				return err
			}
		}
		lb, ib, cb := tx.Bucket(bucketLog), tx.Bucket(bucketIDs), tx.Bucket(bucketChecks)
		for seq := s.dirty.from; seq <= s.seq; seq++ {
			ref := s.refs[seq-1]
			if err := putJSON(lb, u64(seq), logEntry{ID: ref.ID, Type: ref.Type, Time: s.times[seq-1]}); err != nil {
				return err
			}
			if l, ok := s.ids[ref.ID]; ok && l.Seq == seq {
				if err := putJSON(ib, []byte(ref.ID), l); err != nil {
					return err
				}
			}
			if c := s.checks[seq]; c != nil {
				if err := putJSON(cb, u64(seq), c); err != nil {
					return err
				}
			}
		}
		turnB := tx.Bucket(bucketTurns)
		for k := range s.dirty.sessions {
			for i, t := range s.turns[k] {
				if t.Seq < s.dirty.from {
					continue
				}
				if err := putJSON(turnB, turnKey(k, i+1), t); err != nil {
					return err
				}
			}
		}
		if err := putJSON(meta, []byte("state"), metaState{Position: s.seq, Time: s.lastTime}); err != nil {
			return err
		}
		return meta.Put([]byte("checkpoint"), u64(s.seq))
	})
	if err != nil {
		return err
	}
	s.dirty = newDirty()
	s.dirty.from = s.seq + 1
	return nil
}

type logEntry struct {
	ID   string      `json:"id"`
	Type events.Type `json:"type"`
	Time string      `json:"time"`
}

type metaState struct {
	Position uint64 `json:"position"`
	Time     string `json:"time"`
}

func turnKey(k events.SessionKey, turn int) []byte {
	b := append([]byte(k), 0)
	return binary.BigEndian.AppendUint32(b, uint32(turn))
}

// Load reads the whole state back from the store.
func (st *Store) Load(dialects Dialects) (s *State, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, damaged(st.path, fmt.Errorf("%v", p))
		}
	}()
	s = New(dialects)
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
				if c, err = dl.Compile(p.Document, p.Catalogue); err != nil {
					return fmt.Errorf("stored policy %d no longer compiles: %w", p.Revision.Seq, err)
				}
				compiled[p.Revision.Seq] = c
			}
			p.Compiled = c
			s.dialect, s.policy = dl, &p
			if err := s.refreshEffective(); err != nil {
				return err
			}
			s.policies = append(s.policies, PolicyAt{Seq: binary.BigEndian.Uint64(k), Policy: &p})
			s.policyVersion++
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
			var sess envelope.Session
			if err := json.Unmarshal(v, &sess); err != nil {
				return fmt.Errorf("session %s: %w", k, err)
			}
			s.sessions[events.SessionKey(k)] = &sess
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketIDs).ForEach(func(k, v []byte) error {
			var l landed
			if err := json.Unmarshal(v, &l); err != nil {
				return err
			}
			s.ids[string(k)] = l
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketChains).ForEach(func(k, v []byte) error {
			s.chains[string(k)] = string(v)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketYields).ForEach(func(k, v []byte) error {
			var y yield
			if err := json.Unmarshal(v, &y); err != nil {
				return err
			}
			s.yields[events.SessionKey(k)] = &y
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketChecks).ForEach(func(k, v []byte) error {
			var c check
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			s.checks[binary.BigEndian.Uint64(k)] = &c
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketToolSets).ForEach(func(k, v []byte) error {
			var ts envelope.ToolSet
			if err := json.Unmarshal(v, &ts); err != nil {
				return err
			}
			s.toolsets[string(k)] = ts
			return nil
		}); err != nil {
			return err
		}
		// Turn keys sort by session then turn number, so appending in
		// cursor order rebuilds each session's list in turn order.
		if err := tx.Bucket(bucketTurns).ForEach(func(k, v []byte) error {
			i := len(k) - 5 // key, NUL, big-endian turn number
			if i < 0 || k[i] != 0 {
				return fmt.Errorf("bad turn key %x", k)
			}
			var t Turn
			if err := json.Unmarshal(v, &t); err != nil {
				return err
			}
			key := events.SessionKey(k[:i])
			s.turns[key] = append(s.turns[key], t)
			return nil
		}); err != nil {
			return err
		}
		return tx.Bucket(bucketLog).ForEach(func(k, v []byte) error {
			var e logEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			seq := binary.BigEndian.Uint64(k)
			if seq != uint64(len(s.refs))+1 {
				return fmt.Errorf("log index has a gap at %d", seq)
			}
			s.refs = append(s.refs, envelope.RecordRef{Seq: seq, ID: e.ID, Type: e.Type})
			s.times = append(s.times, e.Time)
			return nil
		})
	})
	if err != nil {
		return nil, damaged(st.path, err)
	}
	if uint64(len(s.refs)) != s.seq {
		return nil, fmt.Errorf("projection: %s: log index holds %d records but the checkpoint is %d; rebuild with 'ledger replay'", st.path, len(s.refs), s.seq)
	}
	s.dirty.from = s.seq + 1
	return s, nil
}

// Dump writes the store's canonical dump: every bucket in name order, every
// key in key order, one JSON line each. Two stores hold the same state
// exactly when their dumps are byte-identical.
func (st *Store) Dump(w io.Writer) error {
	return st.db.View(func(tx *bolt.Tx) error {
		names := make([]string, 0, len(allBuckets))
		for _, b := range allBuckets {
			names = append(names, string(b))
		}
		sortStrings(names)
		for _, name := range names {
			err := tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
				line, err := json.Marshal(map[string]any{"bucket": name, "key": fmt.Sprintf("%x", k), "value": json.RawMessage(dumpValue(v))})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(w, "%s\n", line)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func dumpValue(v []byte) []byte {
	if json.Valid(v) {
		return v
	}
	q, _ := json.Marshal(fmt.Sprintf("%x", v))
	return q
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// DumpHash is the content hash of the store's canonical dump.
func (st *Store) DumpHash() (string, error) {
	var buf bytes.Buffer
	if err := st.Dump(&buf); err != nil {
		return "", err
	}
	return events.HashBytes(buf.Bytes()), nil
}

// Remove deletes a store file that is not open.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
