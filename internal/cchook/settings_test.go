package cchook

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

const testCommand = "'/usr/local/bin/ledger' hook claude-code --nats nats://127.0.0.1:4222"

// TestInstallFixtures merges the block into real-looking settings files and
// compares the bytes with golden files; then checks that installing again
// changes nothing and that uninstalling gives back the original bytes
// (for a file that held no ledger handler before).
func TestInstallFixtures(t *testing.T) {
	blk := CommandBlock(testCommand, 10)
	for _, name := range []string{"user", "tabs", "compact", "empty-object", "stale", "missing"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "settings", name+".json"))
			if err != nil && name != "missing" {
				t.Fatal(err)
			}
			got, ch, err := Install(src, blk)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "settings", name+".installed"), got)
			if !json.Valid(got) {
				t.Fatalf("installed settings are not JSON:\n%s", got)
			}
			if !ch.Changed() {
				t.Fatal("install reported no change")
			}
			checkBlock(t, got, blk)
			again, ch2, err := Install(got, blk)
			if err != nil || !bytes.Equal(again, got) || ch2.Changed() {
				t.Fatalf("second install changed the file (%v, %+v):\n%s", err, ch2, again)
			}
			back, ch3, err := Uninstall(got)
			if err != nil {
				t.Fatal(err)
			}
			if !ch3.Changed() {
				t.Fatal("uninstall reported no change")
			}
			if name == "stale" || name == "missing" || name == "tabs" {
				// stale held ledger handlers before; missing had no file;
				// tabs had an empty "hooks", which an uninstall that
				// empties it removes.
				golden(t, filepath.Join("testdata", "settings", name+".uninstalled"), back)
			} else if !bytes.Equal(back, src) {
				t.Fatalf("uninstall did not give back the original bytes:\n--- got\n%s\n--- want\n%s", back, src)
			}
			if again, ch4, err := Uninstall(back); err != nil || !bytes.Equal(again, back) || ch4.Changed() {
				t.Fatalf("second uninstall changed the file (%v, %+v)", err, ch4)
			}
		})
	}
}

// checkBlock decodes installed settings and checks that every event of the
// block holds exactly one ledger handler, the one wanted.
func checkBlock(t *testing.T, src []byte, blk []EventGroup) {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		t.Fatal(err)
	}
	for _, eg := range blk {
		var own []map[string]any
		for _, g := range s.Hooks[eg.Event] {
			for _, h := range g.Hooks {
				if Own(h) {
					if g.Matcher != eg.Group.Matcher {
						t.Errorf("%s: matcher %q, want %q", eg.Event, g.Matcher, eg.Group.Matcher)
					}
					own = append(own, h)
				}
			}
		}
		b, _ := json.Marshal(eg.Group.Hooks[0])
		var want map[string]any
		_ = json.Unmarshal(b, &want)
		if len(own) != 1 || !reflect.DeepEqual(own[0], want) {
			t.Errorf("%s: ledger handlers %v, want exactly %v", eg.Event, own, want)
		}
	}
}

// TestInstallKeepsOthers checks that handlers that are not the ledger's
// survive an install and an uninstall, byte for byte, even in the same
// group as a stale ledger handler.
func TestInstallKeepsOthers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "settings", "stale.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Install(src, CommandBlock(testCommand, 10))
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{`"command": "echo mine"`, `"outputStyle": "Explanatory"`} {
		if !bytes.Contains(got, []byte(keep)) {
			t.Errorf("install dropped %s", keep)
		}
	}
	for _, gone := range []string{"/old/path/ledger", "9999"} {
		if bytes.Contains(got, []byte(gone)) {
			t.Errorf("install kept the stale %s", gone)
		}
	}
}

