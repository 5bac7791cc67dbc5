package natslog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStoreSyncFollowsBlocks: the first sync of a stream is a sync of the
// whole store, after which the stream's last block is held; a later sync
// moves on to the blocks the server began since (writing each back) and
// holds the newest; a stream whose blocks cannot be found is synced whole
// each time.
func TestStoreSyncFollowsBlocks(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(dir, "jetstream", "$G", "streams", "S", "msgs")
	if err := os.MkdirAll(msgs, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(msgs, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("1.blk")
	write("2.blk")
	write("index.db")
	s, err := openStoreSync(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if err := s.sync([]string{"S", "T"}); err != nil {
		t.Fatal(err)
	}
	if b := s.open["S"]; b == nil || b.index != 2 {
		t.Fatalf("after the first sync, S holds %+v; want block 2", b)
	}
	if s.open["T"] != nil {
		t.Fatal("a stream with no blocks is held")
	}
	write("3.blk")
	write("4.blk")
	if err := s.sync([]string{"S"}); err != nil {
		t.Fatal(err)
	}
	if b := s.open["S"]; b.index != 4 {
		t.Fatalf("after blocks 3 and 4 began, S holds block %d", b.index)
	}
	if err := s.sync([]string{""}); err != nil {
		t.Fatal(err)
	}
}
