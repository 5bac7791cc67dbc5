package projection_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
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
	// Enough sessions for several of Dump's blocks in the big buckets.
	large := func(t *testing.T) []*events.Record {
		h := &harness{t: t, st: projection.New(dialects)}
		for _, ev := range workload.Sessions(300) {
			h.mustAppend(string(ev))
		}
		if len(h.log) < 2*projection.DumpBlock {
			t.Fatalf("%d records: fewer than two blocks of the log bucket", len(h.log))
		}
		return h.log
	}
	logs := map[string]func(*testing.T) []*events.Record{
		"sample": sampleLog, "effects": effectsLog, "odd": oddLog, "workload": wl, "workload-large": large,
	}
	for name, mk := range logs {
		t.Run(name, func(t *testing.T) {
			recs := mk(t)
			st, _ := buildStoreAt(t, filepath.Join(t.TempDir(), "p.db"), dialects, recs, 5)
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

// TestDumpLineMatchesMarshal: one line of Store.Dump is what json.Marshal
// made of it for values no fold writes: valid JSON with white space and
// characters json.Marshal escapes, JSON in a binary bucket, bytes that are
// not JSON, strings with invalid UTF-8, and entries a decoder refuses.
func TestDumpLineMatchesMarshal(t *testing.T) {
	u64 := []byte{0, 0, 0, 0, 0, 0, 0, 42}
	sessKey := func(tag byte, rest ...byte) []byte { return append(append(append([]byte{}, u64...), tag), rest...) }
	values := [][]byte{
		nil, {}, []byte(`{}`), []byte(` { "a" : [ 1 , "x y" ] } `), []byte("{\"a\":\"<b>&\u2028\u2029\"}"),
		[]byte("\"\xff\xfe\""), []byte("\x00\x01"), []byte("not json"), []byte(`"plain"`), []byte("\"tab\\t\""),
		[]byte("a<b>&\"\\\x01\x7f\u2028é"), []byte("\xff\xfe invalid UTF-8"), u64, append(append([]byte{}, u64...), 1),
		append(append([]byte{}, u64...), 2), []byte{3, 'a', 'b', 'c', 1, 'x', 't'}, []byte{2, '<', '&', 0, 'z'},
		[]byte{0x80}, []byte{'s'}, []byte{3, 'a', 'b', 'c', 1, 'x', 1, 't'}, []byte("\x01a\x01x\x01t{\"Tool\":\"<b>\", \"Input\":{}}"),
		[]byte("\x01a\x01x\x01t{not json"), []byte("\x01a\x01x\x05t"),
	}
	keys := map[string][][]byte{
		"chains": {[]byte("policy"), {}}, "ids": {[]byte("01J"), {0xff}}, "log": {u64},
		"sessions": {sessKey('s'), sessKey('h', 's'), sessKey('c', 3, 'r', 'u', 'n', 'x'), sessKey('t', 0, 0, 0, 1), sessKey('y'), {1}},
		"toolsets": {[]byte("h")}, "meta": {[]byte("position")}, "policy": {u64}, "slots": {u64},
	}
	n := 0
	for bucket, ks := range keys {
		for _, k := range ks {
			for _, v := range values {
				want, err := projection.OldDumpLine(bucket, k, v)
				if err != nil {
					t.Fatal(err)
				}
				if got := projection.DumpLine(bucket, k, v); !bytes.Equal(got, want) {
					t.Errorf("%s %x %q:\n got %s\nwant %s", bucket, k, v, got, want)
				}
				n++
			}
		}
	}
	t.Logf("%d lines", n)
}

// BenchmarkStoreDumpHash hashes the dump of a store of 2000 workload
// sessions, as Store.DumpHash does (hand-written lines) and as it did
// (projection.OldStoreDump, a json.Marshal per entry):
//
//	go test ./projection -run XXX -bench StoreDumpHash -count 5
func BenchmarkStoreDumpHash(b *testing.B) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	st, err := projection.OpenStore(filepath.Join(b.TempDir(), "p.db"), projection.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	h := &harness{t: b, st: projection.New(dialects)}
	for i, ev := range workload.Sessions(2000) {
		h.mustAppend(string(ev))
		if i%4096 == 4095 {
			if err := st.Commit(h.st); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := st.Commit(h.st); err != nil {
		b.Fatal(err)
	}
	for _, alg := range []struct {
		name string
		dump func(w io.Writer) error
	}{{"new", st.Dump}, {"old", func(w io.Writer) error { return projection.OldStoreDump(st, w) }}} {
		b.Run(alg.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h := sha256.New()
				w := bufio.NewWriterSize(h, 64<<10)
				if err := alg.dump(w); err != nil {
					b.Fatal(err)
				}
				w.Flush()
			}
		})
	}
}
