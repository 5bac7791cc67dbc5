// Package replay rebuilds ledger state from the log: a fold of the whole log
// or of its first records (time travel), a rebuild of the bbolt projection
// into a fresh file, and verify, which rebuilds, compares state hashes and
// recomputes every decision the log recorded to report drift.
//
// Replaying the same records always gives the same state: the fold reads
// only records and their sequence numbers.
package replay

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Source is a log to replay: records in sequence order, the first at 1.
type Source interface {
	Read(ctx context.Context, from, to uint64) ([][]byte, error)
	Head(ctx context.Context) (uint64, error)
}

// Fold folds records, the i-th at sequence i+1, into a fresh state, stopping
// after sequence to (0 means every record).
func Fold(dialects projection.Dialects, records []*events.Record, to uint64) (*projection.State, error) {
	if to == 0 || to > uint64(len(records)) {
		to = uint64(len(records))
	}
	st := projection.New(dialects)
	for i := uint64(0); i < to; i++ {
		if err := st.Apply(records[i], i+1); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	return st, nil
}

// Progress is told how far a long replay has got.
type Progress func(done, total uint64)

// chunk is how many records a replay reads and commits at a time.
const chunk = 4096

// each reads the source from sequence 1 to to (0: the head) in chunks and
// calls fn for every decoded record.
func each(ctx context.Context, src Source, to uint64, progress Progress, fn func(seq uint64, rec *events.Record) error) (uint64, error) {
	return eachRaw(ctx, src, to, progress, func(seq uint64, b []byte) error {
		rec, err := events.DecodeRecord(b)
		if err != nil {
			return fmt.Errorf("replay: record %d: %w", seq, err)
		}
		return fn(seq, rec)
	})
}

// eachRaw is each with the stored bytes of every record.
func eachRaw(ctx context.Context, src Source, to uint64, progress Progress, fn func(seq uint64, b []byte) error) (uint64, error) {
	head, err := src.Head(ctx)
	if err != nil {
		return 0, err
	}
	if to == 0 || to > head {
		to = head
	}
	for from := uint64(1); from <= to; from += chunk {
		end := min(from+chunk-1, to)
		raw, err := src.Read(ctx, from, end)
		if err != nil {
			return 0, err
		}
		if uint64(len(raw)) != end-from+1 {
			return 0, fmt.Errorf("replay: read %d records from %d, want %d: the log has a gap", len(raw), from, end-from+1)
		}
		for i, b := range raw {
			if err := fn(from+uint64(i), b); err != nil {
				return 0, err
			}
		}
		if progress != nil {
			progress(end, to)
		}
	}
	return to, nil
}

// Rebuild folds the log up to sequence to (0: the head) into a fresh store
// at path, committing in chunks, and returns the state. The file must not
// exist.
func Rebuild(ctx context.Context, src Source, dialects projection.Dialects, path string, to uint64, progress Progress) (*projection.State, error) {
	store, err := projection.OpenStore(path, projection.StoreOptions{NoSync: true})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if cp, err := store.Checkpoint(); err != nil || cp != 0 {
		return nil, fmt.Errorf("replay: %s is not a fresh projection (checkpoint %d); give a new file", path, cp)
	}
	st := projection.New(dialects)
	n := 0
	_, err = eachRaw(ctx, src, to, progress, func(seq uint64, b []byte) error {
		if err := st.ApplyBytes(b, seq); err != nil {
			return err
		}
		if n++; n%chunk == 0 {
			// The file is written while the next chunk is folded; a
			// rebuild that fails is done again from scratch.
			return store.CommitAsync(st)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := store.Commit(st); err != nil {
		return nil, err
	}
	return st, store.Sync()
}

// RebuildHash rebuilds the log up to sequence to into a fresh store under
// dir and returns the hash of its canonical dump, to compare with a live
// projection's Store.DumpHash.
func RebuildHash(ctx context.Context, src Source, dialects projection.Dialects, dir string, to uint64) (string, error) {
	path := filepath.Join(dir, "rebuilt.db")
	if _, err := Rebuild(ctx, src, dialects, path, to, nil); err != nil {
		return "", err
	}
	store, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		return "", err
	}
	defer store.Close()
	return store.DumpHash()
}
