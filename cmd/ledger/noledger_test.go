package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// readCommands are the commands that only read a ledger: pointed at a
// place that holds none, they refuse rather than answer from an empty one
// they made.
var readCommands = [][]string{
	{"verify"}, {"tree"}, {"log"}, {"export"}, {"report", "--html", "-"},
	{"tools", "--session", "s"}, {"check", "--session", "s", "--tool", "read"},
	{"why", "--session", "s", "--tool", "read"}, {"session", "--session", "s"},
	{"replay", "--out", "{tmp}/r.db"}, {"replay", "--policy", "{tmp}/p.json"},
}

func TestReadCommandsRefuseAMissingLedger(t *testing.T) {
	for _, args := range readCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			tmp := t.TempDir()
			writePolicyFile(t, tmp)
			typo := filepath.Join(tmp, "ledger-dta")
			full := []string{args[0], "--data", typo}
			for _, a := range args[1:] {
				full = append(full, strings.ReplaceAll(a, "{tmp}", tmp))
			}
			out, _, err := runCLI(t, "", full...)
			var msg strings.Builder
			code := exitCode(err, &msg)
			want := "ledger: no ledger in " + typo + ": " + filepath.Join(typo, "nats") + " does not exist; create one with: ledger serve --data " + shellquote.Word(typo)
			if code != 2 || !strings.HasPrefix(msg.String(), want) || out != "" {
				t.Fatalf("exit %d, %q, stdout %q; want exit 2 and %q", code, msg.String(), out, want)
			}
			if _, err := os.Stat(typo); !os.IsNotExist(err) {
				t.Fatalf("%s was created (%v)", typo, err)
			}
		})
	}
}

// TestReadCommandsOverNATSCreateNothing: against a NATS server, a read
// command refuses a server without the ledger's stream (and does not
// create it), and with --projection it creates no ./ledger-data.
func TestReadCommandsOverNATSCreateNothing(t *testing.T) {
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	url := ns.ClientURL()
	cwd := t.TempDir()
	t.Chdir(cwd)
	for _, args := range readCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			tmp := t.TempDir()
			writePolicyFile(t, tmp)
			full := []string{args[0], "--nats", url, "--projection", filepath.Join(tmp, "p.db")}
			for _, a := range args[1:] {
				full = append(full, strings.ReplaceAll(a, "{tmp}", tmp))
			}
			_, _, err := runCLI(t, "", full...)
			var msg strings.Builder
			code := exitCode(err, &msg)
			want := "ledger: no ledger at " + url + ": the server has no stream LEDGER; create one with: ledger serve --nats " + url
			if code != 2 || !strings.HasPrefix(msg.String(), want) {
				t.Fatalf("exit %d, %q; want exit 2 and %q", code, msg.String(), want)
			}
		})
	}
	// Now with a ledger on the server: a query with --projection leaves
	// nothing in the working directory, nor does one without it.
	if out, errOut, err := runCLI(t, demoEvents(), "append", "--nats", url, "--projection", filepath.Join(t.TempDir(), "a.db")); err != nil {
		t.Fatalf("append: %#v\n%s%s", err, out, errOut)
	}
	for _, extra := range [][]string{{"--projection", filepath.Join(t.TempDir(), "p.db")}, nil} {
		args := append([]string{"tools", "--nats", url, "--session", demoMain}, extra...)
		if out, errOut, err := runCLI(t, "", args...); err != nil || !strings.Contains(out, "allowed:") {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
		}
	}
	if left, _ := os.ReadDir(cwd); len(left) > 0 {
		t.Fatalf("the working directory holds %v", left)
	}
}

// demoEvents is the demo's first steps as JSON lines (policy, grant, the
// main session and its first turn).
func demoEvents() string {
	var b strings.Builder
	for _, st := range demoSteps()[:4] {
		var line bytes.Buffer
		if err := json.Compact(&line, []byte(st.event)); err != nil {
			panic(err)
		}
		b.WriteString(line.String() + "\n")
	}
	return b.String()
}

// writePolicyFile writes the candidate policy {tmp}/p.json the what-if
// rows name.
func writePolicyFile(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "p.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
}
