package bench

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// TestRebuildChild: the rebuild the scale section runs in a process of its
// own reads the bench's server over its client URL to the head it is
// given, and rebuilds the same projection a rebuild in the bench's process
// does (the same state hash), reporting both raw reads and the rebuild's
// time for that many records.
func TestRebuildChild(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	n, err := startNodeListening(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	if _, err := n.svc.Append(ctx, workload.Policy()); err != nil {
		t.Fatal(err)
	}
	next := 0
	if err := grow(ctx, n, 3000, &next); err != nil {
		t.Fatal(err)
	}
	head := n.svc.Position()
	// A record past the head the child is given: it must stop at the head.
	if err := grow(ctx, n, head+50, &next); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "child.db")
	spec, _ := json.Marshal(rebuildSpec{URL: n.ns.ClientURL(), Head: head, Out: out})
	var buf bytes.Buffer
	if err := RebuildChild(ctx, string(spec), &buf); err != nil {
		t.Fatal(err)
	}
	var got rebuildTimes
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%q: %v", buf.Bytes(), err)
	}
	if got.Records != head || got.Rebuild <= 0 || got.RawBefore <= 0 || got.RawAfter <= 0 {
		t.Fatalf("the child reported %+v, want %d records and every time measured", got, head)
	}
	want, err := replay.RebuildHash(ctx, n.log, dialects.All(), t.TempDir(), head)
	if err != nil {
		t.Fatal(err)
	}
	store, err := projection.OpenStore(out, projection.StoreOptions{})
	if err != nil {
		t.Fatalf("the child's projection: %v", err)
	}
	defer store.Close()
	if got, err := store.DumpHash(); err != nil || got != want {
		t.Fatalf("the child's projection hashes %s (%v), a rebuild here to %d %s", got, err, head, want)
	}
}
