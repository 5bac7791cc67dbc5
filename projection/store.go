package projection

// This file is the store's lifecycle: opening a file (and refusing one
// of another layout or one that is damaged), its options, and closing it.
// What else a Store does is in commit.go (the write path), reads.go (the
// reads of a state's history, and Load), codec.go (how values are
// encoded), check.go (the content check) and dump.go (the canonical dump).

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/envelope"
)

// Store keeps a State in a bbolt file: every part of the state in its
// bucket, and the checkpoint (the last sequence applied) in the same
// transaction as the rows, so a restart resumes exactly where the last
// commit ended. A state loaded from a store, or committed to one, reads its
// history from it.
//
// A Store commits one state at a time, from the goroutine that owns the
// state (Commit, CommitAsync, Settle). Its reads (Load, the states' reads
// of their history, Checkpoint, Dump, DumpHash, Check) are bbolt read
// transactions, safe from any goroutine and concurrently with a commit.
// Close must not race with any other call.
type Store struct {
	db     *bolt.DB
	path   string
	closed atomic.Bool
	// dropGrowth is how many bytes the file grows by between two drops
	// of the pages commits read (0: a drop after every commit; see
	// trimPages and rebuildDropGrowth); droppedAt is the file's size at
	// the last drop. Only write, which commits make one at a time, uses
	// droppedAt.
	dropGrowth int64
	droppedAt  int64
	// budget is the largest file, in bytes, whose pages this process
	// keeps mapped (negative: none; see ResidentBudget).
	budget int64
	// filled is where the file was mapped when Load last faulted all of
	// it in (see fillPages); 0 before.
	filled atomic.Uintptr
	envs   envelopes
	// bases are the tool set bases read so far, decoded (see toolSet).
	bases struct {
		sync.Mutex
		m map[string]envelope.ToolSet
	}
	// lastID is at least the greatest key of the ids bucket (which bbolt
	// keeps in byte order): an id above it is not in the file, and landed
	// answers so without a read transaction. Fresh ULIDs, whose time
	// leads, are above it (TestLandedAboveLastID).
	lastID lastID
	// held are the tool sets a rebuild's commits hold back (nil unless
	// StoreOptions.HoldToolSets; see heldSets).
	held *heldSets
}

// lastID is the bound of Store.lastID, safe for concurrent use.
type lastID struct {
	mu sync.Mutex
	id string
}

