package openclawplugintest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadWith loads the plugin with OpenClaw's loader (hookrunner.mjs, no
// steps) with cfg as its whole config and env in place of the
// installation's own LEDGER_NPM_DIR, and returns the load answer: status,
// error and the typed hooks the plugin registered.
func loadWith(t *testing.T, cfg map[string]any, npmDir string) Answer {
	t.Helper()
	oc := New(t)
	var env []string
	for _, e := range oc.env {
		if !strings.HasPrefix(e, "LEDGER_NPM_DIR=") {
			env = append(env, e)
		}
	}
	// hookrunner.mjs finds OpenClaw itself through LEDGER_OPENCLAW_DIR,
	// so the plugin alone is left without LEDGER_NPM_DIR.
	env = append(env, "LEDGER_OPENCLAW_DIR="+PackageDir())
	if npmDir != "" {
		env = append(env, "LEDGER_NPM_DIR="+npmDir)
	}
	oc.env = env
	in, err := json.Marshal(map[string]any{"plugin": cfg, "workspace": oc.Workspace, "steps": []Step{}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(oc.Dir, "answers.jsonl")
	_, logs := oc.Script(t, in, filepath.Join(Root(), "internal", "openclawplugintest", "hookrunner.mjs"), file)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	if !sc.Scan() {
		t.Fatalf("hookrunner gave no load answer\n%s", logs)
	}
	var a Answer
	if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.Result == nil {
		t.Fatalf("hookrunner load answer %q: %v\n%s", sc.Text(), err, logs)
	}
	return a
}

// TestNATSModuleMissing (issue 26, point 5): without the nats package the
// plugin fails at load, in OpenClaw's own loader, registering no hook
// (so nothing later blocks every call), and its message names the fix;
// then each fix the message names is applied and the plugin loads.
func TestNATSModuleMissing(t *testing.T) {
	Require(t)
	missing := filepath.Join(t.TempDir(), "no-such", "nats")
	for _, tc := range []struct {
		name   string
		cfg    map[string]any
		npmDir string
		want   []string // in the error
	}{
		{"natsModule names no package", map[string]any{"natsModule": missing},
			"", []string{"not loaded", missing, "plugins.entries.session-ledger.config.natsModule", "tools/npm/node_modules/nats"}},
		{"no natsModule and no LEDGER_NPM_DIR", map[string]any{},
			"", []string{"not loaded", "natsModule", "LEDGER_NPM_DIR", "restart the gateway"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := loadWith(t, tc.cfg, tc.npmDir)
			if a.Result.Status != "error" || a.Result.Error == nil {
				t.Fatalf("OpenClaw's load of the plugin: status %q, error %v; want status error", a.Result.Status, a.Result.Error)
			}
			t.Logf("OpenClaw's load error: %s", *a.Result.Error)
			for _, w := range tc.want {
				if !strings.Contains(*a.Result.Error, w) {
					t.Errorf("the load error does not say %q:\n%s", w, *a.Result.Error)
				}
			}
			if len(a.Result.Hooks) != 0 {
				t.Errorf("a plugin that failed at load left hooks registered: %v", a.Result.Hooks)
			}
		})
	}
	// The fixes, as the message prints them.
	for _, tc := range []struct {
		name   string
		cfg    map[string]any
		npmDir string
	}{
		{"natsModule set to the installed package", map[string]any{"natsModule": NATSModule()}, ""},
		{"LEDGER_NPM_DIR set", map[string]any{}, NPMDir()},
	} {
		t.Run("fixed: "+tc.name, func(t *testing.T) {
			t.Parallel()
			a := loadWith(t, tc.cfg, tc.npmDir)
			if a.Result.Status != "loaded" || !slices.Contains(a.Result.Hooks, "before_tool_call") {
				t.Fatalf("after the fix, OpenClaw's load of the plugin: status %q, error %v, hooks %v; want loaded with before_tool_call",
					a.Result.Status, a.Result.Error, a.Result.Hooks)
			}
		})
	}
}
