package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/sessionledger/ledger/replay"
)

// registerSource adds the flags of a command that reads a whole log rather
// than one session at a position (export, report): where the log is (the
// ledger, --scenario or --log, as for the query commands) and an optional
// --session naming the spawn tree to keep.
func registerSource(fs *flag.FlagSet, q *queryFlags, sessionUsage string) {
	q.ledgerFlags.register(fs)
	fs.StringVar(&q.scenario, "scenario", "", "instead of the ledger: run this scenario file's appends in memory and use the log they make")
	fs.StringVar(&q.log, "log", "", "instead of the ledger: use this log file (JSON lines of records, as 'ledger log --json' prints)")
	fs.StringVar(&q.session, "session", "", sessionUsage)
	q.optionalSession = true
}

// recordReader reads stored records by sequence (a service.Log).
type recordReader interface {
	Read(ctx context.Context, from, to uint64) ([][]byte, error)
}

// readChunk is how many records a whole-log command reads at a time: the
// progress bar moves once per chunk.
const readChunk = 1024

// eachRecord calls fn with every record of the log from sequence 1 to to,
// as stored, reading in chunks and telling progress (when not nil) how far
// it got.
func eachRecord(ctx context.Context, log recordReader, to uint64, progress replay.Progress, fn func(seq uint64, raw []byte) error) error {
	for from := uint64(1); from <= to; from += readChunk {
		end := min(from+readChunk-1, to)
		raws, err := log.Read(ctx, from, end)
		if err != nil {
			return err
		}
		if uint64(len(raws)) != end-from+1 {
			return fmt.Errorf("reading records %d to %d gave %d: the log has a gap", from, end, len(raws))
		}
		for i, raw := range raws {
			if err := fn(from+uint64(i), raw); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(end, to)
		}
	}
	return nil
}