func (l *lastID) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// raise sets the bound to id when id is above it.
func (l *lastID) raise(id []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if string(id) > l.id {
		l.id = string(id)
	}
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
	// HoldToolSets keeps the tool sets commits add in memory and writes
	// them, in key order, when the store is synced or closed (or once they
	// pass 64 MiB): for a rebuild, which would otherwise rewrite pages all
	// over the bucket at every commit (see heldSets). Until then the file
	// lacks them, and is marked so: OpenStore refuses a file whose writer
	// died holding some. Only for a fresh file that is used once Sync
	// returns.
	HoldToolSets bool
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

// DefaultResidentBudget is the ResidentBudget of a store opened with 0:
// large enough to keep a file of 10,000 sessions mapped, small enough that
// a replica catching up a million records stays within its 300 MB target.
// The measurements that chose it are in docs/bench.md ("Resident memory:
// the projection's constants").
const DefaultResidentBudget = 64 << 20

// OpenStore opens (creating if needed) the bbolt file at path.
func OpenStore(path string, opts StoreOptions) (st *Store, err error) {
	// bbolt panics on some damaged files, and reads past the end of a file
	// cut short through its mapping, a fault that would kill the process
	// (made a panic here: tests/faults TestCorruptProjection, "truncated to
	// half"); a damaged projection is an error with a way back, never a
	// crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
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
		created := meta.Get([]byte("schema")) == nil
		switch v := meta.Get([]byte("schema")); {
		case v == nil:
			if err := meta.Put([]byte("schema"), []byte(SchemaVersion)); err != nil {
				return err
			}
		case string(v) != SchemaVersion:
			return ErrSchema
		}
		switch fresh := meta.Get([]byte("checkpoint")) == nil; {
		case meta.Get(unfinishedKey) != nil && !(opts.HoldToolSets && fresh):
			return errUnfinished
		case opts.HoldToolSets && fresh:
			if err := meta.Put(unfinishedKey, []byte("1")); err != nil {
				return err
			}
		}
		if _, ok := storedSum(tx); !ok {
			// Every file of this layout was written with its sum (sums
			// came with layout 4): only a new one has none. A file that
			// lost it is damaged, never re-summed from what it now holds,
			// which would bless a changed byte (TestLostContentSumIsDamage).
			if !created {
				return errNoSum
			}
			return putSum(tx, contentSum(tx, func(int) {}))
		}
		return nil
	})
	if errors.Is(err, ErrSchema) {
		db.Close()
		return nil, fmt.Errorf("projection: %s: %w", path, err)
	}
	if errors.Is(err, errUnfinished) {
		db.Close()
		return nil, fmt.Errorf("projection: %s is a rebuild that did not finish (the process writing it stopped before it wrote the tool sets it held): delete it and run 'ledger replay --out FILE' again", path)
	}
	if err != nil {
		db.Close()
		return nil, damaged(path, err)
	}
	st = &Store{db: db, path: path, budget: int64(opts.ResidentBudget)}
	if opts.ResidentBudget == 0 {
		st.budget = DefaultResidentBudget
	}
	if opts.NoSync {
		st.dropGrowth = rebuildDropGrowth
	}
	if opts.HoldToolSets {
		st.held = &heldSets{m: map[string]heldSet{}}
	}
	_ = db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bucketIDs).Cursor().Last(); k != nil {
			st.lastID.raise(k)
		}
		return nil
	})
	return st, nil
}

// damaged is the error for a projection file that cannot be read.
func damaged(path string, err error) error {
	return &damagedFile{fmt.Sprintf("projection: %s is damaged (%v): the log is the truth, so rebuild the projection with 'ledger replay --out NEW' and move NEW over %s (or delete %s and restart: it is rebuilt from the log)", path, err, path, path)}
}

// damagedFile is what damaged makes: its message says how to get a good
// file back.
type damagedFile struct{ msg string }

func (e *damagedFile) Error() string { return e.msg }

// Close writes the tool sets the store holds (HoldToolSets) and closes the
// file. States loaded from the store, or committed to it,
// can still be read afterwards, not committed: each read opens the file
// read-only for itself. bbolt's lock of the file refuses that while the
// file is open for writing (by another Store of it, in this process or
// another), and the read answers an error that says so (see
// errStoreClosed) rather than read through that other Store.
func (st *Store) Close() error {
	err := st.writeHeld()
	st.closed.Store(true)
	return errors.Join(err, st.db.Close())
}

// closedReadTimeout is how long a read of a closed store waits for the
// lock of a file another Store has open for writing.
const closedReadTimeout = 100 * time.Millisecond

// errStoreClosed is the error of a read of a closed store whose file is
// open for writing.
type errStoreClosed struct{ path string }

func (e errStoreClosed) Error() string {
	return fmt.Sprintf("projection: the store this state reads its history from was closed, and %s is open for writing (by another Store of it, in this process or another): load the state again from the open one", e.path)
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
	db, err := bolt.Open(st.path, 0o600, &bolt.Options{ReadOnly: true, Timeout: closedReadTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return errStoreClosed{st.path}
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(fn)
}

// Path is the file's path.
func (st *Store) Path() string { return st.path }

// Sync writes the tool sets the store holds (HoldToolSets), then flushes
// the file to disk (after a NoSync rebuild).
func (st *Store) Sync() error {
	if err := st.writeHeld(); err != nil {
		return err
	}
	return st.db.Sync()
}

// rebuildMmapSize is how much of the address space a rebuild (a NoSync
// store) maps from the start. bbolt maps a growing file anew at every
// doubling, and every page then faults in again; a rebuild grows its file
// from nothing. Address space, not memory: only pages read are resident.
const rebuildMmapSize = 4 << 30

// Remove deletes a store file that is not open.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
