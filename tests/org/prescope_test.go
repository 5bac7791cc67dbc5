package org

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// memLog is a stored log in memory, its i-th record at sequence i+1.
type memLog [][]byte

func (l memLog) Head(context.Context) (uint64, error) { return uint64(len(l)), nil }

func (l memLog) Read(_ context.Context, from, to uint64) ([][]byte, error) {
	if to > uint64(len(l)) {
		to = uint64(len(l))
	}
	if from < 1 || from > to {
		return nil, nil
	}
	return l[from-1 : to], nil
}

// TestPreScopeLogReplays: the logs written before scopes
// (replay/testdata/golden/records, last written before issue 23) fold,
// as they are stored, into the projection dumps they folded into then
// (replay/testdata/golden/dumps), and verify without drift. Replay's
// TestGoldenRecordsAndDumps checks that the current code still writes
// those records for the same scenarios; this checks the stored bytes.
func TestPreScopeLogReplays(t *testing.T) {
	golden := filepath.Join(ledgertest.Root(), "replay", "testdata", "golden")
	names, err := filepath.Glob(filepath.Join(golden, "records", "*.jsonl"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden records under %s (%v)", golden, err)
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var log memLog
			for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
				log = append(log, l)
			}
			want, err := os.ReadFile(filepath.Join(golden, "dumps", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range log {
				if bytes.Contains(l, []byte(`"scope"`)) {
					t.Fatalf("%s names a scope: not a log from before scopes", path)
				}
			}
			ctx := t.Context()
			db := filepath.Join(t.TempDir(), "p.db")
			if _, err := replay.Rebuild(ctx, log, dialects.All(), db, 0, nil); err != nil {
				t.Fatal(err)
			}
			store, err := projection.OpenStore(db, projection.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			var got bytes.Buffer
			if err := store.Dump(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s folds into a dump other than its golden one:\n--- got\n%s\n--- want\n%s", name, got.Bytes(), want)
			}
			// Every decision the log recorded is decided the same way now.
			_, rep, err := replay.Verify(ctx, log, dialects.All(), nil)
			if err != nil || !rep.OK() || rep.Records != uint64(len(log)) {
				t.Errorf("verify: %+v %v", rep, err)
			}
		})
	}
}
