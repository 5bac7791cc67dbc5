package projection

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Bucket names. They reach disk: never rename one.
var (
	bucketMeta     = []byte("meta")
	bucketPolicy   = []byte("policy")
	bucketSessions = []byte("sessions") // keyed as layout.go says
	bucketSlots    = []byte("slots")
	bucketIDs      = []byte("ids")
	bucketChecks   = []byte("checks")
	bucketToolSets = []byte("toolsets")
	bucketLog      = []byte("log")
	bucketChains   = []byte("chains")
	allBuckets     = [][]byte{bucketMeta, bucketPolicy, bucketSessions, bucketSlots, bucketIDs,
		bucketChecks, bucketToolSets, bucketLog, bucketChains}
)

// SchemaVersion is the layout version of the store; a store of another
// version is refused with a message that says to rebuild it.
//
// Version 4 keeps everything about a session (turns, yield, chain heads,
// the latest check of each call) with it in "sessions", under the session
// key's slot (see layout.go), and writes ids and log entries in binary (see
// logValue and landedValue).
const SchemaVersion = "4"

// ErrSchema is returned for a store written by another layout version.
var ErrSchema = errors.New("projection: the store was written by another layout version; rebuild it with 'ledger replay --out NEW' and move NEW over it")

// Store keeps a State in a bbolt file: every part of the state in its
// bucket, and the checkpoint (the last sequence applied) in the same
// transaction as the rows, so a restart resumes exactly where the last
// commit ended. A state loaded from a store, or committed to one, reads its
// history from it.
type Store struct {
	db     *bolt.DB
	path   string
	closed atomic.Bool
	// async counts commits made by CommitAsync, to drop the pages they
	// read every dropEvery (see trimPages).
	async     int
	dropEvery int
	// budget is the largest file, in bytes, whose pages this process
	// keeps mapped (negative: none; see ResidentBudget).
	budget int64
	// filled is where the file was mapped when Load last faulted all of
	// it in (see fillPages); 0 before.
	filled atomic.Uintptr
	envs   envelopes
}

// StoreOptions configures a Store; the zero value means the defaults.
type StoreOptions struct {
	// NoSync skips fsync on commit, and the freelist is not written (it is
	// recomputed when the file is next opened). Only for rebuilding into a
	// fresh file that is synced and renamed afterwards.
	NoSync bool
	// MaxSize caps the file, in bytes (0: no cap): a commit that would grow
	// it past the cap fails as on a full disk, and the file stays as it was.
	MaxSize int
	// ResidentBudget is the largest file, in bytes, whose pages the
	// process keeps mapped (0: DefaultResidentBudget; negative: none).
	// bbolt reads the file through a mapping, and every page a commit or
	// a query reads stays in the process's resident set. A file within
	// the budget keeps them there, and Load faults in all of it, so that
	// no query faults; a larger file's pages are dropped after commits
	// (see trimPages), so that the resident set is what the process
	// holds, not the file, and a query faults in the pages it reads.
	ResidentBudget int
}

// DefaultResidentBudget is the ResidentBudget of a store opened with 0.
// It keeps a file of 10,000 sessions (47,000 records, about 50 MB)
// mapped, and costs a replica catching up a million records (a 745 MB
// file) nothing against its target of 300 MB: its resident set peaks at
// the end, at 220 to 229 MiB whether the pages stay until the file passes
// the budget or go at every commit. It peaks first where the file passes
// the budget, about 95 MB above it: 155 MiB with this one, 226 to 230
// with 128 MB, 285 with 192, 332 with 256. A file of 100,000 sessions
// (330 MB) is past any budget that target allows.
const DefaultResidentBudget = 64 << 20

// openStores holds this process's open stores by path. bbolt locks a file once
// per open, even within one process, so a state whose store was closed
// reads its history through another open store of the same file (see view).
var openStores sync.Map

