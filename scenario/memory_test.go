package scenario_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/scenario"
)

// TestRunnerWithoutDialects: a runner with no dialects is refused with an
// error that says what to give, never a panic, and Embedded starts no
// server for one.
func TestRunnerWithoutDialects(t *testing.T) {
	for name, d := range map[string]projection.Dialects{"nil": nil, "empty": {}} {
		r, err := scenario.InMemory(d)
		if r != nil || err == nil || !strings.Contains(err.Error(), "no dialects") || !strings.Contains(err.Error(), `"openclaw"`) {
			t.Errorf("InMemory(%s): %v, %v", name, r, err)
		}
		dir := t.TempDir()
		r, closeFn, err := scenario.Embedded(t.Context(), dir, d)
		if r != nil || closeFn != nil || err == nil || !strings.Contains(err.Error(), "no dialects") {
			t.Errorf("Embedded(%s): %v, %v", name, r, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("Embedded(%s) left %d entries in its directory", name, len(left))
		}
	}
}
