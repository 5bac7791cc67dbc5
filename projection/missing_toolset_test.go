package projection_test

import (
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	bolt "go.etcd.io/bbolt"
)

// TestMissingToolSetIsDamage: a turn's tool set gone from the file (its
// entry deleted, as a changed key byte would lose it) is answered as a
// damaged file, code storage, never as an empty tool set (found by the
// replay review: tools --turn printed "allowed:" and export an empty set).
func TestMissingToolSetIsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	st, _ := buildStoreAt(t, path, projection.Dialects{"toy": toy{}}, sampleLog(t), 3)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("toolsets"))
		var keys [][]byte
		_ = b.ForEach(func(k, _ []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil })
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Load(projection.Dialects{"toy": toy{}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	rerr := s.Read(func() error {
		_, _, _ = s.TurnSet("r", 1)
		return nil
	})
	if events.CodeOf(rerr) != events.CodeStorage {
		t.Errorf("a turn's missing tool set read: %v, want a storage error naming the file", rerr)
	}
	if _, err := s.AtTurn("r", 1); events.CodeOf(err) != events.CodeStorage {
		t.Errorf("AtTurn over a missing tool set: %v, want a storage error", err)
	}
}
