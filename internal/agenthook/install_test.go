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

// TestInstallThinGolden: the thin hook's command (`ledger hook install
// --runtime R --url URL`) is installed for every event as the NATS
// adapter's is (testdata/install/thin/R.installed), is the ledger's own
// (installing again changes nothing, uninstalling leaves {}), and
// replaces the adapter's command in place.
func TestInstallThinGolden(t *testing.T) {
	const thin = "/usr/local/bin/ledger-hook --runtime %s --hooks http://127.0.0.1:8787 --token-file /home/dev/.config/ledger/hooks-token"
	for _, rt := range []Runtime{Codex, Gemini, Qwen} {
		t.Run(rt.Command, func(t *testing.T) {
			cmd := strings.Replace(thin, "%s", rt.Command, 1)
			out, ch, err := rt.Install(nil, cmd, 10)
			if err != nil || len(ch.Added) != len(rt.Events()) {
				t.Fatalf("%v %v", ch, err)
			}
			golden := filepath.Join("testdata", "install", "thin", rt.Command+".installed")
			if *update {
				_ = os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(out, want) {
				t.Errorf("installed:\n%s\nwant:\n%s (%v)", out, want, err)
			}
			if again, ch, err := rt.Install(out, cmd, 10); err != nil || !bytes.Equal(again, out) || ch.Changed() {
				t.Errorf("installing twice changed the file (%v, %v)", ch, err)
			}
			if back, _, err := rt.Uninstall(out); err != nil || string(back) != "{}\n" {
				t.Errorf("uninstalled: %s %v", back, err)
			}
			nats, _, _ := rt.Install(nil, "ledger hook "+rt.Command+" --nats nats://127.0.0.1:4222", 10)
			if swapped, _, err := rt.Install(nats, cmd, 10); err != nil || !bytes.Equal(swapped, out) {
				t.Errorf("the thin hook over the adapter:\n%s\nwant:\n%s (%v)", swapped, out, err)
			}
		})
	}
}

// TestInstallThinOwn: the thin hook of the runtime is the ledger's, the
// thin hook of another runtime (or of Claude Code) is not.
func TestInstallThinOwn(t *testing.T) {
	for _, tc := range []struct {
		rt   Runtime
		cmd  string
		want bool
	}{
		{Codex, "ledger-hook --runtime codex --hooks http://h:1", true},
		{Codex, "'/opt/ledger-hook' --hooks unix:/s --runtime=codex", true},
		{Codex, "ledger-hook --runtime gemini --hooks http://h:1", false},
		{Codex, "ledger-hook --hooks http://h:1", false},
		{Codex, "other --runtime codex", false},
		{Qwen, "ledger-hook --runtime qwen --hooks unix:/s", true},
		{Gemini, "ledger-hook --runtime gemini --hooks=unix:/s", true},
	} {
		if got := tc.rt.Own(map[string]any{"type": "command", "command": tc.cmd}); got != tc.want {
			t.Errorf("%s Own(%q) = %v", tc.rt.Name, tc.cmd, got)
		}
	}
}
