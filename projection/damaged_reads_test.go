package projection_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	bolt "go.etcd.io/bbolt"
)

// damagedCopy is a projection file built from the sample log and then
// changed with fn, as damage on disk would change it.
func damagedCopy(t *testing.T, fn func(tx *bolt.Tx) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.db")
	st, _ := buildStoreAt(t, path, projection.Dialects{"toy": toy{}}, sampleLog(t), 3)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadDamaged opens and loads a damaged copy, which Check would refuse:
// what each read answers then is what a reader that skipped the check
// would get.
func loadDamaged(t *testing.T, path string) *projection.State {
	t.Helper()
	st, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := st.Load(projection.Dialects{"toy": toy{}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

// TestMissingToolSetIsDamage: a turn's tool set gone from the file (its
// entry deleted, as a changed key byte would lose it) is answered as a
// damaged file, code storage, never as an empty tool set (found by the
// replay review: tools --turn printed "allowed:" and export an empty set).
func TestMissingToolSetIsDamage(t *testing.T) {
	path := damagedCopy(t, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("toolsets"))
		var keys [][]byte
		_ = b.ForEach(func(k, _ []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil })
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	s := loadDamaged(t, path)
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

// TestMissingSessionIsDamage: a session whose slot says it is one, its
// value gone from the file, is a damaged file, never an unknown session.
func TestMissingSessionIsDamage(t *testing.T) {
	path := damagedCopy(t, func(tx *bolt.Tx) error {
		var n uint64
		_ = tx.Bucket([]byte("slots")).ForEach(func(k, v []byte) error {
			if len(v) > 0 && string(v[1:]) == "r" {
				n = binary.BigEndian.Uint64(k)
			}
			return nil
		})
		if n == 0 {
			return errors.New("no slot for r")
		}
		return tx.Bucket([]byte("sessions")).Delete(append(binary.BigEndian.AppendUint64(nil, n), 's'))
	})
	s := loadDamaged(t, path)
	if sess, err := s.Lookup("r"); events.CodeOf(err) != events.CodeStorage {
		t.Errorf("Lookup of a session whose value is gone: %v, %v; want a storage error", sess, err)
	}
}

// TestLostContentSumIsDamage: a file of this layout without its content
// sum (the key lost, a value changed as well) is refused as damaged when
// opened, never re-summed from what it now holds, which would make Check
// pass over the changed value.
func TestLostContentSumIsDamage(t *testing.T) {
	path := damagedCopy(t, func(tx *bolt.Tx) error {
		if err := tx.Bucket([]byte("meta")).Delete([]byte("sums")); err != nil {
			return err
		}
		b := tx.Bucket([]byte("policy"))
		k, v := b.Cursor().First()
		if k == nil {
			return errors.New("no policy")
		}
		return b.Put(append([]byte(nil), k...), bytes.Replace(append([]byte(nil), v...), []byte(`"`), []byte(`'`), 1))
	})
	st, err := projection.OpenStore(path, projection.StoreOptions{})
	if err == nil {
		st.Close()
		t.Fatal("a file that lost its content sum was opened")
	}
	if !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), "content sum is missing") || !strings.Contains(err.Error(), path) {
		t.Errorf("opening a file that lost its content sum: %v, want a damaged file naming it", err)
	}
	// A new file gets its sum.
	fresh := filepath.Join(t.TempDir(), "new.db")
	st, err = projection.OpenStore(fresh, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(); err != nil {
		t.Errorf("a new file: %v", err)
	}
	st.Close()
	_ = os.Remove(fresh)
}
