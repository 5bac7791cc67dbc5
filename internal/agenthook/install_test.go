package agenthook

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the install goldens")

// TestInstallGolden: installing writes the ledger's handlers and touches
// no other byte (testdata/install/NAME.installed), installing again
// changes nothing, and uninstalling a file that had none of the ledger's
// handlers restores its bytes; a stale ledger handler (another command
// line) is replaced, and uninstalling it leaves what the user had.
func TestInstallGolden(t *testing.T) {
	const cmd = "/usr/local/bin/ledger hook %s --nats nats://127.0.0.1:4222 --scope proj"
	names, _ := filepath.Glob("testdata/install/*.json")
	names = append(names, "testdata/install/codex-missing.json", "testdata/install/gemini-missing.json", "testdata/install/qwen-missing.json")
	for _, name := range names {
		base := strings.TrimSuffix(filepath.Base(name), ".json")
		t.Run(base, func(t *testing.T) {
			rt := Codex
			switch {
			case strings.HasPrefix(base, "gemini"):
				rt = Gemini
			case strings.HasPrefix(base, "qwen"):
				rt = Qwen
			}
			src, _ := os.ReadFile(name)
			out, ch, err := rt.Install(src, strings.Replace(cmd, "%s", rt.Command, 1), 10)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("installed file is not JSON: %v\n%s", err, out)
			}
			golden := strings.TrimSuffix(name, ".json") + ".installed"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("installed:\n%s\nwant:\n%s", out, want)
			}
			if len(ch.Added) != len(rt.Events()) {
				t.Errorf("added %v, want every event of %v", ch.Added, rt.Events())
			}
			again, ch2, err := rt.Install(out, strings.Replace(cmd, "%s", rt.Command, 1), 10)
			if err != nil || !bytes.Equal(again, out) || ch2.Changed() {
				t.Errorf("installing twice changed the file (%v, %v)", ch2, err)
			}
			back, _, err := rt.Uninstall(out)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(base, "stale") {
				if bytes.Contains(back, []byte("hook "+rt.Command)) {
					t.Errorf("uninstall left a ledger handler:\n%s", back)
				}
				return
			}
			if strings.Contains(base, "missing") {
				// A file the install made is left as an empty object, as
				// Claude Code's settings are (cchook's missing.uninstalled).
				src = []byte("{}\n")
			}
			if !bytes.Equal(back, src) {
				t.Errorf("uninstall did not restore the bytes:\n%s\nwant:\n%s", back, src)
			}
		})
	}
}

// TestOwn: only the runtime's own ledger command is the ledger's.
func TestOwn(t *testing.T) {
	for _, tc := range []struct {
		rt   Runtime
		cmd  string
		want bool
	}{
		{Codex, "ledger hook codex --nats x", true},
		{Codex, "'/opt/ledger' hook codex", true},
		{Codex, "ledger hook claude-code", false},
		{Codex, "ledger hook gemini", false},
		{Gemini, "ledger hook gemini", true},
		{Gemini, "ledger hook geminix", false},
		{Gemini, "./audit.sh", false},
		{Qwen, "/usr/local/bin/ledger hook qwen --nats x", true},
		{Qwen, "ledger hook qwen-code", false},
		{Qwen, "ledger hook codex", false},
	} {
		if got := tc.rt.Own(map[string]any{"type": "command", "command": tc.cmd}); got != tc.want {
			t.Errorf("%s Own(%q) = %v", tc.rt.Name, tc.cmd, got)
		}
	}
}