func TestInstallHTTPBlock(t *testing.T) {
	blk := HTTPBlock("http://127.0.0.1:8787"+HTTPPath, "$LEDGER_HOOKS_TOKEN", 10)
	got, _, err := Install([]byte("{}\n"), blk)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte(SessionStart)) {
		t.Error("the HTTP block installs SessionStart, which Claude Code 2.1.328 never sends to HTTP hooks")
	}
	checkBlock(t, got, blk)
	var parsed struct {
		Hooks map[string][]Group `json:"hooks"`
	}
	if err := json.Unmarshal(got, &parsed); err != nil {
		t.Fatal(err)
	}
	for ev, groups := range parsed.Hooks {
		e := groups[0].Hooks[0]
		if e.Headers["Authorization"] != "Bearer $LEDGER_HOOKS_TOKEN" || len(e.AllowedEnvVars) != 1 || e.AllowedEnvVars[0] != "LEDGER_HOOKS_TOKEN" {
			t.Errorf("%s: headers %v, allowedEnvVars %v", ev, e.Headers, e.AllowedEnvVars)
		}
		if want := map[bool]string{true: FailClosed}[ev == PreToolUse]; e.OnFailure != want {
			t.Errorf("%s: onFailure %q, want %q (only a call fails closed)", ev, e.OnFailure, want)
		}
	}
	back, _, err := Uninstall(got)
	if err != nil || string(back) != "{}\n" {
		t.Fatalf("uninstall: %v %q", err, back)
	}
}

