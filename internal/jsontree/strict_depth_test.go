package jsontree

import (
	"errors"
	"strings"
	"testing"
)

// TestParseStrictDepth: nesting past MaxStrictDepth is refused with a
// *DepthError (not an *Error, which callers read as a file the runtime
// ignores), and nesting at the limit reads.
func TestParseStrictDepth(t *testing.T) {
	at := strings.Repeat("[", MaxStrictDepth) + strings.Repeat("]", MaxStrictDepth)
	if _, err := ParseStrict("f", []byte(at), nil); err != nil {
		t.Fatalf("%d levels: %v", MaxStrictDepth, err)
	}
	for _, src := range []string{
		strings.Repeat("[", MaxStrictDepth+1) + strings.Repeat("]", MaxStrictDepth+1),
		`{"a":` + strings.Repeat(`{"b":`, MaxStrictDepth) + "1" + strings.Repeat("}", MaxStrictDepth+1),
		strings.Repeat("[", 4<<20),
	} {
		_, err := ParseStrict("f", []byte(src), nil)
		var de *DepthError
		var pe *Error
		if !errors.As(err, &de) || errors.As(err, &pe) {
			t.Errorf("%.20s... (%d bytes): %v, want a *DepthError", src, len(src), err)
		}
	}
}
