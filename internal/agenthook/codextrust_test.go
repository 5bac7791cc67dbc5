package agenthook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeCodexEnv names the mode TestHelperCodexAppServer plays.
const fakeCodexEnv = "LEDGER_FAKE_CODEX_APP_SERVER"

// TestHelperCodexAppServer is not a test: run as a process by
// TestTrustCodexFake, it plays codex's app-server in the mode the
// environment names, and writes the edits it was asked for to the file
// LEDGER_FAKE_CODEX_EDITS names.
func TestHelperCodexAppServer(t *testing.T) {
	mode := os.Getenv(fakeCodexEnv)
	if mode == "" {
		t.Skip("a helper process of TestTrustCodexFake")
	}
	project := os.Getenv("LEDGER_FAKE_CODEX_PROJECT")
	file := filepath.Join(project, ".codex", "hooks.json")
	if mode == "dies" {
		fmt.Fprintln(os.Stderr, "boom: no config")
		os.Exit(1)
	}
	lists := 0
	hooks := func() []map[string]any {
		lists++
		trusted := mode == "already" || (mode != "still" && lists > 1)
		status := map[bool]string{true: "trusted", false: "untrusted"}[trusted]
		if mode == "project-untrusted" {
			return []map[string]any{}
		}
		h := []map[string]any{
			{"key": file + ":pre_tool_use:0:0", "handlerType": "command", "command": "/usr/bin/ledger hook codex --scope s", "sourcePath": file, "enabled": true, "currentHash": "sha256:aa", "trustStatus": status},
			{"key": file + ":pre_tool_use:1:0", "handlerType": "command", "command": "./lint.sh", "sourcePath": file, "enabled": true, "currentHash": "sha256:bb", "trustStatus": "untrusted"},
			{"key": "/home/u/.codex/hooks.json:pre_tool_use:0:0", "handlerType": "command", "command": "ledger hook codex", "sourcePath": "/home/u/.codex/hooks.json", "enabled": true, "currentHash": "sha256:cc", "trustStatus": "untrusted"},
			{"key": file + ":session_start:0:0", "handlerType": "command", "command": "ledger-hook --runtime codex --hooks unix:/run/l.sock", "sourcePath": file, "enabled": mode != "disabled", "currentHash": "sha256:dd", "trustStatus": status},
		}
		return h
	}
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			t.Fatalf("fake codex: %v", err)
		}
		if req.ID == nil {
			continue
		}
		// A notification first, as codex sends them between answers.
		_ = out.Encode(map[string]any{"method": "configWarning", "params": map[string]any{"summary": "no bubblewrap"}})
		switch req.Method {
		case "initialize":
			_ = out.Encode(map[string]any{"id": *req.ID, "result": map[string]any{"userAgent": "fake"}})
		case "hooks/list":
			_ = out.Encode(map[string]any{"id": *req.ID, "result": map[string]any{"data": []any{
				map[string]any{"cwd": project, "hooks": hooks(), "warnings": []any{}, "errors": []any{}}}}})
		case "config/batchWrite":
			if mode == "refuse" || mode == "already" {
				_ = out.Encode(map[string]any{"id": *req.ID, "error": map[string]any{"code": -32600, "message": "config is read-only"}})
				continue
			}
			if err := os.WriteFile(os.Getenv("LEDGER_FAKE_CODEX_EDITS"), req.Params, 0o644); err != nil {
				t.Fatal(err)
			}
			_ = out.Encode(map[string]any{"id": *req.ID, "result": map[string]any{"status": "ok", "filePath": "/home/u/.codex/config.toml"}})
		}
	}
	os.Exit(0)
}

// TestTrustCodexFake: TrustCodex against a fake app-server, for what the
// real one (TestCodexTrustedInstall in tests/agentcli) cannot be made to
// do: it trusts exactly the ledger's handlers in the project's file (not
// another hook of that file, not a ledger hook of another layer), with
// the hash codex listed, in one upsert of hooks.state; it writes nothing
// when they are trusted already; and it refuses, saying what to do, when
// codex lists none of them, lists one disabled, refuses the write, still
// lists one untrusted after it, or dies.
func TestTrustCodexFake(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	codex := filepath.Join(dir, "codex")
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1\" = app-server ] || exit 9\nexec %q -test.run='^TestHelperCodexAppServer$'\n", exe)
	if err := os.WriteFile(codex, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	file := filepath.Join(project, ".codex", "hooks.json")
	run := func(mode string) (CodexTrust, map[string]any, error) {
		edits := filepath.Join(t.TempDir(), "edits.json")
		env := []string{"PATH=" + os.Getenv("PATH"), fakeCodexEnv + "=" + mode, "LEDGER_FAKE_CODEX_PROJECT=" + project, "LEDGER_FAKE_CODEX_EDITS=" + edits}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := TrustCodex(ctx, codex, env, project)
		var wrote map[string]any
		if b, rerr := os.ReadFile(edits); rerr == nil {
			if err := json.Unmarshal(b, &wrote); err != nil {
				t.Fatal(err)
			}
		}
		return res, wrote, err
	}

	res, wrote, err := run("ok")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{file + ":pre_tool_use:0:0", file + ":session_start:0:0"}
	if !reflect.DeepEqual(res.Trusted, want) || len(res.Already) != 0 || res.ConfigFile != "/home/u/.codex/config.toml" {
		t.Errorf("trusted %v, already %v, file %q; want %v", res.Trusted, res.Already, res.ConfigFile, want)
	}
	wantEdits := map[string]any{"edits": []any{map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": map[string]any{
		want[0]: map[string]any{"trusted_hash": "sha256:aa"},
		want[1]: map[string]any{"trusted_hash": "sha256:dd"},
	}}}}
	if !reflect.DeepEqual(wrote, wantEdits) {
		t.Errorf("edits sent: %v\nwant %v", wrote, wantEdits)
	}

	res, wrote, err = run("already")
	if err != nil || len(res.Trusted) != 0 || !reflect.DeepEqual(res.Already, want) || wrote != nil {
		t.Errorf("already trusted: %+v, wrote %v, err %v", res, wrote, err)
	}

	for mode, words := range map[string][]string{
		"project-untrusted": {"codex lists no ledger hook in " + file, "trust_level = \"trusted\"", "trust " + project},
		"disabled":          {"session_start:0:0 as disabled", "enable it"},
		"refuse":            {"refused config/batchWrite", "config is read-only"},
		"still":             {"still lists the ledger's hook", "untrusted"},
		"dies":              {"ended before it answered initialize", "boom: no config"},
	} {
		_, _, err := run(mode)
		if err == nil {
			t.Errorf("%s: no error", mode)
			continue
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", mode, err, w)
			}
		}
	}
}
