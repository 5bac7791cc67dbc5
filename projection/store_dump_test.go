package projection_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// oddLog names sessions' channel, group, sender, labels, inputs and calls
// with the characters json.Marshal escapes (<, >, &, ", \, control
// characters, U+2028 and U+2029), other non-ASCII text, and spaces.
func oddLog(t *testing.T) []*events.Record {
	h := newHarness(t)
	h.mustAppend(policy)
	odd := `a <b> & \"c\" \\ \t\n\u0001 \u2028\u2029 é 日本 😀`
	h.mustAppend(ev("session.started", "r", `{"agent":"main","channel":"`+odd+`","group":"`+odd+`","sender":"`+odd+`"}`))
	h.mustAppend(ev("turn.started", "r", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "c", `{"parent":"r","agent":"main","label":"`+odd+`"}`))
	h.mustAppend(ev("turn.started", "c", `{"turn":1}`))
	check := h.mustAppend(ev("tool.checked", "c", `{"turn":1,"tool":"exec","call":"`+odd+`","input":{"cmd":"`+odd+`","n":[1, 2.5e3, true, null]}}`))
	h.mustAppend(ev("tool.effect_started", "c", fmt.Sprintf(`{"turn":1,"tool":"exec","call":"%s","prepared_at":%d}`, odd, check)))
	h.mustAppend(ev("session.yielded", "r", `{"children":["c"]}`))
	h.mustAppend(ev("session.completed", "c", `{"status":"ok"}`))
	h.mustAppend(ev("session.resumed", "r", `{"handoff":"completion","from":["c"]}`))
	h.mustAppend(ev("turn.started", "r", `{"turn":2}`))
	return h.log
}

// TestStoreDumpMatchesMarshal: Store.Dump, which writes its lines by hand,
// writes byte for byte what it wrote when each line was a json.Marshal of
// a map (projection.OldStoreDump, kept as the oracle), and DumpHash is the
// hash of those bytes, on stores of every kind of record: spawns, turns,
// yields, continuations, checks, effects, a refused effect, grants, the
// openclaw workload, and strings that JSON escapes.
func TestStoreDumpMatchesMarshal(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{"toy": toy{}, oc.Name(): oc}
	wl := func(t *testing.T) []*events.Record {
		h := &harness{t: t, st: projection.New(dialects)}
		for _, ev := range workload.Sessions(40) {
			h.mustAppend(string(ev))
		}
		return h.log
	}
	logs := map[string]func(*testing.T) []*events.Record{
		"sample": sampleLog, "effects": effectsLog, "odd": oddLog, "workload": wl,
	}
	for name, mk := range logs {
		t.Run(name, func(t *testing.T) {
			recs := mk(t)
			st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s := projection.New(dialects)
			for i, r := range recs {
				if err := s.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
					t.Fatal(err)
				}
				if i%5 == 4 {
					if err := st.Commit(s); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := st.Commit(s); err != nil {
				t.Fatal(err)
			}
			var got, want bytes.Buffer
			if err := st.Dump(&got); err != nil {
				t.Fatal(err)
			}
			if err := projection.OldStoreDump(st, &want); err != nil {
				t.Fatal(err)
			}
			if bytes.Count(want.Bytes(), []byte("\n")) < len(recs) {
				t.Fatalf("the oracle dumped %d lines for %d records", bytes.Count(want.Bytes(), []byte("\n")), len(recs))
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				g, w := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want.Bytes(), []byte("\n"))
				for i := range min(len(g), len(w)) {
					if !bytes.Equal(g[i], w[i]) {
						t.Fatalf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
					}
				}
				t.Fatalf("%d lines, want %d", len(g), len(w))
			}
			sum := sha256.Sum256(want.Bytes())
			if h, err := st.DumpHash(); err != nil || h != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Fatalf("DumpHash %s, %v; want the hash of the oracle's dump sha256:%x", h, err, sum)
			}
		})
	}
}
