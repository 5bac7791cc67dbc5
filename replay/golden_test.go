package replay_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./replay -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./replay -update to accept the change):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestGoldenRecordsAndDumps pins the records a scenario writes and the
// projection dump they fold into: a change to encoding, ids, decided
// payloads or the store layout shows up as a diff to review.
func TestGoldenRecordsAndDumps(t *testing.T) {
	for _, name := range []string{
		"openclaw/continuation-09-settle-batch-same-policy",
		"openclaw/delegation-10-revocation-restores",
		"claude-code/effect-01-effect-rechecks-at-the-head",
		"claude-code/cont-01-settle-batch-keeps-captured-pool",
	} {
		t.Run(name, func(t *testing.T) {
			_, log := runScenario(t, filepath.Join("..", "testdata", "conformance", name+".json"))
			ctx := context.Background()
			head, _ := log.Head(ctx)
			raw, err := log.Read(ctx, 1, head)
			if err != nil {
				t.Fatal(err)
			}
			var records bytes.Buffer
			for _, r := range raw {
				records.Write(r)
				records.WriteByte('\n')
			}
			base := filepath.Base(name)
			golden(t, filepath.Join("records", base+".jsonl"), records.Bytes())

			path := filepath.Join(t.TempDir(), "p.db")
			if _, err := replay.Rebuild(ctx, log, dialects.All(), path, 0, nil); err != nil {
				t.Fatal(err)
			}
			store, err := projection.OpenStore(path, projection.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			var dump bytes.Buffer
			if err := store.Dump(&dump); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("dumps", base+".jsonl"), dump.Bytes())
		})
	}
}