func TestInstallRefusals(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{`{"a": 1,}`, "not valid JSON: line 1"},
		{`[1]`, "must be a JSON object"},
		{`{"hooks": []}`, `"hooks" must be an object`},
		{`{"hooks": {"PreToolUse": {}}}`, `"hooks.PreToolUse" must be a list`},
		{`{"hooks": {}, "hooks": {}}`, `"hooks" is written twice`},
	} {
		_, _, err := Install([]byte(tt.src), CommandBlock(testCommand, 10))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestOwn(t *testing.T) {
	for _, tt := range []struct {
		h    map[string]any
		want bool
	}{
		{map[string]any{"type": "command", "command": "ledger hook claude-code"}, true},
		{map[string]any{"type": "command", "command": "'/opt/x y/ledger' hook claude-code --unreachable allow"}, true},
		{map[string]any{"type": "command", "command": "ledger hook claude-codex"}, false},
		{map[string]any{"type": "command", "command": "echo hook claude"}, false},
		{map[string]any{"type": "http", "url": "http://127.0.0.1:1/hooks/claude-code"}, true},
		{map[string]any{"type": "http", "url": "http://127.0.0.1:1/other"}, false},
		{map[string]any{"type": "prompt", "prompt": "hook claude-code"}, false},
		{map[string]any{"type": "command", "command": "ledger-hook"}, true},
		{map[string]any{"type": "command", "command": "/usr/local/bin/ledger-hook --nats nats://h:4222"}, true},
		{map[string]any{"type": "command", "command": "'/opt/x y/ledger-hook' --unreachable allow"}, true},
		{map[string]any{"type": "command", "command": `"/opt/x y/ledger-hook" --verbose`}, true},
		{map[string]any{"type": "command", "command": `/opt/x\ y/ledger-hook`}, true},
		{map[string]any{"type": "command", "command": "'/opt/it'\\''s/ledger-hook'"}, true},
		{map[string]any{"type": "command", "command": "ledger-hooks --nats x"}, false},
		{map[string]any{"type": "command", "command": "/opt/ledger-hook-old"}, false},
		{map[string]any{"type": "command", "command": "echo ledger-hook"}, false},
		{map[string]any{"type": "command", "command": "'/opt/unterminated/ledger-hook"}, false},
	} {
		if got := Own(tt.h); got != tt.want {
			t.Errorf("Own(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

const slimCommand = "'/usr/local/bin/ledger-hook' --nats nats://127.0.0.1:4222"

// TestInstallSlimBinary: the slim binary's block replaces the ledger's
// `hook claude-code` handlers (and back), byte for byte, and uninstalls
// to the original file: both commands are the ledger's own.
func TestInstallSlimBinary(t *testing.T) {
	dir := filepath.Join("testdata", "settings")
	orig, err := os.ReadFile(filepath.Join(dir, "user.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(filepath.Join(dir, "user.installed"))
	if err != nil {
		t.Fatal(err)
	}
	slim := CommandBlock(slimCommand, 10)
	got, ch, err := Install(full, slim)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join(dir, "user.slim.installed"), got)
	if added := slices.Sorted(slices.Values(ch.Added)); !reflect.DeepEqual(added, slices.Sorted(slices.Values(InstallEvents))) || len(ch.Removed) != 0 {
		t.Errorf("change %+v, want every event replaced", ch)
	}
	checkBlock(t, got, slim)
	if bytes.Contains(got, []byte("hook claude-code")) {
		t.Error("the ledger's old handlers survive the slim install")
	}
	if again, ch, err := Install(got, slim); err != nil || !bytes.Equal(again, got) || ch.Changed() {
		t.Fatalf("second install changed the file (%v, %+v)", err, ch)
	}
	if back, _, err := Install(got, CommandBlock(testCommand, 10)); err != nil || !bytes.Equal(back, full) {
		t.Fatalf("installing the ledger's command again: %v\n%s", err, back)
	}
	if back, _, err := Uninstall(got); err != nil || !bytes.Equal(back, orig) {
		t.Fatalf("uninstall did not give back the original bytes: %v\n%s", err, back)
	}
	// A fresh file gets the slim block directly, the same bytes.
	if fresh, _, err := Install(orig, slim); err != nil || !bytes.Equal(fresh, got) {
		t.Fatalf("fresh slim install differs: %v\n%s", err, fresh)
	}
}

const thinStart = "'/usr/local/bin/ledger-hook' --hooks http://127.0.0.1:8787/hooks/claude-code --token-file /home/dev/.config/ledger/hooks-token"

// TestInstallHTTPStart: `hook install --url`'s block, HTTP hooks and the
// thin command hook for SessionStart, merged into the fixtures: golden
// bytes (NAME.http.installed), a second install changes nothing, the
// uninstall gives back the original bytes (or the fixture's .uninstalled),
// and it replaces the command block installed before (and back) with
// every event's handler the wanted one.
func TestInstallHTTPStart(t *testing.T) {
	blk := HTTPBlockWith("http://127.0.0.1:8787"+HTTPPath, "0123456789abcdef0123", 10, thinStart)
	if blk[0].Event != SessionStart || blk[0].Group.Hooks[0].Type != "command" || len(blk) != len(InstallEvents) {
		t.Fatalf("block %+v", blk)
	}
	for _, name := range []string{"user", "tabs", "compact", "stale", "missing"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "settings")
			src, err := os.ReadFile(filepath.Join(dir, name+".json"))
			if err != nil && name != "missing" {
				t.Fatal(err)
			}
			got, ch, err := Install(src, blk)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, name+".http.installed"), got)
			if !json.Valid(got) || !ch.Changed() {
				t.Fatalf("changed %v:\n%s", ch.Changed(), got)
			}
			checkBlock(t, got, blk)
			if again, ch, err := Install(got, blk); err != nil || !bytes.Equal(again, got) || ch.Changed() {
				t.Fatalf("second install changed the file (%v, %+v)", err, ch)
			}
			back, _, err := Uninstall(got)
			if err != nil {
				t.Fatal(err)
			}
			if name == "stale" || name == "missing" || name == "tabs" {
				golden(t, filepath.Join(dir, name+".uninstalled"), back)
			} else if !bytes.Equal(back, src) {
				t.Fatalf("uninstall did not give back the original bytes:\n%s", back)
			}
			// From the command block and back.
			cmd, _, err := Install(src, CommandBlock(testCommand, 10))
			if err != nil {
				t.Fatal(err)
			}
			over, _, err := Install(cmd, blk)
			if err != nil {
				t.Fatal(err)
			}
			checkBlock(t, over, blk)
			if bytes.Contains(over, []byte("hook claude-code")) {
				t.Errorf("the command handlers survive the --url install:\n%s", over)
			}
			if back, _, err := Install(over, CommandBlock(testCommand, 10)); err != nil || !bytes.Equal(back, cmd) {
				t.Errorf("the command block over the --url block: %v\n%s", err, back)
			}
		})
	}
}
