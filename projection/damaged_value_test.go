package projection_test

import (
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// TestDamagedSessionIsStorageError: a session whose stored value no longer
// decodes (bytes changed on disk) is a storage_error naming the file and
// the way back, for a query and for Prepare, not "no such session".
func TestDamagedSessionIsStorageError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	store, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := projection.New(projection.Dialects{"toy": toy{}})
	for i, r := range sampleLog(t) {
		if err := s.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Commit(s); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	// Every session's value, replaced by bytes that do not decode.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("sessions"))
		var keys [][]byte
		_ = b.ForEach(func(k, _ []byte) error {
			if len(k) == 9 && k[8] == 's' {
				keys = append(keys, append([]byte(nil), k...))
			}
			return nil
		})
		for _, k := range keys {
			if err := b.Put(k, []byte{0xff, 0xff}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	store, err = projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	st, err := store.Load(projection.Dialects{"toy": toy{}})
	if err != nil {
		t.Fatal(err)
	}
	want := func(what string, err error) {
		t.Helper()
		if events.CodeOf(err) != events.CodeStorage || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "rebuild") {
			t.Fatalf("%s: %v, want a %s error naming %s and how to rebuild it", what, err, events.CodeStorage, path)
		}
	}
	_, err = st.Why("r", "read", nil)
	want("why", err)
	_, err = st.Lookup("c")
	want("lookup", err)
	e, err := events.Parse([]byte(ev("turn.started", "r", `{"turn":3}`)))
	if err != nil {
		t.Fatal(err)
	}
	e.ID = "01J99999999999999999999999"
	p := st.Prepare(e, "2026-01-01T00:01:00.000Z")
	if p.Record != nil {
		t.Fatal("prepare made a record from a session that could not be read")
	}
	want("prepare", p.Err)
	_, err = st.Dump()
	want("dump", err)
}
