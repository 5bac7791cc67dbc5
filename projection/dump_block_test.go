package projection

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
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
		d.object(e)
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
		d.object(e)
		if d.err == nil || d.err.Error() != "bad "+first {
			t.Fatalf("%d keys: error %v, want the one of %s", n, d.err, first)
		}
	}
}

func sortedKeys(e map[string]lazy) []string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	return keys
}
