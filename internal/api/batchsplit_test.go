package api

import (
	"bytes"
	"encoding/json"
	"testing"
)

// batchBodies are batch append bodies and bodies that are not: the
// client's form, white space, nesting, strings holding brackets and
// commas, and invalid JSON, for TestSplitBatch and FuzzSplitBatch's seeds.
var batchBodies = []string{
	`[{"type":"tool.checked","v":1},{"type":"tool.checked","v":1}]`,
	` [ {"a":[1,{"b":"],}"}]} , "x\"]," ,null, 3 ,true ] `,
	`[]`, `[ ]`, `[1]`, `[[],{}]`, `["\\",{"":"\\\""}]`,
	`null`, `{}`, `"["`, `[`, `[1,]`, `[1 2]`, `[1]]`, `[1] x`, ``, `[{"a":"\xff"}]`, "[\"\x01\"]",
}

// sameSplit fails unless splitBatch returns what json.Unmarshal into a
// []json.RawMessage does, byte for byte and error for error.
func sameSplit(t *testing.T, data []byte) {
	t.Helper()
	var want []json.RawMessage
	werr := json.Unmarshal(data, &want)
	got, gerr := splitBatch(data)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || len(got) != len(want) || (got == nil) != (want == nil) {
		t.Fatalf("%q: %q, %v; json.Unmarshal: %q, %v", data, got, gerr, want, werr)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%q: element %d is %q; json.Unmarshal: %q", data, i, got[i], want[i])
		}
	}
}

func TestSplitBatch(t *testing.T) {
	for _, b := range batchBodies {
		sameSplit(t, []byte(b))
	}
}

func FuzzSplitBatch(f *testing.F) {
	for _, b := range batchBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameSplit(t, data) })
}
