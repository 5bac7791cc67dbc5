package openclawdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/projection"
)

// legacyLog writes a small log with the ledger and returns its records;
// with old, the policy.set's decided drops its release, as records from
// before releases were recorded have it.
func legacyLog(t *testing.T, old bool) []*events.Record {
	t.Helper()
	st := projection.New(projection.Dialects{openclaw.Name: openclaw.New()})
	var recs []*events.Record
	for i, raw := range []string{
		`{"type":"policy.set","data":{"dialect":"openclaw","document":{"tools":{"deny":["tool_call"]}},"catalogue":["read","tool_call","conversations_archive"]}}`,
		`{"type":"session.started","session":"agent:main:main","data":{"agent":"main"}}`,
		`{"type":"turn.started","session":"agent:main:main","data":{"turn":1}}`,
		`{"type":"session.spawned","session":"agent:main:subagent:a","data":{"parent":"agent:main:main","agent":"main"}}`,
		`{"type":"turn.started","session":"agent:main:subagent:a","data":{"turn":1}}`,
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		m["id"], m["v"], m["actor"] = fmt.Sprintf("01JZ%022d", i+1), 1, "t"
		b, _ := json.Marshal(m)
		ev, err := events.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		p := st.Prepare(ev, "2026-01-01T00:00:00.000Z")
		if p.Err != nil {
			t.Fatalf("%s: %v", raw, p.Err)
		}
		rec := p.Record
		if i == 0 && old {
			var d map[string]any
			if err := json.Unmarshal(rec.Decided, &d); err != nil || d["release"] != openclaw.NewestRelease() {
				t.Fatalf("a new policy.set records release %s: %s", openclaw.NewestRelease(), rec.Decided)
			}
			delete(d, "release")
			c := *rec
			c.Decided, _ = json.Marshal(d)
			rec = &c
		}
		if err := st.Apply(projection.Input{Record: rec}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestRecordsWithoutAReleaseDecideWithTheLegacyTables: a policy.set whose
// decided names no release (every record from before releases were
// recorded) folds under the legacy release, in memory and after a store
// round trip, and twice the same.
func TestRecordsWithoutAReleaseDecideWithTheLegacyTables(t *testing.T) {
	fold := func(recs []*events.Record) *projection.State {
		st := projection.New(projection.Dialects{openclaw.Name: openclaw.New()})
		for i, r := range recs {
			if err := st.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
				t.Fatal(err)
			}
		}
		return st
	}
	for _, tt := range []struct {
		old                bool
		release            string
		toolCall, archive  envelope.Decision
		toolCallName, code string
	}{
		// Legacy: tool_call is an alias of dispatch_action, and the hard
		// deny's conversations_* glob takes conversations_archive.
		{old: true, release: "", toolCall: envelope.Deny, archive: envelope.Deny, toolCallName: "dispatch_action", code: "subagent:hard_deny"},
		{old: false, release: openclaw.NewestRelease(), toolCall: envelope.Deny, archive: envelope.Allow, toolCallName: "tool_call"},
	} {
		recs := legacyLog(t, tt.old)
		st := fold(recs)
		if got := st.Policy().Release; got != tt.release {
			t.Errorf("old=%v: the policy state's release is %q, want %q", tt.old, got, tt.release)
		}
		check := func(st *projection.State, where string) {
			ts, err := st.Tools("agent:main:subagent:a")
			if err != nil {
				t.Fatal(err)
			}
			d, _, ok := ts.Lookup(tt.toolCallName)
			if !ok || d != tt.toolCall {
				t.Errorf("old=%v %s: %s is %v (in the catalogue: %v), want %v", tt.old, where, tt.toolCallName, d, ok, tt.toolCall)
			}
			d, r, _ := ts.Lookup("conversations_archive")
			if d != tt.archive || (r != nil && r.Code != tt.code) {
				t.Errorf("old=%v %s: conversations_archive %v (%v), want %v", tt.old, where, d, r, tt.archive)
			}
		}
		check(st, "folded")
		if a, b := ledgertest.StateHash(t, st), ledgertest.StateHash(t, fold(recs)); a != b {
			t.Errorf("old=%v: folding twice gives %s and %s", tt.old, a, b)
		}

		path := filepath.Join(t.TempDir(), "p.db")
		store, err := projection.OpenStore(path, projection.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(st); err != nil {
			t.Fatal(err)
		}
		loaded, err := store.Load(projection.Dialects{openclaw.Name: openclaw.New()})
		if err != nil {
			t.Fatal(err)
		}
		check(loaded, "loaded from the store")
		if !bytes.Equal([]byte(ledgertest.StateHash(t, loaded)), []byte(ledgertest.StateHash(t, st))) {
			t.Errorf("old=%v: the loaded state hashes %s, the folded one %s", tt.old, ledgertest.StateHash(t, loaded), ledgertest.StateHash(t, st))
		}
		store.Close()
	}
}
