package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/natslog"
)

// TestVerifyProjectionAheadOfLog: a projection ahead of the log it is
// verified against (a log that lost its tail, or another ledger's) is
// reported as such, exit 1, and not with the advice to rebuild it from
// that log; a projection at the log's head names the sequence compared.
func TestVerifyProjectionAheadOfLog(t *testing.T) {
	dir := t.TempDir()
	long, short := filepath.Join(dir, "long"), filepath.Join(dir, "short")
	if _, stderr, err := runCLI(t, "", "demo", "--data", long); err != nil {
		t.Fatalf("demo: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, demoEvents(), "append", "--data", short); err != nil {
		t.Fatalf("append: %v\n%s", err, stderr)
	}
	out, _, err := runCLI(t, "", "verify", "--data", short)
	if err != nil || !strings.Contains(out, "matches a clean rebuild at its sequence 4") {
		t.Fatalf("verify of a whole ledger: %v\n%s", err, out)
	}
	copyFile(t, filepath.Join(long, "projection.db"), filepath.Join(short, "projection.db"))
	out, _, err = runCLI(t, "", "verify", "--data", short)
	if exitCode(err, io.Discard) != 1 || !strings.Contains(out, "but the log ends at 4: the log lost records") || strings.Contains(out, "run 'ledger replay'") {
		t.Errorf("verify of a projection ahead of its log: %v\n%s", err, out)
	}
}

// TestVerifyOverNATSComparesNoWorkingDirectory: verify --nats without
// --data or --projection compares no projection, as every other command
// keeps none there, rather than a ./ledger-data/projection.db of the
// working directory (another ledger's: a false "differs", exit 1).
func TestVerifyOverNATSComparesNoWorkingDirectory(t *testing.T) {
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	url := ns.ClientURL()
	if _, stderr, err := runCLI(t, demoEvents(), "append", "--nats", url, "--projection", filepath.Join(t.TempDir(), "a.db")); err != nil {
		t.Fatalf("append: %v\n%s", err, stderr)
	}
	cwd := t.TempDir()
	if _, stderr, err := runCLI(t, "", "demo", "--data", filepath.Join(cwd, "ledger-data")); err != nil {
		t.Fatalf("demo: %v\n%s", err, stderr)
	}
	t.Chdir(cwd)
	out, stderr, err := runCLI(t, "", "verify", "--nats", url)
	if err != nil || strings.Contains(out, "projection") {
		t.Errorf("verify --nats: %v\n%s%s", err, out, stderr)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
