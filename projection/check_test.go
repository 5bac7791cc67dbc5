package projection_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// TestCheckKeepsTheSum: a store committed every few records (in the
// background or not, reloaded now and then, so that commits replace values
// and put keys again) passes Check after every commit, and its sum is
// what a store written in one commit has (Check recomputes it).
func TestCheckKeepsTheSum(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	small := workloadLog(t)
	// A commit of every record of a larger log at once orders its log
	// bucket's puts in a goroutine of its own (orderApart).
	h := &harness{t: t, st: projection.New(dialects)}
	for _, ev := range workload.Sessions(60) {
		h.mustAppend(string(ev))
	}
	if len(h.log) < 2*projection.OrderApart {
		t.Fatalf("%d records: fewer than two of a commit's shares", len(h.log))
	}
	for _, c := range []struct {
		recs  []*events.Record
		every int
	}{{small, 1}, {small, 3}, {small, 7}, {small, len(small)}, {h.log, len(h.log)}} {
		recs, every := c.recs, c.every
		for _, async := range []bool{false, true} {
			t.Run(fmt.Sprintf("every-%d/async-%v", every, async), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "p.db")
				st, err := projection.OpenStore(path, projection.StoreOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if err := st.Check(); err != nil {
					t.Fatalf("a new file: %v", err)
				}
				s := projection.New(dialects)
				for i, r := range recs {
					if err := s.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
						t.Fatal(err)
					}
					if i%every != every-1 && i != len(recs)-1 {
						continue
					}
					commit := st.Commit
					if async {
						commit = st.CommitAsync
					}
					if err := commit(s); err != nil {
						t.Fatal(err)
					}
					if err := st.Settle(s); err != nil {
						t.Fatal(err)
					}
					if err := st.Check(); err != nil {
						t.Fatalf("after the commit at %d: %v", i+1, err)
					}
					if i%(2*every) == every-1 {
						if s, err = st.Load(dialects); err != nil {
							t.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// TestCheckFindsFlippedBytes flips one letter of a tool name inside a data
// page of a real bbolt file, which leaves every page well formed: the
// store opens and loads, and its state answers with the changed name (the
// damage issue 15 found served); Check must refuse the file, naming it and
// the way back.
func TestCheckFindsFlippedBytes(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	recs := workloadLog(t)
	path := filepath.Join(t.TempDir(), "p.db")
	st, s := buildStoreAt(t, path, dialects, recs, 5)
	key := s.Keys()[0]
	want, _, ok := s.TurnSet(key, 1)
	if !ok || len(want.Allowed) == 0 {
		t.Fatalf("%s has no tool set at turn 1", key)
	}
	st.Close()

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := string(want.Allowed[0])
	quoted := []byte(`"` + name + `"`)
	if !bytes.Contains(b, quoted) {
		t.Fatalf("tool %q is not in the file", name)
	}
	for i := 0; ; {
		j := bytes.Index(b[i:], quoted)
		if j < 0 {
			break
		}
		b[i+j+1] ^= 0x01 // another letter: the JSON stays valid
		i += j + len(quoted)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	st, err = projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatalf("the damaged file did not open (a flip elsewhere than a value?): %v", err)
	}
	defer st.Close()
	loaded, err := st.Load(dialects)
	if err != nil {
		t.Fatalf("the damaged file did not load: %v", err)
	}
	got, _, _ := loaded.TurnSet(key, 1)
	if fmt.Sprint(got.Allowed) == fmt.Sprint(want.Allowed) {
		t.Fatalf("the flips did not reach %s's tool set at turn 1", key)
	}
	t.Logf("unchecked, the file answers %v for %v", got.Allowed, want.Allowed)
	err = st.Check()
	if !errors.Is(err, projection.ErrDamaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete") {
		t.Fatalf("Check: %v, want projection.ErrDamaged naming %s and the way back", err, path)
	}
	t.Log(err)
}
