package mcpgw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestLedgerMCPCommand: the built 'ledger mcp --session' is a stdio MCP
// server an MCP client starts (as Claude Code's "command" entries do),
// talking to the ledger over NATS on loopback: the Go SDK client's
// tools/list is the ledger's tool set, a call is forwarded, a denial
// refused; its usage errors exit 2 and --help goes to stdout.
func TestLedgerMCPCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ledger binary")
	}
	bin := ledgertest.BuildLedger(t)
	f := startWith(t, apitest.Options{Listen: true})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"servers": {"t": {"command": [%q], "env": {%q: "1"}}}}`, exe, upstreamEnv), 0o644); err != nil {
		t.Fatal(err)
	}

	var stderr bytes.Buffer
	cmd := exec.Command(bin, "mcp", "--config", cfg, "--session", string(f.key), "--nats", f.l.NS.ClientURL(), "--owner", "gw")
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "command-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%v; stderr: %s", err, stderr.String())
	}
	got := listed(t, cs)
	if want := ledgerListed(t, f); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("tools/list of ledger mcp = %v, want %v", got, want)
	}
	res, err := call(t, cs, "t__echo", map[string]any{"text": "cmd"})
	if err != nil || res.IsError || resultText(res) != "echo: cmd" {
		t.Fatalf("echo = %v, %v", res, err)
	}
	res, err = call(t, cs, "t__secret", nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "denied mcp__t__secret") {
		t.Fatalf("secret = %v, %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v (stderr: %s)", err, stderr.String())
	}

	// With --start, a session the ledger does not know is started in the
	// scope derived from the config file (mcp.json: mcp:mcp; the
	// operator's policy names it), with the gateway's identity: the
	// client, the OS user (no --identity), the host.
	scopedPolicy(t, f, "mcp:mcp")
	stderr.Reset()
	cmd = exec.Command(bin, "mcp", "--config", cfg, "--session", "started-by-cmd", "--start", "main", "--nats", f.l.NS.ClientURL(), "--owner", "gw")
	cmd.Stderr = &stderr
	cs, err = c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%v; stderr: %s", err, stderr.String())
	}
	if res, err := call(t, cs, "t__echo", map[string]any{"text": "started"}); err != nil || res.IsError {
		t.Fatalf("echo in the started session = %v, %v; stderr: %s", res, err, stderr.String())
	}
	_ = cs.Close()
	wantStart := []events.StartedData{{Agent: "main", Scope: "mcp:mcp", Runtime: Runtime, RuntimeVersion: "command-test/1", User: osUser(t), Host: hostname(t)}}
	if got := startedData(t, f, "started-by-cmd"); !reflect.DeepEqual(got, wantStart) {
		t.Errorf("session.started of ledger mcp --start = %+v, want %+v", got, wantStart)
	}

	for _, u := range []struct {
		args []string
		msg  string
	}{
		{[]string{"mcp"}, "--config FILE is required"},
		{[]string{"mcp", "--config", cfg}, "--session KEY is required"},
		{[]string{"mcp", "--config", filepath.Join(t.TempDir(), "none.json"), "--session", "s"}, "no such file"},
		{[]string{"mcp", "--config", cfg, "--session", "s", "extra"}, "takes no arguments"},
		{[]string{"mcp", "--config", cfg, "--session", "s", "--scope", "a b"}, `--scope "a b": a scope is 1 to 128 of [A-Za-z0-9_:-]`},
	} {
		out, err := exec.Command(bin, u.args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), u.msg) {
			t.Errorf("ledger %s: %v, %q; want exit 2 saying %q", strings.Join(u.args, " "), err, out, u.msg)
		}
	}
	var out, errOut bytes.Buffer
	help := exec.Command(bin, "mcp", "--help")
	help.Stdout, help.Stderr = &out, &errOut
	if err := help.Run(); err != nil || !strings.Contains(out.String(), "Usage: ledger mcp") || errOut.Len() != 0 {
		t.Errorf("ledger mcp --help: %v, stdout %q, stderr %q", err, out.String(), errOut.String())
	}
}
