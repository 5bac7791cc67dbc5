package projection

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
)

// TestToolSetSplitJoins: a tool set split into its base and records and
// joined again is the set, byte for byte in JSON, and its stored entry
// parses back; sets that differ only in the records they name share a
// base; a base or entry that does not fit is an error.
func TestToolSetSplitJoins(t *testing.T) {
	ref := func(seq uint64, typ events.Type) *envelope.RecordRef {
		return &envelope.RecordRef{Seq: seq, ID: "01J" + string(rune('A'+seq%26)), Type: typ}
	}
	set := func(spawn uint64) envelope.ToolSet {
		return envelope.ToolSet{Allowed: []string{"read", "exec"}, Denied: []envelope.Denial{
			{Tool: "browser", Reason: envelope.Reason{Code: "agent:deny", Rule: `tools.deny: "browser"`, Record: ref(1, events.PolicySet)}},
			{Tool: "message", Reason: envelope.Reason{Code: "subagent:hard_deny", Rule: "x", Record: ref(spawn, events.SessionSpawned)}},
			{Tool: "gateway", Reason: envelope.Reason{Code: "global:deny"}},
			{Tool: "status", Reason: envelope.Reason{Code: "subagent:hard_deny", Record: ref(spawn, events.SessionSpawned)}},
		}}
	}
	for _, ts := range []envelope.ToolSet{set(7), set(9), {}, {Allowed: []string{}}, {Allowed: []string{"a"}, Denied: []envelope.Denial{}}} {
		base, refs := splitToolSet(ts)
		js := appendToolSet(nil, base)
		key, got, err := parseToolSetValue(toolSetValue(toolSetBaseKey(js), refs))
		if err != nil || !bytes.Equal(key, toolSetBaseKey(js)) {
			t.Fatalf("%s: parse: %x, %v", appendToolSet(nil, ts), key, err)
		}
		joined, err := joinToolSet(base, got)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := appendToolSet(nil, joined), appendToolSet(nil, ts); !bytes.Equal(a, b) {
			t.Fatalf("joined %s, want %s", a, b)
		}
		if len(ts.Denied) > 0 && len(refs) != 2 {
			t.Fatalf("%d records, want the policy's and the spawn's", len(refs))
		}
	}
	a, _ := splitToolSet(set(7))
	b, _ := splitToolSet(set(9))
	if !bytes.Equal(appendToolSet(nil, a), appendToolSet(nil, b)) {
		t.Fatalf("sets that differ in their spawn record have bases %s and %s", appendToolSet(nil, a), appendToolSet(nil, b))
	}
	if _, err := joinToolSet(a, nil); err == nil {
		t.Fatal("a base joined with fewer records than it names")
	}
	v := toolSetValue(toolSetBaseKey(nil), []envelope.RecordRef{*ref(3, events.TurnStarted)})
	for _, bad := range [][]byte{nil, v[:1], v[:len(v)-1], append(bytes.Clone(v), 0), append([]byte{2}, v[1:]...)} {
		if _, _, err := parseToolSetValue(bad); err == nil {
			t.Fatalf("%x parsed", bad)
		}
	}
}

// TestToolSetsShareBases: a store of openclaw workload sessions, whose
// sub-agents' sets each name their own spawn record, holds a set for
// each and only a few bases.
func TestToolSetsShareBases(t *testing.T) {
	st, err := OpenStore(filepath.Join(t.TempDir(), "p.db"), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	oc := openclaw.New()
	s := New(Dialects{oc.Name(): oc})
	n := 0
	for i, raw := range workload.Sessions(100) {
		ev, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		ev.ID = fmt.Sprintf("01K%023d", i)
		p := s.Prepare(ev, "2026-01-01T00:00:00.000Z")
		if p.Err != nil || p.Record == nil {
			t.Fatalf("event %d: %v", i, p.Err)
		}
		if err := s.Apply(Input{Record: p.Record}, s.Position()+1); err != nil {
			t.Fatal(err)
		}
		if n++; n%50 == 0 {
			if err := st.Commit(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Commit(s); err != nil {
		t.Fatal(err)
	}
	var sets, bases int
	st.db.View(func(tx *bolt.Tx) error {
		sets, bases = tx.Bucket(bucketToolSets).Stats().KeyN, tx.Bucket(bucketToolSetBases).Stats().KeyN
		return nil
	})
	if sets < 50 || bases > 10 {
		t.Fatalf("%d sets, %d bases; want many sets and a few bases", sets, bases)
	}
	t.Logf("%d sets, %d bases", sets, bases)
}
