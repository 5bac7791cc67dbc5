package claudecodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// pinKey is the CLI's entry in tools/npm/pins.json.
const pinKey = "@anthropic-ai/claude-code"

// ModuleRoot is the repository root (ledgertest.Root).
func ModuleRoot(t testing.TB) string { return ledgertest.Root() }

// Pin is the CLI version tools/npm/pins.json pins.
func Pin(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ModuleRoot(t), "tools", "npm", "pins.json"))
	if err != nil {
		t.Fatalf("claudecodetest: %v", err)
	}
	var pins map[string]string
	if err := json.Unmarshal(b, &pins); err != nil {
		t.Fatalf("claudecodetest: tools/npm/pins.json: %v", err)
	}
	v := pins[pinKey]
	if v == "" {
		t.Fatalf("claudecodetest: tools/npm/pins.json pins no %s", pinKey)
	}
	return v
}

var located struct {
	once      sync.Once
	path, err string
}

// CLI returns the path of the pinned claude binary: under $LEDGER_NPM_DIR
// when set, else tools/npm under the module root. A missing binary or one
// at another version fails the test under CI=true and skips it elsewhere.
func CLI(t testing.TB) string {
	t.Helper()
	pin := Pin(t)
	root := ModuleRoot(t)
	located.once.Do(func() {
		dir := os.Getenv("LEDGER_NPM_DIR")
		if dir == "" {
			dir = filepath.Join(root, "tools", "npm")
		}
		path := filepath.Join(dir, "node_modules", ".bin", "claude")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, "--version")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "DISABLE_AUTOUPDATER=1"}
		out, err := cmd.Output()
		switch {
		case err != nil:
			located.err = fmt.Sprintf("%s --version: %v", path, err)
		case strings.Fields(string(out)) == nil || strings.Fields(string(out))[0] != pin:
			located.err = fmt.Sprintf("%s is %q, tools/npm/pins.json pins %s", path, strings.TrimSpace(string(out)), pin)
		default:
			located.path = path
		}
	})
	if located.err != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("claude code CLI not installed (%s): run bash tools/npm/install", located.err)
		}
		t.Skipf("claude code CLI not installed: run bash tools/npm/install (%s)", located.err)
	}
	return located.path
}
