package cchook

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/sessionledger/ledger/internal/safefile"
)

// ImportCache keeps imported policy documents under the fingerprint of the
// files they were imported from (importer.ClaudeCodeFingerprint), so that a
// project is parsed once for the same bytes: a hook is a process per event,
// and every SessionStart and prompt imports. It keeps the documents in
// memory (for a long-lived `serve --hooks`) and, when Dir is set, one file
// per fingerprint there (for the command hook's processes).
//
// Invariants (TestImportCache): a document is served only under the
// fingerprint of the bytes it was made from, and only if it is one JSON
// value; an entry that does not read is an import to make again, never an
// error. A cache file is the user's, as the project's settings are: the
// agent can write both, and docs/claude-code-hooks.md says so.
type ImportCache struct {
	// Dir holds one file per fingerprint; "" keeps documents in memory
	// only.
	Dir string

	mu  sync.Mutex
	mem map[[32]byte]json.RawMessage
}

// The bounds of the cache: a document is about as large as the settings it
// came from (at most the import's 32 MiB); memory keeps the last
// maxMemEntries, a directory its newest maxDirEntries.
const (
	maxCachedDoc  = 64 << 20
	maxMemEntries = 64
	maxDirEntries = 256
)

func (c *ImportCache) file(key [32]byte) string {
	return filepath.Join(c.Dir, hex.EncodeToString(key[:])+".json")
}

// Get returns the document cached under key.
func (c *ImportCache) Get(key [32]byte) (json.RawMessage, bool) {
	c.mu.Lock()
	doc, ok := c.mem[key]
	c.mu.Unlock()
	if ok || c.Dir == "" {
		return doc, ok
	}
	b, err := safefile.ReadFile(c.file(key), maxCachedDoc)
	if err != nil || !json.Valid(b) {
		return nil, false
	}
	c.remember(key, b)
	return b, true
}

// Put caches doc under key. A file that cannot be written is left out:
// the next hook imports again.
func (c *ImportCache) Put(key [32]byte, doc json.RawMessage) {
	c.remember(key, doc)
	if c.Dir == "" {
		return
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(c.Dir, ".import-*")
	if err != nil {
		return
	}
	_, werr := f.Write(doc)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), c.file(key)) != nil {
		_ = os.Remove(f.Name())
		return
	}
	c.prune()
}

func (c *ImportCache) remember(key [32]byte, doc json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem == nil {
		c.mem = map[[32]byte]json.RawMessage{}
	}
	if len(c.mem) >= maxMemEntries {
		clear(c.mem) // a cache, not a record: starting over is correct
	}
	c.mem[key] = doc
}

// prune keeps the newest maxDirEntries files of Dir.
func (c *ImportCache) prune() {
	entries, err := os.ReadDir(c.Dir)
	if err != nil || len(entries) <= maxDirEntries {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			all = append(all, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].mod > all[j].mod || all[i].mod == all[j].mod && all[i].name < all[j].name
	})
	for _, a := range all[min(len(all), maxDirEntries):] {
		_ = os.Remove(filepath.Join(c.Dir, a.name))
	}
}

// DefaultImportCacheDir is where the command hook keeps its cache: the
// user's cache directory's ledger/claude-code-import; "" when there is
// none.
func DefaultImportCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ledger", "claude-code-import")
}
