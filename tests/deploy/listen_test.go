package deploy

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
	"go.yaml.in/yaml/v3"
)

// TestImageCommandStarts runs the image's default command with the real
// binary (the data directory and the port moved to the test's own, the
// host kept): serve refuses an unauthenticated --listen on a host other
// than loopback, so a command that listens widely must say how clients
// are authenticated (--nats-config) or that they are not (--insecure).
func TestImageCommandStarts(t *testing.T) {
	root := repoRoot(t)
	var cmd []string
	for _, in := range readDockerfile(t, filepath.Join(root, dockerfileName)) {
		if in.keyword == "CMD" {
			if err := yaml.Unmarshal([]byte(in.args), &cmd); err != nil {
				t.Fatalf("%s:%d: CMD %s: %v", dockerfileName, in.line, in.args, err)
			}
		}
	}
	if len(cmd) == 0 || cmd[0] != "serve" {
		t.Fatalf("%s: CMD %q is not `serve ...`", dockerfileName, cmd)
	}
	args := append([]string{}, cmd...)
	for i := 1; i < len(args); i++ {
		switch args[i-1] {
		case "--data":
			args[i] = t.TempDir()
		case "--listen", "--metrics", "--http":
			if host, _, err := net.SplitHostPort(args[i]); err == nil {
				args[i] = net.JoinHostPort(host, "-1")
				if args[i-1] != "--listen" {
					args[i] = net.JoinHostPort(host, "0")
				}
			}
		}
	}
	bin := ledgertest.BuildLedger(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	run.Stderr = &stderr
	out, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = run.Process.Kill(); _ = run.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "ledger serving") {
			return
		}
	}
	_ = run.Wait()
	t.Fatalf("%s: CMD %q (run as %q) did not start serving:\n%s", dockerfileName, cmd, args, stderr.String())
}
