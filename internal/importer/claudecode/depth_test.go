package ccimport

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/jsontree"
)

// TestSettingsTooDeepRefusesTheImport: a settings file nested past
// jsontree.MaxStrictDepth refuses the whole import (an error, not a skipped
// file's warning): Claude Code reads such a file, so skipping it would drop
// its rules, and reading it would overflow the stack.
func TestSettingsTooDeepRefusesTheImport(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := `{"permissions":{"deny":["Bash(rm:*)"]},"x":` + strings.Repeat("[", 2*jsontree.MaxStrictDepth) + strings.Repeat("]", 2*jsontree.MaxStrictDepth) + "}"
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(deep), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ClaudeCode(dir, ClaudeCodeOptions{UserDir: t.TempDir()})
	var de *jsontree.DepthError
	if !errors.As(err, &de) {
		t.Fatalf("import: %v (result %v), want a *jsontree.DepthError", err, res)
	}
}
