package cchook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
)

// TestImportCache: the same project files are imported once, and their
// document served from the cache after (in memory, and from the cache
// directory to another process); a changed file is imported again; a
// cache entry that does not read is imported again, never an error.
// Issue 24, point 2: every prompt of a session re-imported the project.
func TestImportCache(t *testing.T) {
	project, cacheDir := t.TempDir(), t.TempDir()
	settings := filepath.Join(project, ".claude", "settings.json")
	write := func(s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settings, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"permissions":{"deny":["Bash(rm *)"]}}`)
	opt := ccimport.ClaudeCodeOptions{}
	imp := ImportProject(project, "", opt, &ImportCache{Dir: cacheDir})
	first, err := imp(project)
	if err != nil || !strings.Contains(string(first), "Bash(rm *)") {
		t.Fatalf("%s %v", first, err)
	}
	key, err := ccimport.ClaudeCodeFingerprint(project, opt)
	if err != nil {
		t.Fatal(err)
	}
	entry := (&ImportCache{Dir: cacheDir}).file(key)
	if b, err := os.ReadFile(entry); err != nil || string(b) != string(first) {
		t.Fatalf("the cache file %s: %q %v", entry, b, err)
	}
	// Another process (a new cache value) serves the file's document: an
	// entry made to differ shows it was not imported again.
	marked := `{"release":"marked"}`
	if err := os.WriteFile(entry, []byte(marked), 0o600); err != nil {
		t.Fatal(err)
	}
	if doc, err := ImportProject(project, "", opt, &ImportCache{Dir: cacheDir})(project); err != nil || string(doc) != marked {
		t.Fatalf("served %s %v, want the cached entry", doc, err)
	}
	// An entry that is not JSON is imported again.
	if err := os.WriteFile(entry, []byte(`{"cut`), 0o600); err != nil {
		t.Fatal(err)
	}
	if doc, err := ImportProject(project, "", opt, &ImportCache{Dir: cacheDir})(project); err != nil || string(doc) != string(first) {
		t.Fatalf("served %s %v, want a new import", doc, err)
	}
	// Changed bytes: a new import, under a new key.
	write(`{"permissions":{"deny":["Bash(curl *)"]}}`)
	if doc, err := imp(project); err != nil || !strings.Contains(string(doc), "Bash(curl *)") {
		t.Fatalf("after a change: %s %v", doc, err)
	}
	entries, _ := os.ReadDir(cacheDir)
	if len(entries) != 2 {
		t.Fatalf("%d cache files, want 2", len(entries))
	}
	// An import that fails (a link out of the project) is not cached.
	outside := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(outside, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, ".claude", "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if doc, err := imp(project); err == nil {
		t.Fatalf("a broken file imported: %s", doc)
	}
	if entries, _ := os.ReadDir(cacheDir); len(entries) != 2 {
		t.Fatalf("%d cache files after a failed import", len(entries))
	}
	var v any
	if json.Unmarshal(first, &v) != nil {
		t.Fatal("the document is not JSON")
	}
}
