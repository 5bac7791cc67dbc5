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
		if err := st.Apply(projection.Input{Record: records[i]}, i+1); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	return st, nil
}

// Progress is told how far a long replay has got.
type Progress func(done, total uint64)

// chunk is how many records a replay reads and commits at a time
// (TestRebuildCommitsInChunks). A rebuild's heap, and the fresh memory
// it faults in, grow with what a commit gathers: a million records
// rebuilt with 2048 a commit took 7 to 15% less CPU and a third fewer
// page faults than with 4096, for 12% more bytes written (docs/bench.md,
// "Rebuild, issue 28").
const chunk = 2048

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
	store, err := projection.OpenStore(path, projection.StoreOptions{NoSync: true, HoldToolSets: true})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if cp, err := store.Checkpoint(); err != nil || cp != 0 {
		return nil, fmt.Errorf("replay: %s is not a fresh projection (checkpoint %d); give a new file", path, cp)
	}
	st := projection.New(dialects)
	// Three things at once: the next chunk is read and decoded, this one
	// folded, and the one before written to the file. A rebuild that fails
	// is done again from scratch.
	ctx, cancel := context.WithCancel(ctx)
	batches, done := readAhead(ctx, src, to)
	defer func() { cancel(); <-done }()
	for b := range batches {
		if b.err != nil {
			return nil, b.err
		}
		for i, d := range b.recs {
			if err := st.Apply(d, b.from+uint64(i)); err != nil {
				return nil, err
			}
		}
		if err := store.CommitAsync(st); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(st.Position(), b.to)
		}
	}
	if err := store.Commit(st); err != nil {
		return nil, err
	}
	return st, store.Sync()
}

// batch is a chunk of records read ahead of the fold, then decoded: the
// records from sequence from, of the to the read goes up to; or the error
// that ended the read.
type batch struct {
	from, to uint64
	raw      [][]byte
	recs     []projection.Input
	err      error
}

// follower is a Source that delivers records as it reads them (the
// JetStream log does, with one ordered consumer).
type follower interface {
	Follow(ctx context.Context, from uint64, fn func(seq uint64, data []byte, pending uint64) error, until uint64) error
}

// readAhead reads the source from sequence 1 to to (0: the head) a chunk
// ahead of the caller, in one goroutine, and decodes it in another; it
// closes done when both have returned. Cancel ctx to stop them early.
func readAhead(ctx context.Context, src Source, to uint64) (<-chan batch, <-chan struct{}) {
	raws, out, done := make(chan batch, 1), make(chan batch, 1), make(chan struct{})
	send := func(c chan<- batch, b batch) bool {
		select {
		case c <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(raws)
		if err := readRaw(ctx, src, to, func(b batch) bool { return send(raws, b) }); err != nil && ctx.Err() == nil {
			send(raws, batch{err: err})
		}
	}()
	go func() {
		defer close(done)
		defer func() { <-read }()
		defer close(out)
		for b := range raws {
			b.recs = make([]projection.Input, 0, len(b.raw))
			for i, data := range b.raw {
				rec, err := events.DecodeRecord(data)
				if err != nil {
					b.err = fmt.Errorf("replay: record %d: %w", b.from+uint64(i), err)
					break
				}
				b.recs = append(b.recs, projection.Decode(rec, data))
			}
			if !send(out, b) || b.err != nil {
				return
			}
		}
	}()
	return out, done
}

// readRaw reads the source from sequence 1 to to (0: the head) and hands
// it on in chunks.
func readRaw(ctx context.Context, src Source, to uint64, send func(batch) bool) error {
	head, err := src.Head(ctx)
	if err != nil {
		return err
	}
	if to == 0 || to > head {
		to = head
	}
	if to == 0 {
		return nil
	}
	cur := batch{from: 1, to: to}
	add := func(seq uint64, data []byte) error {
		if seq != cur.from+uint64(len(cur.raw)) {
			return fmt.Errorf("replay: record %d follows %d: the log has a gap", seq, cur.from+uint64(len(cur.raw))-1)
		}
		cur.raw = append(cur.raw, data)
		if len(cur.raw) == chunk || seq == to {
			if !send(cur) {
				return ctx.Err()
			}
			cur = batch{from: seq + 1, to: to}
		}
		return nil
	}
	if f, ok := src.(follower); ok {
		err = f.Follow(ctx, 1, func(seq uint64, data []byte, _ uint64) error { return add(seq, data) }, to)
	} else {
		for from := uint64(1); from <= to && err == nil; from += chunk {
			var raw [][]byte
			if raw, err = src.Read(ctx, from, min(from+chunk-1, to)); err == nil && len(raw) == 0 {
				err = fmt.Errorf("replay: the log has no record %d although its head is %d", from, to)
			}
			for i := 0; i < len(raw) && err == nil; i++ {
				err = add(from+uint64(i), raw[i])
			}
		}
	}
	if err == nil && cur.from <= to {
		err = fmt.Errorf("replay: the log ended at %d, before %d", cur.from-1, to)
	}
	return err
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
