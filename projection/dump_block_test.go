package projection

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestDumpBlocksInOrder: object encodes its values a block at a time on
// several goroutines and must write the bytes a plain loop over the sorted
// keys writes, at every size around a block, with the first error in key
// order kept.
func TestDumpBlocksInOrder(t *testing.T) {
	enc := func(v []byte) ([]byte, error) {
		if bytes.HasPrefix(v, []byte("bad")) {
			return nil, errors.New(string(v))
		}
		return []byte(`"` + strings.ToUpper(string(v)) + `"`), nil
	}
	for _, n := range []int{0, 1, dumpApart - 1, dumpApart + 1, dumpBlock - 1, dumpBlock, dumpBlock + 1, 3*dumpBlock + 17} {
		e := map[string]lazy{}
		for i := range n {
			k := fmt.Sprintf("k%06d", (i*7919)%max(n, 1))
			e[k] = lazy{raw: []byte(fmt.Sprintf("v%d", i)), enc: enc}
			if i%5 == 0 {
				e[k] = lazy{list: []lazy{{raw: []byte(`1`)}, {raw: []byte("x"), enc: enc}}}
			}
		}
		var want bytes.Buffer
		want.WriteString("{")
		for i, k := range sortedKeys(e) {
			if i > 0 {
				want.WriteString(",")
			}
			events.WriteString(&want, k)
			want.WriteString(":")
			v, err := e[k].bytes()
			if err != nil {
				t.Fatal(err)
			}
			want.Write(v)
		}
		want.WriteString("}")
		var got bytes.Buffer
		d := dumper{w: &got}
		d.object(slices.Values(entriesOf(e)))
		if d.err != nil || got.String() != want.String() {
			t.Fatalf("%d keys: error %v, %d bytes, want %d", n, d.err, got.Len(), want.Len())
		}
		if n < 3 {
			continue
		}
		// Two bad values, in different blocks when there are two: the
		// first in key order is the error.
		keys := sortedKeys(e)
		first, second := keys[1], keys[len(keys)-1]
		e[first], e[second] = lazy{raw: []byte("bad " + first), enc: enc}, lazy{raw: []byte("bad " + second), enc: enc}
		got.Reset()
		d = dumper{w: &got}
		d.object(slices.Values(entriesOf(e)))
		if d.err == nil || d.err.Error() != "bad "+first {
			t.Fatalf("%d keys: error %v, want the one of %s", n, d.err, first)
		}
	}
}

// entriesOf is e as object takes it: sorted, each key once.
func entriesOf(e map[string]lazy) []entry {
	es := make([]entry, 0, len(e))
	for _, k := range sortedKeys(e) {
		es = append(es, entry{k, e[k]})
	}
	return es
}

func sortedKeys(e map[string]lazy) []string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	return keys
}

// TestSortEntriesAndMerge: sortEntries, merge and mergeOver give what a
// map per section gave, sorted: of equal keys the last added (or, with a
// combine, their lists joined in the order they came), over's value over
// base's (or base's, for mergeOver's ids);
// with keys whose byte order is not their canonical order (U+1F600 after
// U+FF01 and U+E000 in UTF-8, before them in UTF-16).
func TestSortEntriesAndMerge(t *testing.T) {
	parts := []string{"a", "b", "\U0001F600", "\uFF01", "\uE000", "é"}
	rnd := rand.New(rand.NewPCG(1, 2))
	key := func() string {
		k := ""
		for range 1 + rnd.IntN(3) {
			k += parts[rnd.IntN(len(parts))]
		}
		return k
	}
	val := func(i int) lazy { return lazy{raw: []byte(strconv.Itoa(i))} }
	str := func(es []entry) string {
		var b strings.Builder
		for _, x := range es {
			v, _ := x.val.bytes()
			fmt.Fprintf(&b, "%q=%s ", x.key, v)
		}
		return b.String()
	}
	for round := range 300 {
		var base, over, turns []entry
		want, wantTurns := map[string]lazy{}, map[string]lazy{}
		for i := range rnd.IntN(40) {
			k := key()
			base = append(base, entry{k, val(i)})
			want[k] = val(i)
			l := wantTurns[k]
			l.list = append(l.list, val(i))
			wantTurns[k] = l
			turns = append(turns, entry{k, lazy{list: []lazy{val(i)}}})
		}
		if round%3 == 0 {
			// Sorted already, as a bucket read in order.
			slices.SortStableFunc(base, compareEntries)
		}
		base = sortEntries(base, nil)
		if got, w := str(base), str(entriesOf(want)); got != w {
			t.Fatalf("round %d: sortEntries\n got %s\nwant %s", round, got, w)
		}
		if got, w := str(sortEntries(turns, appendList)), str(entriesOf(wantTurns)); got != w {
			t.Fatalf("round %d: sortEntries with appendList\n got %s\nwant %s", round, got, w)
		}
		for i := range rnd.IntN(20) {
			k := key()
			over = append(over, entry{k, val(1000 + i)})
			want[k] = val(1000 + i)
		}
		over = sortEntries(over, nil)
		if got, w := str(merge(base, over, nil)), str(entriesOf(want)); got != w {
			t.Fatalf("round %d: merge\n got %s\nwant %s", round, got, w)
		}
		if got, w := str(slices.Collect(mergeOver(slices.Values(base), over, true))), str(entriesOf(want)); got != w {
			t.Fatalf("round %d: mergeOver, over's values winning\n got %s\nwant %s", round, got, w)
		}
		// base's values winning, as the ids' section keeps the store's.
		for _, x := range base {
			want[x.key] = x.val
		}
		if got, w := str(slices.Collect(mergeOver(slices.Values(base), over, false))), str(entriesOf(want)); got != w {
			t.Fatalf("round %d: mergeOver, base's values winning\n got %s\nwant %s", round, got, w)
		}
	}
}