// OpenStore opens (creating if needed) the bbolt file at path.
func OpenStore(path string, opts StoreOptions) (st *Store, err error) {
	// bbolt panics on some damaged files; a damaged projection is an error
	// with a way back, never a crash.
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, damaged(path, fmt.Errorf("%v", p))
		}
	}()
	bopts := &bolt.Options{Timeout: 5 * time.Second, FreelistType: bolt.FreelistMapType,
		NoSync: opts.NoSync, NoFreelistSync: opts.NoSync, NoGrowSync: opts.NoSync, MaxSize: opts.MaxSize}
	if opts.NoSync && strconv.IntSize == 64 {
		bopts.InitialMmapSize = rebuildMmapSize
	}
	db, err := bolt.Open(path, 0o600, bopts)
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("projection: opening %s: %w (is another ledger using it?)", path, err)
	}
	if err != nil {
		return nil, damaged(path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		// A state reads its history when asked, not all at Load: a file cut
		// short would fault when a read reaches past its end.
		if fi, err := os.Stat(path); err != nil {
			return err
		} else if fi.Size() < tx.Size() {
			return fmt.Errorf("the file is %d bytes but its pages reach %d: it was cut short", fi.Size(), tx.Size())
		}
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		switch v := meta.Get([]byte("schema")); {
		case v == nil:
			if err := meta.Put([]byte("schema"), []byte(SchemaVersion)); err != nil {
				return err
			}
		case string(v) != SchemaVersion:
			return ErrSchema
		}
		if _, ok := storedSum(tx); !ok {
			// A new file, or one written before content sums (check.go).
			return putSum(tx, contentSum(tx))
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
	st = &Store{db: db, path: path, dropEvery: 1, budget: int64(opts.ResidentBudget)}
	if opts.ResidentBudget == 0 {
		st.budget = DefaultResidentBudget
	}
	if opts.NoSync {
		st.dropEvery = rebuildDropEvery
	}
	openStores.Store(storeKey(path), st)
	return st, nil
}

func storeKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// damaged is the error for a projection file that cannot be read.
func damaged(path string, err error) error {
	return &damagedFile{fmt.Sprintf("projection: %s is damaged (%v): the log is the truth, so rebuild the projection with 'ledger replay --out NEW' and move NEW over %s (or delete %s and restart: it is rebuilt from the log)", path, err, path, path)}
}

// damagedFile is what damaged makes: its message says how to get a good
// file back.
type damagedFile struct{ msg string }

func (e *damagedFile) Error() string { return e.msg }

// Close closes the file. States loaded from the store, or committed to it,
// can still be read afterwards (through another open store of the same
// file, or by opening it read-only for the read), not committed.
func (st *Store) Close() error {
	st.closed.Store(true)
	openStores.CompareAndDelete(storeKey(st.path), st)
	return st.db.Close()
}

// view runs fn in a read transaction of the file. bbolt panics on some
// damaged pages; that is an error naming the file, never a crash.
func (st *Store) view(fn func(tx *bolt.Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = damaged(st.path, fmt.Errorf("%v", p))
		}
	}()
	if !st.closed.Load() {
		return st.db.View(fn)
	}
	if other, ok := openStores.Load(storeKey(st.path)); ok {
		return other.(*Store).db.View(fn)
	}
	db, err := bolt.Open(st.path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(fn)
}

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
	st.async++
	drop := st.async%st.dropEvery == 0
	go func() {
		if err := w.encode(&st.envs); err != nil {
			done <- err
			return
		}
		done <- st.write(base, w, drop)
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
// store's checkpoint is base.
func (st *Store) write(base uint64, w *writes, drop bool) error {
	err := st.db.Update(func(tx *bolt.Tx) error {
		var cp uint64
		if v := tx.Bucket(bucketMeta).Get([]byte("checkpoint")); len(v) == 8 {
			cp = binary.BigEndian.Uint64(v)
		}
		if cp != base {
			return fmt.Errorf("projection: store checkpoint is %d but the state's uncommitted records start at %d", cp, base+1)
		}
		return w.into(tx)
	})
	if err == nil && drop {
		st.trimPages()
	}
	return err
}

// committed starts s's next overlay once what it folded is written (or
// being written).
func (s *State) committed(st *Store) {
	s.hist = st
	s.recent = newOverlay(s.seq)
	s.evictSessions(s.changed)
	s.changed = map[events.SessionKey]bool{}
}

// rebuildMmapSize is how much of the address space a rebuild (a NoSync
// store) maps from the start. bbolt maps a growing file anew at every
// doubling, and every page then faults in again; a rebuild grows its file
// from nothing. Address space, not memory: only pages read are resident.
const rebuildMmapSize = 4 << 30

// rebuildDropEvery is how many of its commits a rebuild (a NoSync store)
// makes before it drops the pages they read from its resident set (when
// the file is over its resident budget): it reads the pages near the end
// of each bucket commit after commit, and faulting them in again each
// time costs more than keeping them a few commits longer. A store that
// serves replicas, whose resident set counts, drops them at every commit
// (with CommitAsync every 8, a replica catching up a million records
// peaked at 456 MB against 244 MB).
const rebuildDropEvery = 8

// writes lists what s folded since its last commit, as puts. The values
// it leaves to encode are not changed by what s folds next (sessions, the
// only history a record changes in place, are copied), so they can be
// encoded while s folds on.
func (s *State) writes() *writes {
	r := s.recent
	n := len(r.refs)
	w := &writes{values: make([]any, 0, 2*n), puts: map[string][]kv{
		string(bucketLog): make([]kv, 0, n), string(bucketIDs): make([]kv, 0, n),
		string(bucketSessions): make([]kv, 0, 2*n)}}
	for _, pa := range s.policies {
		if pa.Seq > r.base {
			w.json(bucketPolicy, u64(pa.Seq), pa.Policy)
		}
	}
	for k, sl := range r.slots {
		w.put(bucketSlots, u64(sl.n), slotValue(k, sl))
	}
	for k := range s.changed {
		// A copy is enough: what a record changes of a session is its
		// fields, and it only appends to Children, beyond the copy's end.
		// (It is encoded in binary, see codec.go.)
		sess := *s.sessions[k]
		w.json(bucketSessions, sessionKey(s.slots[k].n, tagSession), &sess)
	}
	for k, tl := range r.turns {
		for i := range tl.list {
			w.json(bucketSessions, turnKey(s.slots[k].n, tl.stored+i+1), &tl.list[i])
		}
	}
	for k, y := range r.yields {
		w.json(bucketSessions, sessionKey(s.slots[k].n, tagYield), y)
	}
	for subj, h := range r.chains {
		b, k := s.chainKey(subj)
		w.put(b, k, []byte(h))
	}
	for c, seq := range r.calls {
		w.put(bucketSessions, sessionKey(s.slots[c.key].n, tagCall, c.suffix()...), u64(seq))
	}
	// Tool sets never change: a stored one is this one.
	for h, ts := range r.toolsets {
		w.add(bucketToolSets, kv{k: []byte(h), i: w.value(ts), absent: true})
	}
	for i, ref := range r.refs {
		seq := r.base + 1 + uint64(i)
		w.put(bucketLog, u64(seq), logValue(ref, r.times[i]))
		// An id keeps the sequence it first landed at.
		if l, ok := r.ids[ref.ID]; ok && l.Seq == seq {
			w.add(bucketIDs, kv{k: []byte(ref.ID), v: landedValue(l), i: -1, absent: true})
		}
		if c := r.checks[seq]; c != nil {
			w.json(bucketChecks, u64(seq), c)
		}
	}
	w.json(bucketMeta, []byte("state"), metaState{Position: s.seq, Time: s.lastTime})
	w.put(bucketMeta, []byte("checkpoint"), u64(s.seq))
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
}

// kv is a put: a key and its value, or the index of a value in values;
// absent puts it only where the bucket does not hold the key yet.
type kv struct {
	k, v   []byte
	i      int
	absent bool
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
var fill = map[string]float64{string(bucketLog): 1, string(bucketChecks): 1, string(bucketSlots): 1,
	string(bucketIDs): 0.9, string(bucketSessions): 0.9}

func (w *writes) into(tx *bolt.Tx) error {
	sum, ok := storedSum(tx)
	if !ok {
		sum = contentSum(tx)
	}
	for name, puts := range w.puts {
		b := tx.Bucket([]byte(name))
		if f, ok := fill[name]; ok {
			b.FillPercent = f
		}
		byKey := func(a, b kv) int { return bytes.Compare(a.k, b.k) }
		if !slices.IsSortedFunc(puts, byKey) { // the log's are, and the checks'
			slices.SortFunc(puts, byKey)
		}
		// Keys after the last stored one are not stored: ids mostly come
		// in order (a ULID starts with its time).
		last, _ := b.Cursor().Last()
		last = bytes.Clone(last)
		bucket := []byte(name)
		var prev []byte
		for _, p := range puts {
			// The content sum loses the value a put replaces; a key past
			// the last has none, unless this commit put it already.
			var old []byte
			if bytes.Compare(p.k, last) <= 0 || bytes.Equal(p.k, prev) {
				old = b.Get(p.k)
			}
			prev = p.k
			if p.absent && old != nil {
				continue
			}
			if old != nil {
				sum -= entrySum(bucket, p.k, old)
			}
			sum += entrySum(bucket, p.k, p.v)
			// bbolt keeps keys and values until the transaction ends:
			// each has bytes of its own.
			if err := b.Put(p.k, p.v); err != nil {
				return err
			}
		}
	}
	return putSum(tx, sum)
}

// appendToolSet appends ts as encoding/json writes it (the bytes the
// store has always held), several times faster: a tool set is most of
// what a turn writes. The conversions below stop the build when a type it
// writes gains a field; TestToolSetJSON keeps the bytes the same.
func appendToolSet(b []byte, ts envelope.ToolSet) []byte {
	b = slices.Grow(b, 32+16*len(ts.Allowed)+160*len(ts.Denied))
	b = append(b, `{"allowed":`...)
	if ts.Allowed == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range ts.Allowed {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"denied":`...)
	if ts.Denied == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i, d := range ts.Denied {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"tool":`...)
		b = appendJSONString(b, d.Tool)
		b = append(b, `,"reason":{"code":`...)
		b = appendJSONString(b, d.Reason.Code)
		if d.Reason.Rule != "" {
			b = append(b, `,"rule":`...)
			b = appendJSONString(b, d.Reason.Rule)
		}
		if r := d.Reason.Record; r != nil {
			b = append(b, `,"record":{"seq":`...)
			b = strconv.AppendUint(b, r.Seq, 10)
			b = append(b, `,"id":`...)
			b = appendJSONString(b, r.ID)
			b = append(b, `,"type":`...)
			b = appendJSONString(b, string(r.Type))
			b = append(b, '}')
		}
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

var _ = []any{
	struct {
		Allowed []string
		Denied  []envelope.Denial
	}(envelope.ToolSet{}),
	struct {
		Tool   string
		Reason envelope.Reason
	}(envelope.Denial{}),
	struct {
		Code, Rule string
		Record     *envelope.RecordRef
	}(envelope.Reason{}),
	struct {
		Seq  uint64
		ID   string
		Type events.Type
	}(envelope.RecordRef{}),
}

// appendJSONString appends s quoted as encoding/json quotes it: printable
// ASCII as it is, but for the quote and the backslash, which get one
// before them, and the HTML characters; a string with those or anything
// else is left to encoding/json.
func appendJSONString(b []byte, s string) []byte {
	start := len(b)
	b = append(b, '"')
	plain := 0 // s[plain:i] is still to append
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(append(b, s[plain:i]...), '\\', c)
			plain = i + 1
		case c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&':
			q, _ := json.Marshal(s)
			return append(b[:start], q...)
		}
	}
	return append(append(b, s[plain:]...), '"')
}

// logValue is a log entry as stored: the record id and type, each after
// its length as a uvarint, then the time.
func logValue(ref envelope.RecordRef, time string) []byte {
	b := make([]byte, 0, len(ref.ID)+len(ref.Type)+len(time)+4)
	b = binary.AppendUvarint(b, uint64(len(ref.ID)))
	b = append(b, ref.ID...)
	b = binary.AppendUvarint(b, uint64(len(ref.Type)))
	b = append(b, ref.Type...)
	return append(b, time...)
}

func parseLogValue(v []byte) (logEntry, error) {
	var e logEntry
	var f [2]string
	for i := range f {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return e, fmt.Errorf("bad log entry %x", v)
		}
		f[i], v = string(v[k:k+int(n)]), v[k+int(n):]
	}
	return logEntry{ID: f[0], Type: internType(events.Type(f[1])), Time: string(v)}, nil
}

// landedValue is where an id landed as stored: the sequence, and a byte 1
// after it for the decision record of a refused effect.
func landedValue(l landed) []byte {
	b := u64(l.Seq)
	if l.RefusedEffect {
		b = append(b, 1)
	}
	return b
}

func parseLanded(v []byte) (landed, error) {
	if len(v) != 8 && len(v) != 9 {
		return landed{}, fmt.Errorf("bad id entry %x", v)
	}
	return landed{Seq: binary.BigEndian.Uint64(v), RefusedEffect: len(v) == 9 && v[8] == 1}, nil
}

type logEntry struct {
	ID   string
	Type events.Type
	Time string
}

type metaState struct {
	Position uint64 `json:"position"`
	Time     string `json:"time"`
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
	var c check
	if ok, err := st.getJSON(bucketChecks, u64(seq), &c); !ok {
		return nil, err
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

func (st *Store) toolSet(hash string) (envelope.ToolSet, error) {
	var ts envelope.ToolSet
	_, err := st.getJSON(bucketToolSets, []byte(hash), &ts)
	return ts, err
}

// session decodes a session straight from the file's pages: decoding
// copies its strings (into one allocation), so nothing is copied before.
func (st *Store) session(n uint64) (sess *envelope.Session, err error) {
	err = st.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketSessions).Get(sessionKey(n, tagSession))
		if raw == nil {
			return nil
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
	e, err := parseLogValue(v)
	return e, err == nil, err
}

// atTime returns how many of the records 1..n have a time at or before t;
// record times never decrease along the log.
func (st *Store) atTime(t string, n uint64) (found uint64, err error) {
	err = st.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLog)
		var ferr error
		i := sort.Search(int(n), func(i int) bool {
			e, err := parseLogValue(b.Get(u64(uint64(i) + 1)))
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
// entries in key order (which stay valid for the transaction).
func (st *Store) scan(fn func(each func(bucket []byte, fn func(k, v []byte) error) error) error) error {
	return st.view(func(tx *bolt.Tx) error {
		return fn(func(bucket []byte, f func(k, v []byte) error) error { return tx.Bucket(bucket).ForEach(f) })
	})
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
				if name == string(bucketMeta) && string(k) == string(sumsKey) {
					return nil // not state: how the file checks itself (check.go)
				}
				line, err := json.Marshal(map[string]any{"bucket": name, "key": fmt.Sprintf("%x", k), "value": json.RawMessage(dumpValue(name, k, v))})
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

// dumpValue renders a stored value as JSON: the binary ones decoded, the
// rest as stored (as hex when it is not JSON).
func dumpValue(bucket string, k, v []byte) []byte {
	var r any
	switch bucket {
	case string(bucketChains):
		r = string(v)
	case string(bucketIDs):
		if l, err := parseLanded(v); err == nil {
			r = map[string]any{"seq": l.Seq, "refused_effect": l.RefusedEffect}
		}
	case string(bucketLog):
		if e, err := parseLogValue(v); err == nil {
			r = map[string]any{"id": e.ID, "type": e.Type, "time": e.Time}
		}
	case string(bucketSessions):
		_, tag, _, _ := parseSessionKey(k)
		switch {
		case tag == tagSession:
			if sess, err := decodeSessionBinary(v); err == nil {
				r = sess
			}
		case tag == tagChain:
			r = string(v)
		case tag == tagCall && len(v) == 8:
			r = binary.BigEndian.Uint64(v)
		}
	}
	if r == nil && json.Valid(v) {
		return v
	}
	if r == nil {
		r = fmt.Sprintf("%x", v)
	}
	q, _ := json.Marshal(r)
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
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	if err := st.Dump(w); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Remove deletes a store file that is not open.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
